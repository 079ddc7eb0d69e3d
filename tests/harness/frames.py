"""Frames of the lab's dp1 instance, as its subscribers, core router and CP see them.

dp1 (topology/tests/golden/lab/dp/dp1.ini): line group lg1, AC MAC 02:bb:00:00:00:01,
core address 100.64.0.11 with core MAC 02:cc:00:00:00:01, pool 100.80.0.0/22, lines
S-tag 100-149 with any C-tag on access1 (downstream TPID 0x8100); the core router is
100.64.0.1 on the untagged core side. Its default QoS profile is silver (upstream DSCP
re-marked to 0); gold keeps the marking and maps DSCP 46 to class 0, 34/36 to class 2."""

from __future__ import annotations

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPP, PPPoE, PPPoED
from scapy.packet import Packet, Raw

from .pfcp_cp import Sub

AC_MAC = "02:bb:00:00:00:01"
CORE_MAC = "02:cc:00:00:00:01"
CORE_ADDR = "100.64.0.11"
ROUTER_ADDR = "100.64.0.1"
ROUTER_MAC = "02:ee:00:00:00:01"
INTERNET = "198.51.100.7"
VNI = 1  # dp1's instance id

__all__ = [
    "ARP", "ICMP", "IP", "PPP", "TCP", "UDP", "Dot1AD", "Dot1Q", "Ether", "PPPoE", "PPPoED",
    "Raw", "Sub",
]  # fmt: skip


def access(sub: Sub, payload: Packet, *, outer: int = 0x8100, src: str | None = None) -> Packet:
    """A subscriber's frame: QinQ (outer TPID `outer`) + PPPoE session + `payload`."""
    tag = Dot1Q(vlan=sub.stag) if outer == 0x8100 else Dot1AD(vlan=sub.stag)
    return Ether(src=src or sub.mac, dst=AC_MAC) / tag / Dot1Q(vlan=sub.ctag) / PPPoE(sessionid=sub.sid) / payload


def up_ipv4(sub: Sub, inner: Packet | None = None, *, outer: int = 0x8100, size: int | None = None, **ip) -> Packet:
    """An upstream IPv4 packet of `sub` towards the Internet; size = IPv4 total length."""
    ip.setdefault("src", sub.ipv4)
    ip.setdefault("dst", INTERNET)
    inner = inner if inner is not None else UDP(sport=4000, dport=53) / Raw(b"q" * 32)
    pkt = IP(**ip) / inner
    if size is not None:
        pkt = pkt / Raw(b"u" * (size - len(pkt)))
    return access(sub, PPP(proto=0x0021) / pkt, outer=outer)


def core_ipv4(dst: str, inner: Packet | None = None, size: int | None = None, **ip) -> Packet:
    """A core frame from the router towards a subscriber address; size = IPv4 total length."""
    ip.setdefault("src", INTERNET)
    inner = inner if inner is not None else UDP(sport=53, dport=4000) / Raw(b"a" * 32)
    pkt = IP(dst=dst, **ip) / inner
    if size is not None:
        pkt = pkt / Raw(b"p" * (size - len(pkt)))
    return Ether(src=ROUTER_MAC, dst=CORE_MAC) / pkt


def arp_reply_from_router() -> Packet:
    arp = ARP(op=2, hwsrc=ROUTER_MAC, psrc=ROUTER_ADDR, hwdst=CORE_MAC, pdst=CORE_ADDR)
    return Ether(src=ROUTER_MAC, dst=CORE_MAC) / arp


def arp_request_for(addr: str, src_ip: str = ROUTER_ADDR, src_mac: str = ROUTER_MAC) -> Packet:
    return Ether(src=src_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
        op=1, hwsrc=src_mac, psrc=src_ip, hwdst="00:00:00:00:00:00", pdst=addr
    )


def padi(mac: str, stag: int = 100, ctag: int = 7, host_uniq: bytes = b"hu") -> Packet:
    tags = b"\x01\x01\x00\x00" + b"\x01\x03" + len(host_uniq).to_bytes(2, "big") + host_uniq
    return Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=stag) / Dot1Q(vlan=ctag) / PPPoED(code=0x09) / Raw(tags)


def padr(mac: str, stag: int = 100, ctag: int = 7, host_uniq: bytes = b"hu") -> Packet:
    tags = b"\x01\x01\x00\x00" + b"\x01\x03" + len(host_uniq).to_bytes(2, "big") + host_uniq
    return Ether(src=mac, dst=AC_MAC) / Dot1Q(vlan=stag) / Dot1Q(vlan=ctag) / PPPoED(code=0x19) / Raw(tags)


def lcp(sub: Sub, code: int, ident: int, magic: int, data: bytes = b"") -> Packet:
    body = bytes([code, ident]) + (8 + len(data)).to_bytes(2, "big") + magic.to_bytes(4, "big") + data
    return access(sub, PPP(proto=0xC021) / Raw(body))


def parse(frame: bytes) -> Packet:
    return Ether(frame)


def is_router_arp_request(p: Packet) -> bool:
    return ARP in p and p[ARP].op == 1 and p[ARP].pdst == ROUTER_ADDR


def lcp_code(p: Packet) -> int | None:
    """The LCP code of an access frame carrying LCP, else None."""
    if PPP not in p or p[PPP].proto != 0xC021:
        return None
    body = bytes(p[PPP].payload)
    return body[0] if body else None
