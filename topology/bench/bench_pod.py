"""make bench-pod: session setup rate and per-subscriber throughput through the whole
emulated pod (docs/benchmarks.md, "Through the whole emulated pod").

Each measurement runs on a fresh pod (`bngpod up`, topology/examples/bench.yaml by
default), brought down after it:

- setup: for each point (N sessions, optionally offered at R sessions/s: `N@R`) and each
  client mode in turn (lenient, then strict: the strict emulator drops session frames that
  come before their PADS, as common CPEs do, and hangs up with Terminate-Request, Ack, then
  PADT), bng-subemu in every access namespace dials the first N/groups subscribers of every
  line group and sends one UDP datagram per second per session to the inet host's echo
  server, the first one as soon as IPCP is up. A session counts once the first echo of its
  own datagram has come back (the emulator's per-session `first_rx_ms`). The rate is N
  counted / (last first echo - first PADI), over all emulators on one clock (each reports
  its `start_unix`); PADI-to-IPCP is per session from its first PADI (retries included);
  CPU time per part (OVS, bng-dp, bng-cp, FreeRADIUS, the emulators) is also given per
  counted session. The emulators are then stopped (hang-up of every session) and what the
  emulators saw out of order is counted (`wire`: early, early_dropped,
  padt_before_term_ack).
- throughput: one subscriber alone per QoS profile (the first of a silver and of a gold
  line group). Downstream: UDP from the inet host to its address at 1.5x the profile
  rate; measured as the frames reaching sub0 of its access namespace. Upstream: the
  emulator sends 1.5x the profile's PIR; measured as the packets reaching the inet host.
  Both are converted to the profile's layer (DESIGN.md: the access Ethernet frame, QinQ +
  PPPoE, with FCS).

One JSON line per result on stdout, progress on stderr. Everything is removed at the end,
also on failure (`emu.down`). Needs root and the bngpod-netns lock (bench_pod.sh takes it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "topology"))

from bngpod import binaries, clients, emu, validate  # noqa: E402
from bngpod.rawsock import in_netns  # noqa: E402

POD = REPO / "topology" / "examples" / "bench.yaml"
TARGET_PORT = 7
# access frame = IPv4 packet + Ethernet 14 + two tags 8 + PPPoE 6 + PPP 2 + FCS 4
ACCESS_OVERHEAD = 34
# a frame on the veth (rx_bytes) lacks only the FCS
FCS = 4
PAYLOAD = 1400  # UDP payload of the throughput tests: IPv4 1428 B, access frame 1462 B


def log(msg: str) -> None:
    print(f"bench-pod: {msg}", file=sys.stderr, flush=True)


def emit(doc: dict) -> None:
    print(json.dumps(doc), flush=True)


def cpu_seconds(pid: int) -> float:
    """utime + stime of pid and its reaped children (the kernel's clock ticks)."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return sum(int(x) for x in f[11:15]) / os.sysconf("SC_CLK_TCK")


def pod_pids() -> dict[str, int]:
    """The pod's processes, by the names of the state file."""
    state = emu.State.load()
    return {name: e["pid"] for name, e in (state.data.get("pids", {}) if state else {}).items()}


def cpu_by_part(pids: dict[str, int]) -> dict[str, float]:
    parts: dict[str, float] = {}
    for name, pid in pids.items():
        key = name.split()[0]
        key = {"ovs-vswitchd": "ovs", "freeradius": "radius"}.get(key, key)
        parts[key] = parts.get(key, 0.0) + cpu_seconds(pid)
    return parts


def link_stats(ns: str, ifname: str) -> dict:
    out = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show", ifname], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"ip -n {ns} link show {ifname}: {out.stderr.strip()}")
    return json.loads(out.stdout)[0]["stats64"]


class Emulators:
    """bng-subemu in each access namespace that has subscribers in users_file."""

    def __init__(
        self,
        pod,
        users_file: Path,
        rate: float,
        size: int = 64,
        concurrency: int = 1000,
        tag: str = "",
        hangup_rate: float | None = None,
        strict: bool = False,
        dial_rate: float = 0.0,
        skip: int = 0,
        count: int = 0,
    ):
        """skip, count: each emulator leaves out the first `skip` subscribers of its port and
        dials `count` of the rest (0: all), so that two emulators on one port (another tag)
        dial different subscribers."""
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.outs: list[Path] = []
        entries = json.loads(users_file.read_text())
        ports = {p.name: p for p in pod.ports_with_role("access")}
        run = emu.run_dir()
        names = sorted({u["port"] for u in entries})
        for name in names:
            port = ports[name]
            sock = run / f"bench-subemu-{name}{tag}.sock"
            out = run / "logs" / f"bench-subemu-{name}{tag}.jsonl"
            cmd = [
                "ip", "netns", "exec", emu.access_ns(port), str(binaries.BNG_SUBEMU), "--iface", "sub0",
                "--subscribers", str(users_file), "--port", name,  # the TPID: users.json's
                "--concurrency", str(concurrency), "--status", str(sock), "--json-every", "1s",
                "--size", str(size), "--retries", "5",
            ]  # fmt: skip
            if skip > 0:
                cmd += ["--skip", str(skip)]
            if count > 0:
                cmd += ["--count", str(count)]
            if rate > 0:
                cmd += ["--rate", str(rate), "--target", f"{emu.INET_HOST}:{TARGET_PORT}"]
            if hangup_rate is not None:
                cmd += ["--hangup-rate", f"{hangup_rate:g}"]
            if strict:
                cmd.append("--strict")
            if dial_rate > 0:  # the offered rate, shared by the emulators
                cmd += ["--dial-rate", f"{dial_rate / len(names):g}"]
            with open(out, "wb") as f, open(out.with_suffix(".err"), "wb") as ferr:
                proc = subprocess.Popen(cmd, stdout=f, stderr=ferr, stdin=subprocess.DEVNULL)
            self.procs.append((name, proc, sock))
            self.outs.append(out)

    def pids(self) -> dict[str, int]:
        return {f"bng-subemu {n}": p.pid for n, p, _ in self.procs}

    def stats(self) -> list[dict]:
        out = []
        for name, proc, sock in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"bng-subemu on {name} exited ({proc.returncode})")
            try:
                out.append(clients.unix_get(sock, "/v1/stats", 10.0))
            except (OSError, RuntimeError, ValueError):
                out.append(None)
        return out

    def sessions(self) -> list[tuple[dict, list[dict]]]:
        return [
            (clients.unix_get(sock, "/v1/stats", 10.0), clients.unix_get(sock, "/v1/sessions", 30))
            for _, _, sock in self.procs
        ]

    def stop(self) -> float:
        """SIGTERM: each emulator hangs its sessions up, paced (at most its --hangup-max,
        10 s). Returns the seconds until the last one exited."""
        t0 = time.monotonic()
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = t0 + 20
        for _, proc, _ in self.procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []
        return time.monotonic() - t0

    def finals(self) -> list[dict]:
        """The last JSON line ("final") of every emulator's output."""
        out = []
        for path in self.outs:
            lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
            if lines:
                try:
                    out.append(json.loads(lines[-1]))
                except ValueError:
                    pass
        return out


