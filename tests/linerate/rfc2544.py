"""make bench-rfc2544: RFC 2544 throughput and latency through the emulated pod with bng-lrgen
(docs/linerate.md).

1. Calibration: the generator's own ceiling per frame size, without the pod (its ports on a
   veth pair in a namespace of its own, the same streams): every result within 10% of it is
   flagged generator-bound.
2. The pod: `bngpod up` (topology/examples/bench.yaml), bng-subemu in every access namespace
   dials the first N subscribers of every line group and holds the sessions (it answers the
   DPs' LCP echoes); their sessions (tags, PPPoE id, MACs, address) become the streams:
   upstream one per session from its access port, downstream one per session from the core
   side (the inet host's interface, where the generator answers ARP for 198.51.100.99), and
   a VoIP-like probe (178 B, DSCP EF) each way on a few sessions. --attach memif|vhost: bng-dp
   alone, its sessions installed through PFCP (synthetic, or with --sessions EXPORT exactly
   those of a bngcpctl session export).
3. Throughput: per direction (up, down) and frame size (access-side frames; the core side is
   16 bytes shorter; 64 B upstream cannot carry the headers and the signature: the smallest
   that can, 78 B, is used and reported), and the 89/11 mix of layer-1 bandwidth (downstream
   504 B, upstream 128 B): binary search for the highest rate without loss, then the highest
   with at most 0.001% loss (reported apart). --search mlr|both: FD.io's MLRsearch finds both
   in one search, reported apart from the binary search.
4. Per direction and size beside throughput (--tests): latency at the throughput rate (RFC 2544
   26.2) and at fractions of it (--latency-fractions, default 10%, 50%, 90%), back-to-back
   bursts at the generator's ceiling (26.4), the frame loss rate curve from the ceiling down
   in 10% steps (26.3).
5. Latency: the probe at 1000 pps each way (2000 pps in all) under 0%, 10% and 90% of the
   mix's throughput as background.

JSON lines on stdout (one per result), results.json, report.md and PNG plots (SVG beside) in
--out. The short run (default) is not conformant and says so: --conformant (alias --full) runs
every size with 60 s trials, 1% resolution, latency over 20 trials of 120 s at the throughput
rate and 50 back-to-back repeats (RFC 2544 sections 24 and 26). Needs root, the built
programs and the bngpod-netns lock (bench_rfc2544.sh takes it)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "topology"))
sys.path.insert(0, str(HERE))

import lrgen  # noqa: E402
import memif  # noqa: E402
import report  # noqa: E402
import search  # noqa: E402
import streams  # noqa: E402

from bngpod import binaries, clients, emu, validate  # noqa: E402

POD = REPO / "topology" / "examples" / "bench.yaml"
CORE_IP = "198.51.100.99"  # the generator's address on the core side (the inet host's subnet)
PROBE_SIZE, PROBE_PPS = 178, 1000.0
PDR_LOSS = 1e-5  # 0.001%
GEN_BOUND = 0.9  # a result at >= 90% of the generator's own ceiling is generator-bound
# Dead-peer detection relaxed for the run: a trial above the pod's rate drops the DPs' LCP
# echoes as it drops everything else, and the sessions must outlive it (conditions stated).
ECHO_INTERVAL, ECHO_FAILURES = "30s", "255"
# memif: bng-dp's LCP echo every 5 s, answered by the generator; an overload trial drops
# some of them (both rings full), so 60 misses (5 min) are allowed: a stated condition
MEMIF_ECHO_MISSES = 60
SETTLE_S = 3.0  # idle before the latency trials: what the searches' overload trials left queued
G_UP, G_DOWN, G_PROBE_UP, G_PROBE_DOWN = 0, 1, 2, 3


def log(msg: str) -> None:
    print(f"bench-rfc2544: {msg}", file=sys.stderr, flush=True)


def emit(doc: dict) -> None:
    print(json.dumps(doc), flush=True)


def _bench_pod():
    """topology/bench/bench_pod.py's emulator driver (read-only use)."""
    spec = importlib.util.spec_from_file_location("bench_pod", REPO / "topology" / "bench" / "bench_pod.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sh(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def mac_of(ns: str, ifname: str) -> str:
    return sh("ip", "netns", "exec", ns, "cat", f"/sys/class/net/{ifname}/address")


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def group(res: dict, g: int) -> dict | None:
    return next((x for x in res["groups"] if x["group"] == g), None)


class Runner:
    """Trials on one generator: direction and size to group rates."""

    def __init__(self, gen: lrgen.LrGen, trial_s: float, drain_ms: int, refused_is_loss: bool = False):
        self.gen, self.trial_s, self.drain_ms = gen, trial_s, drain_ms
        self.log: list[dict] = []
        # net_memif pushes back: a frame the device's ring has no room for is not sent (the
        # generator retries it later and falls behind) where a wire would have delivered it
        # and the device dropped it. With refused_is_loss, the frames a trial owed at its
        # rate but could not send count as sent and lost.
        self.refused_is_loss = refused_is_loss

    def _counts(self, res: dict, x: dict, pps: float) -> tuple[int, int]:
        """(frames offered, frames lost) of group document x in trial res at rate pps."""
        tx, lost = x["tx"], x["lost"] + x["unexpected"]
        if self.refused_is_loss:
            due = int(pps * res["duration_s"])
            if due > tx:
                return due, lost + due - tx
        return tx, lost

    def run(self, groups: dict[str, object], duration: float | None = None) -> dict:
        res = self.gen.trial(duration or self.trial_s, drain_ms=self.drain_ms, **groups)
        self.log.append(res)
        return res

    def direction(self, direction: str, size, pps: float, duration: float | None = None) -> search.TrialResult:
        return self.direction_doc(direction, size, pps, duration)[0]

    def direction_doc(self, direction: str, size, pps: float, duration: float | None = None):
        """(the trial's result, the generator's group document: latency and all)."""
        g = G_UP if direction == "up" else G_DOWN
        res = self.run({f"rate{g}": float(pps), f"size{g}": size}, duration)
        x = group(res, g)
        tx, lost = self._counts(res, x, pps)
        return search.TrialResult(pps, tx, x["rx"], lost), x

    def burst(self, direction: str, size, pps: float, frames: int) -> search.TrialResult:
        """frames back to back at pps (the generator's ceiling): one trial of frames / pps s."""
        return self.direction(direction, size, pps, duration=frames / pps)

    def mix(self, l1_bps: float) -> search.TrialResult:
        down, up = search.mix_rates(l1_bps)
        res = self.run(
            {
                f"rate{G_DOWN}": down,
                f"size{G_DOWN}": search.MIX_DOWN_SIZE,
                f"rate{G_UP}": up,
                f"size{G_UP}": search.MIX_UP_SIZE,
            }
        )
        a, b = group(res, G_DOWN), group(res, G_UP)
        (ta, la), (tb, lb) = self._counts(res, a, down), self._counts(res, b, up)
        return search.TrialResult(l1_bps, ta + tb, a["rx"] + b["rx"], la + lb)


def find(trial, hi: float, a) -> tuple[search.SearchResult, search.SearchResult]:
    """The zero-loss rate, then the 0.001% one above it."""
    ndr = search.binary_search(trial, hi, resolution=a.resolution, max_trials=a.max_trials)
    if ndr.at_ceiling:
        return ndr, ndr
    pdr = search.binary_search(
        trial, hi, lo=ndr.rate, loss_ratio=PDR_LOSS, resolution=a.resolution, max_trials=a.pdr_trials
    )
    if pdr.rate < ndr.rate:
        pdr.rate = ndr.rate
    return ndr, pdr


def size_label(size) -> str:
    return "IMIX" if size == "imix" else str(size)


# ---- calibration: the generator alone ----


def calibrate(st: list[streams.Stream], sizes, a) -> dict:
    """The generator's ceiling per direction and size: a veth pair in a namespace of its own,
    the access streams sent out of g0 and counted at g1 (the same kernel path the pod's ports
    take), one trial at a rate it cannot reach; the rate received is the ceiling."""
    ns = f"lrcal-{os.getpid()}"
    sh("ip", "netns", "add", ns)
    out: dict[str, dict[str, float]] = {"up": {}, "down": {}}
    try:
        for k in ("all", "default"):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{k}.disable_ipv6=1")
        sh("ip", "-n", ns, "link", "add", "g0", "mtu", "1600", "type", "veth", "peer", "g1", "mtu", "1600")
        sh("ip", "-n", ns, "link", "set", "g0", "up")
        sh("ip", "-n", ns, "link", "set", "g1", "up")
        # every stream leaves by port 0, whatever its port in the pod
        cal = [streams.Stream(0, s.group, s.size_adjust, s.pppoe_off, s.l3_off, s.header) for s in st]
        path = streams.write(Path(a.out) / "calibration-streams.txt", cal)
        ports = [("", lrgen.af_packet(0, "g0")), ("", lrgen.af_packet(1, "g1"))]
        with lrgen.LrGen(path, ports, netns=ns, prefix="lrcal", log=Path(a.out) / "calibration.log") as gen:
            for direction, g in (("up", G_UP), ("down", G_DOWN)):
                for size in sizes:
                    res = gen.trial(min(a.trial_s, 2.0), drain_ms=300, **{f"rate{g}": 5e6, f"size{g}": size})
                    x = group(res, g)
                    pps = out[direction][size_label(size)] = x["rx"] / res["duration_s"]
                    log(f"  generator ceiling {direction} {size_label(size)}: {pps:.0f} pps")
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    return out


def calibrate_memif(st: list[streams.Stream], sizes, a) -> dict:  # and vhost
    """The generator's ceiling on the memif attachment without bng-dp: its two ports joined
    by net_memif in one process (one lcore sends and receives, as against bng-dp), the same
    streams out of port 0 and counted at port 1, one trial at a rate it cannot reach."""
    out: dict[str, dict[str, float]] = {"up": {}, "down": {}}
    cal = [streams.Stream(0, s.group, s.size_adjust, s.pppoe_off, s.l3_off, s.header) for s in st]
    path = streams.write(Path(a.out) / "calibration-streams.txt", cal)
    d = Path(tempfile.mkdtemp(prefix="lrmemif-cal-"))
    try:
        pair = memif.vhost_pair(d) if a.attach == "vhost" else memif.memif_pair(d)
        with lrgen.LrGen(path, pair, prefix="lrmcal", log=Path(a.out) / "calibration.log") as gen:
            time.sleep(0.5)  # the client connects
            for direction, g in (("up", G_UP), ("down", G_DOWN)):
                for size in sizes:
                    res = gen.trial(min(a.trial_s, 2.0), drain_ms=300, **{f"rate{g}": 50e6, f"size{g}": size})
                    x = group(res, g)
                    pps = out[direction][size_label(size)] = x["rx"] / res["duration_s"]
                    log(f"  generator ceiling ({a.attach}) {direction} {size_label(size)}: {pps:.0f} pps")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


def run_memif(a, sizes, result: dict) -> None:
    """bng-dp alone on a net_memif port (memif.py), sessions installed through PFCP, the
    generator on the other end answering ARP and LCP echoes."""
    n = a.memif_sessions
    what = f"the sessions of {a.sessions}" if a.sessions else f"{n} sessions (IP {a.family})"
    log(f"bng-dp on {a.attach}, {what} through PFCP (LCP echo every {memif.ECHO_INTERVAL} s, "
        f"{MEMIF_ECHO_MISSES} misses allowed)")  # fmt: skip
    kw = {"family": a.family, "attach": a.attach, "export": Path(a.sessions) if a.sessions else None}
    with memif.MemifDp(n, log=Path(a.out) / "bng-dp.log", echo_misses=MEMIF_ECHO_MISSES, **kw) as dp:
        if a.sessions:
            a.family = dp.family  # the export's: "4", or "both" where every session has IPv6 prefixes
            search.MIN_UPSTREAM, search.MIN_FRAME = memif.min_frames(a.family)
            n = len(dp.subs)
            log(f"  {n} PPPoE sessions of the export installed (IP {a.family}, lg1's AC MAC {dp.ac_mac})")
            if dp.ipoe_skipped:
                log(f"  {len(dp.ipoe_skipped)} IPoE sessions of the export left out: the generator has no IPoE "
                    "streams and the rig's line group takes PPPoE only")  # fmt: skip
        st = memif.dp_streams(dp, "02:aa:00:00:00:01", a.probe_sessions, G_UP, G_DOWN, G_PROBE_UP, G_PROBE_DOWN)
        result["sessions"] = dp.established
        result["pod_ports"] = {
            "attach": a.attach,
            "family": a.family,
            "ports": [dp.devargs()],
            "streams_sessions": n,
            "sessions_export": a.sessions,
            "ipoe_left_out": len(dp.ipoe_skipped),
            "dp_lcores": dp.lcores,
            "generator_lcore": 0,
            "probe_sessions": a.probe_sessions,
        }
        result["calibration_pps"] = cal = calibrate_memif(st, sizes, a)
        path = streams.write(Path(a.out) / "streams.txt", st)
        with lrgen.LrGen(
            path,
            [("", dp.devargs())],
            arp={0: memif.ROUTER_ADDR},
            nd={0: memif.ROUTER6_ADDR} if a.family != "4" else None,
            prefix="lrmemif",
            log=Path(a.out) / "generator.log",
            lcp_magic=memif.LCP_MAGIC,
        ) as gen:
            r = Runner(gen, a.trial_s, a.drain_ms, refused_is_loss=True)
            deadline = time.monotonic() + 15  # IPv6: bng-dp resolves its next hop through our NA
            while a.family != "4" and dp.telemetry("/bng/stats").get("router6_resolved") != 1:
                if time.monotonic() > deadline:
                    raise RuntimeError("bng-dp did not resolve the router's IPv6 address (router6_resolved 0)")
                time.sleep(0.2)
            warm = r.run({f"rate{G_UP}": 500.0, f"rate{G_DOWN}": 500.0}, duration=2.0)
            log(f"  learning trial: up rx {group(warm, G_UP)['rx']}/{group(warm, G_UP)['tx']}, "
                f"down rx {group(warm, G_DOWN)['rx']}/{group(warm, G_DOWN)['tx']}")  # fmt: skip
            measure(a, r, sizes, cal, result, dp.sessions_alive)
            result["dp_stats_end"] = dp.telemetry("/bng/stats")


# ---- the pod ----


def instance_of(pod, name: str):
    found = [i for i in pod.instances if i.name == name]
    if not found:
        raise ValueError(f"no DP instance {name!r} in the pod (instances: {', '.join(i.name for i in pod.instances)})")
    return found[0]


def pod_streams(
    pod, sessions: list[dict], users: list[dict], probes: int, attach: str = "pod"
) -> tuple[list, list[tuple[str, str]], dict]:
    """Streams of the dialled sessions; the generator's ports and what they are.

    attach "pod": the access ports in order, then the core side (the inet host's eth0 behind
    the core router). attach "dp:NAME": one port, the switch's end of instance NAME's VF veth:
    frames go straight to bng-dp's data0 (no Open vSwitch, no core router) and everything
    bng-dp sends out is read there (Open vSwitch still forwards its own copy on)."""
    tpid = {u["port"]: int(str(u["tpid"]), 0) for u in users}
    if attach.startswith("dp:"):
        inst = instance_of(pod, attach[3:])
        served = {g.name for g in inst.groups}
        sessions = [s for s in sessions if s.get("line_group") in served]
        if not sessions:
            raise RuntimeError(f"no dialled session is {inst.name}'s")
        acc_ports = sorted({s["port"] for s in sessions})
        idx = dict.fromkeys(acc_ports, 0)
        core = 0
        # frames from the core router to the group's core MAC (one group's here: the first)
        core_mac = pod.core.router_mac.lower()
        router_mac = inst.groups[0].core_mac.lower()
        if len(served) > 1:
            raise RuntimeError(f"{inst.name} serves several groups: attach to an instance of one")
    else:
        acc_ports = sorted({s["port"] for s in sessions})
        idx = {p: i for i, p in enumerate(acc_ports)}
        core = len(acc_ports)
        core_mac = mac_of(emu.INET_NS, "eth0")
        router_mac = mac_of(emu.CORE_NS, "srv0")
    ses = [
        streams.Session(
            s["port"], s["stag"], s["ctag"], tpid[s["port"]], s["pppoe_id"], s["mac"], s["ac_mac"], s["address"]
        )  # fmt: skip
        for s in sessions
    ]
    st = [streams.upstream(s, CORE_IP, idx[s.port], G_UP, 10000 + i % 50000) for i, s in enumerate(ses)]
    st += [
        streams.downstream(s, core_mac, router_mac, CORE_IP, core, G_DOWN, 10000 + i % 50000) for i, s in enumerate(ses)
    ]
    # the probe on gold sessions where there are (voice class for DSCP EF), else the first
    gold = {g.name for g in pod.groups if g.qos_profile.name == "gold"}
    by_group = {s["address"]: s.get("line_group") for s in sessions}
    pick = [s for s in ses if by_group.get(s.address) in gold][:probes] or ses[:probes]
    st += [streams.upstream(s, CORE_IP, idx[s.port], G_PROBE_UP, 7000 + i, streams.DSCP_EF) for i, s in enumerate(pick)]
    st += [
        streams.downstream(s, core_mac, router_mac, CORE_IP, core, G_PROBE_DOWN, 7000 + i, streams.DSCP_EF)
        for i, s in enumerate(pick)
    ]
    if attach.startswith("dp:"):
        ports = [(emu.SWITCH_NS, f"v{instance_of(pod, attach[3:]).vf.emu_ofport}")]
    else:
        ports = [
            (emu.access_ns(next(p for p in pod.ports_with_role("access") if p.name == name)), "sub0")
            for name in acc_ports
        ]
        ports.append((emu.INET_NS, "eth0"))
    info = {
        "attach": attach,
        "ports": [f"{ns}:{ifname}" for ns, ifname in ports],
        "streams_sessions": len(ses),
        "core_src_mac": core_mac,
        "core_dst_mac": router_mac,
        "probe_sessions": len(pick),
    }
    return st, ports, info


class Holders:
    """bng-subemu in every access namespace with subscribers in users_file: dials them, sends
    no traffic and no LCP echoes of its own (so that a trial that overloads the pod does not
    make it hang up), answers the DPs' echoes, and holds the sessions until stopped."""

    def __init__(self, pod, users_file: Path):
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        ports = {p.name: p for p in pod.ports_with_role("access")}
        run = emu.run_dir()
        for name in sorted({u["port"] for u in json.loads(users_file.read_text())}):
            sock = run / f"rfc2544-subemu-{name}.sock"
            out = run / "logs" / f"rfc2544-subemu-{name}.jsonl"
            cmd = [
                "ip", "netns", "exec", emu.access_ns(ports[name]), str(binaries.BNG_SUBEMU), "--iface", "sub0",
                "--subscribers", str(users_file), "--port", name, "--concurrency", "1000", "--status", str(sock),
                "--json-every", "5s", "--retries", "5", "--echo-interval", "0",
                # a target, though it sends next to nothing: without one bng-subemu panics on the
                # first downstream datagram of a session (rxUDP reads the unset target's address)
                "--rate", "0.001", "--target", f"{CORE_IP}:9",
            ]  # fmt: skip
            with open(out, "wb") as f, open(out.with_suffix(".err"), "wb") as ferr:
                proc = subprocess.Popen(cmd, stdout=f, stderr=ferr, stdin=subprocess.DEVNULL)
            self.procs.append((name, proc, sock))

    def stats(self) -> list[dict]:
        out = []
        for name, proc, sock in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"bng-subemu on {name} exited ({proc.returncode})")
            try:
                out.append(clients.unix_get(sock, "/v1/stats", 10.0))
            except (OSError, RuntimeError, ValueError):
                pass
        return out

    def up(self) -> int:
        return sum(s["up"] for s in self.stats())

    def sessions(self) -> list[dict]:
        out = []
        for _, _, sock in self.procs:
            out += clients.unix_get(sock, "/v1/sessions?state=up", 30.0)
        return out

    def stop(self) -> None:
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for _, proc, _ in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []


