"""bng-dp dual stack on the wire (issue 15, docs/dp/datapath.md "IPv6"): sessions with
IPv6 prefixes installed by the independent CP (tests/harness/pfcp_cp.py), IPv6 frames
sent and received on the data port, counters read over telemetry.

The instance is the lab's dp1 with the IPv6 keys of docs/config-formats.md added:
core subnet6 2001:db8:64::/64, router 2001:db8:64::1, lg1's core address
2001:db8:64::11, WAN pool 2001:db8:100::/48 (a /64 each) and PD pool
2001:db8:200::/40 (a /56 each)."""

from __future__ import annotations

import ipaddress
import itertools
import time

import pytest
from harness.frames import AC_MAC, CORE_MAC, PPP, ROUTER_MAC, UDP, Dot1Q, Ether, PPPoE, Raw, Sub, access, parse
from harness.pfcp_cp import Cp, _cause, line_group_ie, line_group_value6, ra_offload_ie
from harness.rig import DpRig, cleanup_stale
from scapy.layers.inet import IP, TCP
from scapy.layers.inet6 import (
    ICMPv6EchoRequest,
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6ND_RA,
    ICMPv6ND_RS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptMTU,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptRDNSS,
    ICMPv6NDOptSrcLLAddr,
    ICMPv6PacketTooBig,
    ICMPv6TimeExceeded,
    IPerror6,
    IPv6,
)

from .conftest import LAB_DP1
from .test_datapath import frames_where, resolve_router, stat_delta, vxlan_recv, wait_for

ROUTER6 = "2001:db8:64::1"
CORE6 = "2001:db8:64::11"
INTERNET6 = "2001:db8:ffff::7"
V6_KEYS = {
    "core": ["subnet6 = 2001:db8:64::/64", f"router_address6 = {ROUTER6}"],
    "line_group.0": [f"core_address6 = {CORE6}", "prefixes6 = 2001:db8:100::/48:64 2001:db8:200::/40:56"],
}

_ctags = itertools.count(600)


# One more ACL rule, IPv6: UDP to port 9 of 2001:db8:dead::/48 is denied both ways.
ACL6 = [
    "family = ipv6",
    "action = deny",
    "direction = both",
    "protocol = udp",
    "source = ::/0",
    "destination = 2001:db8:dead::/48",
    "source_ports = any",
    "destination_ports = 9-9",
]


def v6_ini(path) -> None:
    """The lab's dp1.ini with this test's IPv6 keys in [core] and [line_group.0] (set where
    the lab has them, added where not) and ACL6 as one more [acl.N] after the lab's rules."""
    out, section, seen, n_acl = [], None, set(), 0

    def finish(sec):
        for kv in V6_KEYS.get(sec, []):
            if kv.split("=")[0].strip() not in seen:
                out.append(kv)

    for line in LAB_DP1.read_text().splitlines():
        head = line.strip()
        if head.startswith("[") and head.endswith("]"):
            finish(section)
            section, seen = head[1:-1], set()
            out.append(line)
            continue
        key = head.split("=")[0].strip() if "=" in head and not head.startswith(";") else None
        if section == "instance" and key == "acl_rules":
            n_acl = int(head.split("=")[1].split(";")[0])
            line = f"acl_rules = {n_acl + 1}"
        for kv in V6_KEYS.get(section, []):
            if key == kv.split("=")[0].strip():
                line = kv
                seen.add(key)
        out.append(line)
    finish(section)
    assert f"[acl.{n_acl - 1}]" in out and f"[acl.{n_acl}]" not in out, "the lab's dp1.ini: acl_rules"
    out += ["", f"[acl.{n_acl}]", *ACL6]
    path.write_text("\n".join(out) + "\n")


@pytest.fixture(scope="module")
def dp(dp_prereqs, tmp_path_factory):
    ini = tmp_path_factory.mktemp("v6") / "dp1_v6.ini"
    v6_ini(ini)
    rig = DpRig(ini).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


def is_ns_for(p, target: str) -> bool:
    return ICMPv6ND_NS in p and p[ICMPv6ND_NS].tgt == target


