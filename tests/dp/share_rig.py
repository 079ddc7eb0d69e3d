"""N bng-dp processes that share one access port (docs/dp/hqos.md, "Sharing an access
port across instances"): each on its own data veth, their management interfaces on one
bridge with the CP address, each with a `--qos-share` file naming all of them.

    bngqs-wire: wire0..wireN-1 ==== data0 :bngqs-dpI: mgmt0 ==== br0 :bngqs-mgmt
                (core-side frames in)       bng-dp I  10.201.0.(11+I)  10.201.0.1 (CP)

Each DP gets dp1's configuration with its own control address, access port 0 at the
port rate, and a QoS profile 'flat' at the port rate (the pipe never limits). The
measure is each DP's own trace (share_ctl.c): per control tick its TSC and the wire
bytes its HQoS dequeued. Everything is removed by close(), also after a failure; the
caller holds the machine's netns lock (tests/conftest.py takes it for pytest)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from harness.frames import UDP, Raw, Sub, core_ipv4
from harness.pfcp_cp import Cp

from bngpod import clients
from bngpod.binaries import BNG_DP
from bngpod.rawsock import RawPort, in_netns

PREFIX = "bngqs-"
NS_WIRE, NS_MGMT = PREFIX + "wire", PREFIX + "mgmt"
CP_ADDR = "10.201.0.1"
SHARE_PORT = 9100
IP_LEN = 1492  # the session MTU (PPPoE): no fragments
WIRE_LEN = IP_LEN + 30 + 4  # the access frame with FCS: what the HQoS counts
LAB_DP1 = Path(__file__).resolve().parents[2] / "topology" / "tests" / "golden" / "lab" / "dp" / "dp1.ini"
SUB = Sub(stag=100, ctag=501, mac="02:11:00:00:05:01", sid=0x0501, ipv4="100.80.1.1", qos="flat")


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def cleanup_stale() -> None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"bng-dp") and any(a.startswith(b"--file-prefix=bngqs") for a in cmd):
            os.kill(int(entry.name), signal.SIGKILL)
    for line in _ip("netns", "list").stdout.splitlines():
        if line.startswith(PREFIX):
            _ip("netns", "delete", line.split()[0], check=False)


def dp_config(tmp: Path, i: int, rate: int) -> Path:
    """dp1.ini for DP i: access port 0 and the QoS profile 'flat' at rate; the instance's
    port_rate stays dp1's 12.5 Gbit/s (the pacer's ceiling, above any rate here)."""
    text = LAB_DP1.read_text()
    text = text.replace("control_address    = 10.200.0.11", f"control_address    = 10.201.0.{11 + i}", 1)
    text = text.replace("cp_address         = 10.200.0.1", f"cp_address         = {CP_ADDR}", 1)
    text = text.replace("rate = 10000000000", f"rate = {rate}", 1)
    assert f"10.201.0.{11 + i}" in text and f"rate = {rate}" in text, "dp1.ini's lines moved"
    n = int(text.split("qos_profiles       = ")[1].split()[0])
    text = text.replace(f"qos_profiles       = {n}", f"qos_profiles       = {n + 1}", 1)
    text += (
        f"\n[qos_profile.{n}]\nname       = flat\ndown_rate  = {rate}\nup_pir     = 50000000\n"
        "up_cir     = 20000000\nup_dscp    = keep\ndefault_tc = 12\ndscp_map   = 46:0\ntc_rates   =\n"
        "be_weights = 1 1 1 1\n"
    )
    path = tmp / f"dp{i}.ini"
    path.write_text(text)
    return path


class Dp:
    """One instance of the rig: what resolve_router() and Cp need (telemetry, wire)."""

    def __init__(self, i: int):
        self.i = i
        self.ns = f"{PREFIX}dp{i}"
        self.ctrl = f"10.201.0.{11 + i}"
        self.file_prefix = f"bngqs{i}"
        self.proc: subprocess.Popen | None = None
        self.wire: RawPort | None = None
        self.cp: Cp | None = None
        self.trace: Path | None = None

    def telemetry(self, cmd: str):
        return clients.telemetry(clients.telemetry_socket(self.file_prefix), cmd)[0]


class ShareRig:
    """groups: what the --qos-share files share, in section order: "access" (access port 0
    at `rate`), "server" (the server port, i.e. the DP's port pacer, at `rate`), or both
    ("access" then at access_rate). Each DP's trace is the last group's."""

    def __init__(
        self,
        tmp: Path,
        n: int,
        rate: int,
        interval_ms: int = 10,
        exchange: bool = True,
        lcores: str = "0,1",
        groups: tuple[str, ...] = ("access",),
        access_rate: int | None = None,
        weights: list[int] | None = None,  # the `weight` key per DP; None: bng-dp's default
    ):
        self.tmp, self.n, self.rate, self.interval_ms, self.exchange = tmp, n, rate, interval_ms, exchange
        self.lcores, self.groups, self.weights = lcores, groups, weights
        self.access_rate = access_rate or rate
        self.dps = [Dp(i) for i in range(n)]
        self.log: dict[int, bytes] = {}

    def start(self) -> ShareRig:
        cleanup_stale()
        try:
            self._net()
            for dp in self.dps:
                self._start(dp)
            for dp in self.dps:
                self._wait(dp)
                dp.wire = RawPort(NS_WIRE, f"wire{dp.i}")
                with in_netns(NS_MGMT):
                    import socket

                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind((CP_ADDR, 20000 + dp.i))
                s.settimeout(2)
                dp.cp = Cp(s, dp_addr=(dp.ctrl, 8805), node_ip=CP_ADDR)
        except BaseException:
            self.close()
            raise
        return self

    def _net(self) -> None:
        for ns in (NS_WIRE, NS_MGMT):
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", NS_MGMT, "link", "add", "br0", "type", "bridge")
        _ip("-n", NS_MGMT, "link", "set", "br0", "up")
        _ip("-n", NS_MGMT, "addr", "add", f"{CP_ADDR}/24", "dev", "br0")
        for dp in self.dps:
            i = dp.i
            _ip("netns", "add", dp.ns)
            _ip("-n", dp.ns, "link", "set", "lo", "up")
            _ip("link", "add", f"bngqs-d{i}", "type", "veth", "peer", "name", f"bngqs-w{i}")
            _ip("link", "set", f"bngqs-d{i}", "netns", dp.ns)
            _ip("link", "set", f"bngqs-w{i}", "netns", NS_WIRE)
            _ip("-n", dp.ns, "link", "set", f"bngqs-d{i}", "name", "data0", "mtu", "1600", "up")
            _ip("-n", NS_WIRE, "link", "set", f"bngqs-w{i}", "name", f"wire{i}", "mtu", "1600", "up")
            _ip("link", "add", f"bngqs-m{i}", "type", "veth", "peer", "name", f"bngqs-b{i}")
            _ip("link", "set", f"bngqs-m{i}", "netns", dp.ns)
            _ip("link", "set", f"bngqs-b{i}", "netns", NS_MGMT)
            _ip("-n", dp.ns, "link", "set", f"bngqs-m{i}", "name", "mgmt0", "up")
            _ip("-n", dp.ns, "addr", "add", f"{dp.ctrl}/24", "dev", "mgmt0")
            _ip("-n", NS_MGMT, "link", "set", f"bngqs-b{i}", "master", "br0", "up")
        for ns in [NS_WIRE, NS_MGMT] + [dp.ns for dp in self.dps]:
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                           check=False, capture_output=True)  # fmt: skip

    def _share_file(self, dp: Dp) -> Path:
        dp.trace = self.tmp / f"trace{dp.i}.txt"
        peers = " ".join(f"{d.ctrl}:{SHARE_PORT}" for d in self.dps)
        text = ""
        for k, kind in enumerate(self.groups):
            last = k == len(self.groups) - 1
            what = "access_port = 0" if kind == "access" else "server_port = on"
            rate = self.access_rate if kind == "access" and not last else self.rate
            text += (
                f"[qos_share.{kind}]\n{what}\nshare_id = 1\nport_rate = {rate}\nself = {dp.i}\n"
                f"peers = {peers}\ninterval_ms = {self.interval_ms}\n"
                f"exchange = {'on' if self.exchange else 'off'}\n"
            )
            if self.weights is not None:
                text += f"weight = {self.weights[dp.i]}\n"
            if last:
                text += f"trace = {dp.trace}\n"
        path = self.tmp / f"share{dp.i}.ini"
        path.write_text(text)
        return path

    def _start(self, dp: Dp) -> None:
        cmd = [
            "ip", "netns", "exec", dp.ns, str(BNG_DP),
            "-l", self.lcores, "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
            f"--file-prefix={dp.file_prefix}", "--log-level=notice",
            "--vdev", "net_af_packet0,iface=data0,framecnt=2048",
            "--", "--config", str(dp_config(self.tmp, dp.i, max(self.rate, self.access_rate))),
            "--idle-sleep-us", "50",
            "--sessions", "256", "--mbufs", "16384",
        ]  # fmt: skip
        cmd += ["--qos-share", str(self._share_file(dp))]
        dp.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def _wait(self, dp: Dp) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if dp.proc.poll() is not None:
                out = dp.proc.stdout.read() if dp.proc.stdout else b""
                raise RuntimeError(f"bng-dp {dp.i} exited {dp.proc.returncode}: {out.decode(errors='replace')}")
            if clients.telemetry_socket(dp.file_prefix).exists():
                try:
                    if dp.telemetry("/bng/stats"):
                        return
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        raise RuntimeError(f"bng-dp {dp.i} did not come up within 30 s")

    def sessions(self, gbr_dl: list[int] | None = None) -> None:
        """Associate each DP's CP, resolve its router, install SUB on it (with a QER GBR DL
        of gbr_dl[i] kbit/s on DP i when given: its contracted downstream rate)."""
        import dataclasses

        from .test_datapath import resolve_router

        for dp in self.dps:
            assert dp.cp.associate() == 1
            resolve_router(dp)
            sub = SUB if gbr_dl is None else dataclasses.replace(SUB, gbr_dl=gbr_dl[dp.i])
            _c, _up, cause = dp.cp.establish(sub)
            assert cause == 1, f"DP {dp.i}: session refused ({cause})"

    def stop(self) -> None:
        """SIGTERM every DP (they write their traces) and wait."""
        for dp in self.dps:
            if dp.proc is not None and dp.proc.poll() is None:
                dp.proc.send_signal(signal.SIGTERM)
        for dp in self.dps:
            if dp.proc is None:
                continue
            try:
                dp.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                dp.proc.kill()
                dp.proc.wait()
            self.log[dp.i] = dp.proc.stdout.read() if dp.proc.stdout else b""
            dp.proc = None

    def close(self) -> None:
        for dp in self.dps:
            if dp.wire is not None:
                dp.wire.close()
                dp.wire = None
            if dp.cp is not None:
                dp.cp.close()
                dp.cp = None
        self.stop()
        for ns in [dp.ns for dp in self.dps] + [NS_WIRE, NS_MGMT]:
            _ip("netns", "delete", ns, check=False)


def frame() -> bytes:
    f = bytes(core_ipv4(SUB.ipv4, UDP(sport=9, dport=9) / Raw(b"\0" * 8), size=IP_LEN))
    assert len(f) == 14 + IP_LEN
    return f


def offer(
    rig: ShareRig, schedule: list[tuple[float, dict[int, float]]], sent_out: list | None = None
) -> list[tuple[float, float]]:
    """Send SUB's frames to each DP at the access-layer bit rate of the schedule's steps
    (duration s, {dp index: bit/s}), paced in 1 ms slices. Returns each step's
    CLOCK_MONOTONIC start and end; sent_out gets each step's offered bit/s per DP."""
    f = frame()
    spans = []
    for seconds, rates in schedule:
        start = time.monotonic()
        sent = dict.fromkeys(rates, 0)
        while (now := time.monotonic() - start) < seconds:
            for i, bps in rates.items():
                due = int(now * bps / (WIRE_LEN * 8))
                wire = rig.dps[i].wire
                while sent[i] < due:
                    try:
                        wire.send(f)
                    except BlockingIOError:
                        break
                    sent[i] += 1
            time.sleep(0.001)
        spans.append((start, time.monotonic()))
        if sent_out is not None:
            took = spans[-1][1] - spans[-1][0]
            sent_out.append({i: n * WIRE_LEN * 8 / took for i, n in sent.items()})
    return spans