def subset(all_users: list[dict], pod, per_group: int, path: Path) -> Path:
    counts: dict[str, int] = {}
    chosen = []
    for u in all_users:
        g = u["line_group"]
        if counts.get(g, 0) < per_group:
            counts[g] = counts.get(g, 0) + 1
            chosen.append(u)
    path.write_text(json.dumps(chosen))
    return path


def cp_sessions() -> int:
    return sum(v.get("sessions") or 0 for v in emu.cp_api("/v1/instances"))


def wait_cp_empty(timeout: float) -> int:
    deadline = time.monotonic() + timeout
    n = cp_sessions()
    while n and time.monotonic() < deadline:
        time.sleep(0.5)
        n = cp_sessions()
    return n


def after_stop(emus: Emulators) -> dict:
    """Stop the emulators (paced hangups) and see what the CP still holds: at once, and
    after up to 10 s (sessions whose hangup was lost stay until their echoes fail)."""
    held_before = cp_sessions()
    stop_s = emus.stop()
    held_at_stop = cp_sessions()
    t0 = time.monotonic()
    held = wait_cp_empty(10)
    wire: dict[str, int] = {}
    for st in emus.finals():
        for k, v in (st.get("wire") or {}).items():
            wire[k] = wire.get(k, 0) + v
    return {
        "stop_s": round(stop_s, 2),
        "cp_sessions_before_stop": held_before,
        "cp_sessions_at_stop": held_at_stop,
        "cp_sessions_after_stop": held,
        "cp_empty_s": round(time.monotonic() - t0, 1) if held == 0 else None,
        "hangups": wire.get("hangups"),
        "wire": {
            k: wire.get(k, 0)
            for k in (
                "wrong_session",
                "early",
                "early_dropped",
                "padt_before_term_ack",
                "late",
                "unexpected",
                "tx_dropped",
                "rx_socket_dropped",
            )
        },  # fmt: skip
    }


