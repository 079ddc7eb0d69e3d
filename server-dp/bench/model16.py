#!/usr/bin/env python3
"""Per-server throughput of bng-dp on a 16-core server, modelled from the per-stage costs
measured on this machine (split_stages.py -> model16_figures.json), against Intel's vBNG
(661 Gbps, 32 instances) and BISDN's (160 Gbps, 16 instances). A model, not a
measurement: every assumption is an option and is printed in the first JSON line.

Layouts of the server's cores (one core is kept for the instances' control threads and
the OS; the rest run workers):
- one_worker: one instance per worker core, every stage on it (--workers 1, today's
  default): cycles per packet = the measured one-worker pipeline's;
- split: instances of two worker lcores (--workers 2): the upstream lcore pays RX
  (source_io), classification and the hand-off for a downstream packet, and the whole
  upstream pipeline and its RX for an upstream packet; the downstream lcore pays the ring
  dequeue, the downstream lookup/encap, HQoS and TX. An instance runs at the rate of its
  busier lcore;
- split_k (projection, not implemented: bng-dp takes at most --workers 2): one upstream
  lcore and k downstream/HQoS lcores, each owning whole access ports (an rte_sched or
  hsched subport stays on one lcore), the access ports' load spread evenly.

Traffic: mixes of downstream 504-byte and upstream 128-byte frames (the frame sizes of
`make bench-dp`), given as downstream packets per upstream packet. Throughput is counted
in Ethernet frame bits (no preamble, no inter-frame gap: `gbps`) and on the wire (+20 bytes
a frame: `wire_gbps`), both directions added, as a per-server figure is usually quoted.

Limits besides the cores (assumptions): the NICs (--nic-gbps per direction for the whole
server, wire bits), and memory bandwidth (--mem-gbytes usable bytes/s): each frame is
written by the NIC and read once by the core or the NIC (2 x frame bytes, no DDIO
credit), plus --miss-lines cache lines of tables per packet at 64K sessions (1 at 4K).

usage: model16.py [FIGURES.json] [--cores 16] [--ghz 2.6] [--nic-gbps 400]
                  [--mem-gbytes 120] [--mix 1 2 4] [--k 3]
Prints one JSON line of assumptions, then one per (sessions, layout, mix), then the
comparison lines."""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INTEL = {"name": "Intel vBNG", "gbps": 661.0, "instances": 32, "physical_cores": 48}
BISDN = {"name": "BISDN vBNG", "gbps": 160.0, "instances": 16, "physical_cores": 16}
DOWN_B, UP_B = 504, 128


def costs(fig: dict, sessions: int) -> dict:
    """Cycles per packet of this machine, per stage and side, for one session count."""
    pts = {p["scenario"]: p for p in fig["points"] if p["sessions"] == sessions}
    d, u = pts["downstream"], pts["upstream"]
    dc, uc = d["cycles_per_packet"], u["cycles_per_packet"]
    return {
        # one worker: the measured pipeline, the bench's source (RX stand-in) included
        "one_down": d["one_worker_cycles_per_packet"]["median"],
        "one_up": u["one_worker_cycles_per_packet"]["median"],
        # split: per side
        "a_down": dc["source_io"] + dc["up_side"],  # RX, classify, hand-off enqueue
        "b_down": dc["down_side"],  # dequeue, lookup/encap, HQoS, TX
        "a_up": uc["source_io"] + uc["up_side"],  # RX, the whole upstream, TX
        "b_up": uc["down_side"],
        "handoff": dc["handoff_enqueue"] + dc["ring_dequeue"],
    }


def limits(args, sessions: int, mix: float) -> tuple[float, str]:
    """Mix units per second the NICs and the memory allow; which one is lower."""
    down_wire_unit = mix * (DOWN_B + 20) * 8
    nic = args.nic_gbps * 1e9 / max(down_wire_unit, (UP_B + 20) * 8)
    lines = args.miss_lines if sessions >= 65536 else 1
    mem_unit = 2 * (mix * DOWN_B + UP_B) + 64 * lines * (mix + 1)
    mem = args.mem_gbytes * 1e9 / mem_unit
    return (nic, "nic") if nic < mem else (mem, "memory")


