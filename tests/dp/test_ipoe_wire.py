"""IPoE subscribers (issue 19) on a live bng-dp, seen on the wire.

The instance is the lab's dp1 with IPoE allowed on its line group lg1 (gateway
100.80.0.1 of the pool 100.80.0.0/22, proxy ARP on): the INI keys of the IPoE contract
are added by hand to a copy of the golden file. An independent CP (scapy,
tests/harness/pfcp_cp.py) installs IPoE sessions over PFCP; scapy frames go in and out
on the instance's data port; counters come from DPDK telemetry."""

from __future__ import annotations

import itertools
import time

import pytest
from harness.frames import (
    AC_MAC,
    ARP,
    CORE_MAC,
    INTERNET,
    IP,
    ROUTER_MAC,
    UDP,
    Dot1Q,
    Ether,
    PPPoE,
    Raw,
    Sub,
    core_ipv4,
)
from harness.rig import DpRig, cleanup_stale

from .conftest import LAB_DP1
from .test_datapath import (
    frames_where,
    ip_checksum_ok,
    resolve_router,
    stat_delta,
    vxlan_recv,
    vxlan_send,
    wait_for,
)

GATEWAY = "100.80.0.1"
BCAST = "ff:ff:ff:ff:ff:ff"
UNSPECIFIED = ".".join("0" * 4)  # 0.0.0.0: a DHCP client's source, an RFC 5227 probe's sender
IPOE_KEYS = "session_types = pppoe ipoe\nipoe_gateways = 100.80.0.1/22\nipoe_proxy_arp = yes\n"
IPOE_KEY_NAMES = ("session_types", "ipoe_gateways", "ipoe_proxy_arp")

_ctags = itertools.count(1700)


@pytest.fixture(scope="module")
def dp(dp_prereqs, tmp_path_factory):
    """dp1 with IPoE on lg1 (overrides conftest's plain dp1)."""
    text = LAB_DP1.read_text()
    head, sep, rest = text.partition("[line_group.0]\n")
    assert sep, "dp1.ini has a [line_group.0]"
    # The generator writes these keys for every group (PPPoE only in the lab): this group's
    # values are replaced, the others' kept.
    body, nxt, tail = rest.partition("\n[")
    body = "\n".join(ln for ln in body.split("\n") if ln.split("=")[0].strip() not in IPOE_KEY_NAMES)
    ini = tmp_path_factory.mktemp("ipoe") / "dp1.ini"
    ini.write_text(head + sep + IPOE_KEYS + body + nxt + tail)
    rig = DpRig(ini).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


@pytest.fixture
def vx(dp):
    s = dp.cp_socket(4789)
    try:
        yield s
    finally:
        s.close()


def new_ipoe(**kw) -> Sub:
    c = next(_ctags)
    kw.setdefault("ctag", c)
    kw.setdefault("mac", f"02:33:00:00:{c >> 8:02x}:{c & 0xFF:02x}")
    kw.setdefault("ipv4", f"100.80.{2 + (c >> 8) % 2}.{c & 0xFF}")
    return Sub(ipoe=True, **kw)


def qinq(sub: Sub, dst: str = AC_MAC, src: str | None = None, ctag: int | None = None) -> Ether:
    return Ether(src=src or sub.mac, dst=dst) / Dot1Q(vlan=sub.stag) / Dot1Q(vlan=ctag or sub.ctag)


def up(sub: Sub, **kw) -> bytes:
    """An IPoE upstream packet towards the Internet (IPv4 total length 60)."""
    src = kw.pop("ip_src", sub.ipv4)
    return bytes(qinq(sub, **kw) / IP(src=src, dst=INTERNET) / UDP(sport=4000, dport=53) / Raw(b"q" * 32))


def dhcp(sub: Sub, dst_ip: str = "255.255.255.255", src_ip: str = UNSPECIFIED, dst_mac: str = BCAST) -> bytes:
    """A DHCP client frame (UDP 68 -> 67); the BOOTP body is opaque to the DP."""
    body = bytes([1, 1, 6, 0]) + b"\x12\x34\x56\x78" + bytes(20) + bytes.fromhex(sub.mac.replace(":", "")) + bytes(202)
    body += bytes.fromhex("63825363") + bytes([53, 1, 1, 255])
    return bytes(qinq(sub, dst=dst_mac) / IP(src=src_ip, dst=dst_ip) / UDP(sport=68, dport=67) / Raw(body))


