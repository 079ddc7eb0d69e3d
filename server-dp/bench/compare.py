#!/usr/bin/env python3
"""The last lines of `make bench-dp`: bng-dp against ip_pipeline, point by point.

usage: compare.py BNG_DP.jsonl IP_PIPELINE.jsonl
Prints one JSON line per (scenario, sessions) measured by both:
  {"compare": "bng-dp/ip_pipeline", "scenario": ..., "sessions": N,
   "mpps_ratio": bng-dp Mpps / ip_pipeline Mpps (the target is >= 1.5),
   "instructions_ratio": bng-dp instructions / ip_pipeline instructions per packet}
Exits 1 when no point was measured by both: a comparison of nothing is a failed bench."""

from __future__ import annotations

import json
import sys


def load(path: str) -> dict:
    with open(path) as f:
        lines = [json.loads(ln) for ln in f if ln.startswith("{")]
    return {(x["scenario"], x["sessions"]): x for x in lines}


def main(argv: list[str]) -> int:
    ours, base = load(argv[0]), load(argv[1])
    common = sorted(ours.keys() & base.keys())
    if not common:
        print(f"compare.py: no point measured by both {argv[0]} ({len(ours)} points)", end="", file=sys.stderr)
        print(f" and {argv[1]} ({len(base)} points)", file=sys.stderr)
        return 1
    for key in common:
        a, b = ours[key], base[key]
        ir = None
        if a.get("instructions_per_packet") and b.get("instructions_per_packet"):
            ir = round(a["instructions_per_packet"] / b["instructions_per_packet"], 3)
        line = {
            "compare": "bng-dp/ip_pipeline",
            "scenario": key[0],
            "sessions": key[1],
            "mpps_ratio": round(a["mpps_per_core"] / b["mpps_per_core"], 3),
            "instructions_ratio": ir,
        }
        print(json.dumps(line))
    # bng-dp's IPv6 points against its own IPv4 (the target: within 15% in cycles per packet)
    for (scen, n), a in sorted(ours.items()):
        b = ours.get((scen[:-1], n)) if scen.endswith("6") else None
        if b is None:
            continue
        ir = None
        if a.get("instructions_per_packet") and b.get("instructions_per_packet"):
            ir = round(a["instructions_per_packet"] / b["instructions_per_packet"], 3)
        cr = round(a["cycles_per_packet"] / b["cycles_per_packet"], 3)
        print(json.dumps({"compare": "ipv6/ipv4", "scenario": scen, "sessions": n, "cycles_ratio": cr,
                          "instructions_ratio": ir}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