def pct(values: list[float], p: float) -> float:
    if not values:
        return math.nan
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p))]


def bench_setup(
    pod,
    all_users: list[dict],
    n: int,
    rate: float,
    concurrency: int,
    timeout: float,
    hangup_rate=None,
    strict: bool = False,
    dial_rate: float = 0.0,
    check=None,
) -> dict:
    """check: called once every session passes traffic (or at the timeout), before the CPU
    is read and the emulators hang up; what it returns is the result's `checks`."""
    groups = len(pod.groups)
    per_group = n // groups
    path = subset(all_users, pod, per_group, emu.run_dir() / f"bench-users-{n}.json")
    total = per_group * groups
    client = "strict" if strict else "lenient"
    offered = f"offered at {dial_rate:g}/s" if dial_rate > 0 else "as fast as they go"
    log(f"setup: {total} sessions ({per_group} per line group, {client} clients, {offered}), {rate:g} datagram/s each")
    pids = pod_pids()
    cpu0 = cpu_by_part(pids)
    t0 = time.monotonic()
    emus = Emulators(
        pod, path, rate, concurrency=concurrency, tag=f"-{n}", hangup_rate=hangup_rate,
        strict=strict, dial_rate=dial_rate,
    )  # fmt: skip
    pids.update(emus.pids())
    done = False
    try:
        last = -1
        while time.monotonic() - t0 < timeout:
            st = [s for s in emus.stats() if s]
            up = sum(s["traffic_up"] for s in st)
            if up != last:
                ipcp = sum(s["up"] for s in st)
                log(f"  t={time.monotonic() - t0:5.1f}s traffic passes on {up}/{total} (ipcp up {ipcp})")
                last = up
            if up >= total:
                done = True
                break
            time.sleep(0.5)
        checked = check() if check is not None else None
        cpu_emu = {k: cpu_seconds(v) for k, v in emus.pids().items()}
        cpu1 = cpu_by_part(pids)
        per = emus.sessions()
        stop = after_stop(emus)
    finally:
        emus.stop()
    first_dial, up_at, first_rx, to_echo, setup_ms, to_ipcp = [], [], [], [], [], []
    stats = []
    for st, sessions in per:
        stats.append(st)
        base = st["start_unix"]
        for s in sessions:
            if s.get("first_dial_ms") is not None:
                first_dial.append(base + s["first_dial_ms"] / 1e3)
            if s.get("first_rx_ms") is not None:
                first_rx.append(base + s["first_rx_ms"] / 1e3)
                to_echo.append(s["first_rx_ms"] - s["first_dial_ms"])
            if s.get("up_ms") is not None:
                up_at.append(base + s["up_ms"] / 1e3)
                setup_ms.append(s["setup_ms"])
                to_ipcp.append(s["up_ms"] - s["first_dial_ms"])  # PADI to IPCP, retries included
    start = min(first_dial)
    counted = len(first_rx)
    span = max(first_rx) - start if first_rx else math.nan
    up_span = max(up_at) - start if up_at else math.nan
    fails: dict[str, int] = {}
    for st in stats:
        for k, v in st["fail_reasons"].items():
            fails[k] = fails.get(k, 0) + v
    cpu = {k: round(cpu1[k] - cpu0.get(k, 0.0), 2) for k in cpu1}
    cpu["bng-subemu"] = round(sum(cpu_emu.values()), 2)
    return {
        "bench": "pod-setup",
        "client": client,
        "dial_rate": dial_rate or None,
        "sessions": total,
        "counted": counted,
        "complete": done,
        "sessions_per_second": round(counted / span, 1) if span > 0 else None,
        "seconds": round(span, 3),
        "ipcp_up": len(up_at),
        "ipcp_sessions_per_second": round(len(up_at) / up_span, 1) if up_span > 0 else None,
        "first_echo_ms_p50": round(pct(to_echo, 0.5), 1),
        "first_echo_ms_p99": round(pct(to_echo, 0.99), 1),
        "ipcp_ms_p50": round(pct(setup_ms, 0.5), 1),
        "ipcp_ms_p99": round(pct(setup_ms, 0.99), 1),
        "padi_to_ipcp_ms_p50": round(pct(to_ipcp, 0.5), 1),
        "padi_to_ipcp_ms_p99": round(pct(to_ipcp, 0.99), 1),
        "attempt_failures": fails,
        "datagrams_per_session_per_second": rate,
        "concurrency_per_port": concurrency,
        "emulators": len(stats),
        "cpu_s": cpu,
        "cpu_ms_per_session": {k: round(v * 1000 / counted, 2) for k, v in cpu.items()} if counted else None,
        "wall_s": round(time.monotonic() - t0, 1),
        **({"checks": checked} if check is not None else {}),
        **stop,
    }


