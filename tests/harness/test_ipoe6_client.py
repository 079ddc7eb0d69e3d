"""The dual-stack IPoE client (ipoe6_client.py) offline, against a scripted BNG written with
scapy's own layers: every frame the client sends is dissected by scapy and checked against
the RFCs and the IPoE dual-stack contract (QinQ + 0x86DD, link-local and EUI-64 sources,
hop limits, solicited-node destinations, SLLA options, DHCPv6 client id, IAs, server id);
the answers (RA, Advertise/Reply with IA_NA and IA_PD, Rapid Commit, Renew/Rebind/Release
Replies, NA) come from scapy's builders. Wrong answers must show up in the client's
violations; hostile ones must not raise."""

from __future__ import annotations

import ipaddress

import pytest
from scapy.layers import dhcp6 as d6
from scapy.layers.inet import UDP
from scapy.layers.inet6 import (
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6ND_RA,
    ICMPv6ND_RS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptMTU,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptRDNSS,
    ICMPv6NDOptSrcLLAddr,
    IPv6,
)
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether

from harness import ipv6 as v6
from harness.ipoe6_client import (
    IpoeDualClient,
    eui64,
    mac_link_local,
    multicast_mac,
    solicited_node,
)

MAC = "02:49:01:00:00:01"
AC_MAC = "02:bb:00:00:00:01"
STAG, CTAG = 100, 7
BNG_LL = "fe80::bb:ff:fe00:1"  # fe80:: + EUI-64 of 02:bb:00:00:00:01
CLIENT_LL = "fe80::49:1ff:fe00:1"
WAN64 = ipaddress.IPv6Network("2001:db8:180:7::/64")
NA_ADDR = "2001:db8:180:7::1"
PD56 = ipaddress.IPv6Network("2001:db8:2800:700::/56")
SERVER_DUID = d6.DUID_EN(enterprisenum=32473, id=b"\x01\x02\x03\x04\x05\x06\x07\x08")


