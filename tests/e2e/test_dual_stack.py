"""Dual stack end to end (issue 15 item 4): the scapy client (tests/harness/pppoe_client.py,
independent of bng-cp) dials IPv4 and IPv6 through the whole lab pod: IPv6CP, RS -> RA
(SLAAC), DHCPv6 IA_PD (+ IA_NA), traffic from the WAN address and from inside the
delegated prefix; anti-spoof, hop limit, Packet Too Big, mixed-family shaping, per-family
accounting, CoA, DP and CP restarts, a CP outage longer than the RA router lifetime, and
sessions without IPv6; tshark decodes the PFCP IEs and DHCPv6 of a dial.

The pod is the lab pod with two changes (written to a pod file of this module): Router
Advertisements every RA_INTERVAL s with a router lifetime of RA_LIFETIME s (so that an
outage longer than the lifetime fits a test), and lg2's IPv6 pool cut to two /64s and one
delegated prefix (so that a test can exhaust it).

Layers: rates are Ethernet frame rates on the access line (podfix); accounting counts IP
packets as forwarded (docs/cp/radius.md)."""

from __future__ import annotations

import ipaddress
import signal
import socket
import struct
import threading
import time

import pytest
import yaml
from harness import ipv6 as v6
from harness import podenv
from harness.pppoe_client import IPV4, IPV6CP, LCP, PROTO_REJ, PppoeClient
from scapy.layers.inet import IP, UDP

from bngpod import emu, validate
from bngpod.rawsock import in_netns

from . import pod as p
from . import podfix
from .podfix import ACCESS_HEADER, FCS, within

pytestmark = pytest.mark.pod

RA_INTERVAL, RA_LIFETIME = 4, 12
INTERIM_S = 5
SILVER_DOWN = 20_000_000  # lab.yaml silver (lg1, lg3)
SESSION_MTU = 1492  # the client's MRU (PPPoE)
INET6 = str(emu.INET6_HOST)
ECHO = 7
ETH_IPV6 = 0x86DD
# bng-dp's drop counters in /bng/stats (server-dp/src/app_drop.def): a spoofed source of
# either family, and a link-local/multicast/unspecified IPv6 packet that is not punted
DROP_SPOOF6 = "drop_spoofed_source"
DROP_LINK_LOCAL6 = "drop_ipv6_scope"


# -- the pod -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pod6(pod_prereqs, tmp_path_factory):
    podenv.require("dual-stack E2E", podenv.missing(podenv.POD_TOOLS + ("radclient", "tshark")))
    doc = yaml.safe_load(podenv.LAB.read_text())
    doc["ipv6_ra"] = {"interval": RA_INTERVAL, "router_lifetime": RA_LIFETIME}
    pool2 = next(x for x in doc["ipv6_pools"] if x["name"] == "v6pool2")
    pool2.update(wan_prefix="2001:db8:101::/63", delegated_prefix="2001:db8:2100::/56", delegated_length=56)
    path = tmp_path_factory.mktemp("pod6") / "lab-dual-stack.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    pod = validate.load(path)
    emu.down(quiet=True)
    emu.up(pod, str(path), subscribers=16, cp_options={"interim": f"{INTERIM_S}s"})
    try:
        yield pod
    finally:
        emu.down(quiet=True)


class DualLine(p.AccessLine):
    """An access line that meters downstream UDP of either family per (session, port)
    itself (thousands of frames per second), and hands the rest on as AccessLine does."""

    def __init__(self, port):
        self.meters: dict[tuple[int, int], podfix.Meter] = {}
        super().__init__(port)

    def meter(self, c: PppoeClient, port: int) -> podfix.Meter:
        m = podfix.Meter(c.session_id, port)
        self.meters[(c.session_id, port)] = m
        return m

    def on_frame(self, raw: bytes) -> None:
        if self.meters and len(raw) >= ACCESS_HEADER + 48:
            etype, sid, _len, proto = struct.unpack_from("!HxxHHH", raw, 20)
            if etype == 0x8864 and proto in (IPV4, v6.IPV6_PPP):
                if proto == IPV4 and raw[ACCESS_HEADER + 9] == 17:
                    l4 = ACCESS_HEADER + (raw[ACCESS_HEADER] & 0x0F) * 4
                    ip_len = struct.unpack_from("!H", raw, ACCESS_HEADER + 2)[0]
                elif proto == v6.IPV6_PPP and raw[ACCESS_HEADER + 6] == v6.UDP:
                    l4 = ACCESS_HEADER + 40
                    ip_len = 40 + struct.unpack_from("!H", raw, ACCESS_HEADER + 4)[0]
                else:
                    l4 = 0
                m = self.meters.get((sid, struct.unpack_from("!H", raw, l4 + 2)[0])) if l4 else None
                if m is not None:
                    m.frames.append((time.monotonic(), len(raw), ip_len))
                    return
        super().on_frame(raw)


