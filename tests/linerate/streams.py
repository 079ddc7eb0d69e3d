"""Streams of bng-lrgen (tests/linerate/gen/src/streams.h): header templates built from
sessions, and the stream file the generator reads.

A stream is one direction of one session: upstream, a QinQ + PPPoE session + IPv4 + UDP
frame from the subscriber's MAC to its line group's AC MAC with the session's tags and id;
downstream, an untagged IPv4 + UDP frame from the core side to the session's address. The
IPv6 streams (upstream6, downstream6) are the same with PPP protocol 0x0057 and IPv6 +
UDP, from or to an address of the session's /64 or delegated prefix. The generator fills
in the lengths, the IPv4 checksum or the IPv6 UDP checksum and the signature (stream,
sequence number, TSC) of every frame."""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from pathlib import Path

# the lengths of a frame the generator sends, without FCS (streams.c's lr_stream_frame_len)
FCS = 4
SIG_LEN = 16  # magic 2, stream 2, sequence 4, TSC 8
MIN_FRAME = 64
MAX_FRAME = 1518
# QinQ + PPPoE + PPP: what an access frame carries beyond the core frame of the same packet
ACCESS_EXTRA = 16
IMIX = (64, 594, 1518)
IMIX_WEIGHTS = (7, 4, 1)
GROUPS = 4

UDP_DST_PORT = 9  # discard
DSCP_EF = 46


@dataclass(frozen=True)
class Session:
    """A PPPoE session on the access side, as bng-subemu reports it (`/v1/sessions`)."""

    port: str
    stag: int
    ctag: int
    tpid: int
    pppoe_id: int
    mac: str
    ac_mac: str
    address: str


@dataclass(frozen=True)
class Stream:
    tx_port: int
    group: int
    size_adjust: int
    pppoe_off: int
    l3_off: int
    header: bytes


def mac_bytes(mac: str) -> bytes:
    b = bytes.fromhex(mac.replace(":", ""))
    if len(b) != 6:
        raise ValueError(f"bad MAC {mac!r}")
    return b


def ipv4_udp(src: str, dst: str, sport: int, dport: int, dscp: int = 0) -> bytes:
    """IPv4 (no options, TTL 64, lengths and checksum 0: the generator sets them) + UDP."""
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        dscp << 2,
        0,
        0,
        0,
        64,
        17,
        0,
        ipaddress.IPv4Address(src).packed,
        ipaddress.IPv4Address(dst).packed,
    )
    return ip + struct.pack("!HHHH", sport, dport, 0, 0)


def ipv6_udp(src: str, dst: str, sport: int, dport: int, dscp: int = 0) -> bytes:
    """IPv6 (no extension headers, hop limit 64, payload length 0: the generator sets it and the
    UDP length and checksum) + UDP."""
    ip = struct.pack("!IHBB", 6 << 28 | dscp << 22, 0, 17, 64)
    ip += ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed
    return ip + struct.pack("!HHHH", sport, dport, 0, 0)


def upstream6(s: Session, src_ip: str, dst_ip: str, tx_port: int, group: int, sport: int, dscp: int = 0) -> Stream:
    """Upstream IPv6 from src_ip (an address of the session's prefixes) in PPP 0x0057."""
    eth = mac_bytes(s.ac_mac) + mac_bytes(s.mac)
    tags = struct.pack("!HHHH", s.tpid, s.stag, 0x8100, s.ctag)
    pppoe = struct.pack("!HBBHHH", 0x8864, 0x11, 0, s.pppoe_id, 0, 0x0057)
    return Stream(tx_port, group, 0, 22, 30, eth + tags + pppoe + ipv6_udp(src_ip, dst_ip, sport, UDP_DST_PORT, dscp))


def downstream6(
    dst_ip: str, src_mac: str, dst_mac: str, src_ip: str, tx_port: int, group: int, sport: int, dscp: int = 0
) -> Stream:
    """Downstream IPv6 from the core side to dst_ip (an address of a session's prefixes)."""
    hdr = mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x86\xdd" + ipv6_udp(src_ip, dst_ip, sport, UDP_DST_PORT, dscp)
    return Stream(tx_port, group, -ACCESS_EXTRA, -1, 14, hdr)


def upstream(s: Session, dst_ip: str, tx_port: int, group: int, sport: int, dscp: int = 0) -> Stream:
    eth = mac_bytes(s.ac_mac) + mac_bytes(s.mac)
    tags = struct.pack("!HHHH", s.tpid, s.stag, 0x8100, s.ctag)
    pppoe = struct.pack("!HBBHHH", 0x8864, 0x11, 0, s.pppoe_id, 0, 0x0021)
    hdr = eth + tags + pppoe + ipv4_udp(s.address, dst_ip, sport, UDP_DST_PORT, dscp)
    # pppoe header starts after the 0x8864 EtherType: offset 12 + 8 (tags) + 2
    return Stream(tx_port, group, 0, 22, 30, hdr)


def downstream(
    s: Session, src_mac: str, dst_mac: str, src_ip: str, tx_port: int, group: int, sport: int, dscp: int = 0
) -> Stream:
    hdr = mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + ipv4_udp(src_ip, s.address, sport, UDP_DST_PORT, dscp)
    return Stream(tx_port, group, -ACCESS_EXTRA, -1, 14, hdr)


def plain(src_mac: str, dst_mac: str, src_ip: str, dst_ip: str, tx_port: int, group: int, sport: int) -> Stream:
    """An untagged IPv4 + UDP stream of the frame size asked (the generator's own tests)."""
    hdr = mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + ipv4_udp(src_ip, dst_ip, sport, UDP_DST_PORT)
    return Stream(tx_port, group, 0, -1, 14, hdr)


def frame_len(st: Stream, size: int) -> int:
    """Bytes on the wire without FCS for the access-side size asked (streams.c)."""
    n = size + st.size_adjust - FCS
    n = max(n, len(st.header) + SIG_LEN, MIN_FRAME - FCS)
    return min(n, MAX_FRAME - FCS + (ACCESS_EXTRA if st.pppoe_off >= 0 else 0))


def write(path: Path, streams: list[Stream]) -> Path:
    if not streams or len(streams) > 65535:
        raise ValueError(f"{len(streams)} streams: 1..65535")
    lines = ["# id tx_port group size_adjust pppoe_off l3_off header"]
    for i, st in enumerate(streams):
        if not 0 <= st.group < GROUPS:
            raise ValueError(f"stream {i}: group {st.group}")
        lines.append(f"{i} {st.tx_port} {st.group} {st.size_adjust} {st.pppoe_off} {st.l3_off} {st.header.hex()}")
    path.write_text("\n".join(lines) + "\n")
    return path
