"""Dual stack over IPoE (issue 19's last item) on a live bng-dp, seen on the wire.

The instance is the lab's dp1 with IPv6 (test_ipv6_wire's keys: core subnet6, router,
core_address6 and prefixes6 of lg1) and IPoE allowed on lg1 (test_ipoe_wire's keys). An
independent CP (scapy, tests/harness/pfcp_cp.py) installs IPoE sessions with PDR 3
(Ethertype 0x86DD, BBF Outer Header Removal 1) and PDRs 4/5; scapy frames go in and out on
the instance's data port; counters come from DPDK telemetry."""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import time

import pytest
from harness.frames import AC_MAC, CORE_MAC, ROUTER_MAC, UDP, Dot1Q, Ether, Raw, Sub
from harness.pfcp_cp import Cp
from harness.rig import DpRig, cleanup_stale
from scapy.layers.inet6 import (
    ICMPv6MLReport2,
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6ND_RA,
    ICMPv6ND_RS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptSrcLLAddr,
    IPv6,
)

from .test_datapath import frames_where, resolve_router, stat_delta, vxlan_recv, wait_for
from .test_ipoe_wire import IPOE_KEY_NAMES, IPOE_KEYS
from .test_ipv6_wire import INTERNET6, resolve_router6, v6_ini

_ctags = itertools.count(1900)


def bng_ll(mac: str = AC_MAC) -> str:
    """fe80::/64 + modified EUI-64 of the AC MAC: the BNG's IPv6 router address on IPoE lines."""
    b = bytes.fromhex(mac.replace(":", ""))
    iid = bytes([b[0] ^ 0x02]) + b[1:3] + b"\xff\xfe" + b[3:]
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid))


@pytest.fixture(scope="module")
def dp(dp_prereqs, tmp_path_factory):
    ini = tmp_path_factory.mktemp("ipoe6") / "dp1.ini"
    v6_ini(ini)
    head, sep, rest = ini.read_text().partition("[line_group.0]\n")
    assert sep
    body, nxt, tail = rest.partition("\n[")
    body = "\n".join(ln for ln in body.split("\n") if ln.split("=")[0].strip() not in IPOE_KEY_NAMES)
    ini.write_text(head + sep + IPOE_KEYS + body + nxt + tail)
    rig = DpRig(ini).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


@pytest.fixture(scope="module")
def cp(dp):
    c = Cp.for_rig(dp)
    try:
        assert c.associate() == 1
        assert c.dp_ipoe, "the DP announces IPoE"
        resolve_router(dp)
        resolve_router6(dp)
        yield c
    finally:
        c.close()


@pytest.fixture
def vx(dp):
    s = dp.cp_socket(4789)
    try:
        yield s
    finally:
        s.close()


def new_sub(**kw) -> Sub:
    c = next(_ctags)
    kw.setdefault("ctag", c)
    kw.setdefault("mac", f"02:36:00:00:{c >> 8:02x}:{c & 0xFF:02x}")
    kw.setdefault("ipv4", f"100.80.{2 + (c >> 8) % 2}.{c & 0xFF}")
    kw.setdefault("ipv6_prefix", f"2001:db8:100:{c:x}::/64")
    kw.setdefault("delegated_prefix", f"2001:db8:200:{c & 0xFF:x}00::/56")
    return Sub(ipoe=True, **kw)


def wan_addr(sub: Sub, host: int = 2) -> str:
    return str(ipaddress.IPv6Network(sub.ipv6_prefix).network_address + host)


def lan_addr(sub: Sub, host: int = 5) -> str:
    return str(ipaddress.IPv6Network(sub.delegated_prefix).network_address + (0x42 << 64) + host)


def client_ll(sub: Sub) -> str:
    return bng_ll(sub.mac)


def qinq(sub: Sub, dst: str = AC_MAC, src: str | None = None) -> Ether:
    return Ether(src=src or sub.mac, dst=dst) / Dot1Q(vlan=sub.stag) / Dot1Q(vlan=sub.ctag)


def up6(sub: Sub, src: str | None = None, hlim: int = 64, mac: str | None = None) -> bytes:
    pkt = IPv6(src=src or wan_addr(sub), dst=INTERNET6, hlim=hlim) / UDP(sport=4000, dport=9053) / Raw(b"q" * 32)
    return bytes(qinq(sub, src=mac) / pkt)


