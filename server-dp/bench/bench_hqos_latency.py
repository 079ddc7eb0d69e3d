"""Wire-to-wire latency of a VoIP-like probe through one bng-dp (issue 20 item 2;
docs/dp/hqos.md "Batching and the idle back-off", figures in docs/benchmarks.md).

One bng-dp on an af_packet veth (tests/dp/share_rig.py with one instance, no --qos-share:
its access port at RATE, the session's pipe 'flat' at RATE), one PPPoE session; bng-lrgen
(tests/linerate/gen) on the veth's other end sends, downstream (core side to the
session's address), the probe (group 0: 178-byte access frames, DSCP EF = class 0,
2,000 frames/s) and a background (group 1: 1518-byte access frames, best effort) at 0%,
10% and 90% of RATE, and receives what bng-dp sends back encapsulated. Latency: the
generator's TSC at receive minus at send (wire to wire, both af_packet sockets and the
veth included). Configurations, each started afresh, interleaved per round:
(binary before | after) x (--idle-sleep-us 0 | N). Runs as root, holds the netns lock.

    .venv/bin/python server-dp/bench/bench_hqos_latency.py --before DIR/bng-dp [--rounds 2]
    .venv/bin/python server-dp/bench/bench_hqos_latency.py --before X --calibrate

--attach memif (`make bench-qos-latency`): no kernel on the data path. bng-dp alone on a
net_memif port (tests/linerate/memif.py: the lab pod's dp1, its access ports and the
profiles' downstream rate at --rate, every other rate out of the way), one session
installed through PFCP with profile gold (EF in class 0, no class rate limit), the
generator on the memif client end answering ARP and LCP echoes; the same probe and background, downstream. Configurations interleaved per round:
--idle-sleep-us 0 and each --idle-us (--before adds that binary beside); each round also
runs the baseline: the generator's two ports joined by net_memif, no bng-dp (one crossing;
through bng-dp a frame makes two), the same streams and loads.

    .venv/bin/python server-dp/bench/bench_hqos_latency.py --attach memif [--rounds 3]

One JSON line per trial, then one summary line per configuration and load (median
over rounds of p50, p99, max, in us), with the load average."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "topology"), str(REPO)]

from dp import share_rig  # noqa: E402
from harness import netns_lock  # noqa: E402
from harness.frames import CORE_MAC, ROUTER_MAC  # noqa: E402
from linerate import memif  # noqa: E402
from linerate import streams as st  # noqa: E402
from linerate.lrgen import LrGen, af_packet  # noqa: E402

PROBE_SIZE, PROBE_PPS, BG_SIZE = 178, 2000, 1518


class Rig(share_rig.ShareRig):
    def __init__(self, tmp: Path, rate: int, binary: str, idle_us: int, batch: str | None):
        super().__init__(tmp, 1, rate, exchange=False)
        self.binary, self.idle_us, self.batch = binary, idle_us, batch

    def _start(self, dp) -> None:
        cmd = [
            "ip", "netns", "exec", dp.ns, self.binary,
            "-l", self.lcores, "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
            f"--file-prefix={dp.file_prefix}", "--log-level=notice",
            "--vdev", "net_af_packet0,iface=data0,framecnt=2048",
            "--", "--config", str(share_rig.dp_config(self.tmp, dp.i, self.rate)),
            "--idle-sleep-us", str(self.idle_us), "--sessions", "256", "--mbufs", "16384",
        ]  # fmt: skip
        if self.batch:
            cmd += ["--hqos-batch", self.batch]
        dp.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def stream_file(path: Path) -> Path:
    s = st.Session("wire0", 100, 501, 0x88A8, 0x0501, share_rig.SUB.mac, "02:00:00:00:00:00", share_rig.SUB.ipv4)
    probe = st.downstream(s, ROUTER_MAC, CORE_MAC, "198.51.100.7", 0, 0, 5060, dscp=st.DSCP_EF)
    bg = st.downstream(s, ROUTER_MAC, CORE_MAC, "198.51.100.8", 0, 1, 4000)
    return st.write(path, [probe, bg])


def run_config(tmp: Path, args, name: str, binary: str, idle_us: int, rnd: int, out: list) -> None:
    rig = Rig(tmp, args.rate, binary, idle_us, "auto" if name == "after" else None)
    gen = None
    try:
        rig.start()
        for dp in rig.dps:
            dp.cp.sock.settimeout(10)
        rig.sessions()
        gen = LrGen(stream_file(tmp / "streams.txt"), [(share_rig.NS_WIRE, af_packet(0, "wire0"))], prefix="b20lat")
        gen.trial(1.0, rate0=PROBE_PPS, size0=PROBE_SIZE)  # warm-up
        for load in args.loads:
            bg_pps = load * args.rate / ((BG_SIZE + 20) * 8) if load > 0 else 0
            kw = {"rate0": PROBE_PPS, "size0": PROBE_SIZE}
            if bg_pps > 0:
                kw |= {"rate1": bg_pps, "size1": BG_SIZE}
            la = os.getloadavg()[0]
            res = gen.trial(args.seconds, drain_ms=300, **kw)
            g = {x["group"]: x for x in res["groups"]}
            lat = g[0]["latency_ns"] or {}
            rec = {
                "config": name, "idle_sleep_us": idle_us, "round": rnd, "load": load, "loadavg": la,
                "probe_tx": g[0]["tx"], "probe_rx": g[0]["rx"], "probe_lost": g[0]["lost"],
                "bg_tx": g.get(1, {}).get("tx", 0), "bg_rx": g.get(1, {}).get("rx", 0),
                "p50_us": lat.get("p50", 0) / 1000, "p99_us": lat.get("p99", 0) / 1000,
                "max_us": lat.get("max", 0) / 1000,
            }  # fmt: skip
            stats = rig.dps[0].telemetry("/bng/stats")
            if isinstance(stats, dict):
                rec["idle_sleeps"] = stats.get("idle_sleeps")
                rec["idle_sleeps_held"] = stats.get("idle_sleeps_held")
                rec["drops"] = {k: v for k, v in stats.items() if k.startswith("drop_") and v}
                rec["hqos_batch_deferred"] = stats.get("hqos_batch_deferred")
            print(json.dumps(rec), flush=True)
            out.append(rec)
    except BaseException:
        rig.stop()
        print(rig.log.get(0, b"").decode(errors="replace")[-2000:], file=sys.stderr)
        raise
    finally:
        if gen is not None:
            gen.close()
        rig.close()
        share_rig.cleanup_stale()


def calibrate(args) -> None:
    """The attachment alone: bng-lrgen's two af_packet ports on one veth pair, the same
    probe and background, no bng-dp: one crossing (a frame through bng-dp makes two)."""
    ns = "b20cal"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        for cmd in (
            ["link", "add", "cal0", "type", "veth", "peer", "name", "cal1"],
            ["link", "set", "cal0", "mtu", "1600", "up"],
            ["link", "set", "cal1", "mtu", "1600", "up"],
            ["link", "set", "lo", "up"],
        ):
            subprocess.run(["ip", "-n", ns, *cmd], check=True)
        with tempfile.TemporaryDirectory(prefix="b20cal") as d:
            probe = st.plain("02:00:00:00:00:01", "02:00:00:00:00:02", "10.9.0.1", "10.9.0.2", 0, 0, 5060)
            bg = st.plain("02:00:00:00:00:01", "02:00:00:00:00:02", "10.9.0.1", "10.9.0.2", 0, 1, 4000)
            path = st.write(Path(d) / "s.txt", [probe, bg])
            ports = [(ns, af_packet(0, "cal0")), (ns, af_packet(1, "cal1"))]
            with LrGen(path, ports, prefix="b20cal") as gen:
                gen.trial(1.0, rate0=PROBE_PPS, size0=PROBE_SIZE)
                for rnd in range(args.rounds):
                    for load in args.loads:
                        kw = {"rate0": PROBE_PPS, "size0": PROBE_SIZE}
                        if load > 0:
                            kw |= {"rate1": load * args.rate / ((BG_SIZE + 20) * 8), "size1": BG_SIZE}
                        la = os.getloadavg()[0]
                        g = {x["group"]: x for x in gen.trial(args.seconds, drain_ms=300, **kw)["groups"]}
                        lat = g[0]["latency_ns"] or {}
                        print(json.dumps({
                            "config": "attachment_only", "round": rnd, "load": load, "loadavg": la,
                            "probe_tx": g[0]["tx"], "probe_rx": g[0]["rx"], "p50_us": lat.get("p50", 0) / 1000,
                            "p99_us": lat.get("p99", 0) / 1000, "max_us": lat.get("max", 0) / 1000,
                        }), flush=True)  # fmt: skip
    finally:
        subprocess.run(["ip", "netns", "delete", ns], check=False)


def _record(config: str, idle_us: int | None, rnd: int, load: float, la: float, res: dict) -> dict:
    g = {x["group"]: x for x in res["groups"]}
    lat = g[0]["latency_ns"] or {}
    return {
        "config": config, "idle_sleep_us": idle_us, "round": rnd, "load": load, "loadavg": la,
        "probe_tx": g[0]["tx"], "probe_rx": g[0]["rx"], "probe_lost": g[0]["lost"],
        "bg_tx": g.get(1, {}).get("tx", 0), "bg_rx": g.get(1, {}).get("rx", 0),
        "p50_us": lat.get("p50", 0) / 1000, "p99_us": lat.get("p99", 0) / 1000,
        "max_us": lat.get("max", 0) / 1000,
    }  # fmt: skip


def _loads(gen: LrGen, args, config: str, idle_us: int | None, rnd: int, out: list, dp=None) -> None:
    for load in args.loads:
        kw = {"rate0": PROBE_PPS, "size0": PROBE_SIZE}
        if load > 0:
            kw |= {"rate1": load * args.rate / ((BG_SIZE + 20) * 8), "size1": BG_SIZE}
        la = os.getloadavg()[0]
        rec = _record(config, idle_us, rnd, load, la, gen.trial(args.seconds, drain_ms=300, **kw))
        if dp is not None:
            stats = dp.telemetry("/bng/stats")
            rec["idle_sleeps"] = stats.get("idle_sleeps")
            rec["idle_sleeps_held"] = stats.get("idle_sleeps_held")
            rec["drops"] = {k: v for k, v in stats.items() if k.startswith("drop_") and v}
        print(json.dumps(rec), flush=True)
        out.append(rec)


def run_memif(tmp: Path, args, name: str, binary: str, idle_us: int, rnd: int, out: list) -> None:
    """One configuration on the memif rig: bng-dp with --idle-sleep-us idle_us."""
    dp_args = ("--idle-sleep-us", str(idle_us), "--mbufs", "16384")
    kw = {"rate": args.rate, "dp_args": dp_args, "binary": Path(binary), "qos": "gold"}
    with memif.MemifDp(1, log=tmp / "bng-dp.log", **kw) as dp:
        sub = memif.session_of(dp.subs[0])
        probe = st.downstream(sub, "02:aa:00:00:00:01", memif.CORE_MAC, "198.51.100.7", 0, 0, 5060, dscp=st.DSCP_EF)
        bg = st.downstream(sub, "02:aa:00:00:00:01", memif.CORE_MAC, "198.51.100.8", 0, 1, 4000)
        path = st.write(tmp / "streams.txt", [probe, bg])
        with LrGen(path, [("", dp.devargs())], arp={0: memif.ROUTER_ADDR}, prefix="b20mem",
                   lcp_magic=memif.LCP_MAGIC, log=tmp / "gen.log") as gen:  # fmt: skip
            gen.trial(1.0, rate0=PROBE_PPS, size0=PROBE_SIZE)  # warm-up: ARP, the session's path
            _loads(gen, args, name, idle_us, rnd, out, dp)


def baseline_memif(tmp: Path, args, rnd: int, out: list) -> None:
    """The attachment alone: the generator's two ports joined by net_memif, no bng-dp."""
    probe = st.plain("02:00:00:00:00:01", "02:00:00:00:00:02", "10.9.0.1", "10.9.0.2", 0, 0, 5060)
    bg = st.plain("02:00:00:00:00:01", "02:00:00:00:00:02", "10.9.0.1", "10.9.0.2", 0, 1, 4000)
    path = st.write(tmp / "s.txt", [probe, bg])
    with LrGen(path, memif.memif_pair(tmp), prefix="b20mcal") as gen:
        gen.trial(1.0, rate0=PROBE_PPS, size0=PROBE_SIZE)
        _loads(gen, args, "memif_alone", None, rnd, out)