class ScriptedBng:
    """attach/send_frame like a DP; answers in the sender's thread. Strict: every field of
    the client's frames the RFCs or the contract fix is checked into violations."""

    def __init__(self, rapid_commit: bool = True, mutate=None, outer_tpid: int = 0x8100):
        self.client = None
        self.rapid_commit = rapid_commit
        self.mutate = mutate or (lambda kind, frame: frame)  # tests spoil answers here
        self.outer_tpid = outer_tpid
        self.violations: list[str] = []
        self.seen: list[str] = []
        self.released = False

    def attach(self, client) -> None:
        self.client = client

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.violations.append(what)

    def answer(self, kind: str, ip_packet) -> None:
        outer = Dot1Q(vlan=STAG) if self.outer_tpid == 0x8100 else Dot1AD(vlan=STAG)
        frame = Ether(dst=MAC, src=AC_MAC) / outer / Dot1Q(vlan=CTAG) / ip_packet
        frame = self.mutate(kind, frame)
        if frame is not None:
            self.client.deliver(Ether(bytes(frame)))

    def send_frame(self, raw: bytes) -> None:
        e = Ether(raw)
        tags = [e.getlayer(Dot1AD) or e.getlayer(Dot1Q, 1), e.getlayer(Dot1Q, 2 if e.haslayer(Dot1AD) else 2)]
        self.check(e.src.lower() == MAC, f"source MAC {e.src}")
        outer = e.payload
        self.check(outer.vlan == STAG and outer.payload.vlan == CTAG, f"tags {tags}")
        self.check(outer.payload.type == 0x86DD, f"inner Ethertype {outer.payload.type:#x}")
        ip = e[IPv6]
        self.check(e.dst.lower() in (AC_MAC, multicast_mac(ip.dst)), f"{e.dst} for {ip.dst}")
        if ip.haslayer(ICMPv6ND_RS):
            self.rs(e, ip)
        elif ip.haslayer(ICMPv6ND_NS):
            self.ns(e, ip)
        elif ip.haslayer(UDP) and ip[UDP].dport == 547:
            self.dhcp6(e, ip)
        else:
            self.seen.append("data")

    def rs(self, e, ip) -> None:
        self.seen.append("rs")
        self.check(ip.src == CLIENT_LL and ip.dst == "ff02::2" and ip.hlim == 255, f"RS {ip.src} {ip.dst} {ip.hlim}")
        self.check(e.dst == "33:33:00:00:00:02", f"RS to {e.dst}")
        self.check(ip[ICMPv6NDOptSrcLLAddr].lladdr == MAC, "RS SLLA")
        ra = (
            IPv6(src=BNG_LL, dst="ff02::1", hlim=255)
            / ICMPv6ND_RA(M=1, O=1, routerlifetime=1800)
            / ICMPv6NDOptSrcLLAddr(lladdr=AC_MAC)
            / ICMPv6NDOptMTU(mtu=1500)
            / ICMPv6NDOptPrefixInfo(
                prefix=str(WAN64.network_address), prefixlen=64, L=1, A=1, validlifetime=3600, preferredlifetime=1800
            )
            / ICMPv6NDOptRDNSS(dns=["2001:db8::53"], lifetime=1800)
        )
        self.answer("ra", ra)

    def ns(self, e, ip) -> None:
        self.seen.append("ns")
        ns = ip[ICMPv6ND_NS]
        self.check(ip.hlim == 255, "NS hop limit")
        self.check(ip.dst == str(solicited_node(ns.tgt)), f"NS to {ip.dst} for {ns.tgt}")
        self.check(ip[ICMPv6NDOptSrcLLAddr].lladdr == MAC, "NS SLLA")
        if ns.tgt != BNG_LL:
            return
        na = (
            IPv6(src=BNG_LL, dst=ip.src, hlim=255)
            / ICMPv6ND_NA(R=1, S=1, O=1, tgt=BNG_LL)
            / ICMPv6NDOptDstLLAddr(lladdr=AC_MAC)
        )
        self.answer("na", na)

    def dhcp6(self, e, ip) -> None:
        u = ip[UDP]
        self.check(u.sport == 546 and ip.src == CLIENT_LL and ip.dst == "ff02::1:2", f"DHCPv6 {ip.src}:{u.sport}")
        self.check(e.dst == "33:33:00:01:00:02", f"DHCPv6 to {e.dst}")
        msg = u.payload
        self.check(msg.haslayer(d6.DHCP6OptClientId), "no client id")
        if msg.haslayer(d6.DHCP6OptClientId):
            cid = msg[d6.DHCP6OptClientId].duid
            self.check(isinstance(cid, d6.DUID_LL) and cid.lladdr == MAC, f"client id {cid!r}")
        self.check(msg.haslayer(d6.DHCP6OptElapsedTime), "no elapsed time")
        kind = type(msg).__name__
        self.seen.append(kind)
        opts = [d6.DHCP6OptClientId(duid=d6.DUID_LL(lladdr=MAC)), d6.DHCP6OptServerId(duid=SERVER_DUID)]
        if isinstance(msg, d6.DHCP6_Solicit):
            self.check(not msg.haslayer(d6.DHCP6OptServerId), "Solicit with a server id")
            self.check(msg[d6.DHCP6OptIA_NA].iaid == 1 and msg[d6.DHCP6OptIA_PD].iaid == 2, "IAIDs")
        else:
            self.check(not msg.haslayer(d6.DHCP6OptServerId) or bytes(msg[d6.DHCP6OptServerId].duid)
                       == bytes(SERVER_DUID), "server id")  # fmt: skip
            self.check(isinstance(msg, d6.DHCP6_Rebind) or msg.haslayer(d6.DHCP6OptServerId), f"{kind}: server id")
        if isinstance(msg, d6.DHCP6_Release):
            self.released = True
            self.answer("reply", self._msg(d6.DHCP6_Reply, msg, opts + [d6.DHCP6OptStatusCode(statuscode=0)]))
            return
        ias = [
            d6.DHCP6OptIA_NA(iaid=1, T1=300, T2=480, ianaopts=[
                d6.DHCP6OptIAAddress(addr=NA_ADDR, preflft=1800, validlft=3600)]),
            d6.DHCP6OptIA_PD(iaid=2, T1=300, T2=480, iapdopt=[
                d6.DHCP6OptIAPrefix(prefix=str(PD56.network_address), plen=56, preflft=1800, validlft=3600)]),
            d6.DHCP6OptDNSServers(dnsservers=["2001:db8::53"]),
        ]  # fmt: skip
        if isinstance(msg, d6.DHCP6_Solicit):
            rapid = msg.haslayer(d6.DHCP6OptRapidCommit) and self.rapid_commit
            if rapid:
                self.answer("reply", self._msg(d6.DHCP6_Reply, msg, opts + ias + [d6.DHCP6OptRapidCommit()]))
            else:
                self.answer("advertise", self._msg(d6.DHCP6_Advertise, msg, opts + ias))
        else:
            self.answer("reply", self._msg(d6.DHCP6_Reply, msg, opts + ias))

    @staticmethod
    def _msg(cls, request, opts):
        m = cls(trid=request.trid)
        for o in opts:
            m = m / o
        return IPv6(src=BNG_LL, dst=CLIENT_LL, hlim=255) / UDP(sport=547, dport=546) / m