@pytest.fixture(scope="module")
def lines(pod6):
    opened = {port.name: DualLine(port) for port in pod6.ports_with_role("access")}
    try:
        yield opened
    finally:
        for line in opened.values():
            line.close()


@pytest.fixture
def inet_tap(pod6):
    with p.WireTap(emu.INET_NS, "eth0") as tap:
        yield tap


@pytest.fixture
def uplink_tap(pod6):
    with p.WireTap(emu.CORE_NS, "up0") as tap:
        yield tap


_taken: set[str] = set()


def fresh_user(group: str) -> dict:
    """A subscriber of the group no test of this module has dialled yet."""
    u = next(u for u in p.users() if u["line_group"] == group and u["user"] not in _taken)
    _taken.add(u["user"])
    return u


def eui64(mac: str) -> bytes:
    b = bytearray(bytes.fromhex(mac.replace(":", "")))
    b[0] ^= 0x02
    return bytes(b[:3]) + b"\xff\xfe" + bytes(b[3:])


def dial6(lines, group: str, n: int, want_ipv6: bool = True) -> tuple[PppoeClient, object, dict]:
    """A fresh subscriber of the group dials dual stack; (client, DialResult, user)."""
    u = fresh_user(group)
    line = lines[u["port"]]
    c = PppoeClient(
        line, p.mac(0x15, n), u["stag"], u["ctag"], user=u["user"], password=u["password"], auth="pap",
        outer_tpid=line.port.tpid, dual_stack=True,
    )  # fmt: skip
    res = c.dial(timeout=25)
    assert res.ok, f"{u['user']}: IPv4 not up: {res.reason}"
    if want_ipv6:
        assert res.ipv6_ok, f"{u['user']}: IPv6 not up: {res.ipv6_reason}"
    p.wait_session(u["user"], lambda s: s["state"] == "established")
    return c, res, u


def ipv6_of(c: PppoeClient, pred, timeout: float, what: str) -> v6.Ipv6Packet:
    return c.ipv6_packet(pred, timeout, what)


def udp6_echo(c: PppoeClient, src, payload: bytes, sport: int = 40600, tries: int = 5, hop_limit: int = 64):
    """A datagram from src (one of the session's addresses) to the inet host's UDP echo;
    the answer. The first packets may go while bng-dp resolves the router: retried."""
    pkt = v6.udp6(src, INET6, sport, ECHO, payload, hop_limit=hop_limit)

    def answer(ip):
        udp = v6.udp6_payload(ip)
        return udp is not None and udp[0] == ECHO and udp[1] == sport and udp[2] == payload

    for _ in range(tries):
        c.send_ipv6(pkt)
        try:
            return ipv6_of(c, answer, 1.0, "UDP echo over IPv6")
        except AssertionError:
            continue
    raise AssertionError(f"{c.user}: no IPv6 UDP echo answer for {src} in {tries} tries")


def ipv6_frames(tap: p.WireTap, pred, wait: float = 0.0) -> list[v6.Ipv6Packet]:
    """The IPv6 packets on the tap that match pred; wait > 0: up to that long for a first one."""

    def matches(f: p.Frame) -> bool:
        return f.raw[12:14] == b"\x86\xdd" and (ip := v6.parse_ipv6(f.raw[14:])) is not None and pred(ip)

    return [v6.parse_ipv6(f.raw[14:]) for f in tap.wait_frames(matches, wait)]


def stats(instance: str) -> dict:
    return p.telemetry(instance, "/bng/stats")


