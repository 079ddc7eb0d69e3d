"""bng-dp forwarding, seen on the wire: sessions installed through PFCP by an
independent CP (scapy, tests/harness/pfcp_cp.py), frames sent and received on the
instance's data port, counters read over DPDK telemetry.

Each test installs its own subscriber (its own C-tag, MAC, session id and address)
and removes it, so the tests do not depend on each other's order."""

from __future__ import annotations

import contextlib
import itertools
import struct
import time

import pytest
from harness.frames import (
    AC_MAC,
    ARP,
    CORE_ADDR,
    CORE_MAC,
    ICMP,
    INTERNET,
    IP,
    PPP,
    ROUTER_ADDR,
    ROUTER_MAC,
    TCP,
    UDP,
    VNI,
    Dot1Q,
    Ether,
    PPPoE,
    PPPoED,
    Raw,
    Sub,
    access,
    arp_reply_from_router,
    arp_request_for,
    core_ipv4,
    is_router_arp_request,
    lcp,
    lcp_code,
    padi,
    padr,
    parse,
    up_ipv4,
)

_ctags = itertools.count(10)


def new_sub(**kw) -> Sub:
    c = next(_ctags)
    kw.setdefault("ctag", c)
    kw.setdefault("mac", f"02:11:00:00:{c >> 8:02x}:{c & 0xFF:02x}")
    kw.setdefault("sid", 0x0200 + c)
    kw.setdefault("ipv4", f"100.80.{c >> 8}.{c & 0xFF}")
    return Sub(**kw)


def resolve_router(dp, timeout: float = 10.0) -> None:
    """The DP resolves its next hop by itself: answer its ARP request for the router
    (unless an earlier test of the same instance already did)."""
    if "reachable" in str(dp.telemetry(f"/bng/arp,{ROUTER_ADDR}")):
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for f in dp.wire.recv_all(0.3):
            if is_router_arp_request(parse(f)):
                dp.wire.send(bytes(arp_reply_from_router()))
                assert wait_for(lambda: "reachable" in str(dp.telemetry(f"/bng/arp,{ROUTER_ADDR}")), 3)
                return
    raise AssertionError("bng-dp sent no ARP request for its next hop")