def dial(pod, users_file: Path, total: int, timeout: float):
    emus = Holders(pod, users_file)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if emus.up() >= total:
            break
        time.sleep(0.5)
    sessions = [s for s in emus.sessions() if s.get("address")]
    log(f"  {len(sessions)} of {total} sessions up in {time.monotonic() - t0:.1f} s")
    return emus, sessions


def extras(a, r: Runner, direction: str, size, hi: float, ndr_pps: float, result: dict) -> None:
    """What RFC 2544 asks beside the binary search, for one direction and size: MLRsearch's
    throughput (reported apart), latency at the throughput rate (26.2) and at a.latency_fractions
    of it, back-to-back bursts
    at the generator's ceiling (26.4), the frame loss rate curve from it (26.3)."""
    label = size_label(size)
    base = {"direction": direction, "size": label, "conformant": a.full}
    if a.search in ("mlr", "both"):
        m = search.mlr_search(
            lambda pps, d: r.direction(direction, size, pps, d),
            hi,
            max(100.0, hi * 1e-4),
            loss_ratios=(0.0, PDR_LOSS),
            resolution=a.resolution,
            trial_s=a.trial_s,
            initial_trial_s=1.0 if a.full else None,
            search_s_max=a.mlr_max_s,
        )
        ndr, pdr = m.goals
        doc = dict(base, test="throughput_mlr", ndr_pps=round(ndr.rate), ndr_lower=ndr.lower, ndr_upper=ndr.upper,
                   pdr_pps=round(pdr.rate), pdr_lower=pdr.lower, pdr_upper=pdr.upper, trial_count=len(m.trials),
                   trial_s=a.trial_s, trials=[vars(t) for t in m.trials])  # fmt: skip
        result["throughput_mlr"].append(doc)
        emit({k: v for k, v in doc.items() if k != "trials"})
    if "latency" in a.tests and ndr_pps > 0:
        for frac in a.latency_fractions:  # 1.0: RFC 2544's 26.2, the rest below the found rate
            pps = ndr_pps * frac
            docs = [r.direction_doc(direction, size, pps, a.rate_latency_s) for _ in range(a.latency_trials)]
            lat = [x["latency_ns"] for _, x in docs if x.get("latency_ns")]
            avg = (lambda k, lat=lat: round(sum(v[k] for v in lat) / len(lat) / 1e3, 1)) if lat else (lambda k: None)
            doc = dict(base, test="latency_at_throughput", fraction=frac, rate_pps=round(pps), trials=len(docs),
                       trial_s=a.rate_latency_s, min_us=round(min(v["min"] for v in lat) / 1e3, 1) if lat else None,
                       avg_us=avg("avg"), p99_us=avg("p99"), max_us=round(max(v["max"] for v in lat) / 1e3, 1)
                       if lat else None, lost=sum(t.lost for t, _ in docs))  # fmt: skip
            result["latency_at_throughput"].append(doc)
            emit(doc)
    if "b2b" in a.tests:
        frames = max(1, int(hi * a.b2b_s))
        b = search.back_to_back(lambda n: r.burst(direction, size, hi, n), hi, frames, min_frames=1,
                                repeats=a.b2b_repeats, resolution=a.resolution)  # fmt: skip
        doc = dict(base, test="back_to_back", rate_pps=round(hi), frames=round(b.frames, 1), repeats=b.repeats,
                   at_ceiling=b.at_ceiling, longest_tried=frames, trials=len(b.trials))  # fmt: skip
        result["back_to_back"].append(doc)
        emit(doc)
    if "curve" in a.tests:
        c = search.loss_curve(lambda pps: r.direction(direction, size, pps), hi, step=a.curve_step)
        doc = dict(base, test="loss_curve", max_rate_pps=round(hi), max_rate_is="generator ceiling",
                   points=[{"fraction": f, "rate": round(t.rate), "tx": t.tx, "lost": t.lost,
                            "loss_pct": round(search.loss_percent(t), 4)} for f, t in c])  # fmt: skip
        result["loss_curve"].append(doc)
        emit(doc)