def client(bng: ScriptedBng, **kw) -> IpoeDualClient:
    return IpoeDualClient(bng, MAC, STAG, CTAG, outer_tpid=bng.outer_tpid, ac_mac=AC_MAC, timeout=0.6, **kw)


def test_eui64_link_local_and_multicast():
    assert eui64(AC_MAC) == bytes.fromhex("00bb00fffe000001")
    assert str(mac_link_local(AC_MAC)) == BNG_LL and str(mac_link_local(MAC)) == CLIENT_LL
    assert str(solicited_node("2001:db8::12:3456")) == "ff02::1:ff12:3456"
    assert multicast_mac("ff02::1:ff12:3456") == "33:33:ff:12:34:56"


@pytest.mark.parametrize("tpid", [0x8100, 0x88A8], ids=["8100", "88a8"])
def test_ra_then_four_message_dhcpv6(tpid):
    bng = ScriptedBng(rapid_commit=False, outer_tpid=tpid)
    c = client(bng)
    b = c.bind6(rapid_commit=True)  # the server ignores Rapid Commit: Advertise + Request
    assert bng.violations == [] and c.violations == [], (bng.violations, c.violations)
    assert bng.seen == ["rs", "DHCP6_Solicit", "DHCP6_Request"]
    ra = b.ra
    assert ra.managed and ra.other and ra.slla == AC_MAC and ra.mtu == 1500 and ra.router_lifetime == 1800
    assert b.wan_prefix == WAN64 and str(b.slaac) == "2001:db8:180:7:49:1ff:fe00:1"
    assert str(b.ia_na) == NA_ADDR and b.address == b.ia_na
    assert b.delegated_prefix == PD56 and str(c.delegated_host(1)) == "2001:db8:2800:700::1"
    assert [str(a) for a in b.dns] == ["2001:db8::53"]
    assert b.server_duid == bytes(SERVER_DUID)


def test_rapid_commit_binds_in_two_messages():
    bng = ScriptedBng(rapid_commit=True)
    c = client(bng)
    b = c.bind6(rapid_commit=True)
    assert bng.violations == [] and c.violations == []
    assert bng.seen == ["rs", "DHCP6_Solicit"] and b.reply.rapid_commit
    assert str(b.ia_na) == NA_ADDR and b.delegated_prefix == PD56


