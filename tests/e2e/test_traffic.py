"""Traffic between subscribers and the inet host, both ways, with the session's encapsulation
on the access wire (the port's outer TPID, S- and C-tag, PPPoE session id, the line group's
AC MAC) and untagged from the group's core MAC on the uplink; a spoofed source is dropped;
a copied session id and MAC on another line (another C-tag, another access port) hijack
nothing."""

import socket
import struct
import time

import pytest
from harness.pppoe_client import IPV4
from scapy.layers.inet import IP, UDP

from bngpod import emu
from bngpod.rawsock import in_netns

from . import pod as p

pytestmark = pytest.mark.pod
PORTS = ["access1", "access2"]  # 0x8100 (lg1, dp1) and 802.1ad (lg2, dp2)


@pytest.fixture(scope="module")
def subs(lab_pod):
    lines = {name: p.AccessLine(lab_pod.port(name)) for name in ("access1", "access2", "access3")}
    try:
        out = {}
        for i, port in enumerate(PORTS):
            user = next(u for u in p.users() if u["port"] == port)
            c = p.client(lines[port], p.mac(2, i + 1), user)
            res, _ = p.dial(c)
            p.udp_echo(c, b"warm up")  # the DP has resolved its next hop
            out[port] = {"client": c, "res": res, "line": lines[port], "group": lab_pod.group(user["line_group"])}
        out["lines"] = lines
        yield out
    finally:
        for line in lines.values():
            line.close()


@pytest.fixture
def inet_tap(lab_pod):
    with p.WireTap(emu.INET_NS, "eth0") as tap:
        yield tap


@pytest.fixture
def uplink_tap(lab_pod):
    with p.WireTap(emu.CORE_NS, "up0") as tap:
        yield tap


def check_session_frame(f: p.Frame, sub: dict) -> IP:
    """A downstream frame of the session exactly as the access line must carry it."""
    c, port = sub["client"], sub["line"].port
    assert f.dst == c.mac
    assert f.src == sub["group"].ac_mac, "downstream source is the line group's AC MAC"
    assert f.tags() == (port.tpid, c.stag, c.ctag), f"tags {f.tags()} on {port.name}"
    assert f.ethertype == 0x8864
    ver_type, code, sid, length = struct.unpack_from("!BBHH", f.raw, 22)
    assert (ver_type, code, sid) == (0x11, 0, sub["res"].session_id)
    assert struct.unpack_from("!H", f.raw, 28)[0] == IPV4
    ip = IP(f.raw[30 : 28 + length])
    assert ip.dst == c.ipv4 and length == ip.len + 2
    return ip


@pytest.mark.parametrize("port", PORTS)
def test_udp_echo_round_trip_with_the_session_encapsulation(lab_pod, subs, uplink_tap, port):
    sub = subs[port]
    c, group = sub["client"], sub["group"]
    payload = f"e2e echo {port} {time.time_ns()}".encode()
    t0 = time.monotonic()
    p.udp_echo(c, payload, sport=40100)
    # downstream on the access wire
    down = sub["line"].frames(t0, lambda f: f.dst == c.mac and f.ethertype == 0x8864 and payload in f.raw)
    assert len(down) == 1, f"{len(down)} answers on {port}"
    ip = check_session_frame(down[0], sub)
    assert ip.src == emu.INET_HOST and ip[UDP].sport == 7 and ip[UDP].dport == 40100
    # upstream on the uplink: PPPoE and QinQ off, the group's core MAC to the router
    up = uplink_tap.wait_frames(lambda f: payload in f.raw and f.raw[12:14] == b"\x08\x00")
    assert len(up) == 1, f"{len(up)} upstream frames on the uplink"
    assert up[0].src == group.core_mac and up[0].dst == lab_pod.core.router_mac
    ip = IP(up[0].raw[14:])
    assert ip.src == c.ipv4 and ip.dst == emu.INET_HOST and ip.ttl == 63