# -- both protocols --------------------------------------------------------------------------------
def test_both_protocols_up_with_slaac_pd_and_traffic_from_both(pod6, lines, uplink_tap):
    g = pod6.group("lg1")
    pool = g.ipv6_pools[0]
    c, res, u = dial6(lines, "lg1", 1)
    assert p.in_pool(pod6, "lg1", res.ipv4)
    # IPv6CP: the BNG's identifier is the modified EUI-64 of the group's AC MAC
    assert res.peer_iid == eui64(g.ac_mac), res.peer_iid.hex()
    assert res.iid and res.iid != res.peer_iid
    # the RA: from the BNG's link-local, link scope, the pod's lifetimes, the session's /64
    ra = res.ra
    assert ra.src == v6.link_local(res.peer_iid) and ra.hop_limit == 255
    assert ra.dst == v6.ALL_NODES
    assert ra.router_lifetime == RA_LIFETIME
    assert (ra.managed, ra.other) == (pool.ia_na, bool(pool.dns))
    assert ra.mtu == SESSION_MTU
    assert [(str(x.prefix), x.on_link, x.autonomous) for x in ra.prefixes] == [(str(res.wan_prefix), True, True)]
    assert res.wan_prefix.prefixlen == 64 and res.wan_prefix.subnet_of(pool.wan_prefix)
    assert ra.rdnss == pool.dns and ra.rdnss_lifetime == RA_LIFETIME
    # DHCPv6: a delegated prefix of the pool's length, no IA_NA (v6pool1 offers none), DNS
    assert res.delegated_prefix.prefixlen == pool.delegated_length
    assert res.delegated_prefix.subnet_of(pool.delegated_prefix)
    assert res.ia_na is None and res.dns6 == pool.dns
    sess = p.cp_sessions(u["user"])[0]
    assert (sess.get("ipv6_prefix"), sess.get("delegated_prefix")) == (str(res.wan_prefix), str(res.delegated_prefix))
    # traffic from the WAN address and from a LAN host inside the delegated prefix
    for src, tag in ((res.ipv6, b"from the WAN address"), (c.delegated_host(7), b"from the delegated prefix")):
        ans = udp6_echo(c, src, tag)
        assert ans.src == emu.INET6_HOST and ans.dst == src
        up = uplink_tap.wait_frames(lambda f, tag=tag: tag in f.raw and f.raw[12:14] == b"\x86\xdd")
        assert len(up) >= 1, f"no upstream {tag!r} on the uplink"
        assert up[-1].src == g.core_mac and up[-1].dst == pod6.core.router_mac
        ip = v6.parse_ipv6(up[-1].raw[14:])
        assert (ip.src, ip.dst, ip.hop_limit) == (src, emu.INET6_HOST, 63)
    # downstream first: the inet host reaches a LAN host behind the CPE
    host = c.delegated_host(0x99)
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    with s:
        s.sendto(b"to the LAN", (str(host), 40700))
        got = ipv6_of(c, lambda ip: ip.dst == host and b"to the LAN" in ip.payload, 3, "downstream to the PD")
        assert got.src == emu.INET6_HOST and got.hop_limit == 62  # the core router's hop and the DP's
    frame = next(f for f in reversed(c.rx) if f.proto == v6.IPV6_PPP and b"to the LAN" in f.payload)
    assert frame.frame.src == g.ac_mac
    # Renew keeps the prefix
    reply = c.renew()
    assert reply.ia_pd and reply.ia_pd[0].leases[0].value == str(res.delegated_prefix)
    c.terminate()


def test_ia_na_where_the_pool_offers_it(pod6, lines):
    g = pod6.group("lg3")
    pool = g.ipv6_pools[0]
    c, res, _u = dial6(lines, "lg3", 2)
    assert pool.ia_na and res.ra.managed
    assert res.ia_na is not None and res.ia_na in res.wan_prefix, (res.ia_na, res.wan_prefix)
    assert res.delegated_prefix.prefixlen == 60 and res.delegated_prefix.subnet_of(pool.delegated_prefix)
    assert res.dns6 == pool.dns and res.ra.rdnss == pool.dns
    udp6_echo(c, res.ia_na, b"from the IA_NA address")
    udp6_echo(c, res.ipv6, b"from the SLAAC address")
    c.terminate()


# -- the DP's checks ---------------------------------------------------------------------------------
def test_spoofed_ipv6_sources_are_dropped(pod6, lines, inet_tap):
    a, ra, _ = dial6(lines, "lg1", 3)
    _b, rb, _ = dial6(lines, "lg1", 4)
    udp6_echo(a, ra.ipv6, b"warm up")
    outside = v6.slaac(ipaddress.IPv6Network((int(ra.wan_prefix.network_address) ^ (0x7FF << 64), 64)), a.iid)
    spoofs = {
        "another /64 of the pool": outside,
        "the other session's /64": rb.ipv6,
        "the other session's delegated prefix": rb.delegated_prefix.network_address + 1,
    }
    before = stats("dp1")
    for what, src in spoofs.items():
        assert src not in ra.wan_prefix and src not in ra.delegated_prefix, what
        for i in range(3):
            a.send_ipv6(v6.udp6(src, INET6, 40800, ECHO, f"spoof {what} {i}".encode()))
    for i in range(3):  # a link-local source is never forwarded
        a.send_ipv6(v6.udp6(v6.link_local(a.iid), INET6, 40801, ECHO, f"link-local {i}".encode()))
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        after = stats("dp1")
        if after.get(DROP_SPOOF6, 0) - before.get(DROP_SPOOF6, 0) >= 9:
            break
        time.sleep(0.1)
    time.sleep(0.3)
    leaked = ipv6_frames(inet_tap, lambda ip: b"spoof" in ip.payload or b"link-local" in ip.payload)
    assert leaked == [], f"{len(leaked)} spoofed packets reached the inet host"
    assert DROP_SPOOF6 in after and DROP_LINK_LOCAL6 in after, sorted(k for k in after if "6" in k)
    assert after[DROP_SPOOF6] - before[DROP_SPOOF6] == 9, (DROP_SPOOF6, before, after)
    assert after[DROP_LINK_LOCAL6] - before[DROP_LINK_LOCAL6] == 3, (DROP_LINK_LOCAL6, before, after)
    a.drain()
    udp6_echo(a, ra.ipv6, b"still fine after spoofing")
    udp6_echo(a, a.delegated_host(3), b"and from the LAN")


