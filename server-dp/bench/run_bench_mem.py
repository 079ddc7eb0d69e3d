#!/usr/bin/env python3
"""make bench-mem: bng-dp's memory per session and the largest capacity within a budget.

Runs build/bench/bench_mem (bench_mem.c: an instance built by app_init() as bng-dp builds
it, each per-session part also built alone, then N sessions installed) for each scheduler,
queue size and session count, and prints its JSON line with the bytes per session added.
Then, per scheduler and queue size, finds by bisection (multiples of 1024) the largest
session capacity whose instance takes at most --budget-mib (DPDK heap + C heap), and
prints it as one more JSON line.

usage: run_bench_mem.py [--build DIR] [--sessions N ...] [--qsize Q ...] [--hqos NAME ...]
                        [--budget-mib MIB]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EAL = ["--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "--log-level=error"]
MAX_SESSIONS = 1 << 20  # bng-dp's --sessions limit (main.c MAX_SESSIONS)


def run(build: Path, n: int, qsize: int, hqos: str, install: bool) -> dict:
    # EAL memory: enough for the largest configuration (anonymous memory, touched only
    # where allocated); 12 KiB a session at qsize 64 plus the fixed part, with room.
    mem_mb = 512 + n * (qsize * 160 + 4096) // (1 << 20)
    cmd = [str(build / "bench" / "bench_mem"), *EAL, "-m", str(mem_mb), "--"]
    cmd += ["--sessions", str(n), "--qsize", str(qsize), "--hqos", hqos]
    if not install:
        cmd.append("--no-install")
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    try:
        r = json.loads(lines[-1])
    except (IndexError, ValueError):
        r = {}
    if p.returncode != 0 or "total" not in r:
        why = (p.stderr.strip() or p.stdout.strip())[-300:]
        return {"bench": "mem", "sessions": n, "qsize": qsize, "hqos": hqos, "error": why, "rc": p.returncode}
    return r


def per_session(r: dict) -> dict:
    n = r["sessions"]
    out = {k: round((v["dpdk"] + v["libc"]) / n, 1) for k, v in r.get("parts", {}).items()}
    out["all_parts"] = round(sum(out.values()), 1)
    if "total" in r:
        out["total_incl_fixed"] = round(r["total"]["all"] / n, 1)
    return out


def fits(build: Path, n: int, qsize: int, hqos: str, budget: int) -> tuple[bool, dict]:
    r = run(build, n, qsize, hqos, install=False)
    return ("total" in r and r["total"]["all"] <= budget), r


def largest(build: Path, qsize: int, hqos: str, budget: int, points: list[dict]) -> dict:
    """Bisection between 0.85 and 1.15 times the linear estimate from the measured points
    (each end checked, widened when it is not on its side), in multiples of 1024."""
    pts = sorted(points, key=lambda r: r["sessions"])
    a, b = pts[0], pts[-1]
    slope = (b["total"]["all"] - a["total"]["all"]) / max(1, b["sessions"] - a["sessions"])
    if slope <= 0:
        slope = a["total"]["all"] / a["sessions"]
    est = (budget - (a["total"]["all"] - slope * a["sessions"])) / slope
    cap = MAX_SESSIONS // 1024
    lo, hi = max(0, int(est * 0.85) // 1024), min(cap + 1, int(est * 1.15) // 1024 + 1)
    best = None
    while lo > 0 and not (ok := fits(build, lo * 1024, qsize, hqos, budget))[0]:
        lo, hi = lo // 2, lo
    if lo > 0:
        best = ok[1]
    while hi <= cap and fits(build, hi * 1024, qsize, hqos, budget)[0]:
        lo, hi = hi, min(cap + 1, hi * 2)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ok = fits(build, mid * 1024, qsize, hqos, budget)
        if ok[0]:
            lo, best = mid, ok[1]
        else:
            hi = mid
    line = {"bench": "mem_max", "hqos": hqos, "qsize": qsize, "budget_bytes": budget}
    line |= {"estimate": int(est), "max_sessions": lo * 1024}
    if best is not None:
        line["total_bytes"] = best["total"]["all"]
        line["hqos_bytes"] = best["hqos_memory_bytes"]
    if lo >= cap:
        line["limited_by"] = f"bng-dp --sessions at most {MAX_SESSIONS}"
    return line


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, default=HERE.parent / "build")
    ap.add_argument("--sessions", type=int, nargs="+", default=[65536, 262144])
    ap.add_argument("--qsize", type=int, nargs="+", default=[64, 16])
    ap.add_argument("--hqos", nargs="+", default=["hsched", "rte_sched"])
    ap.add_argument("--budget-mib", type=int, default=2048)
    ap.add_argument("--no-max", action="store_true", help="skip the search for the largest capacity")
    args = ap.parse_args(argv)
    budget = args.budget_mib << 20
    print(json.dumps({"bench": "mem_conditions", "load_average": os.getloadavg()[0], "eal": EAL}), flush=True)
    failed = False
    for hqos in args.hqos:
        for q in args.qsize:
            points = []
            for n in args.sessions:
                r = run(args.build, n, q, hqos, install=True)
                if "total" in r:
                    r["per_session"] = per_session(r)
                    r["fits_budget"] = r["total"]["all"] <= budget
                    points.append(r)
                else:
                    failed = True
                print(json.dumps(r), flush=True)
            if points and not args.no_max:
                print(json.dumps(largest(args.build, q, hqos, budget, points)), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