class Blaster(threading.Thread):
    """UDP datagrams from the inet host to dst at pps, paced per millisecond."""

    def __init__(self, dst: str, pps: float, seconds: float, size: int):
        super().__init__(daemon=True)
        with in_netns(emu.INET_NS):
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        self.dst, self.pps, self.seconds, self.payload = (dst, 9), pps, seconds, b"\0" * size
        self.sent = 0

    def run(self):
        t0 = time.monotonic()
        while True:
            el = time.monotonic() - t0
            if el >= self.seconds:
                break
            due = int(el * self.pps)
            while self.sent < due:
                try:
                    self.sock.sendto(self.payload, self.dst)
                except OSError:
                    pass  # a full queue is a drop like any other
                self.sent += 1
            time.sleep(0.001)
        self.sock.close()


def bench_throughput(pod, all_users: list[dict], seconds: float, factor: float) -> list[dict]:
    out = []
    seen = set()
    for group in pod.groups:
        prof = group.qos_profile
        if prof.name in seen:
            continue
        seen.add(prof.name)
        user = next(u for u in all_users if u["line_group"] == group.name)
        path = emu.run_dir() / f"bench-users-{user['user']}.json"
        path.write_text(json.dumps([user]))
        port = next(p for p in pod.ports_with_role("access") if p.name == user["port"])
        ns = emu.access_ns(port)
        down_bps = prof.down_rate
        up_bps = prof.up_pir
        frame = 20 + 8 + PAYLOAD + ACCESS_OVERHEAD
        res = {"bench": "pod-throughput", "profile": prof.name, "user": user["user"], "port": user["port"],
               "stag": user["stag"], "ctag": user["ctag"], "frame_bytes": frame, "seconds": seconds}  # fmt: skip
        # downstream: the session is up, the emulator sends nothing
        emus = Emulators(pod, path, 0, tag="-tp")
        try:
            ses = wait_session(emus)
            addr = ses["address"]
            pps = factor * down_bps / (frame * 8)
            b = Blaster(addr, pps, seconds + 1.0, PAYLOAD)
            b.start()
            time.sleep(1.0)  # the shaper's queue fills; then the window
            s0, t0 = link_stats(ns, "sub0"), time.monotonic()
            time.sleep(seconds)
            s1, t1 = link_stats(ns, "sub0"), time.monotonic()
            b.join()
            pk = s1["rx"]["packets"] - s0["rx"]["packets"]
            by = s1["rx"]["bytes"] - s0["rx"]["bytes"] + FCS * pk
            got = by * 8 / (t1 - t0)
            res.update(downstream_profile_mbps=down_bps / 1e6, downstream_offered_mbps=round(pps * frame * 8 / 1e6, 2),
                       downstream_mbps=round(got / 1e6, 2), downstream_ratio=round(got / down_bps, 3),
                       downstream_sent=b.sent)  # fmt: skip
        finally:
            emus.stop()
        wait_cp_empty(10)
        # upstream: the emulator sends at 1.5x the PIR; counted at the inet host
        pps = factor * up_bps / (frame * 8)
        emus = Emulators(pod, path, pps, size=PAYLOAD, tag="-tp")
        try:
            wait_session(emus)
            time.sleep(1.0)
            s0, t0 = link_stats(emu.INET_NS, "eth0"), time.monotonic()
            e0 = emus.stats()[0]
            time.sleep(seconds)
            s1, t1 = link_stats(emu.INET_NS, "eth0"), time.monotonic()
            e1 = emus.stats()[0]
            pk = s1["rx"]["packets"] - s0["rx"]["packets"]
            got = pk * frame * 8 / (t1 - t0)
            sent = (e1["tx_pkts"] - e0["tx_pkts"]) * frame * 8 / (t1 - t0)
            res.update(upstream_profile_mbps=up_bps / 1e6, upstream_offered_mbps=round(sent / 1e6, 2),
                       upstream_mbps=round(got / 1e6, 2), upstream_ratio=round(got / up_bps, 3))  # fmt: skip
        finally:
            emus.stop()
        wait_cp_empty(10)
        out.append(res)
        emit(res)
    return out