def arp_req(sub: Sub, target: str, sender: str | None = None, src: str | None = None) -> bytes:
    mac = src or sub.mac
    a = ARP(op=1, hwsrc=mac, psrc=sender if sender is not None else sub.ipv4, hwdst="00:00:00:00:00:00", pdst=target)
    return bytes(qinq(sub, dst=BCAST, src=mac) / a)


def installed_ipoe(cp, sub: Sub) -> int:
    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1, f"IPoE establishment refused: cause {cause}"
    return up_seid


def session_of(dp, addr: str) -> dict:
    sid = dp.telemetry(f"/bng/sessions,ipv4={addr}")
    return dp.telemetry(f"/bng/sessions,{sid['id']}")


def test_dhcp_is_punted_on_the_redirect_with_or_without_a_session(dp, cp, vx):
    sub = new_ipoe()
    before = dp.telemetry("/bng/punt")
    discover = dhcp(sub)
    dp.wire.send(discover)
    data, _vni = vxlan_recv(vx)
    assert data == discover, "the whole DISCOVER, tags kept"
    # a unicast RENEW to the gateway of a client the DP has no session for still reaches the CP
    renew = dhcp(sub, dst_ip=GATEWAY, src_ip=sub.ipv4, dst_mac=AC_MAC)
    dp.wire.send(renew)
    data, _ = vxlan_recv(vx)
    assert data == renew
    after = dp.telemetry("/bng/punt")
    assert after["low_admitted"] - before["low_admitted"] == 2, "class dhcp is policed in class low"
    # UDP 68 -> 67 to another address is not DHCP for us: IPoE data of no session
    stats = dp.stats()
    dp.wire.send(dhcp(sub, dst_ip="198.51.100.9", src_ip=sub.ipv4, dst_mac=AC_MAC))
    assert stat_delta(dp, stats, "drop_ipoe_no_session", 1) == 1


def test_an_ipoe_session_forwards_both_ways_with_exact_counters(dp, cp):
    sub = new_ipoe(urr_period=3600, qos="gold")
    up_seid = installed_ipoe(cp, sub)
    s = session_of(dp, sub.ipv4)
    assert s["kind"] == "ipoe" and s["pppoe_sid"] == 0 and s["mtu"] == 1500
    before = dp.stats()
    dp.wire.drain()
    for _ in range(5):
        dp.wire.send(up(sub))
    got = frames_where(dp, lambda p: IP in p and p[IP].src == sub.ipv4 and Dot1Q not in p, want=5)
    assert len(got) == 5, "upstream forwarded to the core"
    p = got[0]
    assert p[Ether].dst == ROUTER_MAC and p[Ether].src == CORE_MAC and p[Ether].type == 0x0800
    assert p[IP].ttl == 63 and ip_checksum_ok(p) and len(bytes(p)) == 14 + 60
    for _ in range(4):
        dp.wire.send(bytes(core_ipv4(sub.ipv4, tos=46 << 2)))
    got = frames_where(dp, lambda p: p[Ether].dst == sub.mac and IP in p, want=4)
    assert len(got) == 4, "downstream to the subscriber"
    p = got[0]
    assert p[Ether].src == AC_MAC and p[Ether].type == 0x8100 and PPPoE not in p
    s_tag, c_tag = p[Dot1Q], p[Dot1Q].payload
    assert s_tag.vlan == sub.stag and c_tag.vlan == sub.ctag and c_tag.type == 0x0800
    assert s_tag.prio == 5 and c_tag.prio == 5, "gold: DSCP 46 -> class 0 -> PCP 5, same HQoS path"
    assert p[IP].dst == sub.ipv4 and p[IP].ttl == 63 and ip_checksum_ok(p)
    assert wait_for(lambda: session_of(dp, sub.ipv4)["pkts_down"] == 4)
    s = session_of(dp, sub.ipv4)
    assert (s["pkts_up"], s["bytes_up"], s["pkts_down"], s["bytes_down"]) == (5, 300, 4, 240)
    after = dp.stats()
    assert after["up_pkts"] - before["up_pkts"] == 5 and after["down_pkts"] - before["down_pkts"] == 4
    cause, usage = cp.delete(up_seid)
    assert cause == 1 and usage
    u = usage[0]
    assert (u.ul_pkts, u.ul_bytes, u.dl_pkts, u.dl_bytes) == (5, 300, 4, 240)


