"""What the IPoE tests of the emulated pod (tests/emulated/test_ipoe*.py) share: the IPoE
pod (topology/examples/ipoe.yaml), its access lines with the independent IPoE client
(dhcp_client.py) on a raw socket, downstream load and its meter, bng-cp's and bng-dp's
views of a session, FreeRADIUS accounting records and CoA/Disconnect by radclient.

Layers (docs/dp/datapath.md, DESIGN.md): an IPoE access frame is QinQ + Ethernet + IPv4
(22 bytes before the IPv4 packet); QoS rates are Ethernet frame rates on the access line
with FCS; bng-dp's counters and RADIUS accounting count IPv4 packets as forwarded."""

from __future__ import annotations

import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from bngpod import clients, emu, radius
from bngpod import model as m
from bngpod.rawsock import in_netns
from harness.dhcp_client import BROADCAST_MAC, DhcpClient, vlan_tags
from harness.ipoe6_client import IpoeDualClient
from harness.podenv import REPO
from harness.rawaccess import RawLoop

IPOE = REPO / "topology" / "examples" / "ipoe.yaml"
ACCESS_HEADER = 22  # Ethernet 14 + S-tag 4 + C-tag 4, before the IPv4 packet
FCS = 4
UDP_IP_HEADER = 28
ECHO_PORT = 7
COA_PORT = 3799
ETH_IPV4 = 0x0800


# -- the access line ---------------------------------------------------------------------------------
@dataclass
class Meter:
    """Downstream IPv4/UDP frames to one client MAC and UDP port: (time, frame length as
    the socket saw it, IPv4 length)."""

    mac: str
    port: int
    frames: list[tuple[float, int, int]] = field(default_factory=list)

    def access_rate_bps(self, t0: float, t1: float) -> tuple[float, int]:
        got = [f for f in self.frames if t0 <= f[0] <= t1]
        if len(got) < 2:
            return 0.0, len(got)
        span = got[-1][0] - got[0][0]
        octets = sum(length + FCS for _t, length, _ip in got[1:])
        return (octets * 8 / span if span > 0 else 0.0), len(got)

    def ipv4_octets(self) -> int:
        return sum(ip for _t, _len, ip in self.frames)


class IpoeLine(RawLoop):
    """sub0 of an access port's namespace: IPoE clients on any of the port's lines (a frame
    goes to the client of its S-tag, C-tag and destination MAC, a broadcast to every client
    of its tags), meters of downstream UDP, and a tap of every frame."""

    def __init__(self, port: m.SwitchPort):
        self.port = port
        self.clients: list[DhcpClient] = []
        self.meters: dict[tuple[str, int], Meter] = {}
        self.tap: list[tuple[float, bytes]] = []
        super().__init__(emu.access_ns(port), "sub0", f"ipoe-{port.name}")

    def attach(self, client: DhcpClient) -> None:
        self.clients.append(client)

    def send_frame(self, frame: bytes) -> None:
        self.sock.send(frame)

    def meter(self, mac: str, udp_port: int) -> Meter:
        meter = Meter(mac, udp_port)
        self.meters[(mac, udp_port)] = meter
        return meter

    def on_frame(self, frame: bytes) -> None:
        if self.meters and len(frame) >= ACCESS_HEADER + UDP_IP_HEADER:
            ethertype = struct.unpack_from("!H", frame, 20)[0]
            if ethertype == ETH_IPV4 and frame[ACCESS_HEADER + 9] == 17:
                ihl = (frame[ACCESS_HEADER] & 0x0F) * 4
                dport = struct.unpack_from("!H", frame, ACCESS_HEADER + ihl + 2)[0]
                meter = self.meters.get((frame[0:6].hex(":"), dport))
                if meter is not None:
                    ip_len = struct.unpack_from("!H", frame, ACCESS_HEADER + 2)[0]
                    meter.frames.append((time.monotonic(), len(frame), ip_len))
                    return
        self.tap.append((time.monotonic(), frame))
        e = Ether(frame)
        tags = [t.vlan for t in vlan_tags(e)]
        if len(tags) < 2:
            return
        dst = e.dst.lower()
        for c in self.clients:
            # IPv6 multicast MACs too (dual-stack clients check what comes to them)
            if (c.stag, c.ctag) == (tags[0], tags[1]) and (dst in (c.mac, BROADCAST_MAC) or dst.startswith("33:33:")):
                c.deliver(e)


