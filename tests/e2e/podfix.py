"""Shared pieces of the E2E tests on the lab pod (topology/examples/lab.yaml): the pod
fixture with bng-cp options, subscribers dialled by the independent scapy client on a raw
socket of their access line, a downstream UDP sender on the inet host, a meter of what a
subscriber receives, and the FreeRADIUS accounting records.

Layers (DESIGN.md Decisions, docs/dp/datapath.md):
- QoS rates are Ethernet frame rates on the access line: QinQ + PPPoE frame with FCS,
  preamble and inter-frame gap excluded. The raw socket sees the frame without FCS (the
  outer tag restored by bngpod.rawsock), so a frame counts `len(frame) + FCS` there.
- bng-dp's byte counters, its PFCP usage reports and so RADIUS accounting count IPv4
  packets as forwarded (the PPP payload: no PPPoE, tags or Ethernet)."""

from __future__ import annotations

import ipaddress
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from harness import podenv
from harness.pppoe_client import IPV4, PppoeClient
from harness.rawaccess import RawAccess

from bngpod import emu, radius
from bngpod.rawsock import in_netns

FCS = 4
ACCESS_HEADER = 30  # Ethernet 14 + S-tag 4 + C-tag 4 + PPPoE 6 + PPP 2, before the IPv4 packet
UDP_IP_HEADER = 28  # IPv4 20 + UDP 8
COA_PORT = 3799
ETH_QINQ_PPPOE_SESSION = 0x8864


def lab_pod_fixture(**cp_options: str):
    """A module-scoped fixture: the lab pod up with these bng-cp options (emu.CP_OPTIONS),
    down again afterwards (also when the module fails)."""

    @pytest.fixture(scope="module")
    def lab_pod():
        podenv.require("E2E pod tests", podenv.missing(podenv.POD_TOOLS + ("radclient",)))
        t0 = time.monotonic()
        with podenv.lab_pod(subscribers=8, cp_options=cp_options) as pod:
            print(f"\nlab pod up in {time.monotonic() - t0:.1f} s (bng-cp options {cp_options})")
            yield pod

    return lab_pod


def user(pod, name: str) -> dict:
    found = [u for u in emu.generated_users() if u["user"] == name]
    assert found, f"{name} is not in users.json"
    return found[0]


# -- the access line and its subscribers -----------------------------------------------------------
@dataclass
class Meter:
    """Downstream IPv4/UDP frames of one session to one UDP port: (arrival time, frame
    length as the socket saw it, IPv4 length)."""

    session_id: int
    port: int
    frames: list[tuple[float, int, int]] = field(default_factory=list)

    def between(self, t0: float, t1: float) -> list[tuple[float, int, int]]:
        return [f for f in self.frames if t0 <= f[0] <= t1]

    def access_rate_bps(self, t0: float, t1: float) -> tuple[float, int]:
        """The access-line frame rate (with FCS) over the frames that arrived in [t0, t1]:
        bytes after the first frame over the time from the first to the last; and how
        many frames that was."""
        got = self.between(t0, t1)
        if len(got) < 2:
            return 0.0, len(got)
        span = got[-1][0] - got[0][0]
        octets = sum(length + FCS for _t, length, _ip in got[1:])
        return octets * 8 / span, len(got)

    def ipv4_octets(self) -> int:
        return sum(ip for _t, _length, ip in self.frames)


class Line(RawAccess):
    """RawAccess that counts metered data frames itself (no scapy parse, no client queue:
    thousands per second) and hands everything else to the clients as before."""

    def __init__(self, port):
        self.meters: dict[tuple[int, int], Meter] = {}
        super().__init__(port)

    def meter(self, client: PppoeClient, udp_port: int) -> Meter:
        m = Meter(client.session_id, udp_port)
        self.meters[(client.session_id, udp_port)] = m
        return m

    def on_frame(self, frame: bytes) -> None:
        if self.meters and len(frame) >= ACCESS_HEADER + UDP_IP_HEADER:
            ethertype, sid, _len, proto = struct.unpack_from("!HxxHHH", frame, 20)
            if ethertype == ETH_QINQ_PPPOE_SESSION and proto == IPV4 and frame[ACCESS_HEADER + 9] == 17:
                ihl = (frame[ACCESS_HEADER] & 0x0F) * 4
                dport = struct.unpack_from("!H", frame, ACCESS_HEADER + ihl + 2)[0]
                m = self.meters.get((sid, dport))
                if m is not None:
                    ip_len = struct.unpack_from("!H", frame, ACCESS_HEADER + 2)[0]
                    m.frames.append((time.monotonic(), len(frame), ip_len))
                    return
        super().on_frame(frame)