def wait_for(pred, timeout: float = 5.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(step)


@pytest.fixture
def vx(dp):
    """The CP's VXLAN endpoint: a UDP socket on 10.200.0.1:4789 in the CP namespace."""
    s = dp.cp_socket(4789)
    try:
        yield s
    finally:
        s.close()


def vxlan_recv(sock, timeout: float = 2.0) -> tuple[bytes, int]:
    sock.settimeout(timeout)
    data, _ = sock.recvfrom(65535)
    assert data[0] & 0x08, "VXLAN I flag"
    return data[8:], int.from_bytes(data[4:7], "big")


def vxlan_send(sock, dp, frame: bytes, vni: int = VNI) -> None:
    sock.sendto(bytes([0x08, 0, 0, 0]) + vni.to_bytes(3, "big") + b"\0" + frame, (dp.DP_CTRL, 4789))


def stat_delta(dp, before: dict, key: str, want: int, timeout: float = 5.0) -> int:
    """Wait until counter `key` grew by `want` (or the timeout); return the growth."""
    deadline = time.monotonic() + timeout
    while True:
        d = dp.stats()[key] - before[key]
        if d >= want or time.monotonic() > deadline:
            return d
        time.sleep(0.05)


def frames_where(dp, pred, timeout: float = 2.0, want: int = 1) -> list:
    """Frames seen on the wire within timeout that satisfy pred."""
    got = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(got) < want:
        f = dp.wire.recv(max(0.0, deadline - time.monotonic()))
        if f is None:
            break
        p = parse(f)
        if pred(p):
            got.append(p)
    return got


@contextlib.contextmanager
def installed(cp, sub: Sub):
    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1, f"establishment refused: cause {cause}"
    try:
        yield up_seid
    finally:
        cp.delete(up_seid)


def ip_checksum_ok(p) -> bool:
    raw = bytes(p[IP])[: p[IP].ihl * 4]
    s = sum(struct.unpack(f"!{len(raw) // 2}H", raw))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


# --- sessions and forwarding ---------------------------------------------------


def test_upstream_is_decapsulated_routed_and_remarked(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        before = dp.stats()
        for outer in (0x8100, 0x88A8):
            dp.wire.drain()
            dp.wire.send(bytes(up_ipv4(sub, outer=outer, ttl=64, tos=46 << 2)))
            got = frames_where(dp, lambda p: IP in p and p[IP].dst == INTERNET and Dot1Q not in p)
            assert got, f"no core frame (outer TPID {outer:#x})"
            p = got[0]
            assert p[Ether].dst == ROUTER_MAC and p[Ether].src == CORE_MAC and p[Ether].type == 0x0800
            assert p[IP].src == sub.ipv4 and p[IP].ttl == 63
            assert p[IP].tos >> 2 == 0, "silver re-marks upstream DSCP to 0"
            assert ip_checksum_ok(p)
            assert bytes(p[UDP].payload) == b"q" * 32
            assert len(bytes(p)) == 14 + p[IP].len, "no PPPoE bytes left behind"
        assert stat_delta(dp, before, "up_pkts", 2) == 2
        assert dp.stats()["up_bytes"] - before["up_bytes"] == 2 * 60


def test_downstream_is_encapsulated_with_the_session_header(dp, cp):
    sub = new_sub(qos="gold")
    with installed(cp, sub):
        for dscp, pcp in ((46, 5), (0, 0), (34, 4)):
            dp.wire.drain()
            dp.wire.send(bytes(core_ipv4(sub.ipv4, ttl=20, tos=dscp << 2)))
            got = frames_where(dp, lambda p: PPPoE in p and p[Ether].dst == sub.mac)
            assert got, "no access frame"
            p = got[0]
            assert p[Ether].src == AC_MAC
            # access1's downstream TPID is 0x8100: two 802.1Q tags, S then C.
            assert p[Ether].type == 0x8100
            s_tag, c_tag = p[Dot1Q], p[Dot1Q].payload
            assert s_tag.vlan == sub.stag and c_tag.vlan == sub.ctag and c_tag.type == 0x8864
            assert s_tag.prio == pcp and c_tag.prio == pcp, f"DSCP {dscp} -> PCP {pcp}"
            assert p[PPPoE].sessionid == sub.sid and p[PPPoE].code == 0
            assert p[PPP].proto == 0x0021 and p[PPPoE].len == p[IP].len + 2
            assert p[IP].ttl == 19 and p[IP].dst == sub.ipv4 and ip_checksum_ok(p)


def test_session_counters_and_usage_add_up(dp, cp):
    sub = new_sub(urr_period=3600)  # a URR: usage comes back in the deletion response
    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1
    for _ in range(5):
        dp.wire.send(bytes(up_ipv4(sub)))
    for _ in range(4):
        dp.wire.send(bytes(core_ipv4(sub.ipv4)))
    for _ in range(3):  # spoofed: the session's upstream drops
        dp.wire.send(bytes(up_ipv4(sub, src="100.80.3.250")))
    for _ in range(2):  # TTL expires at the BNG: downstream drops (answered with ICMP)
        dp.wire.send(bytes(core_ipv4(sub.ipv4, ttl=1)))
    sid = dp.telemetry(f"/bng/sessions,ipv4={sub.ipv4}")
    assert wait_for(lambda: dp.telemetry(f"/bng/sessions,{sid['id']}")["pkts_down"] == 4)
    assert wait_for(lambda: dp.telemetry(f"/bng/sessions,{sid['id']}")["drops_up"] == 3)
    assert wait_for(lambda: dp.telemetry(f"/bng/sessions,{sid['id']}")["drops_down"] == 2)
    s = dp.telemetry(f"/bng/sessions,{sid['id']}")
    assert (s["pkts_up"], s["bytes_up"], s["pkts_down"], s["bytes_down"]) == (5, 300, 4, 240)
    # the dropped packets' octets, IP packets as the forwarded ones (60 each)
    assert (s["drop_bytes_up"], s["drop_bytes_down"]) == (180, 120)
    cause, usage = cp.delete(up_seid)
    assert cause == 1 and usage, "final usage report in the deletion response"
    u = usage[0]
    # IPv4 bytes (20 + 8 + 32 each way): the layer RADIUS accounting counts.
    assert (u.ul_pkts, u.ul_bytes, u.dl_pkts, u.dl_bytes) == (5, 300, 4, 240)
    assert u.total_bytes == 540 and u.total_pkts == 9
    # the session's drops and their octets, in bngpod's Dropped Packets IE (docs/dp/pfcp.md)
    assert (u.ul_dropped, u.dl_dropped) == (3, s["drops_down"]) == (3, 2)
    assert (u.ul_dropped_bytes, u.dl_dropped_bytes) == (180, 120)


def test_deleted_session_stops_forwarding_at_once(dp, cp):
    sub = new_sub()
    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1
    assert cp.delete(up_seid)[0] == 1
    before = dp.stats()
    dp.wire.drain()
    dp.wire.send(bytes(core_ipv4(sub.ipv4)))
    dp.wire.send(bytes(up_ipv4(sub)))
    assert stat_delta(dp, before, "drop_no_session_down", 1) == 1
    assert not frames_where(dp, lambda p: PPPoE in p and p[Ether].dst == sub.mac, timeout=0.5)
    assert not frames_where(dp, lambda p: IP in p and p[IP].src == sub.ipv4 and Dot1Q not in p, timeout=0.3)


def test_establishment_outside_the_instance_is_refused(dp, cp):
    before = dp.telemetry("/bng/sessions")
    # S-tag 300 is not a line of dp1; 10.0.0.1 is outside lg1's pool; access9 is no port
    # of ours; bronze is no QoS profile.
    for bad, cause in (
        (new_sub(stag=300), 73),
        (new_sub(ipv4="10.0.0.1"), 73),
        (new_sub(logical_port="access9"), 73),
        (new_sub(qos="bronze"), 70),
    ):
        assert cp.establish(bad)[2] == cause, bad
    after = dp.telemetry("/bng/sessions")
    assert after["count"] == before["count"]
    assert after["refused_line"] - before["refused_line"] == 2
    assert after["refused_address"] - before["refused_address"] == 1
    assert after["refused_qos"] - before["refused_qos"] == 1


# --- what is dropped, and counted ------------------------------------------------


def test_spoofed_source_is_dropped_and_counted(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        before = dp.stats()
        dp.wire.drain()
        for _ in range(3):
            dp.wire.send(bytes(up_ipv4(sub, src="100.80.3.250")))
        assert stat_delta(dp, before, "drop_spoofed_source", 3) == 3
        assert dp.stats()["up_pkts"] == before["up_pkts"]
        assert not frames_where(dp, lambda p: IP in p and p[IP].src == "100.80.3.250", timeout=0.5)


def test_hijack_with_another_mac_or_line_is_not_forwarded(dp, cp, vx):
    victim = new_sub()
    with installed(cp, victim):
        before = dp.stats()
        dp.wire.drain()
        # Same session id, address and line, but another MAC: not the session's key, so
        # it is an unknown session, punted to the CP (which answers PADT), never forwarded.
        thief = Sub(**{**victim.__dict__, "mac": "02:66:00:00:00:01"})
        dp.wire.send(bytes(up_ipv4(thief)))
        frame, vni = vxlan_recv(vx)
        assert vni == VNI and Ether(frame)[Ether].src == thief.mac
        # Same MAC and session id on another C-tag of the same S-tag (another line).
        other_line = Sub(**{**victim.__dict__, "ctag": victim.ctag + 1000})
        dp.wire.send(bytes(up_ipv4(other_line)))
        frame, _ = vxlan_recv(vx)
        assert Ether(frame)[Dot1Q].payload.vlan == victim.ctag + 1000
        # A line this instance does not serve at all (S-tag 300 is dp3/dp4's).
        foreign = Sub(**{**victim.__dict__, "stag": 300})
        dp.wire.send(bytes(up_ipv4(foreign)))
        assert stat_delta(dp, before, "drop_unserved_line", 1) == 1
        assert not frames_where(dp, lambda p: IP in p and Dot1Q not in p and p[IP].src == victim.ipv4, timeout=0.5)
        assert dp.stats()["up_pkts"] == before["up_pkts"]


def test_acl_denies_upstream_smtp(dp, cp):
    """The lab pod's ACL: deny upstream TCP to port 25."""
    sub = new_sub()
    with installed(cp, sub):
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(sub, TCP(sport=40000, dport=25, flags="S"))))
        dp.wire.send(bytes(up_ipv4(sub, TCP(sport=40000, dport=587, flags="S"))))
        got = frames_where(dp, lambda p: TCP in p and Dot1Q not in p and p[IP].src == sub.ipv4, want=2, timeout=1.5)
        assert [p[TCP].dport for p in got] == [587]
        assert dp.stats()["drop_acl_deny"] - before["drop_acl_deny"] == 1


def test_routes_blackhole_and_static_next_hop(dp, cp):
    """The lab's static routes: 203.0.113.0/24 is dropped, 192.0.2.0/24 goes via 100.64.0.2."""
    sub = new_sub()
    with installed(cp, sub):
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(sub, dst="203.0.113.9")))
        assert stat_delta(dp, before, "drop_route_drop", 1) == 1
        dp.wire.send(bytes(up_ipv4(sub, dst="192.0.2.33")))
        # The DP asks for 100.64.0.2 first; the frame waits for no one: it is dropped
        # (counted) and the next one goes through once the next hop answers.
        req = frames_where(dp, lambda p: ARP in p and p[ARP].op == 1 and p[ARP].pdst == "100.64.0.2", timeout=3)
        assert req, "no ARP request for the static route's next hop"
        assert req[0][ARP].psrc == CORE_ADDR and req[0][Ether].src == CORE_MAC
        nh_mac = "02:ee:00:00:00:02"
        dp.wire.send(
            bytes(
                Ether(src=nh_mac, dst=CORE_MAC)
                / ARP(op=2, hwsrc=nh_mac, psrc="100.64.0.2", hwdst=CORE_MAC, pdst=CORE_ADDR)
            )
        )
        assert wait_for(lambda: "reachable" in str(dp.telemetry("/bng/arp,100.64.0.2")), 3)
        dp.wire.send(bytes(up_ipv4(sub, dst="192.0.2.33")))
        got = frames_where(dp, lambda p: IP in p and p[IP].dst == "192.0.2.33" and Dot1Q not in p)
        assert got and got[0][Ether].dst == nh_mac
        assert dp.stats()["drop_next_hop_unresolved"] - before["drop_next_hop_unresolved"] == 1


