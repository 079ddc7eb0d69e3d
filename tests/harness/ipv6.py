"""IPv6 for the independent PPPoE client (pppoe_client.py): the packets a dual-stack CPE
sends and the answers it reads, written here from the RFCs (8200 IPv6, 4443 ICMPv6, 4861
Neighbor Discovery, 8106 RDNSS, 8415 DHCPv6 with IA_PD and IA_NA). Shares nothing with the
CP's Go codec; tests/harness/test_ipv6.py checks the encoders against scapy's dissectors
and the decoders against packets scapy builds.

Every decoder takes hostile input: a short, truncated or inconsistent packet gives None
(or skips the bad option), never an exception."""

from __future__ import annotations

import ipaddress
import os
import struct
from dataclasses import dataclass, field

IPV6_PPP = 0x0057
ICMPV6, UDP, TCP = 58, 17, 6
ALL_NODES = ipaddress.IPv6Address("ff02::1")
ALL_ROUTERS = ipaddress.IPv6Address("ff02::2")
ALL_DHCP = ipaddress.IPv6Address("ff02::1:2")
DHCP_CLIENT_PORT, DHCP_SERVER_PORT = 546, 547
# ICMPv6 types
DEST_UNREACH, PACKET_TOO_BIG, TIME_EXCEEDED, ECHO_REQUEST, ECHO_REPLY = 1, 2, 3, 128, 129
RS, RA, NS, NA = 133, 134, 135, 136
# ND options
OPT_SLLA, OPT_TLLA, OPT_PREFIX, OPT_MTU, OPT_RDNSS = 1, 2, 3, 5, 25
# DHCPv6 messages and options (RFC 8415 7.3, 21)
SOLICIT, ADVERTISE, REQUEST, CONFIRM, RENEW, REBIND, REPLY, RELEASE = 1, 2, 3, 4, 5, 6, 7, 8
O_CLIENTID, O_SERVERID, O_IA_NA, O_IAADDR, O_ORO, O_ELAPSED = 1, 2, 3, 5, 6, 8
O_STATUS, O_RAPID_COMMIT, O_DNS, O_IA_PD, O_IAPREFIX = 13, 14, 23, 25, 26
STATUS_SUCCESS, STATUS_NO_ADDRS, STATUS_NO_BINDING, STATUS_NO_PREFIX = 0, 2, 3, 6


def iid_of(address: ipaddress.IPv6Address) -> bytes:
    return address.packed[8:]


def link_local(iid: bytes) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid)


def slaac(prefix: ipaddress.IPv6Network, iid: bytes) -> ipaddress.IPv6Address:
    """The address of a /64 with an interface identifier (RFC 4862)."""
    return ipaddress.IPv6Address(prefix.network_address.packed[:8] + iid)


def random_iid() -> bytes:
    """A random interface identifier, neither zero nor with the universal/local bit set as
    a universal one would have it (RFC 5072 4.1 suggests a random one)."""
    while True:
        iid = bytearray(os.urandom(8))
        iid[0] &= ~0x02
        if any(iid):
            return bytes(iid)


# -- encoders -----------------------------------------------------------------------------------
def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _pseudo(src, dst, next_header: int, upper: bytes) -> bytes:
    return (
        ipaddress.IPv6Address(src).packed
        + ipaddress.IPv6Address(dst).packed
        + struct.pack("!IxxxB", len(upper), next_header)
        + upper
    )


def ipv6_packet(src, dst, next_header: int, payload: bytes, hop_limit: int = 64, tclass: int = 0) -> bytes:
    head = struct.pack("!IHBB", (6 << 28) | (tclass << 20), len(payload), next_header, hop_limit)
    return head + ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed + payload


def udp6(src, dst, sport: int, dport: int, data: bytes, hop_limit: int = 64, tclass: int = 0) -> bytes:
    """A whole IPv6 packet with a UDP datagram (checksum computed, never zero: RFC 8200 8.1)."""
    udp = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    csum = checksum(_pseudo(src, dst, UDP, udp)) or 0xFFFF
    return ipv6_packet(src, dst, UDP, udp[:6] + struct.pack("!H", csum) + udp[8:], hop_limit, tclass)