def resolve_router6(dp, timeout: float = 10.0) -> None:
    """Answer bng-dp's Neighbor Solicitation for the core router's IPv6 address."""
    if dp.stats().get("router6_resolved"):
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for f in dp.wire.recv_all(0.3):
            p = parse(f)
            if is_ns_for(p, ROUTER6):
                assert p[Ether].src == CORE_MAC and p[IPv6].src == CORE6
                assert p[IPv6].dst == "ff02::1:ff00:1" and p[Ether].dst == "33:33:ff:00:00:01"
                assert p[IPv6].hlim == 255 and ICMPv6NDOptSrcLLAddr in p
                na = ICMPv6ND_NA(R=1, S=1, O=1, tgt=ROUTER6) / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC)
                dp.wire.send(bytes(Ether(src=ROUTER_MAC, dst=CORE_MAC) / IPv6(src=ROUTER6, dst=CORE6, hlim=255) / na))
                assert wait_for(lambda: dp.stats().get("router6_resolved") == 1, 3)
                return
    raise AssertionError("bng-dp sent no Neighbor Solicitation for the IPv6 router")


@pytest.fixture(scope="module")
def cp6(dp):
    cp = Cp.for_rig(dp)
    try:
        assert cp.associate() == 1
        resolve_router(dp)
        resolve_router6(dp)
        yield cp
    finally:
        cp.close()


def new_sub6(**kw) -> Sub:
    c = next(_ctags)
    kw.setdefault("ctag", c)
    kw.setdefault("mac", f"02:16:00:00:{c >> 8:02x}:{c & 0xFF:02x}")
    kw.setdefault("sid", 0x0600 + (c & 0xFF))
    kw.setdefault("ipv4", f"100.80.2.{c & 0xFF}")
    kw.setdefault("ipv6_prefix", f"2001:db8:100:{c:x}::/64")
    kw.setdefault("delegated_prefix", f"2001:db8:200:{c & 0xFF:x}00::/56")
    return Sub(**kw)


def wan_addr(sub: Sub, host: int = 2) -> str:
    """An address of the session's /64 (its SLAAC address on the WAN link)."""
    return str(ipaddress.IPv6Network(sub.ipv6_prefix).network_address + host)


def lan_addr(sub: Sub, host: int = 5) -> str:
    """An address of a /64 inside the session's delegated prefix (a home LAN)."""
    return str(ipaddress.IPv6Network(sub.delegated_prefix).network_address + (0x42 << 64) + host)


def up6(sub: Sub, src: str | None = None, dst: str = INTERNET6, hlim: int = 64, payload=None, **kw):
    pkt = IPv6(src=src or wan_addr(sub), dst=dst, hlim=hlim, **kw) / (
        payload if payload is not None else UDP(sport=4000, dport=9053) / Raw(b"q" * 32)
    )
    return access(sub, PPP(proto=0x0057) / pkt)


def core6(dst: str, size: int | None = None, hlim: int = 64, src: str = INTERNET6):
    pkt = IPv6(src=src, dst=dst, hlim=hlim) / UDP(sport=9053, dport=4000) / Raw(b"a" * 32)
    if size is not None:
        pkt = pkt / Raw(b"p" * (size - len(pkt)))
    return Ether(src=ROUTER_MAC, dst=CORE_MAC) / pkt


class installed6:
    def __init__(self, cp, sub):
        self.cp, self.sub = cp, sub

    def __enter__(self):
        _, self.up_seid, cause = self.cp.establish(self.sub)
        assert cause == 1, f"establishment refused: cause {cause}"
        return self.up_seid

    def __exit__(self, *exc):
        if self.up_seid:
            self.cp.delete(self.up_seid)


def core_out(p, src: str | None = None) -> bool:
    """An IPv6 frame bng-dp sent to the router (untagged core side)."""
    return IPv6 in p and Dot1Q not in p and p[Ether].dst == ROUTER_MAC and (src is None or p[IPv6].src == src)


def access_out(p, sub: Sub) -> bool:
    return PPP in p and p[PPP].proto == 0x0057 and p[Ether].dst == sub.mac and p[Dot1Q:2].vlan == sub.ctag and IPv6 in p


# ---- core-side Neighbor Discovery --------------------------------------------------------