def test_spoofed_mac_address_and_line_are_dropped_and_counted(dp, cp):
    sub = new_ipoe()
    up_seid = installed_ipoe(cp, sub)
    try:
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(up(sub, ip_src="100.80.2.250"))  # another address
        dp.wire.send(up(sub, src="02:33:de:ad:00:01"))  # another MAC
        dp.wire.send(up(sub, ctag=sub.ctag + 1000))  # another line (C-tag)
        dp.wire.send(up(sub, dst=BCAST))  # data to broadcast
        assert stat_delta(dp, before, "drop_ipoe_spoof", 1) == 1
        assert stat_delta(dp, before, "drop_ipoe_no_session", 2) == 2
        assert stat_delta(dp, before, "drop_ipoe_broadcast", 1) == 1
        assert dp.stats()["up_pkts"] == before["up_pkts"], "nothing forwarded"
        assert not frames_where(dp, lambda p: IP in p and Dot1Q not in p and p[IP].dst == INTERNET, timeout=0.5)
        s = session_of(dp, sub.ipv4)
        assert s["pkts_up"] == 0 and s["drops_up"] == 1
    finally:
        cp.delete(up_seid)


def test_arp_answered_for_the_gateway_and_neighbours_never_for_a_probe(dp, cp):
    sub = new_ipoe()
    up_seid = installed_ipoe(cp, sub)
    try:
        for target in (GATEWAY, "100.80.1.77"):  # the gateway; a neighbour (proxy ARP)
            dp.wire.drain()
            before = dp.stats()
            dp.wire.send(arp_req(sub, target))
            got = frames_where(dp, lambda p, t=target: ARP in p and p[ARP].op == 2 and p[ARP].psrc == t)
            assert got, f"no ARP reply for {target}"
            p = got[0]
            assert p[Ether].dst == sub.mac and p[Ether].src == AC_MAC
            assert p[Dot1Q].vlan == sub.stag and p[Dot1Q].payload.vlan == sub.ctag
            assert p[ARP].hwsrc == AC_MAC and p[ARP].hwdst == sub.mac and p[ARP].pdst == sub.ipv4
            assert stat_delta(dp, before, "ipoe_arp_replies", 1) == 1
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(arp_req(sub, GATEWAY, sender=UNSPECIFIED))  # RFC 5227 probe
        dp.wire.send(arp_req(sub, sub.ipv4))  # its own address
        dp.wire.send(arp_req(sub, "10.9.9.9"))  # outside the pools
        dp.wire.send(arp_req(sub, GATEWAY, sender="100.80.2.251"))  # not its address
        dp.wire.send(arp_req(sub, GATEWAY, src="02:33:de:ad:00:02"))  # a MAC without session
        assert stat_delta(dp, before, "drop_ipoe_arp_refused", 4) == 4
        assert stat_delta(dp, before, "drop_ipoe_arp_no_session", 1) == 1
        assert not frames_where(dp, lambda p: ARP in p and p[ARP].op == 2, timeout=0.5)
        assert dp.stats()["ipoe_arp_replies"] == before["ipoe_arp_replies"]
    finally:
        cp.delete(up_seid)


def is_arp_ping(p, sub: Sub) -> bool:
    return ARP in p and p[ARP].op == 1 and p[Ether].dst == sub.mac and p[ARP].pdst == sub.ipv4


def test_arp_ping_of_a_silent_subscriber_reports_it_dead(dp, cp):
    sub = new_ipoe(arp_ping=(1, 2))
    cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1
    try:
        dp.wire.drain()
        got = frames_where(dp, lambda p: is_arp_ping(p, sub), timeout=3)
        assert got, "no ARP ping after an idle second"
        p = got[0]
        assert p[Ether].src == AC_MAC and p[Dot1Q].vlan == sub.stag and p[Dot1Q].payload.vlan == sub.ctag
        assert p[Dot1Q].prio == 7 and p[Dot1Q].payload.prio == 7
        assert p[ARP].hwsrc == AC_MAC and p[ARP].psrc == GATEWAY and p[ARP].hwdst == sub.mac
        # nobody answers: after 2 unanswered pings the CP gets a Session Report (UPIR + the IE)
        report = cp.expect_report(timeout=10)
        assert report.arp_dead and report.seid == cp_seid and report.arp_ping == (1, 2)
        assert report.lcp is None
        assert dp.telemetry("/bng/punt")["arp_ping_dead"] >= 1
        assert session_of(dp, sub.ipv4)["arp_ping_dead"] == 1
    finally:
        cp.delete(up_seid)