def core6(dst: str) -> bytes:
    return bytes(
        Ether(src=ROUTER_MAC, dst=CORE_MAC)
        / IPv6(src=INTERNET6, dst=dst, hlim=64)
        / UDP(sport=9053, dport=4000)
        / Raw(b"a" * 32)
    )


def rs(sub: Sub) -> bytes:
    return bytes(
        qinq(sub, dst="33:33:00:00:00:02")
        / IPv6(src=client_ll(sub), dst="ff02::2", hlim=255)
        / ICMPv6ND_RS()
        / ICMPv6NDOptSrcLLAddr(lladdr=sub.mac)
    )


def solicit(sub: Sub, dst: str = "ff02::1:2") -> bytes:
    """A DHCPv6 client frame (UDP 546 -> 547); the body is opaque to the DP."""
    mac = "33:33:00:01:00:02" if dst == "ff02::1:2" else AC_MAC
    body = bytes([1, 0x12, 0x34, 0x56]) + bytes.fromhex("0001000a00030001") + bytes.fromhex(sub.mac.replace(":", ""))
    return bytes(qinq(sub, dst=mac) / IPv6(src=client_ll(sub), dst=dst, hlim=1) / UDP(sport=546, dport=547) / Raw(body))


def ns(sub: Sub, target: str, src: str | None = None, unicast: bool = False) -> bytes:
    """An NS to the target's solicited-node address, or (unicast) to the target via the AC MAC."""
    src = client_ll(sub) if src is None else src
    t = ipaddress.IPv6Address(target).packed
    sn = str(ipaddress.IPv6Address(bytes.fromhex("ff0200000000000000000001ff") + t[13:]))
    mac = "33:33:" + ":".join(f"{x:02x}" for x in bytes.fromhex("ff") + t[13:])
    if unicast:
        sn, mac = target, AC_MAC
    msg = ICMPv6ND_NS(tgt=target)
    if src != "::":
        msg = msg / ICMPv6NDOptSrcLLAddr(lladdr=sub.mac)
    return bytes(qinq(sub, dst=mac) / IPv6(src=src, dst=sn, hlim=255) / msg)


def core_out(p, src: str | None = None) -> bool:
    return IPv6 in p and Dot1Q not in p and p[Ether].dst == ROUTER_MAC and (src is None or p[IPv6].src == src)


def access_out(p, sub: Sub) -> bool:
    return (
        IPv6 in p
        and Dot1Q in p
        and p[Ether].dst == sub.mac
        and p[Dot1Q].vlan == sub.stag
        and p[Dot1Q].payload.vlan == sub.ctag
        and p[Dot1Q].payload.type == 0x86DD
    )


class installed:
    def __init__(self, cp, sub):
        self.cp, self.sub = cp, sub

    def __enter__(self):
        _, self.up_seid, cause = self.cp.establish(self.sub)
        assert cause == 1, f"IPoE IPv6 establishment refused: cause {cause}"
        return self.up_seid

    def __exit__(self, *exc):
        self.cp.delete(self.up_seid)