def test_policer_drops_above_pir(dp, cp):
    sub = new_sub(mbr_ul=1000, gbr_ul=500)  # PIR 1 Mbit/s, CIR 0.5 Mbit/s
    with installed(cp, sub):
        before = dp.stats()
        frame = bytes(up_ipv4(sub, UDP(sport=1, dport=2) / Raw(b"x" * 900)))
        for _ in range(400):  # 3.8 Mbit in a few ms: far above the 32 KiB bucket
            dp.wire.send(frame)
        stat_delta(dp, before, "rx_pkts", 400)
        after = dp.stats()
        red = after["drop_policed_red"] - before["drop_policed_red"]
        passed = after["up_pkts"] - before["up_pkts"]
        assert passed + red == 400
        # The bucket holds 32 KiB of 958-byte frames (access frame with FCS): about 35.
        assert 25 <= passed <= 60, passed


# --- TTL, MSS, MTU ------------------------------------------------------------------


def test_ttl_expiry_is_answered_with_icmp_both_ways(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(sub, ttl=1)))
        got = frames_where(dp, lambda p: ICMP in p and p[Ether].dst == sub.mac)
        assert got, "no ICMP time exceeded inside the session"
        p = got[0]
        assert p[PPPoE].sessionid == sub.sid and p[Ether].src == AC_MAC
        assert p[IP].src == CORE_ADDR and p[IP].dst == sub.ipv4
        assert p[ICMP].type == 11 and p[ICMP].code == 0
        assert bytes(p[ICMP].payload)[:1] == b"\x45" and p[PPPoE].len == p[IP].len + 2
        dp.wire.drain()
        dp.wire.send(bytes(core_ipv4(sub.ipv4, ttl=1)))
        got = frames_where(dp, lambda p: ICMP in p and Dot1Q not in p and p[IP].dst == INTERNET)
        assert got, "no ICMP time exceeded towards the core"
        assert got[0][Ether].dst == ROUTER_MAC and got[0][Ether].src == CORE_MAC
        assert got[0][IP].src == CORE_ADDR and got[0][ICMP].type == 11