def test_arp_ping_answered_or_upstream_traffic_keeps_the_session(dp, cp):
    sub = new_ipoe(arp_ping=(1, 2))
    up_seid = installed_ipoe(cp, sub)
    try:
        deadline = time.monotonic() + 4.5
        answered = 0
        while time.monotonic() < deadline:
            for p in frames_where(dp, lambda p: is_arp_ping(p, sub), timeout=0.5):
                reply = ARP(op=2, hwsrc=sub.mac, psrc=sub.ipv4, hwdst=AC_MAC, pdst=p[ARP].psrc)
                dp.wire.send(bytes(qinq(sub) / reply))
                answered += 1
        assert answered >= 2
        # upstream frames alone keep it alive too: no ping while it sends
        resolve_router(dp)
        dp.wire.drain()
        sent_before = dp.telemetry("/bng/punt")["arp_ping_request_sent"]
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            dp.wire.send(up(sub))
            time.sleep(0.2)
        assert cp.poll(0.5) == 0 or not any(r.arp_dead for r in cp.reports)
        s = session_of(dp, sub.ipv4)
        assert s["arp_ping"] == 1 and s["arp_ping_dead"] == 0 and s["arp_ping_replies"] >= 2
        # at most the ping already due when the traffic started
        assert dp.telemetry("/bng/punt")["arp_ping_request_sent"] - sent_before <= 1
    finally:
        cp.delete(up_seid)


def test_cp_dhcp_replies_pass_the_inject_guard_and_nothing_else_ipoe(dp, cp, vx):
    sub = new_ipoe()
    offer = bytes(
        qinq(sub, dst=sub.mac, src=AC_MAC)
        / IP(src=GATEWAY, dst=sub.ipv4)
        / UDP(sport=67, dport=68)
        / Raw(bytes([2, 1, 6, 0]) + bytes(232))
    )
    dp.wire.drain()
    vxlan_send(vx, dp, offer)
    got = frames_where(dp, lambda p: p[Ether].dst == sub.mac and UDP in p)
    assert got and bytes(got[0]) == offer
    before = dp.telemetry("/bng/punt")
    data = bytes(qinq(sub, dst=sub.mac, src=AC_MAC) / IP(src=INTERNET, dst=sub.ipv4) / UDP(sport=53, dport=4000))
    vxlan_send(vx, dp, data)
    assert not frames_where(dp, lambda p: p[Ether].dst == sub.mac, timeout=0.5)
    after = dp.telemetry("/bng/punt")
    assert after["vxlan_inject_ipoe"] - before["vxlan_inject_ipoe"] == 1


def test_pppoe_still_works_beside_ipoe(dp, cp):
    """The same line and MAC may carry a PPPoE session next to an IPoE one."""
    from harness.frames import up_ipv4

    sub = new_ipoe()
    pppoe = Sub(stag=sub.stag, ctag=sub.ctag, mac=sub.mac, sid=0x0333, ipv4="100.80.1.200")
    ipoe_seid = installed_ipoe(cp, sub)
    _c, pppoe_seid, cause = cp.establish(pppoe)
    try:
        assert cause == 1
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(pppoe)))
        dp.wire.send(up(sub))
        got = frames_where(dp, lambda p: IP in p and Dot1Q not in p and p[IP].dst == INTERNET, want=2)
        assert sorted(p[IP].src for p in got) == sorted([pppoe.ipv4, sub.ipv4])
        # a second IPoE session of the same (line, MAC) is refused by the data path
        again = Sub(ipoe=True, stag=sub.stag, ctag=sub.ctag, mac=sub.mac, ipv4="100.80.1.201")
        assert cp.establish(again)[2] == 73
    finally:
        cp.delete(ipoe_seid)
        if pppoe_seid:
            cp.delete(pppoe_seid)