def tcp6_syn(src, dst, sport: int, dport: int, mss: int | None = None, hop_limit: int = 64) -> bytes:
    opts = struct.pack("!BBH", 2, 4, mss) if mss else b""
    head_len = 20 + len(opts)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, (head_len // 4) << 4, 0x02, 65535, 0, 0) + opts
    csum = checksum(_pseudo(src, dst, TCP, tcp))
    return ipv6_packet(src, dst, TCP, tcp[:16] + struct.pack("!H", csum) + tcp[18:], hop_limit)


def icmp6(src, dst, icmp_type: int, code: int, body: bytes, hop_limit: int = 255) -> bytes:
    msg = struct.pack("!BBH", icmp_type, code, 0) + body
    csum = checksum(_pseudo(src, dst, ICMPV6, msg))
    return ipv6_packet(src, dst, ICMPV6, msg[:2] + struct.pack("!H", csum) + msg[4:], hop_limit)


def echo_request(src, dst, ident: int, seq: int, data: bytes = b"", hop_limit: int = 64) -> bytes:
    return icmp6(src, dst, ECHO_REQUEST, 0, struct.pack("!HH", ident, seq) + data, hop_limit)


def router_solicitation(iid: bytes) -> bytes:
    """RS from fe80::<iid> to all routers; no source link-layer option (PPP has none)."""
    return icmp6(link_local(iid), ALL_ROUTERS, RS, 0, bytes(4))


def neighbor_advert(src, dst, target, solicited: bool = True) -> bytes:
    flags = (0x40 if solicited else 0) | 0x20  # S, O
    return icmp6(src, dst, NA, 0, struct.pack("!B3x", flags) + ipaddress.IPv6Address(target).packed)


def neighbor_solicit(src, dst, target) -> bytes:
    return icmp6(src, dst, NS, 0, bytes(4) + ipaddress.IPv6Address(target).packed)


def duid_ll(mac: str) -> bytes:
    """DUID-LL (RFC 8415 11.4): type 3, hardware type 1 (Ethernet), the MAC."""
    return struct.pack("!HH", 3, 1) + bytes.fromhex(mac.replace(":", ""))


def dhcp6_option(code: int, value: bytes) -> bytes:
    return struct.pack("!HH", code, len(value)) + value


def ia_pd(iaid: int, t1: int = 0, t2: int = 0, prefixes: list[Lease] = ()) -> bytes:
    body = struct.pack("!III", iaid, t1, t2)
    for p in prefixes:
        net = ipaddress.IPv6Network(p.value)
        body += dhcp6_option(
            O_IAPREFIX, struct.pack("!IIB", p.preferred, p.valid, net.prefixlen) + net.network_address.packed
        )
    return dhcp6_option(O_IA_PD, body)


def ia_na(iaid: int, t1: int = 0, t2: int = 0, addresses: list[Lease] = ()) -> bytes:
    body = struct.pack("!III", iaid, t1, t2)
    for a in addresses:
        body += dhcp6_option(O_IAADDR, ipaddress.IPv6Address(a.value).packed + struct.pack("!II", a.preferred, a.valid))
    return dhcp6_option(O_IA_NA, body)


def dhcp6_message(msg_type: int, xid: int, options: list[bytes]) -> bytes:
    return struct.pack("!I", (msg_type << 24) | (xid & 0xFFFFFF)) + b"".join(options)


def dhcp6_client_packet(iid: bytes, message: bytes, dst=ALL_DHCP) -> bytes:
    """A client message in UDP 546 -> 547 from fe80::<iid>, hop limit 1 (link scope)."""
    return udp6(link_local(iid), dst, DHCP_CLIENT_PORT, DHCP_SERVER_PORT, message, hop_limit=1)


# -- decoders -----------------------------------------------------------------------------------
@dataclass
class Ipv6Packet:
    src: ipaddress.IPv6Address
    dst: ipaddress.IPv6Address
    next_header: int
    hop_limit: int
    tclass: int
    payload: bytes


def parse_ipv6(b: bytes) -> Ipv6Packet | None:
    """An IPv6 packet without extension headers (what a BNG sends); None when malformed."""
    if len(b) < 40 or b[0] >> 4 != 6:
        return None
    vtf, plen, nh, hl = struct.unpack_from("!IHBB", b)
    if 40 + plen > len(b):
        return None
    return Ipv6Packet(
        ipaddress.IPv6Address(b[8:24]),
        ipaddress.IPv6Address(b[24:40]),
        nh,
        hl,
        (vtf >> 20) & 0xFF,
        b[40 : 40 + plen],
    )


def icmp6_valid(pkt: Ipv6Packet) -> bool:
    return (
        pkt.next_header == ICMPV6
        and len(pkt.payload) >= 4
        and checksum(_pseudo(pkt.src, pkt.dst, ICMPV6, pkt.payload)) == 0
    )


def udp6_payload(pkt: Ipv6Packet) -> tuple[int, int, bytes] | None:
    """(source port, destination port, data) of a UDP packet with a correct checksum."""
    if pkt.next_header != UDP or len(pkt.payload) < 8:
        return None
    sport, dport, ulen, csum = struct.unpack_from("!HHHH", pkt.payload)
    if ulen < 8 or ulen > len(pkt.payload) or csum == 0:
        return None
    if checksum(_pseudo(pkt.src, pkt.dst, UDP, pkt.payload[:ulen])) != 0:
        return None
    return sport, dport, pkt.payload[8:ulen]


@dataclass
class PrefixInfo:
    prefix: ipaddress.IPv6Network
    on_link: bool
    autonomous: bool
    valid: int
    preferred: int


@dataclass
class RouterAdvert:
    src: ipaddress.IPv6Address
    dst: ipaddress.IPv6Address
    hop_limit: int  # of the IPv6 header (255 when it comes from the link)
    cur_hop_limit: int
    managed: bool
    other: bool
    router_lifetime: int
    reachable: int
    retrans: int
    prefixes: list[PrefixInfo] = field(default_factory=list)
    mtu: int | None = None
    rdnss: list[ipaddress.IPv6Address] = field(default_factory=list)
    rdnss_lifetime: int | None = None
    slla: str | None = None  # Source Link-Layer Address option (Ethernet: the router's MAC)


def _nd_options(b: bytes):
    off = 0
    while off + 2 <= len(b):
        t, units = b[off], b[off + 1]
        if units == 0 or off + units * 8 > len(b):
            return  # RFC 4861 4.6: a zero length is invalid; stop at a truncated option
        yield t, b[off + 2 : off + units * 8]
        off += units * 8


def parse_ra(pkt: Ipv6Packet) -> RouterAdvert | None:
    if not icmp6_valid(pkt) or pkt.payload[0] != RA or len(pkt.payload) < 16:
        return None
    cur, flags, lifetime, reach, retrans = struct.unpack_from("!BBHII", pkt.payload, 4)
    ra = RouterAdvert(pkt.src, pkt.dst, pkt.hop_limit, cur, bool(flags & 0x80), bool(flags & 0x40), lifetime,
                      reach, retrans)  # fmt: skip
    for t, v in _nd_options(pkt.payload[16:]):
        if t == OPT_PREFIX and len(v) == 30:
            plen, pflags, valid, preferred = struct.unpack_from("!BBII", v)
            if plen <= 128:
                net = ipaddress.IPv6Network((v[14:30], plen), strict=False)
                ra.prefixes.append(PrefixInfo(net, bool(pflags & 0x80), bool(pflags & 0x40), valid, preferred))
        elif t == OPT_SLLA and len(v) == 6 and ra.slla is None:
            ra.slla = v.hex(":")
        elif t == OPT_MTU and len(v) == 6:
            ra.mtu = struct.unpack_from("!I", v, 2)[0]
        elif t == OPT_RDNSS and len(v) >= 22 and (len(v) - 6) % 16 == 0:
            ra.rdnss_lifetime = struct.unpack_from("!I", v, 2)[0]
            ra.rdnss += [ipaddress.IPv6Address(v[i : i + 16]) for i in range(6, len(v), 16)]
    return ra


@dataclass
class NeighborAdvert:
    src: ipaddress.IPv6Address
    dst: ipaddress.IPv6Address
    hop_limit: int
    router: bool
    solicited: bool
    override: bool
    target: ipaddress.IPv6Address
    tlla: str | None = None  # Target Link-Layer Address option


def parse_na(pkt: Ipv6Packet) -> NeighborAdvert | None:
    if not icmp6_valid(pkt) or pkt.payload[0] != NA or len(pkt.payload) < 24:
        return None
    flags = pkt.payload[4]
    na = NeighborAdvert(pkt.src, pkt.dst, pkt.hop_limit, bool(flags & 0x80), bool(flags & 0x40), bool(flags & 0x20),
                        ipaddress.IPv6Address(pkt.payload[8:24]))  # fmt: skip
    for t, v in _nd_options(pkt.payload[24:]):
        if t == OPT_TLLA and len(v) == 6 and na.tlla is None:
            na.tlla = v.hex(":")
    return na


@dataclass
class Lease:
    """An IA_PD prefix ("2001:db8:200:100::/56") or an IA_NA address, with lifetimes."""

    value: str
    preferred: int = 0
    valid: int = 0


@dataclass
class Ia:
    iaid: int
    t1: int
    t2: int
    leases: list[Lease] = field(default_factory=list)
    status: int | None = None
    status_message: str = ""


@dataclass
class Dhcp6Message:
    msg_type: int
    xid: int
    options: list[tuple[int, bytes]]
    client_id: bytes | None = None
    server_id: bytes | None = None
    ia_pd: list[Ia] = field(default_factory=list)
    ia_na: list[Ia] = field(default_factory=list)
    dns: list[ipaddress.IPv6Address] = field(default_factory=list)
    status: int | None = None
    status_message: str = ""
    rapid_commit: bool = False

    def option(self, code: int) -> bytes | None:
        return next((v for c, v in self.options if c == code), None)


def _dhcp6_options(b: bytes) -> list[tuple[int, bytes]] | None:
    out, off = [], 0
    while off + 4 <= len(b):
        code, ln = struct.unpack_from("!HH", b, off)
        if off + 4 + ln > len(b):
            return None
        out.append((code, b[off + 4 : off + 4 + ln]))
        off += 4 + ln
    return out if off == len(b) else None


def _status(v: bytes) -> tuple[int, str] | None:
    if len(v) < 2:
        return None
    return struct.unpack_from("!H", v)[0], v[2:].decode("utf-8", "replace")


def _ia(v: bytes, pd: bool) -> Ia | None:
    if len(v) < 12:
        return None
    iaid, t1, t2 = struct.unpack_from("!III", v)
    sub = _dhcp6_options(v[12:])
    if sub is None:
        return None
    ia = Ia(iaid, t1, t2)
    for code, sv in sub:
        if pd and code == O_IAPREFIX and len(sv) >= 25:
            preferred, valid, plen = struct.unpack_from("!IIB", sv)
            if plen <= 128:
                net = ipaddress.IPv6Network((sv[9:25], plen), strict=False)
                ia.leases.append(Lease(str(net), preferred, valid))
        elif not pd and code == O_IAADDR and len(sv) >= 24:
            preferred, valid = struct.unpack_from("!II", sv, 16)
            ia.leases.append(Lease(str(ipaddress.IPv6Address(sv[:16])), preferred, valid))
        elif code == O_STATUS and (st := _status(sv)) is not None:
            ia.status, ia.status_message = st
    return ia


def parse_dhcp6(b: bytes) -> Dhcp6Message | None:
    if len(b) < 4:
        return None
    head = struct.unpack_from("!I", b)[0]
    opts = _dhcp6_options(b[4:])
    if opts is None:
        return None
    msg = Dhcp6Message(head >> 24, head & 0xFFFFFF, opts)
    for code, v in opts:
        if code == O_CLIENTID:
            msg.client_id = v
        elif code == O_SERVERID:
            msg.server_id = v
        elif code in (O_IA_PD, O_IA_NA):
            ia = _ia(v, code == O_IA_PD)
            if ia is not None:
                (msg.ia_pd if code == O_IA_PD else msg.ia_na).append(ia)
        elif code == O_DNS and len(v) % 16 == 0:
            msg.dns += [ipaddress.IPv6Address(v[i : i + 16]) for i in range(0, len(v), 16)]
        elif code == O_STATUS and (st := _status(v)) is not None:
            msg.status, msg.status_message = st
        elif code == O_RAPID_COMMIT:
            msg.rapid_commit = True
    return msg


@dataclass
class Icmp6Error:
    """An ICMPv6 error (Time Exceeded, Packet Too Big ...) and the packet it quotes."""

    src: ipaddress.IPv6Address
    icmp_type: int
    code: int
    value: int  # MTU of a Packet Too Big, pointer of a Parameter Problem
    quoted: bytes


def parse_icmp6_error(pkt: Ipv6Packet) -> Icmp6Error | None:
    if not icmp6_valid(pkt) or pkt.payload[0] >= 128 or len(pkt.payload) < 8:
        return None
    t, c, _csum, value = struct.unpack_from("!BBHI", pkt.payload)
    return Icmp6Error(pkt.src, t, c, value, pkt.payload[8:])