@pytest.mark.parametrize("port", PORTS)
def test_inet_host_reaches_the_subscriber_and_gets_an_answer(lab_pod, subs, port):
    """Downstream first: the inet host sends, the subscriber answers."""
    sub = subs[port]
    c = sub["client"]
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with s:
        s.bind((emu.INET_HOST, 0))
        s.settimeout(2)
        payload = f"from inet to {port}".encode()
        t0 = time.monotonic()
        s.sendto(payload, (c.ipv4, 40200))
        rx = c.expect(lambda r: (ip := p.ip_of(r)) is not None and UDP in ip and ip[UDP].dport == 40200, 3, "UDP")
        ip = p.ip_of(rx)
        assert bytes(ip[UDP].payload) == payload and ip.src == emu.INET_HOST
        frame = sub["line"].frames(t0, lambda f: f.dst == c.mac and payload in f.raw)[0]
        check_session_frame(frame, sub)
        answer = IP(src=c.ipv4, dst=emu.INET_HOST) / UDP(sport=40200, dport=ip[UDP].sport) / b"answer"
        c.send(c.ppp_frame(IPV4, bytes(answer)))
        data, addr = s.recvfrom(2048)
        assert data == b"answer" and addr == (c.ipv4, 40200)


def test_spoofed_source_is_dropped(lab_pod, subs, inet_tap):
    c = subs["access1"]["client"]
    spoofed = "100.80.3.250"  # in lg1's pool, not the subscriber's
    before = p.telemetry("dp1", "/bng/stats")
    for i in range(5):
        pkt = IP(src=spoofed, dst=emu.INET_HOST) / UDP(sport=40300, dport=7) / f"spoof {i}".encode()
        c.send(c.ppp_frame(IPV4, bytes(pkt)))
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        after = p.telemetry("dp1", "/bng/stats")
        if after["drop_spoofed_source"] - before["drop_spoofed_source"] >= 5:
            break
        time.sleep(0.1)
    assert after["drop_spoofed_source"] - before["drop_spoofed_source"] == 5
    assert after["up_pkts"] == before["up_pkts"]
    time.sleep(0.3)
    assert not inet_tap.ipv4(lambda ip: ip.src == spoofed), "a spoofed packet reached the inet host"
    c.drain()
    p.udp_echo(c, b"still fine after spoofing")


def test_a_copied_session_id_and_mac_on_another_line_hijack_nothing(lab_pod, subs, inet_tap):
    victim = subs["access1"]
    v, vres = victim["client"], victim["res"]
    before = p.cp_sessions(v.user)[0]
    lines = subs["lines"]
    # the victim's MAC, PPPoE session id, AC MAC and address on: another C-tag of its S-tag,
    # a line of another instance on another port, and its own S-tag on another port
    thieves = [
        p.client(lines["access1"], v.mac, {"user": "thief", "password": "x"}, stag=v.stag, ctag=v.ctag + 7),
        p.client(lines["access3"], v.mac, {"user": "thief", "password": "x"}, stag=300, ctag=5),
        p.client(lines["access2"], v.mac, {"user": "thief", "password": "x"}, stag=v.stag, ctag=v.ctag),
    ]
    for t in thieves:
        t.session_id, t.ac_mac, t.ipv4 = vres.session_id, vres.ac_mac, vres.ipv4
        for i in range(3):
            pkt = IP(src=vres.ipv4, dst=emu.INET_HOST) / UDP(sport=40400, dport=7) / f"hijack {i}".encode()
            t.send(t.ppp_frame(IPV4, bytes(pkt)))
    time.sleep(1.0)
    assert not inet_tap.ipv4(lambda ip: UDP in ip and ip[UDP].sport == 40400), "a hijacked packet reached inet"
    for t in thieves:
        assert not any(p.ip_of(r) for r in t.rx), "a thief got traffic"
    # the victim's session is untouched and works
    assert not v.padt_received.is_set() and not v.terminated_by_peer.is_set()
    after = p.cp_sessions(v.user)
    assert len(after) == 1 and after[0]["state"] == "established"
    assert {k: after[0][k] for k in ("id", "pppoe_session_id", "ipv4", "mac", "instance")} == {
        k: before[k] for k in ("id", "pppoe_session_id", "ipv4", "mac", "instance")
    }
    p.udp_echo(v, b"victim still fine")