def test_ns_for_the_core_address_is_answered(dp, cp6):
    dp.wire.drain()
    ns = ICMPv6ND_NS(tgt=CORE6) / ICMPv6NDOptSrcLLAddr(lladdr=ROUTER_MAC)
    dp.wire.send(
        bytes(Ether(src=ROUTER_MAC, dst="33:33:ff:00:00:11") / IPv6(src=ROUTER6, dst="ff02::1:ff00:11", hlim=255) / ns)
    )
    got = frames_where(dp, lambda p: ICMPv6ND_NA in p and p[ICMPv6ND_NA].tgt == CORE6 and p[ICMPv6ND_NA].S == 1)
    assert got, "no Neighbor Advertisement for the core IPv6 address"
    na = got[0]
    assert na[Ether].src == CORE_MAC and na[Ether].dst == ROUTER_MAC
    assert na[IPv6].src == CORE6 and na[IPv6].dst == ROUTER6 and na[IPv6].hlim == 255
    assert na[ICMPv6ND_NA].R == 1 and na[ICMPv6ND_NA].O == 1
    assert na[ICMPv6NDOptDstLLAddr].lladdr == CORE_MAC
    # the checksum scapy computes over the frame equals the DP's
    ck = na[ICMPv6ND_NA].cksum
    del na[ICMPv6ND_NA].cksum
    assert IPv6(bytes(na[IPv6]))[ICMPv6ND_NA].cksum == ck


def test_ns_for_other_addresses_and_bad_nd_are_not_answered(dp, cp6):
    dp.wire.drain()
    before = dp.stats()
    other = ICMPv6ND_NS(tgt="2001:db8:64::99") / ICMPv6NDOptSrcLLAddr(lladdr=ROUTER_MAC)
    dp.wire.send(
        bytes(
            Ether(src=ROUTER_MAC, dst="33:33:ff:00:00:99") / IPv6(src=ROUTER6, dst="ff02::1:ff00:99", hlim=255) / other
        )
    )
    # hop limit 64: not ND (RFC 4861 7.1.1), dropped by the classifier
    bad = ICMPv6ND_NS(tgt=CORE6)
    dp.wire.send(
        bytes(Ether(src=ROUTER_MAC, dst="33:33:ff:00:00:11") / IPv6(src=ROUTER6, dst="ff02::1:ff00:11", hlim=64) / bad)
    )
    # a wrong checksum: refused by the parser
    wrong = ICMPv6ND_NS(tgt=CORE6, cksum=0x1234)
    dp.wire.send(
        bytes(
            Ether(src=ROUTER_MAC, dst="33:33:ff:00:00:11") / IPv6(src=ROUTER6, dst="ff02::1:ff00:11", hlim=255) / wrong
        )
    )
    assert stat_delta(dp, before, "drop_nd_bad", 1) == 1
    assert not frames_where(dp, lambda p: ICMPv6ND_NA in p and p[ICMPv6ND_NA].S == 1, timeout=1.0)


# ---- upstream ------------------------------------------------------------------------------


def test_upstream_ipv6_from_wan_and_delegated_prefix(dp, cp6):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        before = dp.stats()
        for src in (wan_addr(sub), lan_addr(sub)):
            dp.wire.send(bytes(up6(sub, src=src, hlim=64)))
            got = frames_where(dp, lambda p, s=src: core_out(p, s))
            assert got, f"no IPv6 from {src} on the core side"
            p = got[0]
            assert p[Ether].src == CORE_MAC and p[Ether].type == 0x86DD
            assert p[IPv6].dst == INTERNET6 and p[IPv6].hlim == 63
            assert bytes(p[Raw]).startswith(b"q" * 32)
        assert stat_delta(dp, before, "up6_pkts", 2) == 2


def test_upstream_spoofed_ipv6_source_is_dropped(dp, cp6):
    sub, other = new_sub6(), new_sub6()
    with installed6(cp6, sub), installed6(cp6, other):
        dp.wire.drain()
        before = dp.stats()
        dp.wire.send(bytes(up6(sub, src="2001:db8:100:ffff::2")))  # outside its prefixes
        dp.wire.send(bytes(up6(sub, src=wan_addr(other))))  # another session's /64
        dp.wire.send(bytes(up6(sub, src=lan_addr(other))))  # another session's /56
        assert stat_delta(dp, before, "drop_spoofed_source", 3) == 3
        assert dp.stats()["up6_pkts"] == before["up6_pkts"]
        assert not frames_where(dp, lambda p: core_out(p), timeout=0.5)