def measure(a, r: Runner, sizes, cal: dict, result: dict, alive) -> None:
    """Throughput per direction and size, the 89/11 mix, then the probe's latency under
    background; alive() counts the sessions still up (after every result)."""
    for direction in ("up", "down"):
        for size in sizes:
            label = size_label(size)
            hi = min(cal[direction][label], a.max_pps)
            ndr, pdr = find(lambda pps, d=direction, s=size: r.direction(d, s, pps), hi, a)
            frame = search.mean_access_size(direction, size)
            doc = {
                "test": "throughput",
                "direction": direction,
                "size": label,
                "access_frame_bytes": round(frame, 1),
                "ndr_pps": round(ndr.rate),
                "ndr_mbps_l1": round(search.l1_bps(ndr.rate, frame) / 1e6, 2),
                "pdr_0.001%_pps": round(pdr.rate),
                "generator_ceiling_pps": round(cal[direction][label]),
                "generator_bound": ndr.rate >= GEN_BOUND * cal[direction][label],
                "trials": [vars(t) for t in ndr.trials + (pdr.trials if pdr is not ndr else [])],
                "trial_s": a.trial_s,
                "conformant": a.full,
            }
            doc["sessions_up_after"] = alive()
            result["throughput"].append(doc)
            emit({k: v for k, v in doc.items() if k != "trials"})
            extras(a, r, direction, size, hi, ndr.rate, result)
    # the 89/11 mix: a share of layer-1 bandwidth
    cap_down = search.l1_bps(min(cal["down"].get("512", a.max_pps), a.max_pps), search.MIX_DOWN_SIZE)
    hi = cap_down / search.MIX_DOWN_SHARE
    ndr, pdr = find(r.mix, hi, a)
    down, up = search.mix_rates(ndr.rate)
    doc = {
        "test": "throughput",
        "direction": "mix 89/11",
        "size": f"{search.MIX_DOWN_SIZE}/{search.MIX_UP_SIZE}",
        "ndr_mbps_l1": round(ndr.rate / 1e6, 2),
        "ndr_pps": round(down + up),
        "ndr_down_pps": round(down),
        "ndr_up_pps": round(up),
        "pdr_0.001%_mbps_l1": round(pdr.rate / 1e6, 2),
        "trials": [vars(t) for t in ndr.trials + (pdr.trials if pdr is not ndr else [])],
        "trial_s": a.trial_s,
        "conformant": a.full,
        "sessions_up_after": alive(),
    }
    result["throughput"].append(doc)
    emit({k: v for k, v in doc.items() if k != "trials"})
    # latency of the probe under background of the mix, after the last overload has drained
    if "probe" not in a.tests:
        (Path(a.out) / "trials.jsonl").write_text("".join(json.dumps(x) + "\n" for x in r.log))
        return
    time.sleep(SETTLE_S)
    for frac in (0.0, 0.1, 0.9):
        down, up = search.mix_rates(ndr.rate * frac)
        groups = {
            f"rate{G_PROBE_UP}": PROBE_PPS,
            f"size{G_PROBE_UP}": PROBE_SIZE,
            f"rate{G_PROBE_DOWN}": PROBE_PPS,
            f"size{G_PROBE_DOWN}": PROBE_SIZE,
        }
        if frac > 0:
            groups.update({f"rate{G_DOWN}": down, f"size{G_DOWN}": search.MIX_DOWN_SIZE,
                           f"rate{G_UP}": up, f"size{G_UP}": search.MIX_UP_SIZE})  # fmt: skip
        runs = [r.run(groups, duration=a.latency_s) for _ in range(a.latency_trials)]
        doc = {"test": "latency", "background": frac, "background_mbps_l1": round(ndr.rate * frac / 1e6, 2),
               "probe_bytes": PROBE_SIZE, "probe_pps_each_way": PROBE_PPS, "trial_s": a.latency_s,
               "trials": a.latency_trials, "conformant": a.full}  # fmt: skip
        for name, g in (("up", G_PROBE_UP), ("down", G_PROBE_DOWN)):
            xs = [group(x, g) for x in runs]
            lat = [x["latency_ns"] for x in xs if x["latency_ns"]]
            doc[name] = {
                "tx": sum(x["tx"] for x in xs),
                "lost": sum(x["lost"] for x in xs),
                "min_us": round(min(v["min"] for v in lat) / 1e3, 1) if lat else None,
                "avg_us": round(sum(v["avg"] for v in lat) / len(lat) / 1e3, 1) if lat else None,
                "max_us": round(max(v["max"] for v in lat) / 1e3, 1) if lat else None,
                # over several trials: the mean of the trials' p99 (RFC 2544: the average)
                "p99_us": round(sum(v["p99"] for v in lat) / len(lat) / 1e3, 1) if lat else None,
            }
        bg = [group(x, G_DOWN) for x in runs if group(x, G_DOWN)]
        doc["background_lost"] = sum(x["lost"] for x in bg if x["tx"]) if frac > 0 else 0
        doc["sessions_up_after"] = alive()
        result["latency"].append(doc)
        emit(doc)
    (Path(a.out) / "trials.jsonl").write_text("".join(json.dumps(x) + "\n" for x in r.log))