def test_hop_limit_expiry_is_answered_with_time_exceeded_from_the_core_address6(pod6, lines, inet_tap, uplink_tap):
    g = pod6.group("lg1")
    c, res, _ = dial6(lines, "lg1", 5)
    udp6_echo(c, res.ipv6, b"warm up")
    pkt = v6.udp6(res.ipv6, INET6, 40900, ECHO, b"hop limit 1", hop_limit=1)
    c.send_ipv6(pkt)
    err = ipv6_of(c, lambda ip: (e := v6.parse_icmp6_error(ip)) is not None and e.icmp_type == v6.TIME_EXCEEDED,
                  3, "ICMPv6 Time Exceeded")  # fmt: skip
    e = v6.parse_icmp6_error(err)
    assert e.src == g.core_address6 and err.dst == res.ipv6 and e.code == 0
    assert e.quoted[:48] == pkt[:48], "the error quotes the packet"
    time.sleep(0.3)
    assert not ipv6_frames(inet_tap, lambda ip: b"hop limit 1" in ip.payload), "an expired packet was forwarded"
    assert not ipv6_frames(uplink_tap, lambda ip: b"hop limit 1" in ip.payload)
    # hop limit 2 leaves the DP with 1 (and the core router then answers for itself)
    c.send_ipv6(v6.udp6(res.ipv6, INET6, 40901, ECHO, b"hop limit 2", hop_limit=2))

    def hop_limit_2(ip):
        return b"hop limit 2" in ip.payload and ip.dst == emu.INET6_HOST

    assert ipv6_frames(uplink_tap, hop_limit_2, wait=3.0), "the packet did not leave the DP"
    time.sleep(0.3)  # and no second copy after it
    assert [ip.hop_limit for ip in ipv6_frames(uplink_tap, hop_limit_2)] == [1]
    c.terminate()


def test_packet_too_big_at_the_session_mtu(pod6, lines, inet_tap):
    g = pod6.group("lg1")
    c, res, _ = dial6(lines, "lg1", 6)
    udp6_echo(c, res.ipv6, b"warm up")
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    with s:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_DONTFRAG, 1)
        fits = b"f" * (SESSION_MTU - 48)
        s.sendto(fits, (str(res.ipv6), 41000))
        ipv6_of(c, lambda ip: ip.payload[8:] == fits, 3, "a packet of the session MTU")
        big = b"B" * (SESSION_MTU - 48 + 8)
        s.sendto(big, (str(res.ipv6), 41001))
        deadline = time.monotonic() + 3
        ptb = []
        while not ptb and time.monotonic() < deadline:
            ptb = [
                e
                for ip in ipv6_frames(inet_tap, lambda ip: ip.dst == emu.INET6_HOST and ip.next_header == v6.ICMPV6)
                if (e := v6.parse_icmp6_error(ip)) is not None and e.icmp_type == v6.PACKET_TOO_BIG
            ]
            time.sleep(0.1)
    assert ptb, "no Packet Too Big at the inet host"
    assert (ptb[0].src, ptb[0].value) == (g.core_address6, SESSION_MTU)
    q = ptb[0].quoted  # the start of our packet, as much as fits 1280 octets
    assert len(q) >= 48 and q[8:24] == emu.INET6_HOST.packed and q[24:40] == res.ipv6.packed
    assert not any(r.proto == v6.IPV6_PPP and b"BBBBBBBB" in r.payload for r in c.rx), "the big packet got through"
    c.terminate()


# -- QoS and accounting ----------------------------------------------------------------------------
def send_downstream6(dst, port: int, rate_bps: float, seconds: float, ip_size: int = 1400) -> int:
    """podfix.send_downstream over IPv6: UDP datagrams from the inet host, paced so that
    their access frames (ACCESS_HEADER + FCS + ip_size) arrive at rate_bps."""
    payload = b"\x6b" * (ip_size - 48)
    pps = rate_bps / ((ACCESS_HEADER + FCS + ip_size) * 8)
    with in_netns(emu.INET_NS):
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sent = 0
    try:
        t0 = time.monotonic()
        while (now := time.monotonic()) - t0 < seconds:
            due = int((now - t0) * pps) + 1
            while sent < due:
                try:
                    s.sendto(payload, (str(dst), port))
                except BlockingIOError:
                    break
                sent += 1
            time.sleep(0.0005)
    finally:
        s.close()
    return sent


