#!/usr/bin/env python3
"""Per-stage costs of bng-dp's split mode (--workers 2, server-dp/src/worker.h), measured
with bench_dp --split on the traffic of vbng_traffic.py: the figures model16.py scales.

For each point (downstream 504 B / upstream 128 B, each at the given session counts):
- callgrind, --toggle-collect=bench_loop, --bursts K: inclusive instructions per packet
  of the upstream worker's part (bench_up_side: classify, upstream, control frames, the
  hand-off enqueue, its TX), of the hand-off enqueue alone (handoff), of the downstream
  worker's part (bench_down_side: ring dequeue, downstream lookup/encap
  (worker_down_burst), HQoS commands and stats (hqos_worker_apply), enqueue + dequeue +
  its TX (worker_flush)), and the rest of
  bench_loop (the bench's source: mbuf allocation and the 64-byte copy);
- timed windows (--runs R --seconds S) in split mode and in one-worker mode, interleaved
  (split, one, split, one, ...): cycles per packet from the worker thread's CPU time
  (median, min, max), and TSC ticks per side of the split (wall clock: includes what the
  scheduler gave to others).

Cycles per stage = the stage's instructions x the point's measured cycles per
instruction (the one-worker pipeline's CPU-time cycles / its callgrind instructions),
so the repeatable instruction counts carry the figures and the loaded machine only
enters through one ratio per point.

usage: split_stages.py TRAFFIC_DIR OUT.json [--sessions 4096 65536] [--bursts 2000]
       [--runs 5] [--seconds 0.5]
(TRAFFIC_DIR from `vbng_traffic.py DIR --sessions ...`). Prints each point as a JSON
line and writes them all, with the load average and the command, to OUT.json."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(HERE), "build", "bench", "bench_dp")
SCEN = {"downstream": ("down", 504), "upstream": ("up", 128)}
STAGES = (
    "bench_loop",
    "bench_up_side",
    "handoff",
    "bench_down_side",
    "worker_down_burst",
    "worker_flush",
    "hqos_worker_apply",
)


def eal(prefix: str) -> list[str]:
    return ["-l", "0", "--no-huge", "-m", "2048", "--no-shconf", "--no-pci", "--no-telemetry",
            "--log-level=error", f"--file-prefix={prefix}", "--vdev", "net_null0", "--"]  # fmt: skip


def bench_args(traffic: str, scen: str, n: int) -> list[str]:
    short, _ = SCEN[scen]
    return ["--config", os.path.join(traffic, f"bng_dp_{n}.ini"),
            "--sessions", os.path.join(traffic, f"sessions_{n}.csv"),
            "--pcap", os.path.join(traffic, f"{short}_{n}.pcap"), "--scenario", scen,
            "--qsize", "64", "--mbufs", "32768", "--copy", "64"]  # fmt: skip


def inclusive(cg_out: str) -> dict[str, int]:
    """Inclusive instructions of the STAGES functions (.part/.constprop clones summed)."""
    txt = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=none", "--auto=no",
                          "--threshold=100", cg_out], capture_output=True, text=True, check=True).stdout  # fmt: skip
    got = dict.fromkeys(STAGES, 0)
    for line in txt.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+\S+?:(\w+)(?:\.[\w.]+)?\s+\[", line)
        if m and m.group(2) in got:
            got[m.group(2)] = max(got[m.group(2)], int(m.group(1).replace(",", "")))
    return got


def callgrind(traffic: str, scen: str, n: int, bursts: int, split: bool) -> tuple[dict, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--toggle-collect=bench_loop",
               BENCH, *eal(f"cg{os.getpid()}"), *bench_args(traffic, scen, n), "--bursts", str(bursts),
               "--stats-period-us", "500000", *(["--split"] if split else [])]  # fmt: skip
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"callgrind {scen} {n}: {r.stderr[-2000:]}")
        line = json.loads([x for x in r.stdout.splitlines() if x.startswith("{")][-1])
        return inclusive(out), line["pkts"]


def timed(traffic: str, scen: str, n: int, runs: int, seconds: float, split: bool) -> list[dict]:
    cmd = [BENCH, *eal(f"tm{os.getpid()}"), *bench_args(traffic, scen, n), "--runs", "1",
           "--seconds", str(seconds), *(["--split"] if split else [])]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"bench_dp {scen} {n}: {r.stderr[-2000:]}")
    return [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]


def med(xs: list[float]) -> dict:
    return {"median": round(statistics.median(xs), 1), "min": round(min(xs), 1), "max": round(max(xs), 1)}


def point(args, scen: str, n: int) -> dict:
    cg, pkts = callgrind(args.traffic, scen, n, args.bursts, True)
    cg1, pkts1 = callgrind(args.traffic, scen, n, args.bursts, False)
    ir = {k: v / pkts for k, v in cg.items()}
    one_ir = cg1["bench_loop"] / pkts1
    split_cyc, one_cyc, up_tsc, down_tsc, hz = [], [], [], [], 0
    for _ in range(args.runs):  # interleaved: split, one, split, one, ...
        for line in timed(args.traffic, scen, n, 1, args.seconds, True):
            if "up_side_cycles_per_packet" in line:
                up_tsc.append(line["up_side_cycles_per_packet"])
                down_tsc.append(line["down_side_cycles_per_packet"])
            elif line.get("summary"):
                split_cyc.append(line["cycles_per_packet"])
                hz = line["tsc_hz"]
        one_cyc += [x["cycles_per_packet"] for x in timed(args.traffic, scen, n, 1, args.seconds, False)
                    if x.get("summary")]  # fmt: skip
    cpi = statistics.median(one_cyc) / one_ir
    source = ir["bench_loop"] - ir["bench_up_side"] - ir["bench_down_side"]
    hqos = ir["worker_flush"] + ir["hqos_worker_apply"]
    ring_dequeue = ir["bench_down_side"] - ir["worker_down_burst"] - hqos
    stages_ir = {
        "up_side": ir["bench_up_side"],
        "handoff_enqueue": ir["handoff"],
        "ring_dequeue": ring_dequeue,
        "downstream_lookup_encap": ir["worker_down_burst"],
        "hqos_and_tx": hqos,
        "down_side": ir["bench_down_side"],
        "source_io": source,
    }
    return {
        "scenario": scen,
        "frame_bytes": SCEN[scen][1],
        "sessions": n,
        "instructions_per_packet": {k: round(v, 1) for k, v in stages_ir.items()},
        "one_worker_instructions_per_packet": round(one_ir, 1),
        "split_instructions_per_packet": round(ir["bench_loop"], 1),
        "cycles_per_instruction": round(cpi, 3),
        "cycles_per_packet": {k: round(v * cpi, 1) for k, v in stages_ir.items()},
        "one_worker_cycles_per_packet": med(one_cyc),
        "split_cycles_per_packet_one_lcore": med(split_cyc),
        "split_tsc_per_packet": {"up_side": med(up_tsc), "down_side": med(down_tsc)},
        "runs": args.runs,
        "tsc_hz": hz,
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traffic")
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--bursts", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.5)
    args = ap.parse_args(argv)
    res = {
        "command": "server-dp/bench/split_stages.py " + " ".join(argv),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": list(os.getloadavg()),
        "points": [],
    }
    for scen in SCEN:
        for n in args.sessions:
            p = point(args, scen, n)
            print(json.dumps(p), flush=True)
            res["points"].append(p)
    res["loadavg_end"] = list(os.getloadavg())
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