def test_link_local_is_never_forwarded_and_control_is_punted(dp, cp6, vx):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        before = dp.stats()
        # link-local source, not control: dropped and counted
        dp.wire.send(bytes(up6(sub, src="fe80::2")))
        # to a link-local destination
        dp.wire.send(bytes(up6(sub, dst="fe80::1")))
        assert stat_delta(dp, before, "drop_ipv6_scope", 2) == 2
        # a Router Solicitation goes to the CP over the redirect
        rs = IPv6(src="fe80::2", dst="ff02::2", hlim=255) / ICMPv6ND_RS()
        dp.wire.send(bytes(access(sub, PPP(proto=0x0057) / rs)))
        frame, _ = vxlan_recv(vx)
        p = Ether(frame)
        assert ICMPv6ND_RS in p and p[Ether].src == sub.mac and p[PPP].proto == 0x0057
        # DHCPv6 Solicit to ff02::1:2 too
        sol = IPv6(src="fe80::2", dst="ff02::1:2") / UDP(sport=546, dport=547) / Raw(b"\x01\x00\x00\x01")
        dp.wire.send(bytes(access(sub, PPP(proto=0x0057) / sol)))
        frame, _ = vxlan_recv(vx)
        assert UDP in Ether(frame) and Ether(frame)[UDP].dport == 547
        assert stat_delta(dp, before, "v6_punted", 2) == 2
        assert not frames_where(dp, lambda p: core_out(p), timeout=0.5)


@pytest.fixture
def vx(dp):
    s = dp.cp_socket(4789)
    try:
        yield s
    finally:
        s.close()


def test_hop_limit_expired_upstream_gets_time_exceeded(dp, cp6):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        dp.wire.send(bytes(up6(sub, hlim=1)))
        got = frames_where(dp, lambda p: access_out(p, sub) and ICMPv6TimeExceeded in p)
        assert got, "no ICMPv6 Time Exceeded towards the subscriber"
        p = got[0]
        assert p[IPv6].src == CORE6 and p[IPv6].dst == wan_addr(sub)
        assert p[Ether].src == AC_MAC
        quoted = p[IPerror6]
        assert quoted.src == wan_addr(sub) and quoted.dst == INTERNET6 and quoted.hlim == 1
        ck = p[ICMPv6TimeExceeded].cksum
        del p[ICMPv6TimeExceeded].cksum
        assert IPv6(bytes(p[IPv6]))[ICMPv6TimeExceeded].cksum == ck


# ---- downstream ----------------------------------------------------------------------------


def test_downstream_to_wan_and_delegated_prefix(dp, cp6):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        for dst in (wan_addr(sub, 9), lan_addr(sub, 0x77)):
            dp.wire.send(bytes(core6(dst)))
            got = frames_where(dp, lambda p, d=dst: access_out(p, sub) and p[IPv6].dst == d)
            assert got, f"no PPPoE frame for {dst}"
            p = got[0]
            assert p[Ether].src == AC_MAC and p[PPPoE].sessionid == sub.sid
            assert p[PPPoE].len == len(p[IPv6]) + 2
            assert p[IPv6].hlim == 63 and bytes(p[Raw]).startswith(b"a" * 32)
        # a prefix of no session
        before = dp.stats()
        dp.wire.send(bytes(core6("2001:db8:200:ff00::1")))
        assert stat_delta(dp, before, "drop_no_session_down", 1) == 1


def test_downstream_too_big_gets_packet_too_big(dp, cp6):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        dp.wire.send(bytes(core6(wan_addr(sub), size=1500)))
        got = frames_where(dp, lambda p: ICMPv6PacketTooBig in p and p[Ether].dst == ROUTER_MAC)
        assert got, "no Packet Too Big towards the core"
        p = got[0]
        assert p[ICMPv6PacketTooBig].mtu == 1492
        assert p[IPv6].src == CORE6 and p[IPv6].dst == INTERNET6 and p[Ether].src == CORE_MAC
        assert len(p[IPv6]) <= 1280


def test_per_family_usage_is_exact(dp, cp6):
    sub = new_sub6(urr_period=3600)
    _, up_seid, cause = cp6.establish(sub)
    assert cause == 1
    try:
        dp.wire.drain()
        sizes6, sizes4 = [100, 200, 300], [80, 120]
        for n in sizes6:
            dp.wire.send(bytes(up6(sub, payload=UDP(sport=4000, dport=9053) / Raw(b"q" * (n - 48)))))
        for n in sizes4:
            pkt = IP(src=sub.ipv4, dst="198.51.100.7") / UDP(sport=4000, dport=9053) / Raw(b"q" * (n - 28))
            dp.wire.send(bytes(access(sub, PPP(proto=0x0021) / pkt)))
        dp.wire.send(bytes(core6(lan_addr(sub), size=400)))
        assert len(frames_where(dp, lambda p: access_out(p, sub), timeout=2.0)) == 1
        time.sleep(0.3)
    finally:
        cause, usage = cp6.delete(up_seid)
    assert cause == 1
    by = {u.urr_id: u for u in usage}
    assert by[3].ul_bytes == sum(sizes6) and by[3].ul_pkts == 3
    assert by[3].dl_bytes == 400 and by[3].dl_pkts == 1
    assert by[2].ul_bytes == sum(sizes4) and by[2].ul_pkts == 2 and by[2].dl_pkts == 0
    assert by[1].ul_bytes == sum(sizes6) + sum(sizes4) and by[1].dl_bytes == 400