# -- subscribers ---------------------------------------------------------------------------------------
def ipoe_users(group: str) -> list[dict]:
    """users.json's IPoE subscribers of a line group (their MAC, line and RADIUS name)."""
    return [u for u in emu.generated_users() if u.get("kind") == "ipoe" and u["line_group"] == group]


def client(line: IpoeLine, u: dict, mac: str | None = None, stag: int | None = None, ctag: int | None = None,
           **kw) -> DhcpClient:  # fmt: skip
    return DhcpClient(
        line,
        mac or u["mac"],
        u["stag"] if stag is None else stag,
        u["ctag"] if ctag is None else ctag,
        outer_tpid=line.port.tpid,
        timeout=kw.pop("timeout", 10.0),
        **kw,
    )


def udp_echo(
    c: DhcpClient,
    payload: bytes,
    sport: int = 40007,
    timeout: float = 1.0,
    tries: int = 3,
    sender: DhcpClient | None = None,
    **over,
):
    """A UDP datagram to the inet host's echo port from the client's address (over: spoofed
    src_ip, src_mac, dst_mac; sender: another client, on another line, sends it) and the
    echo, as the client c receives it (the downstream path leads to c's session): the echoed
    IPv4 packet, or None."""
    sender = sender or c
    for _ in range(tries):
        sender.send(sender.ipv4_frame(emu.INET_HOST, payload, sport=sport, dport=ECHO_PORT, **over))

        def echoed(rx) -> bool:
            ip = rx.frame.getlayer(IP)
            return (
                rx.kind == "ipv4"
                and ip is not None
                and ip.haslayer(UDP)
                and ip[UDP].sport == ECHO_PORT
                and ip[UDP].dport == sport
                and bytes(ip[UDP].payload) == payload
            )

        rx = c.wait(echoed, timeout)
        if rx is not None:
            return rx.frame[IP]
    return None


# -- the pod's views -------------------------------------------------------------------------------------
def cp_sessions(user: str | None = None) -> list[dict]:
    got = emu.cp_api("/v1/sessions")
    got = got.get("sessions", got) if isinstance(got, dict) else got
    return [s for s in got if user is None or s.get("user") == user]


def cp_session(user: str) -> dict:
    mine = cp_sessions(user)
    assert len(mine) == 1, f"sessions of {user}: {mine}"
    return mine[0]