def layout_rate(c: dict, layout: str, mix: float, hz: float, k: int) -> tuple[float, float, dict]:
    """Mix units per second per instance, cores per instance, per-lcore cycles per unit."""
    if layout == "one_worker":
        cyc = mix * c["one_down"] + c["one_up"]
        return hz / cyc, 1, {"worker": round(cyc, 1)}
    a = mix * c["a_down"] + c["a_up"]
    b = mix * c["b_down"] + c["b_up"]
    n = 1 if layout == "split" else k
    lc = {"upstream_lcore": round(a, 1), "downstream_lcore": round(b / n, 1)}
    return hz / max(a, b / n), 1 + n, lc


def model(fig: dict, args) -> list[dict]:
    out = []
    hz = args.ghz * 1e9
    workers = args.cores - 1
    sessions = sorted({p["sessions"] for p in fig["points"]})
    for n in sessions:
        c = costs(fig, n)
        for layout in ("one_worker", "split", f"split_{args.k}"):
            for mix in args.mix:
                per_inst, cores, lc = layout_rate(c, layout, mix, hz, args.k)
                inst = workers // cores
                cpu_units = per_inst * inst
                cap, what = limits(args, n, mix)
                units = min(cpu_units, cap)
                bottleneck = "cpu" if cpu_units <= cap else what
                gbps = units * (mix * DOWN_B + UP_B) * 8 / 1e9
                wire = units * (mix * (DOWN_B + 20) + UP_B + 20) * 8 / 1e9
                out.append(
                    {
                        "sessions": n,
                        "layout": layout,
                        "implemented": layout != f"split_{args.k}",
                        "down_per_up": mix,
                        "instances": inst,
                        "worker_cores": inst * cores,
                        "cycles_per_mix_unit": lc,
                        "mpps_down": round(units * mix / 1e6, 2),
                        "mpps_up": round(units / 1e6, 2),
                        "gbps": round(gbps, 1),
                        "wire_gbps": round(wire, 1),
                        "instance_wire_gbps": round(wire / inst, 1),
                        "bottleneck": bottleneck,
                        "vs_intel_per_server": round(wire / INTEL["gbps"], 2),
                        "vs_bisdn_per_server": round(wire / BISDN["gbps"], 2),
                        "vs_intel_per_core": round((wire / args.cores) / (INTEL["gbps"] / INTEL["physical_cores"]), 2),
                        "vs_bisdn_per_core": round((wire / args.cores) / (BISDN["gbps"] / BISDN["physical_cores"]), 2),
                    }
                )
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("figures", nargs="?", default=os.path.join(HERE, "model16_figures.json"))
    ap.add_argument("--cores", type=int, default=16, help="physical cores of the server (one for control/OS)")
    ap.add_argument("--ghz", type=float, default=2.6, help="core clock; the figures' cycles are taken as is")
    ap.add_argument("--nic-gbps", type=float, default=400.0, help="NIC wire Gbit/s per direction, whole server")
    ap.add_argument("--mem-gbytes", type=float, default=120.0, help="usable memory bandwidth, GB/s")
    ap.add_argument("--miss-lines", type=int, default=4, help="table cache lines from memory per packet at 64K")
    ap.add_argument("--mix", type=float, nargs="+", default=[1.0, 2.0, 4.0], help="downstream packets per upstream")
    ap.add_argument("--k", type=int, default=3, help="downstream lcores of the split_k projection")
    args = ap.parse_args(argv)
    with open(args.figures) as f:
        fig = json.load(f)
    print(
        json.dumps(
            {
                "assumptions": {
                    "cores": args.cores,
                    "control_cores": 1,
                    "ghz": args.ghz,
                    "nic_gbps_per_direction": args.nic_gbps,
                    "mem_gbytes_per_s": args.mem_gbytes,
                    "miss_lines_64k": args.miss_lines,
                    "frame_bytes": {"down": DOWN_B, "up": UP_B},
                    "io_cost": "the bench's source (mbuf alloc + 64-byte copy) stands for a NIC's RX; "
                    "net_null TX for its TX",
                    "hyperthreads": "not used",
                },
                "figures": args.figures,
                "measured": fig.get("date"),
                "loadavg_at_measurement": [fig.get("loadavg_start"), fig.get("loadavg_end")],
            }
        )
    )
    rows = model(fig, args)
    for r in rows:
        print(json.dumps(r))
    for ref in (INTEL, BISDN):
        print(json.dumps({"reference": ref["name"], "gbps": ref["gbps"], "instances": ref["instances"],
                          "physical_cores": ref["physical_cores"],
                          "gbps_per_core": round(ref["gbps"] / ref["physical_cores"], 2)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