def test_renew_rebind_release():
    bng = ScriptedBng()
    c = client(bng)
    c.bind6(rapid_commit=True)
    assert c.renew6().msg_type == v6.REPLY and str(c.binding6.ia_na) == NA_ADDR
    assert c.rebind6().msg_type == v6.REPLY and c.binding6.delegated_prefix == PD56
    reply = c.release6()
    assert reply is not None and reply.status == 0 and bng.released
    assert c.binding6.delegated_prefix is None and c.binding6.ia_na is None
    assert bng.seen[-3:] == ["DHCP6_Renew", "DHCP6_Rebind", "DHCP6_Release"]
    assert bng.violations == [] and c.violations == []


def test_ns_for_the_routers_link_local():
    bng = ScriptedBng()
    c = client(bng)
    na = c.neighbor_solicit()
    assert bng.violations == [] and c.violations == []
    assert na is not None and str(na.target) == BNG_LL and na.router and na.solicited and na.tlla == AC_MAC
    # no answer for another target: None, not a hang
    assert c.neighbor_solicit("fe80::1", timeout=0.3) is None


def test_traffic_frames_from_the_address_and_the_delegated_prefix():
    bng = ScriptedBng()
    c = client(bng)
    c.bind6(rapid_commit=True)
    for src in (c.binding6.address, c.delegated_host(5)):
        pkt = v6.udp6(src, "2001:db8:ff::2", 40000, 7, b"x")
        e = Ether(c.ipv6_frame(pkt))
        assert e.dst == AC_MAC and e[IPv6].src == str(src) and e[UDP].dport == 7
    assert bng.violations == []


@pytest.mark.parametrize(
    "kind, spoil, found",
    [
        ("ra", lambda f: f.__setitem__(ICMPv6NDOptSrcLLAddr, ICMPv6NDOptSrcLLAddr(lladdr="02:bb:00:00:00:09")) or f,
         "source link-layer address option"),
        ("ra", lambda f: setattr(f[IPv6], "hlim", 64) or f, "hop limit 64"),
        ("ra", lambda f: setattr(f[IPv6], "src", "fe80::1") or f, "not the link-local"),
        ("advertise", lambda f: setattr(f, "src", "02:bb:00:00:00:09") or f, "not ac_mac"),
        ("advertise", lambda f: setattr(f[IPv6], "dst", "fe80::99") or f, "not our link-local"),
        ("na", lambda f: setattr(f[ICMPv6ND_NA], "R", 0) or f, "flags R=False"),
        ("na", lambda f: setattr(f[ICMPv6NDOptDstLLAddr], "lladdr", "02:bb:00:00:00:09") or f,
         "target link-layer address"),
    ],
)  # fmt: skip
def test_wrong_answers_are_violations(kind, spoil, found):
    def mutate(k, frame):
        if k != kind:
            return frame
        return spoil(frame)  # not built yet: scapy computes the checksums afterwards

    bng = ScriptedBng(rapid_commit=False, mutate=mutate)
    c = client(bng)
    if kind == "na":
        c.neighbor_solicit()
    else:
        c.solicit_router()
        c.solicit()
    assert any(found in v for v in c.violations), c.violations


@pytest.mark.parametrize("cut", [0, 1, 14, 22, 40, 44, 60, 70])
def test_hostile_answers_do_not_raise(cut):
    """A truncated RA, NA or DHCPv6 Reply (on the wire: cut short, lengths left as they were)
    is no answer: the client times out cleanly."""

    def mutate(_k, frame):
        raw = bytes(frame)
        return Ether(raw[: 18 + 4 + cut] if 22 + cut < len(raw) else raw[:-1])

    bng = ScriptedBng(rapid_commit=True, mutate=mutate)
    c = client(bng)
    assert c.solicit_router(timeout=0.3) is None
    assert c.solicit(rapid_commit=True, timeout=0.3) is None
    assert c.neighbor_solicit(timeout=0.3) is None
