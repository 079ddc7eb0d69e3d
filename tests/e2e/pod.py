"""What the E2E tests see of the running lab pod: subscribers dialling with the scapy PPPoE
client (tests/harness/pppoe_client.py, independent of bng-cp and bng-subemu) on a raw socket in
an access namespace, the wire of an access port and of the inet host, bng-dp telemetry,
bng-cp's management API and metrics."""

from __future__ import annotations

import ipaddress
import json
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from harness.pppoe_client import IPV4, PADO, PppoeClient
from harness.rawaccess import RawLoop
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from bngpod import clients, emu
from bngpod import model as m
from bngpod.rawsock import in_netns

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "topology" / "examples" / "lab.yaml"
ECHO_PORT = 7


# -- the access wire -------------------------------------------------------------------------------
@dataclass
class Frame:
    t: float
    raw: bytes

    @property
    def dst(self) -> str:
        return self.raw[0:6].hex(":")

    @property
    def src(self) -> str:
        return self.raw[6:12].hex(":")

    def tags(self) -> tuple[int, int, int] | None:
        """(outer TPID, S-tag, C-tag) of a QinQ frame."""
        if len(self.raw) < 22 or self.raw[16:18] != b"\x81\x00":
            return None
        tpid, s, _, c = struct.unpack_from("!HHHH", self.raw, 12)
        return tpid, s & 0xFFF, c & 0xFFF

    @property
    def ethertype(self) -> int:
        return struct.unpack_from("!H", self.raw, 20)[0] if len(self.raw) >= 22 else 0

    @property
    def pppoe_code(self) -> int:
        return self.raw[23] if len(self.raw) > 23 else -1

    @property
    def pppoe_sid(self) -> int:
        return struct.unpack_from("!H", self.raw, 24)[0] if len(self.raw) >= 26 else -1


class AccessLine(RawLoop):
    """sub0 of an access port's namespace: PPPoE clients on any of its lines (frames go to
    a client by destination MAC, S-tag and C-tag, so one MAC on two lines is two clients)
    and a tap of every frame the port receives."""

    def __init__(self, port: m.SwitchPort):
        self.port = port
        self.clients: dict[tuple[str, int, int], PppoeClient] = {}
        self.tap: list[Frame] = []
        super().__init__(emu.access_ns(port), "sub0", f"e2e-{port.name}")

    def attach(self, client: PppoeClient) -> None:
        self.clients[(client.mac, client.stag, client.ctag)] = client

    def send_frame(self, frame: bytes) -> None:
        self.sock.send(frame)

    def frames(self, since: float = 0.0, pred=None) -> list[Frame]:
        return [f for f in list(self.tap) if f.t >= since and (pred is None or pred(f))]

    def on_frame(self, raw: bytes) -> None:
        f = Frame(time.monotonic(), raw)
        self.tap.append(f)
        tags = f.tags()
        client = tags and self.clients.get((f.dst, tags[1], tags[2]))
        if client is not None:
            client.deliver(Ether(raw))


class WireTap(RawLoop):
    """Every frame on an interface of a namespace (e.g. eth0 of bngpod-inet)."""

    def __init__(self, ns: str, ifname: str):
        self.frames: list[Frame] = []
        super().__init__(ns, ifname, f"tap-{ns}")

    def ipv4(self, pred) -> list[IP]:
        out = []
        for f in list(self.frames):
            if f.raw[12:14] == b"\x08\x00":
                ip = IP(f.raw[14:])
                if pred(ip):
                    out.append(ip)
        return out

    def on_frame(self, raw: bytes) -> None:
        self.frames.append(Frame(time.monotonic(), raw))

    def wait_frames(self, pred, timeout: float = 2.0) -> list[Frame]:
        """The frames seen so far that match pred, waiting up to timeout for a first one: the
        tap's thread may not have read a frame yet when what it caused has already come back."""
        deadline = time.monotonic() + timeout
        while True:
            got = [f for f in list(self.frames) if pred(f)]
            if got or time.monotonic() > deadline:
                return got
            time.sleep(0.02)


class EchoStream:
    """UDP echo requests every `interval` seconds in a session, each with its sequence number;
    the answers' arrival times are read from the access line's tap."""

    def __init__(self, c: PppoeClient, line: AccessLine, sport: int, interval: float = 0.05):
        self.c, self.line, self.sport, self.interval = c, line, sport, interval
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.t0 = time.monotonic()
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
            self.t1 = time.monotonic()

    def _run(self):
        nxt = time.monotonic()
        while not self._stop.is_set():
            payload = b"gap %08d" % self.sent
            pkt = IP(src=self.c.ipv4, dst=emu.INET_HOST) / UDP(sport=self.sport, dport=7) / payload
            self.c.send(self.c.ppp_frame(IPV4, bytes(pkt)))
            self.sent += 1
            nxt += self.interval
            self._stop.wait(max(0.0, nxt - time.monotonic()))

    def answers(self) -> list[Frame]:
        return self.line.frames(self.t0, lambda f: f.dst == self.c.mac and b"gap " in f.raw)

    def longest_gap(self) -> float:
        times = [self.t0] + [f.t for f in self.answers()] + [self.t1]
        return max(b - a for a, b in zip(times, times[1:], strict=False))