def test_ipv6_only_session(dp, cp6):
    sub = new_sub6(ipv4=None)
    with installed6(cp6, sub):
        dp.wire.drain()
        dp.wire.send(bytes(up6(sub)))
        assert frames_where(dp, lambda p: core_out(p, wan_addr(sub)))
        dp.wire.send(bytes(core6(wan_addr(sub, 3))))
        assert frames_where(dp, lambda p: access_out(p, sub))


def test_echo_request_to_internet_keeps_icmpv6(dp, cp6):
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        dp.wire.send(bytes(up6(sub, payload=ICMPv6EchoRequest(id=7, seq=1))))
        got = frames_where(dp, lambda p: core_out(p) and ICMPv6EchoRequest in p)
        assert got and got[0][ICMPv6EchoRequest].id == 7


# ---- RA offload --------------------------------------------------------------------------


def test_ra_offload_sends_the_initial_and_periodic_ras(dp, cp6):
    """The RA offload IE: an RA at once, two more 4 s apart (RFC 4861's initial RAs), then
    one per interval; off again with an empty IE."""
    sub = new_sub6(ra={"interval": 10, "lifetime": 1800, "flags": 0x40, "mtu": 1492, "dns": ("2001:db8::53",)})
    dp.wire.drain()
    with installed6(cp6, sub) as up_seid:
        t0 = time.monotonic()
        got, at = [], []
        while len(got) < 3 and time.monotonic() < t0 + 12:
            for p in frames_where(dp, lambda p: access_out(p, sub) and ICMPv6ND_RA in p, timeout=0.5):
                got.append(p)
                at.append(time.monotonic() - t0)
        assert len(got) == 3, f"RAs seen at {at}"
        assert at[0] < 1.5 and 3.0 < at[1] - at[0] < 5.5 and 3.0 < at[2] - at[1] < 5.5, at
        p = got[0]
        assert p[Ether].src == AC_MAC and p[PPPoE].sessionid == sub.sid
        assert p[IPv6].src == "fe80::bb:ff:fe00:1" and p[IPv6].dst == "ff02::1" and p[IPv6].hlim == 255
        ra = p[ICMPv6ND_RA]
        assert ra.routerlifetime == 1800 and ra.O == 1 and ra.M == 0
        pi = p[ICMPv6NDOptPrefixInfo]
        assert pi.prefix == sub.ipv6_prefix.split("/")[0] and pi.prefixlen == 64 and pi.L == 1 and pi.A == 1
        assert pi.validlifetime == 86400 and pi.preferredlifetime == 14400
        assert p[ICMPv6NDOptMTU].mtu == 1492
        assert p[ICMPv6NDOptRDNSS].dns == ["2001:db8::53"] and p[ICMPv6NDOptRDNSS].lifetime == 1800
        ck = ra.cksum
        del p[ICMPv6ND_RA].cksum
        assert IPv6(bytes(p[IPv6]))[ICMPv6ND_RA].cksum == ck
        # the offload off: no more RAs
        cause, _ = cp6.modify(up_seid, ies=[ra_offload_ie(b"")])
        assert cause == 1
        dp.wire.drain()
        assert not frames_where(dp, lambda p: access_out(p, sub) and ICMPv6ND_RA in p, timeout=6.0)