def run_pod(a, pod, sizes, result: dict) -> None:
    bp = _bench_pod()  # its subset() of users.json
    per_group = a.sessions_per_group
    log(f"bngpod up {a.pod} --subscribers {per_group} (LCP echo every {ECHO_INTERVAL}, {ECHO_FAILURES} failures)")
    emu.up(pod, a.pod, subscribers=per_group,
           cp_options={"lcp_echo_interval": ECHO_INTERVAL, "lcp_echo_failures": ECHO_FAILURES})  # fmt: skip
    emus = None
    try:
        all_users = json.loads((emu.users_dir() / "users.json").read_text())
        users_file = bp.subset(all_users, pod, per_group, emu.run_dir() / "rfc2544-users.json")
        total = per_group * len(pod.groups)
        emus, sessions = dial(pod, users_file, total, a.dial_timeout)
        if not sessions:
            raise RuntimeError("no session came up")
        group_of = {(u["port"], u["stag"], u["ctag"]): u["line_group"] for u in all_users}
        for s in sessions:
            s["line_group"] = group_of.get((s["port"], s["stag"], s["ctag"]))
        st, ports, info = pod_streams(pod, sessions, all_users, a.probe_sessions, a.attach)
        result["sessions"] = len(sessions)
        result["pod_ports"] = info
        result["calibration_pps"] = cal = calibrate(st, sizes, a)
        path = streams.write(Path(a.out) / "streams.txt", st)
        devs = [(ns, lrgen.af_packet(i, ifname)) for i, (ns, ifname) in enumerate(ports)]
        core = len(ports) - 1
        gen_log = Path(a.out) / "generator.log"
        arp = {} if a.attach.startswith("dp:") else {core: CORE_IP}
        with lrgen.LrGen(path, devs, arp=arp, prefix="lrpod", log=gen_log) as gen:
            r = Runner(gen, a.trial_s, a.drain_ms)
            # learning frames: the core router resolves our address, switch and DPs see both ways
            warm = r.run({f"rate{G_UP}": 500.0, f"rate{G_DOWN}": 500.0}, duration=2.0)
            log(f"  learning trial: up rx {group(warm, G_UP)['rx']}/{group(warm, G_UP)['tx']}, "
                f"down rx {group(warm, G_DOWN)['rx']}/{group(warm, G_DOWN)['tx']}")  # fmt: skip
            measure(a, r, sizes, cal, result, emus.up)
    finally:
        if emus is not None:
            emus.stop()
        for f in (emu.run_dir() / "logs").glob("rfc2544-subemu-*"):
            shutil.copy(f, Path(a.out) / f.name)  # the pod's logs go with it
        if not a.keep:
            emu.down(quiet=True)


