"""The independent client's IPv6 codec (ipv6.py) against scapy's own dissectors and
builders: what it encodes scapy reads back field by field (checksums included), and what
scapy builds it decodes. Hostile input never raises."""

from __future__ import annotations

import ipaddress
import os
import random

import pytest
from scapy.layers import dhcp6 as d6
from scapy.layers.inet import TCP, UDP
from scapy.layers.inet6 import (
    ICMPv6DestUnreach,
    ICMPv6EchoRequest,
    ICMPv6ND_NA,
    ICMPv6ND_RA,
    ICMPv6ND_RS,
    ICMPv6NDOptMTU,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptRDNSS,
    ICMPv6PacketTooBig,
    ICMPv6TimeExceeded,
    IPv6,
)

from harness import ipv6 as v6

IID = bytes.fromhex("0211223344556677")
MAC = "02:11:00:00:00:42"
WAN = ipaddress.IPv6Network("2001:db8:100:7::/64")


def test_addresses_from_an_interface_identifier():
    assert str(v6.link_local(IID)) == "fe80::211:2233:4455:6677"
    assert str(v6.slaac(WAN, IID)) == "2001:db8:100:7:211:2233:4455:6677"
    assert v6.iid_of(v6.slaac(WAN, IID)) == IID
    for _ in range(50):
        iid = v6.random_iid()
        assert len(iid) == 8 and any(iid) and not iid[0] & 0x02


def _verified(raw: bytes) -> IPv6:
    """scapy's dissection, its checksum recomputed and compared with ours."""
    pkt = IPv6(raw)
    assert bytes(pkt) == raw
    upper = pkt.payload
    name = "chksum" if "chksum" in upper.fields else "cksum"
    got = upper.getfieldval(name)
    upper.delfieldval(name)
    assert IPv6(bytes(pkt))[type(upper)].getfieldval(name) == got, "checksum differs from scapy's"
    return IPv6(raw)


def test_router_solicitation():
    pkt = _verified(v6.router_solicitation(IID))
    assert (pkt.src, pkt.dst, pkt.hlim, pkt.nh) == ("fe80::211:2233:4455:6677", "ff02::2", 255, 58)
    assert ICMPv6ND_RS in pkt and pkt[ICMPv6ND_RS].code == 0 and not pkt[ICMPv6ND_RS].payload


def test_udp_echo_tcp_and_na():
    src, dst = v6.slaac(WAN, IID), "2001:db8:64::100"
    pkt = _verified(v6.udp6(src, dst, 40000, 9, b"x" * 33, hop_limit=7, tclass=0xB8))
    assert (pkt.hlim, pkt.tc, pkt.plen, pkt[UDP].sport, pkt[UDP].dport, pkt[UDP].len) == (7, 0xB8, 41, 40000, 9, 41)
    assert bytes(pkt[UDP].payload) == b"x" * 33
    pkt = _verified(v6.echo_request(src, dst, 0x1234, 5, b"ping"))
    assert (pkt[ICMPv6EchoRequest].id, pkt[ICMPv6EchoRequest].seq, pkt[ICMPv6EchoRequest].data) == (0x1234, 5, b"ping")
    pkt = _verified(v6.tcp6_syn(src, dst, 40001, 80, mss=1440))
    assert pkt[TCP].flags == "S" and pkt[TCP].options == [("MSS", 1440)]
    pkt = _verified(v6.neighbor_advert(src, "fe80::1", src))
    assert (pkt[ICMPv6ND_NA].S, pkt[ICMPv6ND_NA].O, pkt[ICMPv6ND_NA].R, pkt[ICMPv6ND_NA].tgt) == (1, 1, 0, str(src))