def test_ipv6_acl_rule_denies_ipv6_only(dp, cp6):
    """ACL6 (family ipv6, UDP to port 9 of 2001:db8:dead::/48) denies that IPv6 traffic;
    IPv6 to another port passes; TCP 25 over IPv6 is denied by the lab's IPv6 rule."""
    sub = new_sub6()
    with installed6(cp6, sub):
        dp.wire.drain()
        before = dp.stats()
        dp.wire.send(bytes(up6(sub, dst="2001:db8:dead::9", payload=UDP(sport=4000, dport=9) / Raw(b"x" * 8))))
        assert stat_delta(dp, before, "drop_acl_deny", 1) == 1
        assert not frames_where(dp, lambda p: core_out(p), timeout=0.5)
        dp.wire.send(bytes(up6(sub, dst="2001:db8:dead::9", payload=UDP(sport=4000, dport=10) / Raw(b"x" * 8))))
        assert frames_where(dp, lambda p: core_out(p) and UDP in p and p[UDP].dport == 10)
        # downstream the rule is tried too (direction both), on the packet's own addresses:
        # from 2001:db8:dead::9 to the subscriber is not "to 2001:db8:dead::/48", so it passes
        pkt = IPv6(src="2001:db8:dead::9", dst=wan_addr(sub)) / UDP(sport=5, dport=9) / Raw(b"y" * 8)
        before = dp.stats()
        dp.wire.send(bytes(Ether(src=ROUTER_MAC, dst=CORE_MAC) / pkt))
        assert frames_where(dp, lambda p: access_out(p, sub) and UDP in p and p[UDP].dport == 9)
        assert dp.stats()["acl_down_packets"] > before["acl_down_packets"]
        assert dp.stats()["drop_acl_deny"] == before["drop_acl_deny"]
        # TCP 25 over IPv6 meets the lab's own IPv6 twin of its SMTP rule ([acl.1]), not the
        # IPv4 one: denied and counted; TCP to another port passes
        before = dp.stats()
        dp.wire.send(bytes(up6(sub, payload=TCP(sport=4000, dport=25, flags="S"))))
        assert stat_delta(dp, before, "drop_acl_deny", 1) == 1
        dp.wire.send(bytes(up6(sub, payload=TCP(sport=4000, dport=26, flags="S"))))
        assert frames_where(dp, lambda p: core_out(p) and TCP in p and p[TCP].dport == 26)


# ---- Line Group IE with the IPv6 trailer ----------------------------------------------


def test_adoption_with_ipv6_trailer_announces_and_answers_the_core_ipv6_address(dp, cp6):
    """Adopting standby lg2 with the Line Group IE's IPv6 trailer: bng-dp sends unsolicited
    NAs for the new core IPv6 address from lg2's core MAC and answers NS for it; a release
    stops the answers. A trailer outside subnet6 is refused (64)."""
    lg2_core6, lg2_mac = "2001:db8:64::12", "02:cc:00:00:00:02"
    bad = line_group_value6(1, "lg2", "02:bb:00:00:00:02", lg2_mac, "100.64.0.12", "2001:db8:65::12")
    assert _cause(cp6.association_update(line_group_ie(bad))) == 64
    dp.wire.drain()
    v = line_group_value6(1, "lg2", "02:bb:00:00:00:02", lg2_mac, "100.64.0.12", lg2_core6)
    assert _cause(cp6.association_update(line_group_ie(v))) == 1
    try:
        una = frames_where(
            dp, lambda p: ICMPv6ND_NA in p and p[ICMPv6ND_NA].tgt == lg2_core6 and p[ICMPv6ND_NA].S == 0, timeout=4.0
        )
        assert una, "no unsolicited NA for the adopted group's core IPv6 address"
        assert una[0][Ether].src == lg2_mac and una[0][Ether].dst == "33:33:00:00:00:01"
        assert una[0][IPv6].dst == "ff02::1" and una[0][ICMPv6ND_NA].O == 1
        ns = ICMPv6ND_NS(tgt=lg2_core6) / ICMPv6NDOptSrcLLAddr(lladdr=ROUTER_MAC)
        frame = Ether(src=ROUTER_MAC, dst="33:33:ff:00:00:12") / IPv6(src=ROUTER6, dst="ff02::1:ff00:12", hlim=255) / ns
        dp.wire.drain()
        dp.wire.send(bytes(frame))
        got = frames_where(dp, lambda p: ICMPv6ND_NA in p and p[ICMPv6ND_NA].tgt == lg2_core6 and p[ICMPv6ND_NA].S == 1)
        assert got and got[0][Ether].src == lg2_mac
    finally:
        assert cp6.release_group("lg2") == 1
    dp.wire.drain()
    dp.wire.send(bytes(frame))
    assert not frames_where(
        dp, lambda p: ICMPv6ND_NA in p and p[ICMPv6ND_NA].tgt == lg2_core6 and p[ICMPv6ND_NA].S == 1, timeout=1.0
    )
