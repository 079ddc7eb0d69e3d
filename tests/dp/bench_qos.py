"""make bench-qos: work-conserving sharing of one port's rate R by 4 bng-dp processes on
veths (docs/dp/hqos.md, "Sharing an access port across instances" and "Sharing a server
port"; docs/benchmarks.md, "QoS across instances"). Two cases: an access port (the
instances' subports of it) and a server port (their port pacers: their VFs' shares of
the NIC rate). One JSON line per run and a summary per case and mode. Runs, interleaved
(per pair: access static, access shared, server static, server shared): the static
shares (exchange off: each instance shaped to R/4, today's design) and the exchange.
Each run: 2 of 4 loaded, then the load moves to the other 2, then all 4 loaded.
Measured with each DP's own trace: per control tick (1 ms) its TSC and the wire bytes
its HQoS dequeued. Run under the netns lock (bench_qos.sh)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "topology"), str(ROOT / "tests")]

from dp.share_rig import ShareRig, Trace, applied, max_excess, offer, rates  # noqa: E402

N = 4
FRAME = 1534


def run(case: str, shared: bool, rate: int, seconds: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-qos-") as tmp:
        # exchange = off: each instance runs its static share R/4 (today's design), traced.
        rig = ShareRig(Path(tmp), N, rate, exchange=shared, groups=(case,))
        try:
            rig.start()
            rig.sessions()
            hi = rate * 0.65  # beyond the fair half of R for 2 loaded
            all4 = rate * 0.33  # beyond the fair quarter for 4 loaded
            sent: list = []
            spans = offer(
                rig,
                [
                    (1.0, {0: hi, 1: hi}),
                    (seconds, {0: hi, 1: hi}),
                    (seconds, {2: hi, 3: hi}),
                    (seconds, {i: all4 for i in range(N)}),
                ],
                sent,
            )
            rig.stop()
            traces = [Trace(dp.trace) for dp in rig.dps]
        finally:
            rig.close()
    out = analyse(traces, spans, rate, case)
    out["offered_2of4"] = sum(sent[1].values()) / rate
    out["offered_4of4"] = sum(sent[3].values()) / rate
    return out


def applied_at(tr: Trace, t: float) -> float:
    """The applied rate of a trace's last tick at or before t."""
    import bisect

    return tr.applied[max(bisect.bisect_right(tr.t, t) - 1, 0)]


def analyse(traces: list[Trace], spans, rate: int, case: str) -> dict:
    (_w, two, moved, four) = spans
    out = {}
    # Port use with 2 of 4 loaded: the steady part (after 0.5 s).
    w = rates(traces, two[0] + 0.5, two[1], 0.1)
    out["port_use_2of4"] = statistics.mean(sum(x) for x in w) / rate
    # What the instances decided (the sum of their subport rates), apart from what the
    # machine let them send: on a starved machine a DP serves less than its rate.
    out["applied_2of4"] = applied(traces, two[0] + 0.5, two[1]) / rate
    # Convergence after the load moved to 2 and 3: the first time from which every
    # 10 ms window of the next 100 ms has 2 + 3 at >= 95% of R.
    t0 = moved[0]
    w10 = rates(traces, t0, moved[1], 0.010)
    conv = None
    for k in range(len(w10) - 10):
        if all(x[2] + x[3] >= 0.95 * rate for x in w10[k : k + 10]):
            conv = k * 0.010
            break
    out["convergence_ms"] = None if conv is None else round(conv * 1000, 1)
    # What the exchange decided, apart from the wire: the first tick after the move at which
    # the applied rates of 2 and 3 (subport or pacer rates in their traces) sum to >= 95% R.
    out["convergence_applied_ms"] = None
    for t, a in zip(traces[2].t, traces[2].applied, strict=True):
        if moved[0] <= t < moved[1] and a + applied_at(traces[3], t) >= 0.95 * rate:
            out["convergence_applied_ms"] = round((t - moved[0]) * 1000, 1)
            break
    w = rates(traces, moved[0] + 0.5, moved[1], 0.1)
    out["port_use_moved"] = statistics.mean(sum(x) for x in w) / rate
    # Fairness with all loaded: each instance's rate against R/4.
    w = rates(traces, four[0] + 0.5, four[1], 0.1)
    each = [statistics.mean(x[i] for x in w) for i in range(N)]
    out["port_use_4of4"] = sum(each) / rate
    out["applied_4of4"] = applied(traces, four[0] + 0.5, four[1]) / rate
    out["each_4of4"] = [round(e / rate, 3) for e in each]
    w = rates(traces, two[0] + 0.5, two[1], 0.1)
    out["each_2of4"] = [round(statistics.mean(x[i] for x in w) / rate, 3) for i in range(N)]
    out["fair_dev_max"] = max(abs(e - rate / N) / (rate / N) for e in each)
    # Overshoot over every phase after warm-up. B: the subport buckets (tb_ms = 10 ms of
    # the rate, at least 2 frames each) or the port pacers' (port_burst_us = 10 ms, at
    # least 4 frames each); the applied rates sum to at most R.
    buckets = rate / 8 * 0.010 + N * (2 if case == "access" else 4) * FRAME
    out["bucket_sum_B"] = round(buckets)
    out["excess_10ms_B"] = round(max(max_excess(traces, s[0], s[1], 0.010, rate) for s in (two, moved, four)))
    use100 = [sum(x) for s in (two, moved, four) for x in rates(traces, s[0], s[1], 0.1)]
    out["max_over_100ms"] = max(use100) / rate - 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rate", type=int, default=200_000_000, help="access port rate R, bit/s")
    ap.add_argument("--seconds", type=float, default=3.0, help="per phase")
    ap.add_argument("--pairs", type=int, default=3, help="interleaved (static, shared) pairs per case")
    ap.add_argument("--case", choices=("access", "server", "both"), default="both", help="what is shared")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("bench-qos needs root (network namespaces)", file=sys.stderr)
        return 1
    cases = ("access", "server") if a.case == "both" else (a.case,)
    res: dict[tuple[str, str], list[dict]] = {(c, m): [] for c in cases for m in ("static", "shared")}
    for _ in range(a.pairs):
        for case in cases:
            for mode in ("static", "shared"):
                load = os.getloadavg()[0]
                r = run(case, mode == "shared", a.rate, a.seconds)
                r["load_avg"] = round((load + os.getloadavg()[0]) / 2, 2)
                res[(case, mode)].append(r)
                rounded = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}
                print(json.dumps({"case": case, "run": mode, **rounded}))
                sys.stdout.flush()
    for (case, mode), runs in res.items():
        summary = {"summary": mode, "case": case, "runs": len(runs), "rate_bps": a.rate, "instances": N}
        for k in runs[0]:
            vals = [r[k] for r in runs if r[k] is not None]
            if vals and all(isinstance(v, (int, float)) for v in vals):
                summary[k] = {"median": round(statistics.median(vals), 4), "min": round(min(vals), 4),
                              "max": round(max(vals), 4)}  # fmt: skip
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