def wait_cp_gone(user: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while cp_sessions(user):
        if time.monotonic() > deadline:
            raise AssertionError(f"bng-cp still holds {user}: {cp_sessions(user)}")
        time.sleep(0.2)


def telemetry(instance: str, cmd: str):
    return clients.telemetry(clients.telemetry_socket(f"{emu.NS_PREFIX}{instance}"), cmd)[0]


def dp_session(instance: str, ipv4: str) -> dict | None:
    got = telemetry(instance, f"/bng/sessions,ipv4={ipv4}")
    return got if isinstance(got, dict) and got.get("state") not in (None, "none") else None


def wait_dp_gone(instance: str, ipv4: str, timeout: float = 10.0) -> None:
    """bng-dp holds no session of ipv4 any more (bng-cp deletes it by PFCP after it dropped
    the session from its own list)."""
    deadline = time.monotonic() + timeout
    while (sess := dp_session(instance, ipv4)) is not None:
        if time.monotonic() > deadline:
            raise AssertionError(f"{instance} still holds {ipv4} after {timeout:g} s: {sess}")
        time.sleep(0.2)


def dp_drop(instance: str, reason: str) -> int:
    """bng-dp's drop counter drop_<reason> in /bng/stats (server-dp/src/app_drop.def)."""
    return int((telemetry(instance, "/bng/stats") or {}).get(f"drop_{reason}", 0))


# -- traffic ---------------------------------------------------------------------------------------------
def send_downstream(dst: str, port: int, rate_bps: float, seconds: float, ip_size: int = 1400) -> int:
    """UDP from the inet host to dst:port, paced so that the access frames (ACCESS_HEADER +
    FCS + ip_size each) would arrive at rate_bps; datagrams sent."""
    payload = b"\x49" * (ip_size - UDP_IP_HEADER)
    pps = rate_bps / ((ACCESS_HEADER + FCS + ip_size) * 8)
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    sent = 0
    try:
        t0 = time.monotonic()
        while (now := time.monotonic()) - t0 < seconds:
            due = int((now - t0) * pps) + 1
            while sent < due:
                try:
                    s.sendto(payload, (dst, port))
                except BlockingIOError:
                    break
                sent += 1
            time.sleep(0.0005)
    finally:
        s.close()
    return sent


def measure_downstream(line: IpoeLine, c: DhcpClient, rate_bps: float, seconds: float = 4.0, warmup: float = 1.0,
                       port: int = 40100) -> tuple[float, int, int]:  # fmt: skip
    """Offer rate_bps downstream to the client's address; the access-frame rate measured
    after warmup, frames measured, datagrams sent."""
    meter = line.meter(c.mac, port)
    t0 = time.monotonic()
    sent = send_downstream(c.lease.address, port, rate_bps, seconds)
    t1 = time.monotonic()
    time.sleep(0.3)
    line.meters.pop((c.mac, port), None)
    rate, frames = meter.access_rate_bps(t0 + warmup, t1)
    return rate, frames, sent


def within(measured: float, want: float, tolerance: float = 0.05) -> bool:
    return abs(measured - want) <= tolerance * want


# -- RADIUS ----------------------------------------------------------------------------------------------
def accounting(pod: m.Pod, asid: str, status: str | None = None) -> list[radius.Record]:
    path = emu.run_dir() / "radius" / pod.radius.servers[0].name / "detail"
    recs = radius.parse_detail(path.read_text(errors="replace")) if path.exists() else []
    return [
        r for r in recs if r.get("Acct-Session-Id") == asid and (status is None or r.get("Acct-Status-Type") == status)
    ]


def wait_accounting(pod: m.Pod, asid: str, status: str, pred=lambda r: True, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        got = [r for r in accounting(pod, asid, status) if pred(r)]
        if got:
            return got[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"no {status} for {asid} within {timeout} s: {accounting(pod, asid)}")
        time.sleep(0.2)


def octets(rec, direction: str) -> int:
    return (int(rec.get(f"Acct-{direction}-Gigawords", "0")) << 32) + int(rec.get(f"Acct-{direction}-Octets", "0"))


def radclient(pod: m.Pod, kind: str, attrs: dict) -> str:
    """A CoA-Request (kind coa) or Disconnect-Request (disconnect) to bng-cp from the RADIUS
    server's address; radclient's output."""
    server = pod.radius.servers[0]
    lines = [f"Packet-Src-IP-Address = {server.address}", "Message-Authenticator = 0x00"]
    lines += [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in attrs.items()]
    proc = subprocess.run(
        ["ip", "netns", "exec", emu.MGMT_NS, "radclient", "-x", "-r", "2", "-t", "3",
         f"{pod.control_plane.address}:{COA_PORT}", kind, server.secret],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return proc.stdout + proc.stderr


# -- dual stack (ipoe6_client.py) --------------------------------------------------------------------
def dual_client(line: IpoeLine, u: dict, ac_mac: str, **kw) -> IpoeDualClient:
    """A dual-stack IPoE client of a users.json entry that expects its group's ac_mac."""
    return IpoeDualClient(
        line,
        u["mac"],
        u["stag"],
        u["ctag"],
        outer_tpid=line.port.tpid,
        timeout=kw.pop("timeout", 10.0),
        ac_mac=ac_mac,
        **kw,
    )


def dp_session_of(instance: str, mac: str, settle: float = 3.0) -> dict | None:
    """bng-dp's session of a client MAC (an IPv6-only IPoE session has no IPv4 to look it
    up by), from /bng/sessions' ids. bng-dp may replace a session by a new id when a family
    joins or leaves it (`readded`); the old id stays listed until its memory is reused
    (`pending_reuse`, about a second), so this waits up to settle seconds for one match (and
    then gives the last one listed)."""
    deadline = time.monotonic() + settle
    while True:
        listing = telemetry(instance, "/bng/sessions") or {}
        found = []
        for sid in listing.get("ids", []):
            got = telemetry(instance, f"/bng/sessions,{sid}")
            if isinstance(got, dict) and str(got.get("mac", "")).lower() == mac.lower():
                found.append(got)
        if len(found) <= 1 or time.monotonic() > deadline:
            return found[-1] if found else None
        time.sleep(0.2)