def wait_session(emus: Emulators, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = emus.stats()
        if st and st[0] and st[0]["up"] >= 1:
            return clients.unix_get(emus.procs[0][2], "/v1/sessions?state=up", 10.0)[0]
        time.sleep(0.2)
    raise RuntimeError("the throughput subscriber did not come up")


def parse_points(text: str) -> list[tuple[int, float]]:
    """ "1000,10000,1000@500": session counts, each optionally with the offered dial rate
    (sessions/s over all emulators; none: as fast as the emulators go)."""
    points = []
    for item in text.split(","):
        if not item.strip():
            continue
        n, _, r = item.partition("@")
        points.append((int(n), float(r) if r else 0.0))
        if points[-1][0] < 1 or points[-1][1] < 0:
            raise ValueError(f"bad point {item!r}")
    return points


class Pod:
    """A fresh `bngpod up` for the block, `bngpod down` after it (unless keep)."""

    def __init__(self, pod, source: str, per_group: int, keep: bool = False):
        self.pod, self.source, self.per_group, self.keep = pod, source, per_group, keep

    def __enter__(self) -> list[dict]:
        t0 = time.monotonic()
        log(f"bngpod up {self.source} --subscribers {self.per_group}")
        emu.up(self.pod, self.source, subscribers=self.per_group)
        log(f"pod up in {time.monotonic() - t0:.1f} s")
        return json.loads((emu.users_dir() / "users.json").read_text())

    def __exit__(self, *exc) -> None:
        if not self.keep:
            emu.down(quiet=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pod", default=str(POD))
    ap.add_argument(
        "--sizes",
        default="1000,10000,1000@500",
        help="setup runs: session counts, N@R offers the dials at R sessions/s (default: %(default)s)",
    )
    ap.add_argument(
        "--clients",
        default="lenient,strict",
        help="bng-subemu modes, each point run with each in turn on a fresh pod: lenient keeps session frames "
        "that overtake their PADS, strict drops them as common CPEs do (default: %(default)s)",
    )
    ap.add_argument("--rate", type=float, default=1.0, help="datagrams per second per session (setup runs)")
    ap.add_argument("--concurrency", type=int, default=1000, help="dials in flight per emulator")
    ap.add_argument("--hangup-rate", type=float, help="bng-subemu --hangup-rate at the stop (default: its own)")
    ap.add_argument("--timeout", type=float, default=120.0, help="time limit of one setup run (s)")
    ap.add_argument("--seconds", type=float, default=3.0, help="measuring window of each throughput test")
    ap.add_argument("--factor", type=float, default=1.5, help="offered rate / profile rate")
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--keep", action="store_true", help="leave the last pod up at the end (bngpod down removes it)")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("bench-pod: needs root", file=sys.stderr)
        return 2
    why = binaries.missing(binaries.BNG_DP, binaries.BNG_CP, binaries.BNGCPCTL, binaries.BNG_SUBEMU)
    if why:
        print(f"bench-pod: {why}", file=sys.stderr)
        return 2
    try:
        points = parse_points(a.sizes)
    except ValueError as e:
        print(f"bench-pod: --sizes: {e}", file=sys.stderr)
        return 2
    modes = [m.strip() for m in a.clients.split(",") if m.strip()]
    if not modes or any(m not in ("lenient", "strict") for m in modes):
        print("bench-pod: --clients takes lenient and/or strict", file=sys.stderr)
        return 2
    pod = validate.load(Path(a.pod))
    if emu.State.load() is not None:
        print("bench-pod: a pod is already up; run `bngpod down` first", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    ok = False
    try:
        # each point on a fresh pod, the client modes in turn (A, B), so that one mode's
        # leftovers (cached switch flows, CP state) cannot help or hurt the other
        for i, (n, dial_rate) in enumerate(points):
            for j, mode in enumerate(modes):
                last = i == len(points) - 1 and j == len(modes) - 1 and a.no_throughput
                per_group = max(1, -(-n // len(pod.groups)))
                with Pod(pod, a.pod, per_group, keep=a.keep and last) as all_users:
                    res = bench_setup(
                        pod, all_users, n, a.rate, a.concurrency, a.timeout, a.hangup_rate,
                        strict=mode == "strict", dial_rate=dial_rate,
                    )  # fmt: skip
                    emit(res)
                    left = wait_cp_empty(30)
                    if left:
                        log(f"  bng-cp still holds {left} sessions 40 s after the stop")
        if not a.no_throughput:
            with Pod(pod, a.pod, 1, keep=a.keep) as all_users:
                bench_throughput(pod, all_users, a.seconds, a.factor)
        ok = True
    finally:
        if not a.keep:
            emu.down(quiet=True)
        log(f"{'done' if ok else 'failed'} in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
