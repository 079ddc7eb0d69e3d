"""bng-dp and bng-lrgen joined by net_memif: no kernel on the data path (docs/linerate.md).

    lrm-cp-PID: cp0 ===== mgmt0 :lrm-dp-PID: bng-dp ==memif== bng-lrgen
    (PFCP CP, 10.200.0.1)         (10.200.0.11)   (server)    (client; both sides of the data port)

bng-dp runs the lab pod's instance dp1 configuration (topology/tests/golden/lab/dp/dp1.ini,
rates raised so that neither the QoS profiles nor the port scheduler limit a trial) with
its one data port a net_memif server in a directory of our own. Its sessions come from the
PFCP path: the project's PFCP CP (tests/harness/pfcp_cp.py) associates over the management
veth and establishes one session per subscriber of line group lg1 (access1, S-tags
100-149, any C-tag) with LCP keepalive offload on: bng-dp sends LCP Echo-Requests every
ECHO_INTERVAL seconds and the generator (--lcp-echo) answers them; a session whose echoes
go unanswered is reported dead (counted by `lcp_dead`). The generator answers bng-dp's
ARP for its next hop (the core router's address) on the same port; downstream frames come
from that address's MAC to the group's core MAC.

Family "6" or "both": the sessions are IPv6-only or dual stack (PDR 3 upstream PPP 0x0057,
PDR 4 a /64 of 2001:db8:100::/48, PDR 5 a delegated /56 of 2001:db8:2000::/40), and the
generator answers bng-dp's Neighbor Solicitations for the router's IPv6 address (--nd).
Attach "vhost": the data port is a vhost-user socket instead, bng-dp's net_vhost its server
(the backend) and the generator's net_virtio_user the frontend, whose memory (memfd-backed
under --no-huge) holds the rings and buffers.

Needs root and the bngpod-netns lock (the caller holds it: bench_rfc2544.sh, pytest)."""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for p in (REPO / "topology", REPO / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from harness.pfcp_cp import Cp, Sub  # noqa: E402

from bngpod import clients  # noqa: E402
from bngpod.binaries import BNG_DP  # noqa: E402
from bngpod.rawsock import in_netns  # noqa: E402

try:  # a module of the tests package (pytest), or a script's sibling (rfc2544.py)
    from . import streams
    from .profiles import common as export_reader
except ImportError:
    import streams
    from profiles import common as export_reader

DP_INI = REPO / "topology" / "tests" / "golden" / "lab" / "dp" / "dp1.ini"
CP_ADDR, DP_CTRL = "10.200.0.1", "10.200.0.11"
ROUTER_ADDR = "100.64.0.1"  # [core] router_address: bng-dp's next hop, answered by the generator
ROUTER6_ADDR = "2001:db8:64::1"  # [core] router_address6: its IPv6 next hop (Neighbor Discovery)
FAMILIES = ("4", "6", "both")
GROUP = "lg1"
AC_MAC, CORE_MAC, TPID, STAGS = "02:bb:00:00:00:01", "02:cc:00:00:00:01", 0x8100, range(100, 150)
PREFIX = "100.80.0.0"  # lg1's pool 100.80.0.0/22
LCP_MAGIC = 0x4C52474E  # the generator's LCP magic number ("LRGN")
ECHO_INTERVAL, ECHO_MISSES = 5, 3
# log2 of the memif ring size (the client's is used): 16,384 slots each way, so that a few ms
# of either process off its core (2 shared cores here) do not overflow a ring
MEMIF_RSIZE = 14
MAX_SESSIONS = 1000  # 50 S-tags x 20 C-tags, inside the /22
INSTANCE = 1  # dp1's instance id in the lab pod: an export's sessions must be this instance's
POOL4, POOL6, POOL_PD = "100.80.0.0/22", "2001:db8:100::/48", "2001:db8:2000::/40"  # lg1's pools
VHOST_QSIZE = 1024  # virtio ring slots (1024: the largest virtio-user takes for a split ring)


def dp_config(path: Path, rate: int | None = None, ac_mac: str = AC_MAC) -> Path:
    """dp1.ini with every rate at 400 Gbit/s: the trials measure forwarding, not policing.
    With rate (bit/s): the access ports (the HQoS subports) and the profiles' downstream rate
    at rate instead, and no class rate limit (gold's voice class has one), the rest as before
    (a latency bench's load is a share of it). ac_mac: lg1's AC MAC (a session export's)."""
    text = DP_INI.read_text()
    text = re.sub(r"(?m)^(ac_mac\s*=\s*)\S+", rf"\g<1>{ac_mac}", text, count=1)  # [line_group.0]: lg1
    big, sub = 400_000_000_000, rate or 400_000_000_000
    text = re.sub(r"(?m)^(port_rate\s*=\s*)\d+", rf"\g<1>{big}", text)
    text = re.sub(r"(?m)^(rate\s*=\s*)\d+", rf"\g<1>{sub}", text)
    text = re.sub(r"(?m)^(down_rate\s*=\s*)\d+", rf"\g<1>{sub}", text)
    text = re.sub(r"(?m)^((?:up_pir|up_cir)\s*=\s*)\d+", rf"\g<1>{big}", text)
    if rate:
        text = re.sub(r"(?m)^(tc_rates\s*=).*$", r"\g<1>", text)
    path.write_text(text)
    return path


def prefixes6(i: int) -> tuple[str, str]:
    """Session i's /64 (from lg1's pool 2001:db8:100::/48) and delegated /56 (from
    2001:db8:2000::/40)."""
    return f"2001:db8:100:{i + 1:x}::/64", f"2001:db8:20{i >> 8:02x}:{i & 255:02x}00::/56"


def subscribers(n: int, echo_misses: int = ECHO_MISSES, family: str = "4") -> list[Sub]:
    """n sessions of lg1; family "4": IPv4 only, "6": IPv6 only (a /64 and a delegated /56),
    "both": dual stack."""
    if not 0 < n <= MAX_SESSIONS:
        raise ValueError(f"1..{MAX_SESSIONS} sessions on the memif rig")
    if family not in FAMILIES:
        raise ValueError(f"family {family!r}: one of {FAMILIES}")
    out = []
    for i in range(n):
        stag, ctag = STAGS[i % len(STAGS)], 1 + i // len(STAGS)
        a = 4 + i  # 100.80.0.4 ...
        wan, pd = prefixes6(i) if family != "4" else (None, None)
        out.append(
            Sub(
                stag=stag,
                ctag=ctag,
                mac=f"02:11:00:{(i >> 16) & 255:02x}:{(i >> 8) & 255:02x}:{i & 255:02x}",
                sid=0x100 + i,
                ipv4=f"100.80.{a >> 8}.{a & 255}" if family != "6" else None,
                ipv6_prefix=wan,
                delegated_prefix=pd,
                lcp_magic=0x10000000 + i,
                lcp_peer_magic=LCP_MAGIC,
                echo_interval=ECHO_INTERVAL,
                echo_misses=echo_misses,
                logical_port="access1",
            )
        )
    return out


def _rig_pod(ac_mac: str):
    """The rig's one instance as the export reader's checks see a pod: lg1 on access1 (TPID
    0x8100), S-tags 100-149, any C-tag, its IPv4 pool, PPPoE and IPoE, the AC MAC given."""
    from types import SimpleNamespace as NS

    port = NS(name="access1", tpid=TPID, role="access")
    line = NS(port=port, stag=STAGS, ctags=range(1, 4095))
    group = NS(name=GROUP, ac_mac=ac_mac, lines=[line], session_types=("pppoe", "ipoe"),
               pools=[NS(prefix=ipaddress.IPv4Network(POOL4))])  # fmt: skip
    return NS(groups=[group], ports_with_role=lambda role: [port] if role == "access" else [])


def export_subscribers(path: Path, echo_misses: int = ECHO_MISSES) -> tuple[list[Sub], str, list]:
    """The sessions of a session export (`bngcpctl sessions --export json|csv`, read by the
    profiles' reader) as the rig installs them: (subscribers, the AC MAC of their line group,
    the IPoE sessions left out). A session of another instance than dp1's, on a line lg1 does
    not serve, with an address or prefix outside lg1's pools, or with another AC MAC than the
    others', or with a QoS profile dp1 does not have is refused (ValueError), as are duplicate
    ids, MACs and addresses. IPoE sessions
    are left out: the generator has no IPoE streams and the rig's lg1 takes only PPPoE."""
    raw = export_reader.read_export(path)
    ac_mac = str((raw[0].get("ac_mac") if raw else None) or AC_MAC).lower()
    ses = export_reader.load_sessions(_rig_pod(ac_mac), path)
    subs, ipoe, seen = [], [], set()
    profiles = re.findall(r"(?m)^\[qos_profile\.\d+\]\s*\nname\s*=\s*(\S+)", DP_INI.read_text())
    for i, s in enumerate(ses):
        where = f"{path}: session {i} ({s.user or s.mac})"
        if s.instance not in (None, INSTANCE):
            raise ValueError(f"{where}: instance {s.instance}, the rig is instance {INSTANCE} (dp1)")
        for k, pool in (("ipv6_prefix", POOL6), ("delegated_prefix", POOL_PD)):
            v = getattr(s, k)
            if v and not ipaddress.IPv6Network(v).subnet_of(ipaddress.IPv6Network(pool)):
                raise ValueError(f"{where}: {k} {v} is outside lg1's {pool}")
        if bool(s.ipv6_prefix) != bool(s.delegated_prefix):
            raise ValueError(f"{where}: the rig's IPv6 streams need both a /64 and a delegated prefix")
        if s.qos_profile and s.qos_profile not in profiles:
            raise ValueError(f"{where}: QoS profile {s.qos_profile!r}: dp1 has {', '.join(profiles)}")
        if s.kind == "ipoe":
            ipoe.append(s)
            continue
        for key in (("line", s.stag, s.ctag, s.mac, s.pppoe_id), ("address", s.address), ("mac", s.mac)):
            if key in seen:
                raise ValueError(f"{where}: {key[0]} {key[1:]} twice in the export")
            seen.add(key)
        j = len(subs)
        subs.append(
            Sub(
                stag=s.stag,
                ctag=s.ctag,
                mac=s.mac,
                sid=s.pppoe_id,
                ipv4=s.address,
                ipv6_prefix=s.ipv6_prefix,
                delegated_prefix=s.delegated_prefix,
                qos=s.qos_profile,
                lcp_magic=0x10000000 + j,
                lcp_peer_magic=LCP_MAGIC,
                echo_interval=ECHO_INTERVAL,
                echo_misses=echo_misses,
                logical_port="access1",
            )
        )
    if not subs:
        raise ValueError(f"{path}: no PPPoE session the rig can install ({len(ipoe)} IPoE left out)")
    if len(subs) > MAX_SESSIONS:
        raise ValueError(f"{path}: {len(subs)} sessions, the rig takes at most {MAX_SESSIONS}")
    return subs, ac_mac, ipoe


def family_of(subs: list[Sub]) -> str:
    """The IP family of an export's sessions: "4" (none has IPv6) or "both" (all have)."""
    v6 = sum(1 for s in subs if s.ipv6_prefix)
    if v6 not in (0, len(subs)):
        raise ValueError(f"{v6} of {len(subs)} sessions have IPv6 prefixes: the rig takes all or none")
    return "both" if v6 else "4"


def session_of(sub: Sub, ac_mac: str = AC_MAC) -> streams.Session:
    v4 = sub.ipv4 or "192.0.2.1"  # an IPv6-only session: no IPv4 stream uses it
    return streams.Session("access1", sub.stag, sub.ctag, TPID, sub.sid, sub.mac, ac_mac, v4)


def addresses6(sub: Sub) -> tuple[str, str]:
    """A host of the session's /64 (its WAN address) and one of its delegated prefix (a LAN
    host behind it)."""
    return (str(ipaddress.IPv6Network(sub.ipv6_prefix)[2]), str(ipaddress.IPv6Network(sub.delegated_prefix)[0x100]))


def _ip(*args: str, check: bool = True) -> None:
    subprocess.run(["ip", *args], check=check, capture_output=True)


def cleanup_stale() -> None:
    """Namespaces and directories of an earlier rig whose process is gone (killed before its
    close() ran); their name carries the process id."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for name in (line.split()[0] for line in out.splitlines() if line.strip()):
        m = re.fullmatch(r"lrm-(?:dp|cp)-(\d+)", name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            _ip("netns", "delete", name, check=False)
    for d in Path(tempfile.gettempdir()).glob("lrmemif-*-*"):
        m = re.fullmatch(r"lrmemif-(\d+)-\w+", d.name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            shutil.rmtree(d, ignore_errors=True)


ATTACHES = ("memif", "vhost")


class MemifDp:
    """bng-dp on a net_memif server port (attach "memif") or a vhost-user port (net_vhost,
    the socket's server; attach "vhost": the generator is a net_virtio_user) with n sessions
    installed through PFCP, of IP family "4", "6" or "both" (subscribers()). rate, dp_args,
    binary, qos: a latency bench's (dp_config(), bng-dp's options, another bng-dp, the
    sessions' QoS profile). export: a session export's sessions instead (export_subscribers():
    n_sessions and family are taken from it, lg1's AC MAC is the export's; qos given
    overrides the export's profiles)."""

    def __init__(
        self,
        n_sessions: int,
        log: Path | None = None,
        lcores: str = "0,1",
        echo_misses: int = ECHO_MISSES,
        family: str = "4",
        attach: str = "memif",
        rate: int | None = None,
        dp_args: tuple[str, ...] = (),
        binary: Path | None = None,
        qos: str | None = None,
        export: Path | None = None,
    ):
        if attach not in ATTACHES:
            raise ValueError(f"attach {attach!r}: one of {ATTACHES}")
        self.attach, self.family = attach, family
        self.rate, self.dp_args, self.binary = rate, tuple(dp_args), binary or BNG_DP
        self.pid = os.getpid()
        cleanup_stale()
        self.dir = Path(tempfile.mkdtemp(prefix=f"lrmemif-{self.pid}-"))
        self.ns_dp, self.ns_cp = f"lrm-dp-{self.pid}", f"lrm-cp-{self.pid}"
        self.prefix = f"lrmdp{self.pid}"
        self.socket = self.dir / "dp.sock"
        self.ac_mac, self.ipoe_skipped = AC_MAC, []
        if export is not None:
            self.subs, self.ac_mac, self.ipoe_skipped = export_subscribers(export, echo_misses)
            self.family = family_of(self.subs)
        else:
            self.subs = subscribers(n_sessions, echo_misses, family)
        for sub in self.subs:
            if export is None or qos is not None:
                sub.qos = qos  # a QoS profile of dp1.ini by name (Forwarding Policy); None: the group's
        self.proc: subprocess.Popen | None = None
        self.cp: Cp | None = None
        self.log_path = log or self.dir / "bng-dp.log"
        self.lcores = lcores
        self.established = 0
        self.lcp_dead = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        try:
            self._net()
            self._start()
            self._install()
        except BaseException:
            self.close()
            raise

    def _net(self) -> None:
        for ns in (self.ns_dp, self.ns_cp):
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                           capture_output=True)  # fmt: skip
        a, b = f"lrm{self.pid}m", f"lrm{self.pid}c"
        _ip("link", "add", a, "type", "veth", "peer", "name", b)
        _ip("link", "set", a, "netns", self.ns_dp)
        _ip("link", "set", b, "netns", self.ns_cp)
        _ip("-n", self.ns_dp, "link", "set", a, "name", "mgmt0", "up")
        _ip("-n", self.ns_cp, "link", "set", b, "name", "cp0", "up")
        _ip("-n", self.ns_dp, "addr", "add", f"{DP_CTRL}/24", "dev", "mgmt0")
        _ip("-n", self.ns_cp, "addr", "add", f"{CP_ADDR}/24", "dev", "cp0")

    def devargs(self) -> str:
        """The generator's end: a memif client on bng-dp's socket, or a virtio-user device on
        its vhost-user socket."""
        if self.attach == "vhost":
            return f"net_virtio_user0,path={self.socket},queues=1,queue_size={VHOST_QSIZE}"
        return f"net_memif0,role=client,id=0,socket={self.socket},socket-abstract=no,rsize={MEMIF_RSIZE}"

    def dp_vdev(self) -> str:
        if self.attach == "vhost":
            return f"net_vhost0,iface={self.socket},queues=1"
        return f"net_memif0,role=server,id=0,socket={self.socket},socket-abstract=no,rsize={MEMIF_RSIZE}"

    def _start(self) -> None:
        cmd = [
            "ip", "netns", "exec", self.ns_dp, str(self.binary),
            "-l", self.lcores, "--no-huge", "-m", "512", "--no-pci",
            f"--file-prefix={self.prefix}", "--log-level=notice",
            "--vdev", self.dp_vdev(),
            "--", "--config", str(dp_config(self.dir / "dp1.ini", self.rate, self.ac_mac)), "--sessions", "4096",
            *self.dp_args,
        ]  # fmt: skip
        self.log = open(self.log_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bng-dp exited {self.proc.returncode}: see {self.log_path}")
            if clients.telemetry_socket(self.prefix).exists():
                try:
                    if self.telemetry("/bng/stats"):
                        return
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        raise RuntimeError("bng-dp did not come up within 30 s")

    def _install(self) -> None:
        import socket

        with in_netns(self.ns_cp):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((CP_ADDR, 8805))
        s.settimeout(2)
        self.cp = Cp(s, dp_addr=(DP_CTRL, 8805), node_ip=CP_ADDR)
        if self.cp.associate() != 1:
            raise RuntimeError("PFCP association refused")
        for sub in self.subs:
            _, up_seid, cause = self.cp.establish(sub)
            if cause != 1:
                raise RuntimeError(f"PFCP establishment of {sub} refused: cause {cause}")
            self.established += 1
        # the CP answers bng-dp's heartbeats and takes its reports for as long as the rig lives
        self._poller = threading.Thread(target=self._poll, daemon=True)
        self._poller.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                self.cp.poll(0.05)
            time.sleep(0.2)

    def telemetry(self, cmd: str):
        return clients.telemetry(clients.telemetry_socket(self.prefix), cmd)[0]

    def sessions_alive(self) -> int:
        """Established sessions bng-dp has not reported dead (LCP echoes unanswered)."""
        if self.cp is not None:
            with self._lock:
                self.cp.poll(0.05)
                self.lcp_dead = sum(1 for r in self.cp.reports if r.lcp_dead)
        return self.established - self.lcp_dead

    def close(self) -> None:
        self._stop.set()
        if self._poller is not None:
            self._poller.join(5)
            self._poller = None
        if self.cp is not None:
            self.cp.close()
            self.cp = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(15)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
            self.log.close()
        for ns in (self.ns_dp, self.ns_cp):
            _ip("netns", "delete", ns, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


DST4, DST6 = "198.51.100.99", "2001:db8:99::99"  # upstream destinations, behind the core router


def dp_streams(dp: MemifDp, gen_mac: str, probes: int, g_up: int, g_down: int, g_pu: int, g_pd: int):
    """Upstream one per session and family to DST4 / DST6 (routed via the core router: the
    generator), downstream one per session and family from the router's address and the
    generator's MAC to the group's core MAC; probes on the first sessions. All on the
    generator's one port. Stream ids: IPv4 up, IPv4 down, IPv4 probes up, down, then the
    same for IPv6. An IPv6 stream of an even session uses its /64 (the WAN address), of an
    odd one its delegated prefix (a LAN host)."""
    st = []
    if dp.family != "6":
        ses = [session_of(s, dp.ac_mac) for s in dp.subs]
        st += [streams.upstream(s, DST4, 0, g_up, 10000 + i) for i, s in enumerate(ses)]
        st += [streams.downstream(s, gen_mac, CORE_MAC, DST4, 0, g_down, 10000 + i) for i, s in enumerate(ses)]
        st += [streams.upstream(s, DST4, 0, g_pu, 7000 + i, streams.DSCP_EF) for i, s in enumerate(ses[:probes])]
        st += [streams.downstream(s, gen_mac, CORE_MAC, DST4, 0, g_pd, 7000 + i, streams.DSCP_EF)
               for i, s in enumerate(ses[:probes])]  # fmt: skip
    if dp.family != "4":
        ses6 = [(session_of(s, dp.ac_mac), addresses6(s)[i % 2]) for i, s in enumerate(dp.subs)]

        def up(i, s, a, g, sport, dscp=0):
            return streams.upstream6(s, a, DST6, 0, g, sport, dscp)

        def down(i, s, a, g, sport, dscp=0):
            return streams.downstream6(a, gen_mac, CORE_MAC, ROUTER6_ADDR, 0, g, sport, dscp)

        st += [up(i, s, a, g_up, 10000 + i) for i, (s, a) in enumerate(ses6)]
        st += [down(i, s, a, g_down, 10000 + i) for i, (s, a) in enumerate(ses6)]
        st += [up(i, s, a, g_pu, 7000 + i, streams.DSCP_EF) for i, (s, a) in enumerate(ses6[:probes])]
        st += [down(i, s, a, g_pd, 7000 + i, streams.DSCP_EF) for i, (s, a) in enumerate(ses6[:probes])]
    return st


def memif_pair(directory: Path) -> list[tuple[str, str]]:
    """Calibration without bng-dp: the generator's two ports joined by net_memif."""
    sock = directory / "cal.sock"
    opts = f"id=0,socket={sock},socket-abstract=no,rsize={MEMIF_RSIZE}"
    return [("", f"net_memif0,role=server,{opts}"), ("", f"net_memif1,role=client,{opts}")]


def vhost_pair(directory: Path) -> list[tuple[str, str]]:
    """Calibration of the vhost attachment without bng-dp: the generator's port 0 a net_vhost
    server, port 1 a net_virtio_user on its socket, in one process."""
    sock = directory / "cal-vhost.sock"
    return [
        ("", f"net_vhost0,iface={sock},queues=1"),
        ("", f"net_virtio_user1,path={sock},queues=1,queue_size={VHOST_QSIZE}"),
    ]


def min_frames(family: str) -> tuple[int, int]:
    """The smallest upstream access frame and the smallest core frame (with FCS) that carry a
    stream's headers and signature: IPv4 78 and 64, IPv6 98 and 82; "both" (one stream of
    each family per session and direction, sent alternately): their means, 88 and 73, which
    give the mean access frame of any size (search.access_size's arithmetic)."""
    return {"4": (78, 64), "6": (98, 82), "both": (88, 73)}[family]