def measure_mixed(line: DualLine, c: PppoeClient, res, offered: float, seconds: float = 4.0, warmup: float = 1.0):
    """Half of `offered` as IPv4, half as IPv6 (to the delegated prefix), at once; the
    access-frame rate of both together, and of each, after warmup."""
    m4, m6 = line.meter(c, 41100), line.meter(c, 41106)
    t0 = time.monotonic()
    threads = [
        threading.Thread(target=podfix.send_downstream, args=(res.ipv4, 41100, offered / 2, seconds)),
        threading.Thread(target=send_downstream6, args=(c.delegated_host(5), 41106, offered / 2, seconds)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    t1 = time.monotonic()
    time.sleep(0.3)
    for m in (m4, m6):
        line.meters.pop((c.session_id, m.port), None)
    both = sorted(m4.between(t0 + warmup, t1) + m6.between(t0 + warmup, t1))
    assert len(both) > 100, "next to nothing arrived"
    span = both[-1][0] - both[0][0]
    rate = sum(length + FCS for _t, length, _ip in both[1:]) * 8 / span
    share6 = sum(x[1] for x in m6.between(t0 + warmup, t1)) / sum(x[1] for x in both)
    return rate, share6, len(both)


def test_mixed_v4_v6_downstream_is_shaped_to_the_profile(pod6, lines):
    c, res, _ = dial6(lines, "lg1", 7)
    udp6_echo(c, res.ipv6, b"warm up")
    offered = 1.5 * SILVER_DOWN
    rate, share6, frames = measure_mixed(c.dp, c, res, offered)
    print(
        f"\nmixed shaping (silver {SILVER_DOWN / 1e6:.0f} Mbit/s): offered {offered / 1e6:.0f} Mbit/s half IPv4 "
        f"half IPv6, measured {rate / 1e6:.3f} Mbit/s ({(rate - SILVER_DOWN) / SILVER_DOWN:+.2%}) over {frames} "
        f"frames, IPv6 share {share6:.0%}"
    )
    assert within(rate, SILVER_DOWN), f"measured {rate:.0f} bit/s, profile {SILVER_DOWN}"
    assert 0.25 <= share6 <= 0.75, f"one pipe for both families: IPv6 got {share6:.0%}"
    c.terminate()


def test_coa_changes_the_rate_of_both_families(pod6, lines):
    new_rate = 10_000_000
    c, res, u = dial6(lines, "lg1", 8)
    udp6_echo(c, res.ipv6, b"warm up")
    asid = p.cp_sessions(u["user"])[0]["acct_session_id"]
    out = podfix.coa(pod6, {"Acct-Session-Id": asid, "WISPr-Bandwidth-Max-Down": new_rate})
    assert "Received CoA-ACK" in out, out  # (radclient says "Expected CoA-ACK got CoA-NAK" too)
    dp = p.telemetry(pod6.group("lg1").instance.name, f"/bng/sessions,ipv4={res.ipv4}")
    assert within(dp.get("hqos_rate_bps", 0), new_rate, 0.01), dp  # bng-dp's rate granularity
    rate, share6, frames = measure_mixed(c.dp, c, res, 1.5 * SILVER_DOWN)
    print(f"\nCoA to {new_rate / 1e6:.0f} Mbit/s: mixed {rate / 1e6:.3f} Mbit/s, IPv6 share {share6:.0%}")
    assert within(rate, new_rate), f"after the CoA: {rate:.0f} bit/s, want {new_rate}"
    assert not c.padt_received.is_set()
    c.terminate()


def _echo_burst6(c: PppoeClient, src, count: int, ip_size: int, pps: float, sport: int) -> tuple[int, int]:
    """count IPv6 UDP datagrams of ip_size octets to the inet echo at pps: (octets sent,
    octets of the echoes received)."""
    line: DualLine = c.dp
    meter = line.meter(c, sport)
    pkt = v6.udp6(src, INET6, sport, ECHO, b"\xa6" * (ip_size - 48))
    frame = bytes(c.ppp_frame(v6.IPV6_PPP, pkt))
    t0 = time.monotonic()
    for i in range(count):
        while time.monotonic() - t0 < i / pps:
            time.sleep(0.0005)
        line.send_frame(frame)
    deadline = time.monotonic() + 3
    while len(meter.frames) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    line.meters.pop((c.session_id, sport), None)
    return count * ip_size, meter.ipv4_octets()


def _echo_burst4(c: PppoeClient, addr: str, count: int, ip_size: int, pps: float, sport: int) -> tuple[int, int]:
    line: DualLine = c.dp
    meter = line.meter(c, sport)
    packet = bytes(IP(src=addr, dst=emu.INET_HOST, ttl=64) / UDP(sport=sport, dport=ECHO) / (b"\xa4" * (ip_size - 28)))
    frame = bytes(c.ppp_frame(IPV4, packet))
    t0 = time.monotonic()
    for i in range(count):
        while time.monotonic() - t0 < i / pps:
            time.sleep(0.0005)
        line.send_frame(frame)
    deadline = time.monotonic() + 3
    while len(meter.frames) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    line.meters.pop((c.session_id, sport), None)
    return count * ip_size, meter.ipv4_octets()


def test_accounting_of_ipv6_octets_is_exact(pod6, lines):
    """The ERX IPv6 attributes carry exactly the IPv6 share bng-dp counted for the session,
    Acct-*-Octets and -Packets exactly its totals of both families (and those are what the
    subscriber sent and got back, give or take a frame the loaded host loses); the bound
    prefixes are reported."""
    warm, wres, _ = dial6(lines, "lg3", 20)  # dp3 has resolved the router (IPv4 and IPv6)
    udp6_echo(warm, wres.ipv6, b"warm up")
    p.udp_echo(warm, b"warm up")
    warm.terminate()
    c, res, u = dial6(lines, "lg3", 9)
    inst = pod6.group("lg3").instance.name
    asid = p.cp_sessions(u["user"])[0]["acct_session_id"]
    podfix.wait_accounting(pod6, asid, "Start")
    # nothing but these bursts is forwarded in this session
    n6, size6, n4, size4 = 400, 1000, 200, 600
    sent6, got6 = _echo_burst6(c, res.ipv6, n6, size6, 100.0, 41200)
    sent4, got4 = _echo_burst4(c, res.ipv4, n4, size4, 100.0, 41204)
    dp = p.telemetry(inst, f"/bng/sessions,ipv4={res.ipv4}")
    print(f"\nsent v6 {sent6} got {got6}, v4 {sent4} got {got4}; bng-dp: {dp}")
    assert within(dp["bytes_up_v6"], sent6, 0.01) and within(dp["bytes_down_v6"], got6, 0.01), dp
    assert within(dp["bytes_up"], sent6 + sent4, 0.01) and within(dp["bytes_down"], got6 + got4, 0.01), dp
    rec = podfix.wait_accounting(
        pod6, asid, "Interim-Update", lambda r: podfix.octets(r, "Input") >= dp["bytes_up"], timeout=3 * INTERIM_S + 5
    )
    print(f"accounting {asid}: {dict(rec)}")

    def erx(name: str) -> int:
        low = int(rec.get(f"ERX-IPv6-Acct-{name}-Octets", "-1"))
        return (int(rec.get(f"ERX-IPv6-Acct-{name}-Gigawords", "0")) << 32) + low

    assert (erx("Input"), erx("Output")) == (dp["bytes_up_v6"], dp["bytes_down_v6"]), "IPv6 octets"
    packets6 = (int(rec.get("ERX-IPv6-Acct-Input-Packets", "-1")), int(rec.get("ERX-IPv6-Acct-Output-Packets", "-1")))
    assert packets6 == (dp["pkts_up_v6"], dp["pkts_down_v6"]), "IPv6 packets"
    assert (podfix.octets(rec, "Input"), podfix.octets(rec, "Output")) == (dp["bytes_up"], dp["bytes_down"]), "totals"
    assert (int(rec.get("Acct-Input-Packets", "-1")), int(rec.get("Acct-Output-Packets", "-1"))) == (
        dp["pkts_up"],
        dp["pkts_down"],
    )
    recs = podfix.accounting(pod6, asid)
    framed = {r.get("Framed-IPv6-Prefix") for r in recs} - {None}
    delegated = {r.get("Delegated-IPv6-Prefix") for r in recs} - {None}
    assert framed == {str(res.wan_prefix)} and delegated == {str(res.delegated_prefix)}, (framed, delegated)
    addresses = {r.get("Framed-IPv6-Address") for r in recs} - {None}
    assert addresses == {str(res.ia_na)}
    c.terminate()
    stop = podfix.wait_accounting(pod6, asid, "Stop")
    assert int(stop.get("ERX-IPv6-Acct-Input-Octets", "-1")) == dp["bytes_up_v6"]


# -- restarts and outages ----------------------------------------------------------------------------
def _no_redial(c: PppoeClient, sent_before: int) -> None:
    assert p.sent_discovery(c, since=sent_before) == [], "the client had to dial again"
    assert not c.padt_received.is_set() and not c.terminated_by_peer.is_set()


def _wait_echo6(c: PppoeClient, src, tag: bytes, seconds: float) -> float:
    """Seconds until an IPv6 echo from src is answered again."""
    t0 = time.monotonic()
    while True:
        try:
            udp6_echo(c, src, tag, sport=41300, tries=1)
            return time.monotonic() - t0
        except AssertionError:
            assert time.monotonic() - t0 < seconds, f"no IPv6 echo for {seconds} s"


def test_dp_restart_keeps_the_ipv6_prefixes(pod6, lines):
    c, res, u = dial6(lines, "lg3", 10)
    udp6_echo(c, c.delegated_host(1), b"before")
    sent_before = len(c.sent)
    sess = p.cp_sessions(u["user"])[0]
    emu.restart_dp("dp3")  # stops the running one first
    back = _wait_echo6(c, c.delegated_host(1), b"after the DP restart", 20)
    print(f"\nbng-dp dp3 restarted: IPv6 from the delegated prefix back after {back:.1f} s")
    _no_redial(c, sent_before)
    udp6_echo(c, res.ipv6, b"and from the WAN address")
    after = p.cp_sessions(u["user"])[0]
    assert (after["ipv6_prefix"], after["delegated_prefix"]) == (sess["ipv6_prefix"], sess["delegated_prefix"])
    assert c.renew().ia_pd[0].leases[0].value == str(res.delegated_prefix)
    c.terminate()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_cp_restart_keeps_the_ipv6_prefixes_and_renews(pod6, lines, sig):
    c, res, u = dial6(lines, "lg1", 11 if sig == signal.SIGTERM else 12)
    udp6_echo(c, res.ipv6, b"before")
    sent_before = len(c.sent)
    server = c.server_duid
    emu.stop_cp(sig)
    udp6_echo(c, c.delegated_host(2), b"while the CP is away")
    emu.start_cp()
    _no_redial(c, sent_before)
    sess = p.wait_session(u["user"], lambda s: s["state"] == "established")
    assert (sess.get("ipv6_prefix"), sess.get("delegated_prefix")) == (str(res.wan_prefix), str(res.delegated_prefix))
    reply = c.renew()  # the DHCPv6 server's DUID and bindings survived
    assert reply.server_id == server
    assert reply.ia_pd[0].leases[0].value == str(res.delegated_prefix) and reply.ia_pd[0].status in (None, 0)
    udp6_echo(c, res.ipv6, b"after")
    c.terminate()


def _ras_between(c: PppoeClient, t0: float, t1: float) -> list[tuple[float, v6.RouterAdvert]]:
    """The Router Advertisements the client received in [t0, t1] (arrival times from t0)."""
    out = []
    for r in list(c.rx):
        if t0 <= r.t <= t1 and r.proto == v6.IPV6_PPP and (ip := v6.parse_ipv6(r.payload)) is not None:
            if (ra := v6.parse_ra(ip)) is not None:
                out.append((r.t - t0, ra))
    return out


def test_ras_continue_from_the_dp_through_a_cp_outage_longer_than_the_router_lifetime(pod6, lines):
    c, res, _u = dial6(lines, "lg1", 13)
    udp6_echo(c, res.ipv6, b"before")
    outage = RA_LIFETIME + 2 * RA_INTERVAL
    emu.stop_cp(signal.SIGKILL)
    t0 = time.monotonic()
    try:
        time.sleep(outage / 2)
        udp6_echo(c, c.delegated_host(4), b"in the middle of the outage")
        time.sleep(max(0.0, t0 + outage - time.monotonic()))
    finally:
        t1 = time.monotonic()
        emu.start_cp()
    ras = _ras_between(c, t0, t1)
    times = [t for t, _ in ras]
    gaps = [b - a for a, b in zip([0.0, *times], [*times, t1 - t0], strict=True)]
    print(
        f"\nCP away {t1 - t0:.1f} s (router lifetime {RA_LIFETIME} s): RAs from the DP at "
        f"{[round(t, 1) for t in times]}"
    )
    assert len(ras) >= outage // (RA_INTERVAL * 1.1) - 1, "too few unsolicited RAs"
    assert max(gaps) < RA_LIFETIME, "the router lifetime ran out between two RAs"
    assert max(gaps) <= RA_INTERVAL * 1.1 + 1.0, gaps
    for _t, ra in ras:
        assert ra.src == v6.link_local(res.peer_iid) and ra.hop_limit == 255 and ra.dst == v6.ALL_NODES
        assert ra.router_lifetime == RA_LIFETIME and [x.prefix for x in ra.prefixes] == [res.wan_prefix]
        assert ra.mtu == SESSION_MTU and ra.rdnss == res.ra.rdnss
    assert not c.padt_received.is_set()
    udp6_echo(c, res.ipv6, b"after")
    c.terminate()


# -- sessions without IPv6 ---------------------------------------------------------------------------
def _proto_rejected_ipv6cp(c: PppoeClient) -> bool:
    return any(r.proto == LCP and r.ppp_code == PROTO_REJ and r.data[:2] == struct.pack("!H", IPV6CP) for r in c.rx)


def test_a_group_without_ipv6_pools_rejects_ipv6cp_and_keeps_ipv4(pod6, lines):
    c, res, u = dial6(lines, "lg4", 14, want_ipv6=False)
    assert not res.ipv6cp and _proto_rejected_ipv6cp(c), res.ipv6_reason
    p.udp_echo(c, b"IPv4 without IPv6")
    assert not p.cp_sessions(u["user"])[0].get("ipv6_prefix")
    c.terminate()


def test_exhausted_ipv6_pools_leave_ipv4_up(pod6, lines):
    """lg2's pool here: two /64s and one delegated prefix. The first session gets both;
    the second a /64 and no prefix (DHCPv6 NoPrefixAvail); the third no IPv6 at all
    (IPv6CP Protocol-Rejected). Every one keeps IPv4."""
    first, r1, _ = dial6(lines, "lg2", 15)
    second, r2, _ = dial6(lines, "lg2", 16, want_ipv6=False)
    third, r3, u3 = dial6(lines, "lg2", 17, want_ipv6=False)
    assert r1.ipv6_ok
    assert r2.ipv6cp and r2.ipv6 is not None and r2.delegated_prefix is None, r2.ipv6_reason
    assert r2.dhcp6 is not None and all(not ia.leases for ia in r2.dhcp6.ia_pd)
    statuses = {ia.status for ia in r2.dhcp6.ia_pd} | {r2.dhcp6.status}
    assert v6.STATUS_NO_PREFIX in statuses, r2.dhcp6
    assert not r3.ipv6cp and _proto_rejected_ipv6cp(third), r3.ipv6_reason
    for c in (first, second, third):
        p.udp_echo(c, f"IPv4 of {c.user}".encode())
    udp6_echo(second, r2.ipv6, b"the /64 alone works")
    assert not p.cp_sessions(u3["user"])[0].get("ipv6_prefix")
    # a prefix comes free: the next session gets it
    first.terminate()
    p.wait_gone(first.user)
    fourth, r4, _ = dial6(lines, "lg2", 18)
    assert r4.delegated_prefix == r1.delegated_prefix
    for c in (second, third, fourth):
        c.terminate()


# -- tshark ----------------------------------------------------------------------------------------
def _pcap(path, frames: list[bytes]) -> None:
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for i, f in enumerate(frames):
        out += struct.pack("<IIII", i, 0, len(f), len(f)) + f
    path.write_bytes(out)


def _tshark(path) -> list[list[tuple[str, str]]]:
    from harness import tshark

    return tshark.dissect_pcap(path, prefixes=("pfcp", "dhcpv6", "icmpv6"))


def test_tshark_decodes_the_pfcp_ies_and_dhcpv6_of_a_dual_stack_dial(pod6, lines, tmp_path):
    # both directions of PFCP: the CP's messages arrive at the DP's mgmt0, the DP's at mgmtbr
    dp_side = p.WireTap(emu.dp_ns(pod6.group("lg1").instance), "mgmt0")
    with dp_side, p.WireTap(emu.MGMT_NS, "mgmtbr") as cp_side:
        c, res, _ = dial6(lines, "lg1", 19)
        time.sleep(0.5)
    frames = sorted(dp_side.frames + cp_side.frames, key=lambda f: f.t)
    pfcp = [f.raw for f in frames if f.raw[12:14] == b"\x08\x00" and b"\x22\x65" in f.raw[34:38]]
    _pcap(tmp_path / "pfcp.pcap", pfcp)
    pkts = _tshark(tmp_path / "pfcp.pcap")
    fields = [x for pkt in pkts for x in pkt]
    bad = [(n, v) for n, v in fields if n.startswith("_ws.malformed") or n.startswith("_ws.expert.severity")]
    assert bad == [], bad
    v6_addrs = [v for n, v in fields if n == "pfcp.ue_ip_addr_ipv6"]
    lengths = [v for n, v in fields if n == "pfcp.ue_ip_addr_ipv6_prefix_length"]
    assert str(res.wan_prefix.network_address) in v6_addrs, v6_addrs
    assert str(res.delegated_prefix.network_address) in v6_addrs, v6_addrs
    assert {"64", str(res.delegated_prefix.prefixlen)} <= set(lengths), lengths
    assert "32473" in [v for n, v in fields if n == "pfcp.enterprise_id"], "the RA offload IE"
    # DHCPv6 on the access line, as the client and the BNG sent it
    line = c.dp
    frames = [f.raw for f in line.tap if f.dst == c.mac and f.raw[20:22] == b"\x88\x64"]
    frames += [b for b in c.sent if b[20:22] == b"\x88\x64"]
    _pcap(tmp_path / "access.pcap", frames)
    fields = [x for pkt in _tshark(tmp_path / "access.pcap") for x in pkt]
    types = {v for n, v in fields if n == "dhcpv6.msgtype"}
    assert {"1", "2", "3", "7"} <= types, types
    assert str(res.delegated_prefix.network_address) in [v for n, v in fields if n == "dhcpv6.iaprefix.pref_addr"]
    assert [v for n, v in fields if n == "icmpv6.type" and v == "134"], "the RA"
    c.terminate()