class Trace:
    """One DP's trace: CLOCK_MONOTONIC seconds of each tick, cumulative dequeued wire bytes."""

    def __init__(self, path: Path):
        lines = path.read_text().splitlines()
        head = lines[0].split()
        kv = dict(zip(head[1::2], head[2::2], strict=False))
        hz, mono_ns, tsc0 = int(kv["tsc_hz"]), int(kv["mono_ns"]), int(kv["tsc"])
        self.t, self.bytes, self.applied = [], [], []
        for line in lines[1:]:
            tsc, b, a = (int(x) for x in line.split())
            self.t.append(mono_ns / 1e9 + (tsc - tsc0) / hz)
            self.bytes.append(b)
            self.applied.append(a)

    def at(self, t: float) -> float:
        """Cumulative bytes at time t, linear between the two ticks around it."""
        import bisect

        k = bisect.bisect_left(self.t, t)
        if k <= 0:
            return float(self.bytes[0])
        if k >= len(self.t):
            return float(self.bytes[-1])
        t0, t1 = self.t[k - 1], self.t[k]
        b0, b1 = self.bytes[k - 1], self.bytes[k]
        return b0 + (b1 - b0) * (t - t0) / (t1 - t0) if t1 > t0 else float(b1)


def applied(traces: list[Trace], t0: float, t1: float) -> float:
    """The mean over [t0, t1) of the sum of the instances' applied subport rates, bit/s."""
    import bisect

    total = 0.0
    for tr in traces:
        a, b = bisect.bisect_left(tr.t, t0), bisect.bisect_left(tr.t, t1)
        vals = tr.applied[a:b] or [tr.applied[min(a, len(tr.applied) - 1)]]
        total += sum(vals) / len(vals)
    return total


def rates(traces: list[Trace], t0: float, t1: float, window: float) -> list[list[float]]:
    """Per window of `window` s in [t0, t1): each DP's bit rate."""
    out = []
    t = t0
    while t + window <= t1 + 1e-9:
        out.append([(tr.at(t + window) - tr.at(t)) * 8 / window for tr in traces])
        t += window
    return out


def max_excess(traces: list[Trace], t0: float, t1: float, window: float, rate: int, step: float = 0.001) -> float:
    """The largest bytes - R x t over sliding windows of `window` s (step 1 ms) in [t0, t1)."""
    worst = -1e18
    t = t0
    while t + window <= t1:
        b = sum(tr.at(t + window) - tr.at(t) for tr in traces)
        worst = max(worst, b - rate / 8 * window)
        t += step
    return worst