def main_memif(args) -> list[dict]:
    out: list[dict] = []
    configs = [("after", args.after)] + ([("before", args.before)] if args.before else [])
    with netns_lock.hold():
        for rnd in range(args.rounds):
            with tempfile.TemporaryDirectory(prefix="b20mcal") as d:
                baseline_memif(Path(d), args, rnd, out)
            for idle in (0, *args.idle_us_list):
                for name, binary in configs:
                    with tempfile.TemporaryDirectory(prefix="b20mem") as d:
                        run_memif(Path(d), args, name, binary, idle, rnd, out)
    return out


def summarise(out: list[dict]) -> None:
    keys = sorted({(r["config"], r["idle_sleep_us"] if r["idle_sleep_us"] is not None else -1, r["load"]) for r in out})
    for c, idle, load in keys:
        rs = [r for r in out if (r["config"], r["idle_sleep_us"] if r["idle_sleep_us"] is not None else -1,
                                 r["load"]) == (c, idle, load)]  # fmt: skip
        p99 = [r["p99_us"] for r in rs]
        print(json.dumps({
            "summary": True, "config": c, "idle_sleep_us": None if idle < 0 else idle, "load": load,
            "rounds": len(rs), "p50_us": statistics.median(r["p50_us"] for r in rs),
            "p99_us": statistics.median(p99), "p99_us_spread": [min(p99), max(p99)], "p99_us_all": p99,
            "max_us": max(r["max_us"] for r in rs), "max_us_median": statistics.median(r["max_us"] for r in rs),
            "probe_lost": sum(r["probe_lost"] for r in rs), "loadavg": [r["loadavg"] for r in rs],
        }), flush=True)  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attach", choices=("af_packet", "memif"), default="af_packet",
                    help="af_packet: bng-dp on a veth (default); memif: on net_memif, no kernel")  # fmt: skip
    ap.add_argument("--before", help="bng-dp built from the commit before (required with af_packet)")
    ap.add_argument("--after", default=str(REPO / "server-dp" / "build" / "bng-dp"))
    ap.add_argument("--rate", type=int, default=100_000_000, help="the subport (access port) rate, bit/s")
    ap.add_argument("--idle-us", type=int, nargs="+", default=[100],
                    help="--idle-sleep-us of the back-off runs (the pod's: 100); memif: several allowed")  # fmt: skip
    ap.add_argument("--idle-only", action="store_true", help="only the back-off runs")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--loads", type=float, nargs="+", default=[0.0, 0.1, 0.9])
    ap.add_argument("--calibrate", action="store_true", help="only the attachment: generator to generator")
    args = ap.parse_args()
    args.idle_us_list, args.idle_us = args.idle_us, args.idle_us[0]
    if args.attach == "memif":
        if args.rate == 100_000_000 and "--rate" not in sys.argv:
            args.rate = 1_000_000_000
        summarise(main_memif(args))
        return 0
    if not args.before:
        ap.error("--before is required with --attach af_packet")
    out: list[dict] = []
    if args.calibrate:
        with netns_lock.hold():
            calibrate(args)
        return 0
    with netns_lock.hold():
        for rnd in range(args.rounds):
            for idle in (args.idle_us,) if args.idle_only else (0, args.idle_us):
                for name, binary in (("before", args.before), ("after", args.after)):
                    with tempfile.TemporaryDirectory(prefix="b20lat") as d:
                        run_config(Path(d), args, name, binary, idle, rnd, out)
    keys = sorted({(r["config"], r["idle_sleep_us"], r["load"]) for r in out})
    for c, idle, load in keys:
        rs = [r for r in out if (r["config"], r["idle_sleep_us"], r["load"]) == (c, idle, load)]
        print(json.dumps({
            "summary": True, "config": c, "idle_sleep_us": idle, "load": load, "rounds": len(rs),
            "p50_us": statistics.median(r["p50_us"] for r in rs), "p99_us": statistics.median(r["p99_us"] for r in rs),
            "p99_us_all": [r["p99_us"] for r in rs], "max_us": max(r["max_us"] for r in rs),
            "probe_lost": sum(r["probe_lost"] for r in rs), "loadavg": [r["loadavg"] for r in rs],
        }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
