"""A test rig for one bng-dp process: its namespaces, veths and telemetry.

    bngdpt-wire: wire0 ======= data0 :bngdpt-dp: mgmt0 ======= cp0 :bngdpt-cp
                 (frames both sides)  bng-dp      10.200.0.11   10.200.0.1
                                     (af_packet)                (PFCP, VXLAN peer)

The wire namespace plays both the access side (QinQ + PPPoE) and the core side
(untagged IPv4/ARP) of the instance's one data port, as the switch does in the pod.
Everything the rig creates is removed by close(), also after a failure; a stale rig
from a killed run is removed before a new one is built."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from bngpod import clients
from bngpod.binaries import BNG_DP, missing
from bngpod.rawsock import RawPort, in_netns

PREFIX = "bngdpt-"
NS_DP, NS_WIRE, NS_CP = PREFIX + "dp", PREFIX + "wire", PREFIX + "cp"
FILE_PREFIX = "bngdpt"
RUNTIME_DIR = clients.DPDK_RUNTIME / FILE_PREFIX


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def _netns_list() -> list[str]:
    out = _ip("netns", "list").stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def cleanup_stale() -> None:
    """Remove namespaces (and with them their veths) of an earlier rig."""
    for pid in _pids_of_rig():
        os.kill(pid, signal.SIGKILL)
    for ns in _netns_list():
        if ns.startswith(PREFIX):
            _ip("netns", "delete", ns, check=False)


def _pids_of_rig() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"bng-dp") and f"--file-prefix={FILE_PREFIX}".encode() in cmd:
            pids.append(int(entry.name))
    return pids


class DpRig:
    """One bng-dp on veths; `wire` is the raw port facing its data port."""

    CP_ADDR = "10.200.0.1"
    DP_CTRL = "10.200.0.11"

    def __init__(
        self,
        config: Path,
        extra_args: tuple[str, ...] = (),
        lcores: tuple[str, ...] = ("-l", "0,1"),
        vdev_extra: str = "",
    ):
        """lcores: the EAL's lcore options; vdev_extra: more af_packet options
        (",qpairs=2" for --workers 2)."""
        self.config = config
        self.extra_args = extra_args
        self.lcores = lcores
        self.vdev_extra = vdev_extra
        self.proc: subprocess.Popen | None = None
        self.wire: RawPort | None = None
        self.log = b""

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> DpRig:
        why = missing(BNG_DP)
        if why:
            raise RuntimeError(why)
        cleanup_stale()
        try:
            self._build_net()
            self._start_dp()
            self.wire = RawPort(NS_WIRE, "wire0")
        except BaseException:
            self.close()
            raise
        return self

    def _build_net(self) -> None:
        for ns in (NS_DP, NS_WIRE, NS_CP):
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        _ip("link", "add", "bngdpt-d", "type", "veth", "peer", "name", "bngdpt-w")
        _ip("link", "set", "bngdpt-d", "netns", NS_DP)
        _ip("link", "set", "bngdpt-w", "netns", NS_WIRE)
        _ip("-n", NS_DP, "link", "set", "bngdpt-d", "name", "data0", "mtu", "1600", "up")
        _ip("-n", NS_WIRE, "link", "set", "bngdpt-w", "name", "wire0", "mtu", "1600", "up")
        _ip("link", "add", "bngdpt-m", "type", "veth", "peer", "name", "bngdpt-c")
        _ip("link", "set", "bngdpt-m", "netns", NS_DP)
        _ip("link", "set", "bngdpt-c", "netns", NS_CP)
        _ip("-n", NS_DP, "link", "set", "bngdpt-m", "name", "mgmt0", "up")
        _ip("-n", NS_CP, "link", "set", "bngdpt-c", "name", "cp0", "up")
        _ip("-n", NS_DP, "addr", "add", f"{self.DP_CTRL}/24", "dev", "mgmt0")
        _ip("-n", NS_CP, "addr", "add", f"{self.CP_ADDR}/24", "dev", "cp0")
        for ns in (NS_DP, NS_WIRE, NS_CP):
            subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                check=False,
                capture_output=True,
            )

    def _start_dp(self) -> None:
        cmd = [
            "ip", "netns", "exec", NS_DP, str(BNG_DP),
            *self.lcores, "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
            f"--file-prefix={FILE_PREFIX}", "--log-level=notice",
            "--vdev", "net_af_packet0,iface=data0,framecnt=4096" + self.vdev_extra,
            "--", "--config", str(self.config), "--idle-sleep-us", "50", "--sessions", "4096",
            *self.extra_args,
        ]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read() if self.proc.stdout else b""
                raise RuntimeError(f"bng-dp exited {self.proc.returncode}: {out.decode(errors='replace')}")
            if (RUNTIME_DIR / clients.TELEMETRY_SOCKET).exists():
                # Commands answer null until bng-dp has registered them (after setup).
                try:
                    if self.telemetry("/bng/stats"):
                        return
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        raise RuntimeError("bng-dp did not come up within 20 s")

    def stop(self) -> int | None:
        """SIGTERM and wait; returns the exit status (None if it had to be killed)."""
        if self.proc is None:
            return None
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                return None
        self.log = proc.stdout.read() if proc.stdout else b""
        return proc.returncode

    def close(self) -> None:
        if self.wire is not None:
            self.wire.close()
            self.wire = None
        self.stop()
        for ns in (NS_DP, NS_WIRE, NS_CP):
            _ip("netns", "delete", ns, check=False)

    # -- observation ----------------------------------------------------------
    def telemetry(self, cmd: str) -> dict:
        """One command on the DPDK telemetry socket; the reply's value."""
        return clients.telemetry(RUNTIME_DIR / clients.TELEMETRY_SOCKET, cmd)[0]

    def stats(self) -> dict:
        return self.telemetry("/bng/stats")

    def cp_socket(self, port: int, addr: str | None = None) -> socket.socket:
        """A UDP socket in the CP namespace, bound to the CP address (or addr) and port."""
        with in_netns(NS_CP):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((addr or self.CP_ADDR, port))
        s.settimeout(2)
        return s

    def add_cp_alias(self, addr: str) -> None:
        """A second address on the CP side: a management peer that is not the CP."""
        _ip("-n", NS_CP, "addr", "replace", f"{addr}/24", "dev", "cp0")