def test_mss_is_clamped_to_the_session_mtu_both_ways(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        syn = TCP(sport=40000, dport=443, flags="S", options=[("MSS", 1460)])
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(sub, syn)))
        got = frames_where(dp, lambda p: TCP in p and Dot1Q not in p and p[IP].src == sub.ipv4)
        assert got and dict(got[0][TCP].options)["MSS"] == 1452
        synack = TCP(sport=443, dport=40000, flags="SA", options=[("MSS", 1460)])
        dp.wire.send(bytes(core_ipv4(sub.ipv4, synack)))
        got = frames_where(dp, lambda p: TCP in p and p[Ether].dst == sub.mac)
        assert got and dict(got[0][TCP].options)["MSS"] == 1452
        t, ip = got[0][TCP], got[0][IP]
        check = TCP(bytes(t))
        check.chksum = None
        assert bytes(IP(src=ip.src, dst=ip.dst) / check)[20:][16:18] == t.chksum.to_bytes(2, "big")


def test_downstream_above_mtu_fragments_or_answers_frag_needed(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        dp.wire.drain()
        dp.wire.send(bytes(core_ipv4(sub.ipv4, size=1500, flags="DF")))
        got = frames_where(dp, lambda p: ICMP in p and p[Ether].dst == ROUTER_MAC)
        assert got, "no ICMP fragmentation needed"
        icmp = got[0][ICMP]
        assert icmp.type == 3 and icmp.code == 4 and icmp.nexthopmtu == 1492
        assert got[0][IP].src == CORE_ADDR and got[0][IP].dst == INTERNET
        dp.wire.drain()
        dp.wire.send(bytes(core_ipv4(sub.ipv4, size=1500, id=0x4242)))
        frags = frames_where(dp, lambda p: PPPoE in p and p[Ether].dst == sub.mac, want=2)
        assert len(frags) == 2
        assert all(f[IP].len <= 1492 and f[PPPoE].len == f[IP].len + 2 and ip_checksum_ok(f) for f in frags)
        assert all(f[IP].id == 0x4242 for f in frags)
        assert frags[0][IP].flags.MF and not frags[1][IP].flags.MF
        assert sum(f[IP].len - 20 for f in frags) == 1480


# --- core side: ARP ----------------------------------------------------------------


def test_arp_for_the_core_address_is_answered(dp, cp):
    dp.wire.drain()
    dp.wire.send(bytes(arp_request_for(CORE_ADDR)))
    got = frames_where(dp, lambda p: ARP in p and p[ARP].op == 2)
    assert got
    a = got[0][ARP]
    assert got[0][Ether].dst == ROUTER_MAC and got[0][Ether].src == CORE_MAC
    assert a.hwsrc == CORE_MAC and a.psrc == CORE_ADDR and a.pdst == ROUTER_ADDR and a.hwdst == ROUTER_MAC
    dp.wire.send(bytes(arp_request_for("100.64.0.99")))  # not ours: no answer
    assert not frames_where(dp, lambda p: ARP in p and p[ARP].op == 2, timeout=0.5)
    arp = dp.telemetry("/bng/arp")
    assert any(ROUTER_ADDR in e and ROUTER_MAC in e for e in arp["table"])


# --- control redirect ------------------------------------------------------------


def test_discovery_and_unknown_sessions_reach_the_cp_in_vxlan(dp, cp, vx):
    frame = bytes(padi("02:22:00:00:00:01"))
    dp.wire.send(frame)
    data, vni = vxlan_recv(vx)
    assert vni == VNI and data == frame, "whole frame, tags kept"
    stranger = new_sub()  # never installed
    frame = bytes(up_ipv4(stranger))
    dp.wire.send(frame)
    data, _ = vxlan_recv(vx)
    assert data == frame
    # PAP of a known session goes to the CP too.
    sub = new_sub()
    with installed(cp, sub):
        pap = bytes(access(sub, PPP(proto=0xC023) / Raw(b"\x01\x01\x00\x06\x00\x00")))
        dp.wire.send(pap)
        data, _ = vxlan_recv(vx)
        assert data == pap


def test_cp_frames_in_vxlan_go_out_on_the_access_side(dp, cp, vx):
    pado = bytes(
        Ether(src=AC_MAC, dst="02:22:00:00:00:01")
        / Dot1Q(vlan=100)
        / Dot1Q(vlan=7)
        / PPPoED(code=0x07, sessionid=0)
        / Raw(bytes.fromhex("0102000462706f64"))  # AC-Name "bpod"
    )
    dp.wire.drain()
    vxlan_send(vx, dp, pado)
    got = frames_where(dp, lambda p: p[Ether].dst == "02:22:00:00:00:01")
    assert got and bytes(got[0]) == pado
    # A frame for a line this instance does not serve, or not from the AC, or with the
    # wrong VNI, is refused and counted.
    before = dp.telemetry("/bng/punt")
    foreign = pado[:14] + bytes.fromhex("8100012c") + pado[18:]  # S-tag 300
    not_ac = pado[:6] + bytes.fromhex("02dead000001") + pado[12:]
    vxlan_send(vx, dp, foreign)
    vxlan_send(vx, dp, not_ac)
    vxlan_send(vx, dp, pado, vni=99)
    assert not frames_where(dp, lambda p: p[Ether].dst == "02:22:00:00:00:01", timeout=0.5)
    after = dp.telemetry("/bng/punt")
    assert after["inject_refused"] - before["inject_refused"] == 2
    assert after["vxlan_bad"] - before["vxlan_bad"] == 1


def test_default_session_moves_the_redirect(dp, cp, vx):
    """The CP's default session (TR-459) names where control frames go and which."""
    _c, up_seid, cause = cp.default_session("10.200.0.1", port=4789, classes=("discovery",))
    assert cause == 1
    try:
        assert dp.telemetry("/bng/punt")["redirect_classes"] == 1
        before = dp.telemetry("/bng/punt")
        dp.wire.send(bytes(up_ipv4(new_sub())))  # unknown session: not redirected now
        time.sleep(0.3)
        after = dp.telemetry("/bng/punt")
        assert after["low_not_redirected"] - before["low_not_redirected"] == 1
        frame = bytes(padi("02:22:00:00:00:09"))
        dp.wire.send(frame)
        assert vxlan_recv(vx)[0] == frame
    finally:
        assert cp.delete(up_seid)[0] == 1
    # the static fallback: discovery, PPP control, unknown session, (IPoE) dhcp and dhcp6
    assert dp.telemetry("/bng/punt")["redirect_classes"] == 31, (
        "back to the static fallback (every class, dhcp6 included)"
    )


def test_padi_flood_does_not_starve_a_neighbours_padr_or_echoes(dp, cp, vx):
    neighbour = new_sub(lcp_magic=0x0A0B0C0D, echo_interval=30, echo_misses=3)
    with installed(cp, neighbour):
        flood = bytes(padi("02:33:00:00:00:01", ctag=neighbour.ctag))
        good = bytes(padr("02:33:00:00:00:02", ctag=neighbour.ctag))
        echo = bytes(lcp(neighbour, 9, 0x11, 0x55667788, b"ka"))
        before = dp.telemetry("/bng/punt")
        dp.wire.drain()
        for i in range(3000):
            dp.wire.send(flood)
            if i % 500 == 0:
                dp.wire.send(good)
                dp.wire.send(echo)
        padrs = floods = 0
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                data, _ = vxlan_recv(vx, timeout=0.5)
            except TimeoutError:
                break
            padrs += data == good
            floods += data == flood
        assert padrs == 6, f"PADRs through: {padrs}"
        assert floods < 100, f"the flood was not policed: {floods} PADIs through"
        replies = [p for p in frames_where(dp, lambda p: lcp_code(p) == 10, want=6, timeout=2)]
        assert len(replies) == 6, "every echo of the neighbour answered during the flood"
        after = dp.telemetry("/bng/punt")
        assert after["policed"] - before["policed"] >= 2900


# --- LCP keepalive offload ---------------------------------------------------------


def test_lcp_echo_offload_answers_and_reports_a_silent_peer(dp, cp):
    sub = new_sub(lcp_magic=0x11223344, lcp_peer_magic=0x55667788, echo_interval=1, echo_misses=3)
    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1
    try:
        dp.wire.drain()
        dp.wire.send(bytes(lcp(sub, 9, 0x21, 0x55667788, b"ping")))
        got = frames_where(dp, lambda p: lcp_code(p) == 10 and p[Ether].dst == sub.mac)
        assert got, "no Echo-Reply"
        body = bytes(got[0][PPP].payload)
        assert body[1] == 0x21 and body[4:8] == (0x11223344).to_bytes(4, "big") and body[8:12] == b"ping"
        assert got[0][Ether].src == AC_MAC and got[0][PPPoE].sessionid == sub.sid
        # The DP's own Echo-Requests, each second, with its magic number.
        got = frames_where(dp, lambda p: lcp_code(p) == 9 and p[Ether].dst == sub.mac, timeout=3)
        assert got and bytes(got[0][PPP].payload)[4:8] == (0x11223344).to_bytes(4, "big")
        # Nobody answers: after 3 misses the CP gets a Session Report (LCP dead).
        report = cp.expect_report(timeout=10)
        assert report.lcp_dead and report.seid == _cp_seid
        assert dp.telemetry("/bng/punt")["lcp_dead"] >= 1
    finally:
        cp.delete(up_seid)


def test_an_answering_peer_stays_alive(dp, cp):
    sub = new_sub(lcp_magic=0x01020304, echo_interval=1, echo_misses=2)
    with installed(cp, sub):
        deadline = time.monotonic() + 4.5
        answered = 0
        while time.monotonic() < deadline:
            for p in frames_where(dp, lambda p: lcp_code(p) == 9 and p[Ether].dst == sub.mac, timeout=0.5):
                req = bytes(p[PPP].payload)
                dp.wire.send(bytes(lcp(sub, 10, req[1], 0x0A0A0A0A)))
                answered += 1
        assert answered >= 3
        assert cp.poll(0.5) == 0 or not any(r.lcp_dead for r in cp.reports)
        sid = dp.telemetry(f"/bng/sessions,ipv4={sub.ipv4}")
        assert sid["lcp_dead"] == 0 and sid["lcp_replies"] >= 3


# --- counters -------------------------------------------------------------------


def test_counters_add_up(dp, cp):
    """Every received frame has exactly one kind; every classifier drop exactly one reason;
    every frame the worker took ends in exactly one place."""
    st = dp.stats()
    assert sum(v for k, v in st.items() if k.startswith("kind_")) == st["rx_pkts"]
    cls_drops = ("runt", "unknown_ethertype", "single_tag", "bad_inner_tpid", "unserved_line", "core_vlan",
                 "dst_mac", "pppoe_ver_type", "pppoe_code", "pppoe_disc_sid", "pppoe_sess_sid", "pppoe_length",
                 "ppp_proto", "ipv4_version", "ipv4_ihl", "ipv4_total_len", "ipv6_version", "ipv6_payload_len",
                 "arp_bad")  # fmt: skip
    assert st["kind_drop"] == sum(st[f"drop_{r}"] for r in cls_drops)
    hq = dp.telemetry("/bng/hqos")
    app_drops = sum(v for k, v in st.items() if k.startswith("drop_") and k[5:] not in cls_drops)
    frag_extra = st["frag_fragments"] - st["fragmented"]  # one packet in, k fragments out
    taken = (
        st["up_pkts"] + st["down_pkts"] + st["punted"] + st["arp_to_control"] + st["lcp_answered"]
        + st["lcp_consumed"] + st["icmp_sent"] + app_drops + st["kind_drop"]
    )  # fmt: skip
    # HQoS-level drops are counted after a frame was already counted in down_pkts.
    late = st["drop_hqos_queue_full"] + st["drop_hqos_session_gone"] + st["drop_tx_full"]
    assert taken - late - frag_extra == st["rx_pkts"]
    assert hq["enq_pkts"] + st["drop_hqos_queue_full"] == st["down_pkts"]


def test_pfcp_on_the_wire_decodes_in_tshark(dp, cp, tmp_path):
    """Every BBF IE bng-dp sends and receives on its management interface decodes in
    tshark's PFCP dissector with the intended values (captured live on the CP side)."""
    import shutil
    import subprocess

    from harness.tshark import clean, dissect_pcap, one, vals

    from .test_pfcp_wire import check_lcp_dead, check_subscriber_establishment

    if shutil.which("tshark") is None or shutil.which("tcpdump") is None:
        pytest.fail("tshark / tcpdump are not installed (scripts/setup.sh installs them)")
    pcap = tmp_path / "pfcp.pcap"
    cap = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            "bngdpt-cp",
            "tcpdump",
            "-i",
            "cp0",
            "--immediate-mode",
            "-U",
            "-w",
            str(pcap),
            "udp port 8805",
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sub = new_sub(
        qos="gold", mbr_ul=10000, mbr_dl=50000, gbr_ul=2000, mtu=1480, urr_period=60,
        lcp_magic=0x11223344, lcp_peer_magic=0x55667788, echo_interval=1, echo_misses=1,
    )  # fmt: skip
    try:
        time.sleep(0.5)
        _c, up_seid, cause = cp.establish(sub)
        assert cause == 1
        report = cp.expect_report(timeout=6)
        assert report.lcp_dead
        assert cp.delete(up_seid)[0] == 1
        time.sleep(0.3)
    finally:
        cap.terminate()
        cap.wait(5)
    by_type: dict[str, list] = {}
    for f in dissect_pcap(pcap):
        clean(f)
        by_type.setdefault(one(f, "pfcp.msg_type"), []).append(f)
    assert {"50", "51", "56", "57", "54", "55"} <= set(by_type), sorted(by_type)
    check_subscriber_establishment(by_type["50"][0], sub)
    rsp = by_type["51"][0]
    assert one(rsp, "pfcp.cause") == "1" and one(rsp, "pfcp.f_seid.ipv4") == dp.DP_CTRL
    check_lcp_dead(by_type["56"][0], sub)
    assert one(by_type["57"][0], "pfcp.cause") == "1"
    dele = by_type["55"][0]
    assert one(dele, "pfcp.cause") == "1" and one(dele, "pfcp.usage_report_trigger.term") == "1"
    assert vals(dele, "pfcp.volume_measurement.tovol") == ["0"]


def test_association_announces_the_profiles_features(dp, cp):
    """The live Association Setup Response announces PPPoE, IPoE and LCP keepalive offload
    in BBF UP Function Features (docs/dp/pfcp.md section 4): the CP hands LCP echoes to the
    DP only when it sees the offload bit, IPoE sessions only when it sees IPoE."""
    assert getattr(cp, "dp_features", None) == {"pppoe": True, "lcp_keepalive_offload": True}
    assert cp.dp_ipoe


def test_pfcp_datagrams_from_strangers_are_dropped(dp, cp):
    from scapy.contrib import pfcp as P

    before = dp.telemetry("/bng/pfcp")
    hb = bytes(P.PFCP(version=1, S=0, seq=77) / P.PFCPHeartbeatRequest(IE_list=[P.IE_RecoveryTimeStamp(timestamp=1)]))
    sock = dp.cp_socket(8806)
    try:
        sock.sendto(hb, (dp.DP_CTRL, 8805))  # allowed address, other port: answered
        sock.settimeout(2)
        data, _ = sock.recvfrom(65535)
        assert data[1] == 2, "heartbeat response"
    finally:
        sock.close()
    dp.add_cp_alias("10.200.0.99")
    stranger = dp.cp_socket(8805, addr="10.200.0.99")
    try:
        stranger.sendto(hb, (dp.DP_CTRL, 8805))
        stranger.settimeout(1)
        with pytest.raises(TimeoutError):
            stranger.recvfrom(65535)
    finally:
        stranger.close()
    assert dp.telemetry("/bng/pfcp")["not_allowed"] - before["not_allowed"] == 1