def test_dhcpv6_solicit_with_ia_pd_and_ia_na():
    msg = v6.dhcp6_message(
        v6.SOLICIT,
        0xABCDEF,
        [
            v6.dhcp6_option(v6.O_CLIENTID, v6.duid_ll(MAC)),
            v6.dhcp6_option(v6.O_ELAPSED, b"\0\0"),
            v6.dhcp6_option(v6.O_ORO, b"\0\x17"),
            v6.ia_pd(7),
            v6.ia_na(8),
        ],
    )
    pkt = _verified(v6.dhcp6_client_packet(IID, msg))
    assert (pkt.src, pkt.dst, pkt.hlim, pkt[UDP].sport, pkt[UDP].dport) == (
        "fe80::211:2233:4455:6677",
        "ff02::1:2",
        1,
        546,
        547,
    )
    sol = pkt[d6.DHCP6_Solicit]
    assert sol.trid == 0xABCDEF
    duid = pkt[d6.DHCP6OptClientId].duid
    assert isinstance(duid, d6.DUID_LL) and (duid.hwtype, duid.lladdr) == (1, MAC)
    assert pkt[d6.DHCP6OptOptReq].reqopts == [23]
    assert pkt[d6.DHCP6OptIA_PD].iaid == 7 and pkt[d6.DHCP6OptIA_NA].iaid == 8
    assert pkt[d6.DHCP6OptElapsedTime].elapsedtime == 0


def test_dhcpv6_request_carries_the_leases():
    msg = v6.dhcp6_message(
        v6.REQUEST,
        1,
        [
            v6.dhcp6_option(v6.O_SERVERID, b"\0\3\0\1" + bytes(6)),
            v6.ia_pd(7, 1800, 2880, [v6.Lease("2001:db8:2000:100::/56", 3600, 7200)]),
            v6.ia_na(8, 1800, 2880, [v6.Lease("2001:db8:102:5::1", 3600, 7200)]),
        ],
    )
    pkt = IPv6(v6.dhcp6_client_packet(IID, msg))
    ia = pkt[d6.DHCP6OptIA_PD]
    assert (ia.iaid, ia.T1, ia.T2) == (7, 1800, 2880)
    prefix = ia[d6.DHCP6OptIAPrefix]
    assert (prefix.prefix, prefix.plen, prefix.preflft, prefix.validlft) == ("2001:db8:2000:100::", 56, 3600, 7200)
    addr = pkt[d6.DHCP6OptIA_NA][d6.DHCP6OptIAAddress]
    assert (addr.addr, addr.preflft, addr.validlft) == ("2001:db8:102:5::1", 3600, 7200)


def test_decodes_scapys_router_advertisement():
    ra = (
        IPv6(src="fe80::1", dst="ff02::1", hlim=255)
        / ICMPv6ND_RA(M=1, O=1, routerlifetime=1800, chlim=64, reachabletime=0, retranstimer=0)
        / ICMPv6NDOptPrefixInfo(
            prefix=str(WAN.network_address), prefixlen=64, L=1, A=1, validlifetime=86400, preferredlifetime=14400
        )  # fmt: skip
        / ICMPv6NDOptMTU(mtu=1492)
        / ICMPv6NDOptRDNSS(lifetime=1800, dns=["2001:db8:53::53", "2001:db8:53::54"])
    )
    pkt = v6.parse_ipv6(bytes(ra))
    got = v6.parse_ra(pkt)
    assert got is not None
    assert (str(got.src), got.hop_limit, got.cur_hop_limit, got.managed, got.other, got.router_lifetime) == (
        "fe80::1",
        255,
        64,
        True,
        True,
        1800,
    )
    (p,) = got.prefixes
    assert (p.prefix, p.on_link, p.autonomous, p.valid, p.preferred) == (WAN, True, True, 86400, 14400)
    assert got.mtu == 1492
    assert [str(a) for a in got.rdnss] == ["2001:db8:53::53", "2001:db8:53::54"] and got.rdnss_lifetime == 1800
    # a broken checksum is not a Router Advertisement
    bad = bytearray(bytes(ra))
    bad[42] ^= 0xFF
    assert v6.parse_ra(v6.parse_ipv6(bytes(bad))) is None