def test_upstream_ipv6_from_the_64_and_the_delegated_prefix_spoof_dropped(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        dp.wire.drain()
        before = dp.stats()
        for src in (wan_addr(sub), lan_addr(sub)):
            dp.wire.send(up6(sub, src=src))
            got = frames_where(dp, lambda p, s=src: core_out(p, s))
            assert got, f"no IPv6 from {src} on the core side"
            p = got[0]
            assert p[Ether].src == CORE_MAC and p[Ether].type == 0x86DD
            assert p[IPv6].dst == INTERNET6 and p[IPv6].hlim == 63 and len(bytes(p)) == 14 + 40 + 8 + 32
        assert stat_delta(dp, before, "up6_pkts", 2) == 2
        # spoofed: another /64, an address outside the pools; a MAC without a session
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(up6(sub, src="2001:db8:100:ffff::2"))
        dp.wire.send(up6(sub, src="2001:db8:300::1"))
        dp.wire.send(up6(sub, mac="02:36:de:ad:00:01"))
        assert stat_delta(dp, before, "drop_ipoe6_spoof", 2) == 2
        assert stat_delta(dp, before, "drop_ipoe_no_session", 1) == 1
        assert not frames_where(dp, lambda p: core_out(p), timeout=0.5), "nothing forwarded"


def test_downstream_to_the_64_and_the_delegated_prefix_to_the_client_mac(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        dp.wire.drain()
        for dst in (wan_addr(sub), lan_addr(sub)):
            dp.wire.send(core6(dst))
            got = frames_where(dp, lambda p, d=dst: access_out(p, sub) and p[IPv6].dst == d)
            assert got, f"no frame to the subscriber for {dst}"
            p = got[0]
            assert p[Ether].src == AC_MAC and p[Dot1Q].type == 0x8100
            assert p[IPv6].hlim == 63 and p[IPv6].src == INTERNET6
            assert len(bytes(p)) == 22 + 40 + 8 + 32, "QinQ + IPv6, no PPPoE"


def test_ipv6_only_ipoe_session_forwards(dp, cp):
    sub = new_sub(ipv4=None)
    with installed(cp, sub):
        dp.wire.drain()
        dp.wire.send(up6(sub))
        assert frames_where(dp, lambda p: core_out(p, wan_addr(sub))), "upstream of an IPv6-only session"
        dp.wire.send(core6(wan_addr(sub, 9)))
        assert frames_where(dp, lambda p: access_out(p, sub)), "downstream of an IPv6-only session"


def test_rs_and_dhcpv6_punted_with_or_without_a_session_mld_dropped(dp, cp, vx):
    sub = new_sub()
    before = dp.telemetry("/bng/punt")
    stats = dp.stats()
    for frame in (rs(sub), solicit(sub), solicit(sub, dst=bng_ll())):
        dp.wire.send(frame)
        data, _vni = vxlan_recv(vx)
        assert data == frame, "the whole frame, tags kept"
    after = dp.telemetry("/bng/punt")
    assert after["low_admitted"] - before["low_admitted"] == 3, "class dhcp: policed in class low"
    assert stat_delta(dp, stats, "ipoe6_punted", 3) == 3
    stats = dp.stats()
    mld = qinq(sub, dst="33:33:00:00:00:16") / IPv6(src=client_ll(sub), dst="ff02::16", hlim=1) / ICMPv6MLReport2()
    dp.wire.send(bytes(mld))
    dp.wire.send(solicit(sub, dst="fe80::1"))  # DHCPv6 to another link-local
    assert stat_delta(dp, stats, "drop_ipoe6_local", 2) == 2


def test_ns_answered_for_the_bng_link_local_and_the_64_never_for_dad(dp, cp):
    sub = new_sub()
    with installed(cp, sub):
        # the BNG's link-local; a neighbour of the /64 (proxy), also by a unicast NS from its
        # global address (NUD): answered, never routed
        for target, src, unicast in (
            (bng_ll(), None, False),
            (wan_addr(sub, 1), None, False),
            (wan_addr(sub, 1), wan_addr(sub), True),
        ):
            dp.wire.drain()
            before = dp.stats()
            dp.wire.send(ns(sub, target, src=src, unicast=unicast))
            got = frames_where(dp, lambda p, t=target: ICMPv6ND_NA in p and p[ICMPv6ND_NA].tgt == t)
            assert got, f"no NA for {target}"
            p = got[0]
            assert p[Ether].dst == sub.mac and p[Ether].src == AC_MAC
            assert p[Dot1Q].vlan == sub.stag and p[Dot1Q].payload.vlan == sub.ctag
            assert p[IPv6].src == bng_ll() and p[IPv6].dst == (src or client_ll(sub)) and p[IPv6].hlim == 255
            na = p[ICMPv6ND_NA]
            assert na.R == 1 and na.S == 1 and na.O == 0 and p[ICMPv6NDOptDstLLAddr].lladdr == AC_MAC
            ck = na.cksum
            del na.cksum
            assert IPv6(bytes(p[IPv6]))[ICMPv6ND_NA].cksum == ck, "checksum"
            assert stat_delta(dp, before, "ipoe_na_replies", 1) == 1
        before = dp.stats()
        dp.wire.drain()
        dp.wire.send(ns(sub, wan_addr(sub, 7), src="::"))  # DAD
        dp.wire.send(ns(sub, wan_addr(sub, 3), src=wan_addr(sub, 3)))  # its own address
        dp.wire.send(ns(sub, "2001:db8:300::1"))  # outside its prefixes
        other = new_sub()
        dp.wire.send(ns(other, bng_ll()))  # a MAC without a session
        assert stat_delta(dp, before, "drop_ipoe6_nd_refused", 4) == 4
        assert not frames_where(dp, lambda p: ICMPv6ND_NA in p, timeout=0.5)


def test_ra_offload_over_ethernet_with_the_source_link_layer_option(dp, cp):
    iid = ipaddress.IPv6Address(bng_ll()).packed[8:]
    sub = new_sub(ra={"interval": 10, "lifetime": 1800, "flags": 0xC0, "mtu": 1500, "iid": iid})
    with installed(cp, sub):
        got = frames_where(dp, lambda p: access_out(p, sub) and ICMPv6ND_RA in p, timeout=3)
        assert got, "no RA on the wire"
        p = got[0]
        assert p[Ether].src == AC_MAC and p[IPv6].src == bng_ll() and p[IPv6].dst == "ff02::1"
        assert p[IPv6].hlim == 255 and p[ICMPv6ND_RA].M == 1 and p[ICMPv6ND_RA].O == 1
        assert p[ICMPv6NDOptSrcLLAddr].lladdr == AC_MAC
        pi = p[ICMPv6NDOptPrefixInfo]
        assert f"{pi.prefix}/{pi.prefixlen}" == sub.ipv6_prefix and pi.L == 1 and pi.A == 1


def test_rs_and_dhcpv6_need_the_dhcp_class_ipv6_pdr_of_the_default_session(dp, cp, vx):
    """Without the dhcp class's IPv6 PDR (Ethertype 0x86DD, `permit out 17 from any 546 to
    any 547`) the default session redirects no RS or DHCPv6; with it, both go to the CP."""
    sub = new_sub()
    _c, up_seid, cause = cp.default_session("10.200.0.1", port=4789, classes=("discovery", "control", "dhcp"))
    assert cause == 1
    try:
        assert dp.telemetry("/bng/punt")["redirect_classes"] == 0x0B
        before = dp.telemetry("/bng/punt")
        dp.wire.send(rs(sub))
        dp.wire.send(solicit(sub))
        assert wait_for(lambda: dp.telemetry("/bng/punt")["low_not_redirected"] - before["low_not_redirected"] == 2)
    finally:
        assert cp.delete(up_seid)[0] == 1
    _c, up_seid, cause = cp.default_session("10.200.0.1", port=4789, classes=("discovery", "dhcp", "dhcp6"))
    assert cause == 1
    try:
        assert dp.telemetry("/bng/punt")["redirect_classes"] == 0x19
        for frame in (rs(sub), solicit(sub)):
            dp.wire.send(frame)
            assert vxlan_recv(vx)[0] == frame
    finally:
        assert cp.delete(up_seid)[0] == 1


def test_ipv6_added_by_modification_is_counted_in_urr_3(dp, cp):
    """DHCPv4 first, then IPv6 by a Session Modification (Create PDR 3, 4, 5 naming URRs 1
    and 3, Create URR 3): the IPv6 octets are reported in URR 3 and in the total URR 1."""
    sub = new_sub(urr_period=3600)
    v4 = dataclasses.replace(sub, ipv6_prefix=None, delegated_prefix=None)
    _c, up_seid, cause = cp.establish(v4)
    assert cause == 1
    try:
        up, downs = cp.ipv6_pdrs(sub)
        cause, _ = cp.modify(up_seid, ies=[up, *downs, cp._urr(3, 3600)])
        assert cause == 1, f"IPv6 added by modification: cause {cause}"
        dp.wire.drain()
        for _ in range(3):
            dp.wire.send(up6(sub))
        assert wait_for(lambda: len(frames_where(dp, lambda p: core_out(p, wan_addr(sub)), timeout=0.3)) >= 1)
        dp.wire.send(core6(lan_addr(sub)))
        assert frames_where(dp, lambda p: access_out(p, sub))
        time.sleep(0.3)
    finally:
        cause, usage = cp.delete(up_seid)
    assert cause == 1
    by = {u.urr_id: u for u in usage}
    assert by[3].ul_pkts == 3 and by[3].ul_bytes == 3 * 80, by[3]
    assert by[3].dl_pkts == 1 and by[3].dl_bytes == 80, by[3]
    assert by[1].ul_bytes == 3 * 80 and by[1].dl_bytes == 80, by[1]
