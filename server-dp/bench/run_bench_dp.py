#!/usr/bin/env python3
"""The bng-dp half of `make bench-dp`: bench_dp (the whole pipeline of bng-dp on
synthetic bursts, bench_dp.c) on the same sessions and traffic as the ip_pipeline
baseline (vbng_traffic.py), at 4096 and 65536 sessions, both directions.

One JSON line per point on stdout, the same schema as ip_pipeline/run.py:
  {"impl": "bng-dp", "scenario": "downstream"|"upstream", "sessions": N,
   "mpps_per_core": X, "cycles_per_packet": C, "instructions_per_packet": Y,
   "frame_bytes": 504|128, "hugepages": true|false, "runs": K, "memory_mb": M}

mpps_per_core: packets through the pipeline divided by the CPU time the benchmark
  thread was given (CLOCK_THREAD_CPUTIME_ID), median of K runs;
cycles_per_packet: TSC Hz x that CPU time / packets, median of K runs;
instructions_per_packet: callgrind (--no-huge), bench_loop() only, K bursts of 32;
memory_mb: the DPDK heap in use after start (rte_malloc), HQoS included.
The callgrind profile's heaviest functions go to OUT/bng-dp/<point>.stages.txt.

Every process started here is stopped and the hugepage setting restored on exit."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "ip_pipeline"))
import run as ipp  # noqa: E402
import vbng_traffic as vt  # noqa: E402

BENCH = os.path.join(os.path.dirname(HERE), "build", "bench", "bench_dp")
CALLGRIND_SLOWDOWN = 50  # about how much slower bench_dp runs under callgrind (time-based work)
SCEN = {
    "downstream": ("down", vt.DOWN_FRAME_LEN),
    "upstream": ("up", vt.UP_FRAME_LEN),
    # IPv6 (dual-stack sessions with a /64 and a /56 each), bng-dp only
    "downstream6": ("down6", vt.DOWN_FRAME_LEN),
    "upstream6": ("up6", vt.UP_FRAME_LEN),
}


def log(msg: str) -> None:
    print(f"[bng-dp] {msg}", file=sys.stderr, flush=True)


def eal(huge: bool, file_prefix: str) -> list[str]:
    mem = ["--in-memory", "--socket-mem", "1536"] if huge else ["--no-huge", "-m", "2048", "--no-shconf"]
    return ["-l", "1", *mem, "--no-pci", "--no-telemetry", "--log-level=error",
            f"--file-prefix={file_prefix}", "--vdev", "net_null0"]  # fmt: skip


def args_of(out: str, n: int, scen: str, copy: int) -> list[str]:
    short, _ = SCEN[scen]
    v6 = short.endswith("6")
    return [
        "--config", os.path.join(out, f"bng_dp{'6' if v6 else ''}_{n}.ini"),
        "--sessions", os.path.join(out, f"sessions_{n}.csv"),
        "--pcap", os.path.join(out, f"{short}_{n}.pcap"), "--scenario", scen,
        "--qsize", "64" if n <= 4096 else "16",
        # IPv6's headers (30 + 40 + 8 bytes) do not fit the 64 bytes copied for IPv4
        "--copy", str(max(copy, 128) if v6 and copy else copy), *(["--v6"] if v6 else []),
    ]  # fmt: skip


# Where an instruction is spent, by the file or library callgrind names (exclusive cost).
STAGES = (
    ("classify.h", "classify"),
    ("session.h", "session lookup"),
    ("librte_hash", "session lookup"),
    ("rte_hash_crc", "session lookup"),
    ("acl.h", "ACL"),
    ("librte_acl", "ACL"),
    ("police.h", "policer"),
    ("rte_meter", "policer"),
    ("route.h", "route"),
    ("rte_lpm", "route"),
    ("neigh.h", "next hop (ARP table)"),
    ("rewrite.h", "rewrite (decap/encap, TTL, DSCP, MSS)"),
    ("hqos", "HQoS (rte_sched and its glue)"),
    ("librte_sched", "HQoS (rte_sched and its glue)"),
    ("net_null", "sink (net_null TX, frees the mbufs)"),
    ("rte_ethdev.h", "sink (net_null TX, frees the mbufs)"),
    ("bench_dp.c", "source (mbuf alloc + copy)"),
    ("memmove", "source (mbuf alloc + copy)"),
    ("librte_mempool", "source (mbuf alloc + copy)"),
    ("rte_mempool.h", "mbuf alloc/free"),
    ("tls_get_addr", "DPDK per-lcore data (TLS of the shared libraries)"),
    ("rte_byteorder", "byte order swaps (inlined in the stages)"),
    ("rte_prefetch", "prefetch"),
    ("rte_seqcount", "policer"),
    ("police.c", "policer"),
    ("rte_mbuf.h", "mbuf alloc/free"),
    ("worker.c", "worker glue (sort, counters, drop paths)"),
)


def stage_of(where: str) -> str:
    return next((name for key, name in STAGES if key in where), "other: " + where.split("[")[0].strip())


def run_json(cmd: list[str], res: ipp.Resources, timeout: float) -> list[dict]:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    res.procs.append(p)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        res.stop(p)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {p.returncode}: {err.strip()[-500:]}")
    return [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]


def timed(res, out, n, scen, huge, args) -> dict:
    cmd = [BENCH, *eal(huge, f"bngbench{os.getpid()}"), "--", *args_of(out, n, scen, args.copy),
           "--seconds", str(args.window), "--runs", str(args.runs)]  # fmt: skip
    lines = run_json(cmd, res, timeout=300)
    summary = next(x for x in lines if x.get("summary"))
    runs = [x for x in lines if "run" in x]
    for r in runs:
        if r["forwarded"] != r["pkts"]:
            raise RuntimeError(f"{scen} {n}: {r['pkts'] - r['forwarded']} packets not forwarded")
    return {"summary": summary, "runs": runs}


def callgrind(res, out, n, scen, args, cgdir) -> dict:
    cg = os.path.join(cgdir, f"{scen}_{n}.callgrind")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", "--toggle-collect=bench_loop",
           BENCH, *eal(False, f"bngbenchcg{os.getpid()}"), "--", *args_of(out, n, scen, args.copy),
           "--bursts", str(args.bursts), "--stats-period-us", str(10000 * CALLGRIND_SLOWDOWN)]  # fmt: skip
    line = run_json(cmd, res, timeout=1800)[0]
    if line["forwarded"] != line["pkts"]:
        raise RuntimeError(f"callgrind {scen} {n}: not every packet forwarded")
    ann = subprocess.run(
        ["callgrind_annotate", "--tree=none", "--auto=no", "--threshold=100", cg], capture_output=True, text=True
    ).stdout
    total = next(int(ln.split()[0].replace(",", "")) for ln in ann.splitlines() if "PROGRAM TOTALS" in ln)
    stages: dict[str, int] = {}
    listing = ann.split("file:function", 1)[-1].splitlines()
    for ln in listing:
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", ln)
        if m:
            name = stage_of(m.group(2))
            stages[name] = stages.get(name, 0) + int(m.group(1).replace(",", ""))
    with open(os.path.join(cgdir, f"{scen}_{n}.stages.txt"), "w") as f:
        f.write(f"{scen}, {n} sessions: instructions per packet by stage (callgrind, {line['pkts']} packets)\n")
        for name, ir in sorted(stages.items(), key=lambda kv: -kv[1]):
            f.write(f"{ir / line['pkts']:9.1f}  {name}\n")
        f.write(f"{total / line['pkts']:9.1f}  total\n")
    return {"instructions": total, "packets": line["pkts"], "memory_mb": line.get("heap_mb")}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="bng-dp half of make bench-dp")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "build-bench"))
    ap.add_argument("--sessions", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--scenarios", nargs="+", choices=list(SCEN), default=list(SCEN))
    ap.add_argument("--frames", type=int, default=vt.DEFAULT_FRAMES)
    ap.add_argument("--copy", type=int, default=64, help="bytes of each frame copied into the mbuf (0 = all)")
    ap.add_argument("--hugepages", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--hugepage-count", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--window", type=float, default=1.0)
    ap.add_argument("--bursts", type=int, default=4000, help="bursts of 32 counted by callgrind")
    ap.add_argument("--callgrind", choices=("all", "4096", "none"), default="all")
    args = ap.parse_args(argv)
    if not os.path.exists(BENCH):
        raise SystemExit(f"{BENCH} is not built (ninja -C server-dp/build)")
    out = os.path.abspath(args.out)
    cgdir = os.path.join(out, "bng-dp")
    os.makedirs(cgdir, exist_ok=True)
    res = ipp.Resources()

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    details = []
    try:
        ipp.traffic(out, args.sessions, args.frames, 64)
        huge = args.hugepages != "no" and res.set_hugepages(args.hugepage_count)
        if args.hugepages == "yes" and not huge:
            raise RuntimeError("hugepages requested but not available")
        log(f"hugepages: {'yes' if huge else 'no (--no-huge)'}")
        for n in args.sessions:
            for scen in args.scenarios:
                log(f"{scen} {n}: {args.runs} runs of {args.window} s")
                t = timed(res, out, n, scen, huge, args)
                s = t["summary"]
                cg = None
                if args.callgrind == "all" or (args.callgrind == "4096" and n == 4096):
                    log(f"{scen} {n}: callgrind, {args.bursts} bursts")
                    cg = callgrind(res, out, n, scen, args, cgdir)
                line = {
                    "impl": "bng-dp",
                    "scenario": scen,
                    "sessions": n,
                    "mpps_per_core": s["mpps_per_core"],
                    "cycles_per_packet": s["cycles_per_packet"],
                    "instructions_per_packet": round(cg["instructions"] / cg["packets"], 1) if cg else None,
                    "frame_bytes": SCEN[scen][1],
                    "hugepages": huge,
                    "runs": args.runs,
                    "memory_mb": s.get("heap_mb"),
                }
                print(json.dumps(line), flush=True)
                share = statistics.median(r["cpu_share"] for r in t["runs"])
                details.append({**line, "copy": args.copy, "cpu_share": share, "runs_detail": t["runs"]})
                log(
                    f"{scen} {n}: {s['mpps_per_core']} Mpps per core ({share:.0%} of the wall time), "
                    f"{s['cycles_per_packet']} cycles, {line['instructions_per_packet']} instructions per packet"
                )
    finally:
        res.close()
        with open(os.path.join(cgdir, "details.json"), "w") as f:
            json.dump(details, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