def test_decodes_scapys_dhcpv6_advertise_and_reply():
    server = d6.DUID_LLT(lladdr="02:bb:00:00:00:01", timeval=1234)
    adv = (
        d6.DHCP6_Advertise(trid=0x123456)
        / d6.DHCP6OptClientId(duid=d6.DUID_LL(lladdr=MAC))
        / d6.DHCP6OptServerId(duid=server)
        / d6.DHCP6OptIA_PD(
            iaid=7, T1=1800, T2=2880,
            iapdopt=[d6.DHCP6OptIAPrefix(prefix="2001:db8:2000:100::", plen=56, preflft=3600, validlft=7200)],
        )
        / d6.DHCP6OptIA_NA(iaid=8, ianaopts=[d6.DHCP6OptStatusCode(statuscode=2, statusmsg="no addresses")])
        / d6.DHCP6OptDNSServers(dnsservers=["2001:db8:53::53"])
    )  # fmt: skip
    msg = v6.parse_dhcp6(bytes(adv))
    assert (msg.msg_type, msg.xid) == (v6.ADVERTISE, 0x123456)
    assert msg.client_id == v6.duid_ll(MAC) and msg.server_id == bytes(server)
    (pd,) = msg.ia_pd
    assert (pd.iaid, pd.t1, pd.t2, pd.leases) == (7, 1800, 2880, [v6.Lease("2001:db8:2000:100::/56", 3600, 7200)])
    (na,) = msg.ia_na
    assert (na.iaid, na.leases, na.status, na.status_message) == (8, [], v6.STATUS_NO_ADDRS, "no addresses")
    assert [str(a) for a in msg.dns] == ["2001:db8:53::53"]
    reply = d6.DHCP6_Reply(trid=1) / d6.DHCP6OptRapidCommit() / d6.DHCP6OptStatusCode(statuscode=0)
    msg = v6.parse_dhcp6(bytes(reply))
    assert (msg.msg_type, msg.rapid_commit, msg.status) == (v6.REPLY, True, 0)
    # through UDP: the checksum is checked
    wire = IPv6(src="fe80::1", dst=str(v6.link_local(IID))) / UDP(sport=547, dport=546) / adv
    pkt = v6.parse_ipv6(bytes(wire))
    sport, dport, data = v6.udp6_payload(pkt)
    assert (sport, dport, v6.parse_dhcp6(data).xid) == (547, 546, 0x123456)


@pytest.mark.parametrize(
    "layer,icmp_type,value",
    [
        (ICMPv6TimeExceeded(code=0), v6.TIME_EXCEEDED, 0),
        (ICMPv6PacketTooBig(mtu=1492), v6.PACKET_TOO_BIG, 1492),
        (ICMPv6DestUnreach(code=1), v6.DEST_UNREACH, 0),
    ],
)
def test_decodes_scapys_icmpv6_errors(layer, icmp_type, value):
    inner = v6.udp6(v6.slaac(WAN, IID), "2001:db8:64::100", 1, 2, b"q" * 10)
    err = IPv6(src="2001:db8:64::11", dst=str(v6.slaac(WAN, IID))) / layer / inner
    got = v6.parse_icmp6_error(v6.parse_ipv6(bytes(err)))
    assert (str(got.src), got.icmp_type, got.value, got.quoted) == ("2001:db8:64::11", icmp_type, value, inner)


def test_hostile_input_never_raises():
    rng = random.Random(15)
    seeds = [
        bytes(IPV6_RA_SAMPLE),
        bytes(d6.DHCP6_Reply(trid=1) / d6.DHCP6OptIA_PD(iaid=1)),
    ]
    for _ in range(3000):
        base = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 6)):
            op = rng.randrange(3)
            if op == 0 and base:
                base[rng.randrange(len(base))] = rng.randrange(256)
            elif op == 1:
                del base[rng.randrange(len(base) + 1) :]
            else:
                base += os.urandom(rng.randint(1, 20))
        b = bytes(base)
        pkt = v6.parse_ipv6(b)
        if pkt is not None:
            v6.parse_ra(pkt)
            v6.udp6_payload(pkt)
            v6.parse_icmp6_error(pkt)
        v6.parse_dhcp6(b)
        v6.parse_dhcp6(b[40:])


IPV6_RA_SAMPLE = (
    IPv6(src="fe80::1", dst="ff02::1", hlim=255)
    / ICMPv6ND_RA()
    / ICMPv6NDOptPrefixInfo(prefix="2001:db8::", prefixlen=64)
    / ICMPv6NDOptRDNSS(dns=["2001:db8::53"])
)