# -- subscribers -----------------------------------------------------------------------------------
def users() -> list[dict]:
    return emu.generated_users()


def user_on(line_group: str, port: str) -> dict:
    return next(u for u in users() if u["line_group"] == line_group and u["port"] == port)


def mac(test: int, n: int) -> str:
    """A subscriber MAC of its own per test (test) and subscriber (n)."""
    return f"02:5b:{test:02x}:00:{n >> 8:02x}:{n & 0xFF:02x}"


def client(line: AccessLine, mac_: str, user: dict, stag: int | None = None, ctag: int | None = None) -> PppoeClient:
    return PppoeClient(
        line, mac_, stag if stag is not None else user["stag"], ctag if ctag is not None else user["ctag"],
        user=user["user"], password=user["password"], auth="pap", outer_tpid=line.port.tpid,
    )  # fmt: skip


def dial(c: PppoeClient, timeout: float = 20.0):
    res = c.dial(timeout=timeout)
    assert res.ok, f"{c.user} on {c.stag}/{c.ctag}: {res.reason}"
    session = wait_session(c.user, lambda s: s["state"] == "established")
    return res, session


def ip_of(rx) -> IP | None:
    raw = bytes(rx.frame)
    return IP(raw[30:]) if rx.proto == IPV4 and len(raw) > 50 else None


def udp_echo(c: PppoeClient, payload: bytes, sport: int = 40007, timeout: float = 1.0, tries: int = 5):
    """A datagram to the inet host's UDP echo in the session; the answer (an Rx). The first
    packets of a session may go while bng-dp resolves its next hop: retried."""
    pkt = IP(src=c.ipv4, dst=emu.INET_HOST, ttl=64) / UDP(sport=sport, dport=ECHO_PORT) / payload
    for _ in range(tries):
        c.send(c.ppp_frame(IPV4, bytes(pkt)))
        try:
            return c.expect(
                lambda r: (ip := ip_of(r)) is not None and UDP in ip and bytes(ip[UDP].payload) == payload,
                timeout,
                "UDP echo answer",
            )
        except AssertionError:
            continue
    raise AssertionError(f"{c.user}: no UDP echo answer in {tries} tries")


def sent_discovery(c: PppoeClient, code: int | None = None, since: int = 0) -> list[bytes]:
    """Discovery frames (0x8863) the client sent, after its first `since` frames."""
    out = []
    for b in c.sent[since:]:
        if len(b) >= 24 and b[20:22] == b"\x88\x63" and (code is None or b[23] == code):
            out.append(b)
    return out


def is_pado_to(c: PppoeClient):
    return lambda f: f.dst == c.mac and f.tags() is not None and f.ethertype == 0x8863 and f.pppoe_code == PADO


# -- the CP ----------------------------------------------------------------------------------------
def cp_sessions(user: str | None = None) -> list[dict]:
    args = [str(emu.BNGCPCTL), "--socket", str(emu.cp_socket()), "-o", "json", "sessions"]
    if user:
        args += ["--user", user]
    ctl = subprocess.run(args, capture_output=True, text=True, timeout=10)
    assert ctl.returncode == 0, ctl.stderr
    got = json.loads(ctl.stdout or "[]")
    return got.get("sessions", got) if isinstance(got, dict) else got


def wait_session(user: str, pred, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    got: list[dict] = []
    while time.monotonic() < deadline:
        got = cp_sessions(user)
        if len(got) == 1 and pred(got[0]):
            return got[0]
        time.sleep(0.1)
    raise AssertionError(f"bng-cp's session of {user} not as expected: {got}")


def wait_gone(user: str, timeout: float = 10.0) -> None:
    """bng-cp holds no session of `user` (it ended and was released)."""
    deadline = time.monotonic() + timeout
    while cp_sessions(user):
        assert time.monotonic() < deadline, f"bng-cp still holds a session of {user}: {cp_sessions(user)}"
        time.sleep(0.1)


def cp_metrics() -> dict[str, float]:
    """bng-cp's Prometheus metrics: 'name{labels}' -> value."""
    pod_cp = "10.200.0.1"  # lab.yaml control_plane.address
    with in_netns(emu.MGMT_NS):
        return clients.scrape(pod_cp, emu.CP_METRICS_PORT)


# -- bng-dp ----------------------------------------------------------------------------------------
def telemetry(instance: str, cmd: str):
    """One DPDK telemetry command of an instance's bng-dp; the reply's value."""
    return clients.telemetry(clients.telemetry_socket(f"{emu.NS_PREFIX}{instance}"), cmd)[0]


def dp_session(instance: str, ipv4: str) -> dict | None:
    got = telemetry(instance, f"/bng/sessions,ipv4={ipv4}")
    return got if isinstance(got, dict) and got.get("state") not in (None, "none") else None


def in_pool(pod: m.Pod, group: str, addr: str) -> bool:
    g = next(g for g in pod.groups if g.name == group)
    return any(ipaddress.ip_address(addr) in p.prefix for p in g.pools)