def dial(line: Line, pod, name: str, mac: str) -> tuple[PppoeClient, str]:
    """Dial user `name` on its line; the client and its address."""
    u = user(pod, name)
    port = pod.port(u["port"])
    client = PppoeClient(
        line, mac, u["stag"], u["ctag"], user=u["user"], password=u["password"], auth="pap", outer_tpid=port.tpid
    )
    res = client.dial(timeout=20)
    assert res.ok, f"{name}: {res.reason}"
    return client, res.ipv4


def cp_session(name: str) -> dict:
    """bng-cp's view of the session of user `name` (exactly one)."""
    got = emu.cp_api("/v1/sessions")
    got = got.get("sessions", got) if isinstance(got, dict) else got
    mine = [s for s in got if s.get("user") == name]
    assert len(mine) == 1, f"sessions of {name}: {mine}"
    return mine[0]


# -- traffic -------------------------------------------------------------------------------------
def send_downstream(dst: str, port: int, rate_bps: float, seconds: float, ip_size: int = 1400) -> int:
    """UDP datagrams from the inet host to dst:port, paced so that the access frames they
    become (ACCESS_HEADER + FCS + ip_size each) would arrive at rate_bps; packets sent."""
    payload = b"\x5b" * (ip_size - UDP_IP_HEADER)
    pps = rate_bps / ((ACCESS_HEADER + FCS + ip_size) * 8)
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
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


def measure_downstream(line: Line, client: PppoeClient, address: str, rate_bps: float, seconds: float = 4.0,
                       warmup: float = 1.0, port: int = 40100) -> tuple[float, int, int]:  # fmt: skip
    """Offer rate_bps of downstream UDP to the subscriber for `seconds` and measure what
    arrives after `warmup` (the HQoS queue filling and the pipe's burst). The measured
    access-frame rate, frames measured, datagrams sent."""
    meter = line.meter(client, port)
    t0 = time.monotonic()
    sent = send_downstream(address, port, rate_bps, seconds)
    t1 = time.monotonic()
    time.sleep(0.3)
    line.meters.pop((client.session_id, port), None)
    rate, frames = meter.access_rate_bps(t0 + warmup, t1)
    return rate, frames, sent


def within(measured: float, want: float, tolerance: float = 0.05) -> bool:
    return abs(measured - want) <= tolerance * want


# -- RADIUS --------------------------------------------------------------------------------------
def detail_path(pod) -> Path:
    return emu.run_dir() / "radius" / pod.radius.servers[0].name / "detail"


def accounting(pod, asid: str, status: str | None = None) -> list[radius.Record]:
    """Accounting records of the FreeRADIUS detail file for Acct-Session-Id asid, in order."""
    path = detail_path(pod)
    recs = radius.parse_detail(path.read_text(errors="replace")) if path.exists() else []
    return [
        r for r in recs if r.get("Acct-Session-Id") == asid and (status is None or r.get("Acct-Status-Type") == status)
    ]


def wait_accounting(pod, asid: str, status: str, pred=lambda r: True, timeout: float = 15.0) -> radius.Record:
    """The first record of that status for asid satisfying pred, waited for."""
    deadline = time.monotonic() + timeout
    while True:
        got = [r for r in accounting(pod, asid, status) if pred(r)]
        if got:
            return got[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"no {status} for {asid} within {timeout} s: {accounting(pod, asid)}")
        time.sleep(0.2)


def octets(rec: radius.Record, direction: str) -> int:
    """Acct-{Input,Output}-Octets with their Gigawords (RFC 2869)."""
    low = int(rec.get(f"Acct-{direction}-Octets", "0"))
    high = int(rec.get(f"Acct-{direction}-Gigawords", "0"))
    return (high << 32) + low


def coa(pod, attrs: dict[str, str | int]) -> str:
    """A CoA-Request to bng-cp from the RADIUS server's address (radclient in bngpod-mgmt);
    radclient's output (CoA-ACK or CoA-NAK with its Error-Cause)."""
    server = pod.radius.servers[0]
    lines = [f"Packet-Src-IP-Address = {server.address}", "Message-Authenticator = 0x00"]
    lines += [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in attrs.items()]
    proc = subprocess.run(
        ["ip", "netns", "exec", emu.MGMT_NS, "radclient", "-x", "-r", "2", "-t", "3",
         f"{pod.control_plane.address}:{COA_PORT}", "coa", server.secret],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return proc.stdout + proc.stderr


def in_pool(pod, group: str, address: str) -> bool:
    g = next(g for g in pod.groups if g.name == group)
    return any(ipaddress.ip_address(address) in p.prefix for p in g.pools)