def direct_attach(a) -> bool:
    """bng-dp alone on a kernel-free port (memif or vhost), sessions through PFCP."""
    return a.attach in ("memif", "vhost")


def options(argv=None) -> argparse.Namespace:
    """The command line, with every default that depends on --conformant and --attach filled in."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pod", default=str(POD))
    ap.add_argument("--conformant", "--full", dest="full", action="store_true",
                    help="the full, RFC 2544-conformant run: every frame size, 60 s trials, 1%% resolution, "
                    "latency over 20 trials of 120 s, 50 back-to-back repeats of 2 s bursts")  # fmt: skip
    ap.add_argument("--search", choices=("binary", "mlr", "both"), default="binary",
                    help="throughput search: binary (RFC 2544's), mlr (FD.io's MLRsearch) or both, reported apart "
                    "(default: %(default)s)")  # fmt: skip
    ap.add_argument(
        "--tests",
        default="latency,b2b,curve,probe",
        help="besides throughput: latency (at the throughput rate, 26.2), b2b (back-to-back, 26.4), "
        "curve (frame loss rate, 26.3), probe (VoIP probe under background) (default: %(default)s)",
    )
    ap.add_argument("--latency-fractions", default="0.1,0.5,0.9,1.0",
                    help="latency trials at these shares of each size's zero-loss rate (1.0: RFC 2544 26.2's, "
                    "at the rate itself) (default: %(default)s)")  # fmt: skip
    ap.add_argument("--rate-latency-s", type=float, help="seconds per latency trial at the throughput rate "
                    "(default: the trial length; --conformant 120)")  # fmt: skip
    ap.add_argument("--b2b-s", type=float, help="the longest burst tried, seconds at the ceiling (0.5; --conformant 2)")
    ap.add_argument("--b2b-repeats", type=int, help="back-to-back repeats (2; --conformant 50)")
    ap.add_argument("--curve-step", type=float, default=0.1, help="loss curve step, share of the maximum rate")
    ap.add_argument("--mlr-max-s", type=float, help="MLRsearch's time limit per search (600; --conformant 7200)")
    ap.add_argument("--sizes", help="comma-separated access frame sizes and/or imix (default: 64,512,1518,imix; "
                    "--full: 64,128,256,512,1024,1280,1518,imix)")  # fmt: skip
    ap.add_argument("--sessions-per-group", type=int, default=256, help="sessions dialled per line group")
    ap.add_argument("--probe-sessions", type=int, default=4)
    ap.add_argument("--trial-s", type=float, help="seconds per throughput trial (default 2; --full 60)")
    ap.add_argument("--latency-s", type=float, help="seconds per latency trial (default 5; --full 120)")
    ap.add_argument("--latency-trials", type=int, help="latency trials per load (default 1; --full 20)")
    ap.add_argument("--drain-ms", type=int, help="counting after the senders stop (1000; --full 2000, RFC 2544's 2 s)")
    ap.add_argument("--resolution", type=float, help="search resolution, share of the upper bound (0.1; --full 0.01)")
    ap.add_argument("--max-trials", type=int, help="trials per zero-loss search (7; --full 14)")
    ap.add_argument("--pdr-trials", type=int, help="trials per 0.001%% search (2; --full 8)")
    ap.add_argument("--max-pps", type=float, help="upper bound of every search (1e6; memif: 5e7)")
    ap.add_argument("--memif-sessions", type=int, default=1000, help="sessions of --attach memif|vhost (at most 1000)")
    ap.add_argument("--sessions", metavar="EXPORT",
                    help="memif|vhost: install exactly the PPPoE sessions of this session export (`bngcpctl "
                    "sessions --export json|csv`) through PFCP instead of synthetic ones, and send the streams "
                    "over them; they must be instance 1's (dp1), on lg1's lines and pools")  # fmt: skip
    ap.add_argument("--family", choices=memif.FAMILIES, default="4",
                    help="memif|vhost: IPv4, IPv6 or dual-stack sessions and streams (%(default)s)")  # fmt: skip
    ap.add_argument("--dial-timeout", type=float, default=120)
    ap.add_argument("--out", default=str(HERE / "report"), help="results.json, report.md, plots")
    ap.add_argument("--keep", action="store_true", help="leave the pod up (bngpod down removes it)")
    ap.add_argument(
        "--attach",
        default="pod",
        help="pod: the generator on the access ports and behind the core router (the whole pod); dp:NAME: on "
        "instance NAME's VF veth, bng-dp alone on af_packet, only its sessions; memif: bng-dp alone on a "
        "net_memif port, sessions through PFCP, no kernel on the data path; vhost: the same on a vhost-user port "
        "(bng-dp net_vhost, the generator net_virtio_user) (default: %(default)s)",
    )
    a = ap.parse_args(argv)
    full = a.full
    direct = direct_attach(a)
    if a.family != "4" and not direct:
        ap.error("--family 6|both needs --attach memif or vhost (the pod's subscriber emulator dials IPv4)")
    if a.sessions and not direct:
        ap.error("--sessions EXPORT needs --attach memif or vhost (the pod dials its own sessions)")
    if a.sessions and a.family != "4":
        ap.error("--sessions EXPORT: the family is the export's (IPv6 where its sessions have prefixes)")
    # the smallest frames of the family (memif.min_frames), for search's frame arithmetic
    search.MIN_UPSTREAM, search.MIN_FRAME = memif.min_frames(a.family)
    a.max_pps = a.max_pps or (5e7 if direct else 1e6)
    a.trial_s = a.trial_s or (60.0 if full else 2.0)
    a.drain_ms = a.drain_ms if a.drain_ms is not None else (2000 if full else 1000)
    a.latency_s = a.latency_s or (120.0 if full else 5.0)
    a.latency_trials = a.latency_trials or (20 if full else 1)
    a.resolution = a.resolution or (0.01 if full else 0.1)
    a.max_trials = a.max_trials or (14 if full else 7)
    a.pdr_trials = a.pdr_trials if a.pdr_trials is not None else (8 if full else 2)
    a.rate_latency_s = a.rate_latency_s or (120.0 if full else a.trial_s)
    a.b2b_s = a.b2b_s or (2.0 if full else 0.5)
    a.b2b_repeats = a.b2b_repeats or (50 if full else 2)
    a.mlr_max_s = a.mlr_max_s or (7200.0 if full else 600.0)
    a.tests = {t.strip() for t in a.tests.split(",") if t.strip()}
    try:
        a.latency_fractions = sorted({float(f) for f in a.latency_fractions.split(",") if f.strip()})
    except ValueError:
        ap.error(f"--latency-fractions {a.latency_fractions!r}: comma-separated numbers in (0, 1]")
    if not a.latency_fractions or not all(0 < f <= 1 for f in a.latency_fractions):
        ap.error(f"--latency-fractions {a.latency_fractions}: shares of the found rate in (0, 1]")
    if a.tests - {"latency", "b2b", "curve", "probe"}:
        ap.error(f"--tests: unknown {', '.join(sorted(a.tests - {'latency', 'b2b', 'curve', 'probe'}))}")
    default_sizes = [*search.SIZES, "imix"] if full else [64, 512, 1518, "imix"]
    sizes = [s if s == "imix" else int(s) for s in a.sizes.split(",")] if a.sizes else default_sizes
    a.sizes = sizes
    return a


def main(argv=None) -> int:
    a = options(argv)
    full, sizes, direct = a.full, a.sizes, direct_attach(a)
    if os.geteuid() != 0:
        print("bench-rfc2544: needs root", file=sys.stderr)
        return 2
    why = binaries.missing(binaries.BNG_DP, binaries.BNG_CP, binaries.BNGCPCTL, binaries.BNG_SUBEMU, lrgen.BINARY)
    if why:
        print(f"bench-rfc2544: {why}", file=sys.stderr)
        return 2
    if emu.State.load() is not None:
        print("bench-rfc2544: a pod is already up; run `bngpod down` first", file=sys.stderr)
        return 2
    pod = validate.load(Path(a.pod))
    Path(a.out).mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    result = {
        "bench": "rfc2544",
        "conformant": full,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "pod": a.pod,
        "loadavg_start": loadavg(),
        "settings": {k: sorted(v) if isinstance(v, set) else v for k, v in vars(a).items() if k not in ("out",)},
        "throughput": [],
        "throughput_mlr": [],
        "back_to_back": [],
        "loss_curve": [],
        "latency_at_throughput": [],
        "latency": [],
    }
    emit(
        {
            "bench": "rfc2544",
            "conformant": full,
            "loadavg": result["loadavg_start"],
            "sizes": [size_label(s) for s in sizes],
        }
    )
    try:
        if direct:
            run_memif(a, sizes, result)
        else:
            run_pod(a, pod, sizes, result)
    finally:
        result["loadavg_end"] = loadavg()
        result["wall_s"] = round(time.monotonic() - t0, 1)
        (Path(a.out) / "results.json").write_text(json.dumps(result, indent=1))
        report.write(result, Path(a.out))
        log(f"done in {result['wall_s']} s; load average {result['loadavg_end']}; report: {a.out}/report.md")
    emit({"bench": "rfc2544", "done": True, "wall_s": result["wall_s"], "loadavg_end": result["loadavg_end"],
          "report": str(Path(a.out) / "report.md")})  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
