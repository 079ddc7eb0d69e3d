#!/usr/bin/env python3
"""Sessions and traffic shared by both sides of `make bench-dp` (bng-dp and the
ip_pipeline baseline). Everything is a pure function of the session count N and
the frame index k, so a C bench can rebuild it bit for bit (see docs/benchmarks.md,
"Shared sessions and traffic"); this file is the reference.

Sessions (N = 4096 or 65536, i = 0 .. N-1):
    subport  s = i >> 12              (4096 sessions a subport, 16 subports at 64K)
    pipe     j = i & 4095             (pipe inside the subport; also the access port's
                                       subscriber number)
    S-tag      100 + (i >> 11)        (two S-tags a subport: 2048 C-tags each)
    C-tag      100 + (i & 2047)       (100 .. 2147)
    PPPoE id   1 + j                  (1 .. 4096, unique inside an access port)
    MAC        02:10:00:ii:ii:ii      (the low 24 bits of i, big-endian)
    IPv4       100.80.1.0 + i         (pool 100.80.0.0/15; 64K sessions fill exactly
                                       256 /24s, 100.80.1.0 .. 100.81.0.255)
Access port s carries subport s. Every session uses QoS profile "gold".

Frames come from one splitmix64 stream per direction (seed 1 downstream, 2
upstream); frame k draws a = next() then b = next():
    session    i = a % N
    UDP ports  source 1024 + ((b >> 32) % 64512), destination 5001
    DSCP       downstream only, c = b % 20: c == 0 -> 46 (EF), c in 1..3 -> 34
               (AF41), else (0, 8, 10, 18)[c % 4] (best effort); upstream DSCP 0
    IPv4 id    k & 0xffff, TTL 64, no options, no DF, header checksum set,
               UDP checksum 0, payload zero bytes

Downstream frame (core side, 504 bytes without FCS):
    Ethernet 02:ee:00:00:00:01 (core router) -> 02:cc:00:00:00:01 (the line group's
    core MAC), type 0x0800; IPv4 198.18.0.1 -> session address; UDP.
Upstream frame (access side, 128 bytes without FCS):
    Ethernet client MAC -> 02:bb:00:00:00:01 (AC MAC), S-tag TPID 0x88a8, C-tag
    TPID 0x8100 (PCP 0, DEI 0), PPPoE session (0x8864, ver 1 type 1 code 0, the
    session id, length = 128 - 14 - 8 - 6), PPP 0x0021, IPv4 session address ->
    198.18.0.1; UDP.
Core side: subnet 192.0.2.0/24, router 192.0.2.1 (MAC 02:ee:00:00:00:01), the line
group's core address 192.0.2.2 (MAC 02:cc:00:00:00:01).

IPv6 (bng-dp only; ip_pipeline has no IPv6 vBNG to compare with): session i also has
the /64 2001:db8:100:i::/64 (WAN pool 2001:db8:100::/48) and the /56 with bits 40..55
= i of the PD pool 2001:db8:200::/40 (2001:db8:2HH:LL00::/56, HH LL the bytes of i);
core subnet6 2001:db8:64::/64, router ::1, core address ::2. Frames draw a, b as above
plus c = next(): the session i = a % N, the address inside its /64 (::1) when c is even,
else inside its /56 (the /64 number 0x42 of it, host ::5). Downstream (504 bytes):
Ethernet as IPv4 with type 0x86dd, IPv6 2001:db8:ffff::1 -> that address, traffic
class = the DSCP above << 2, hop limit 64; UDP (checksum set). Upstream (128 bytes):
the IPv4 access header with PPP 0x0057, IPv6 from that address to 2001:db8:ffff::1.

IPoE (bng-dp only; issue 19): the same sessions as IPoE subscribers (bench_dp --ipoe),
the line group allowing IPoE with the gateway 100.80.0.1/15 (bng_dp_ipoe_N.ini).
Upstream (120 bytes): the same IPv4 packet as PPPoE's (98 bytes, the same random
draws) behind Ethernet client MAC -> AC MAC, S-tag 0x88a8, C-tag 0x8100, type 0x0800
(up_ipoe_N.pcap). Downstream frames are the IPv4 ones above (down_N.pcap).

usage: vbng_traffic.py OUTDIR [--sessions N ...] [--frames K] [--check]
writes, per N: sessions_N.csv, down_N.pcap, up_N.pcap, bng_dp_N.ini, for IPv6
down6_N.pcap, up6_N.pcap, bng_dp6_N.ini, for IPoE up_ipoe_N.pcap, bng_dp_ipoe_N.ini, and
for IPoE IPv6 up6_ipoe_N.pcap, bng_dp6_ipoe_N.ini
"""

from __future__ import annotations

import argparse
import os
import struct
import sys

MASK64 = (1 << 64) - 1
SUBPORT_SESSIONS = 4096
SEED_DOWN = 1
SEED_UP = 2
DOWN_FRAME_LEN = 504
UP_FRAME_LEN = 128
DEFAULT_FRAMES = 1 << 18

POOL = "100.80.0.0/15"
POOL_FIRST = (100 << 24) | (80 << 16) | 256  # 100.80.1.0
SERVER_IP = (198 << 24) | (18 << 16) | 1  # 198.18.0.1, behind the core router
ROUTER_IP = "192.0.2.1"
CORE_IP = "192.0.2.2"
ROUTER_MAC = bytes.fromhex("02ee00000001")
CORE_MAC = bytes.fromhex("02cc00000001")
AC_MAC = bytes.fromhex("02bb00000001")
DATA_MAC = bytes.fromhex("020000000001")
UDP_DPORT = 5001
BE_DSCPS = (0, 8, 10, 18)

# QoS profile "gold" of the lab pod (tests/fixtures/lab_dp4.ini), used by every session.
GOLD = {
    "down_rate": 100_000_000,  # bit/s, pipe rate
    "up_pir": 50_000_000,
    "up_cir": 20_000_000,
    "default_tc": 12,
    "dscp_map": {34: 2, 36: 2, 46: 0},
    "tc_rates": {0: 2_000_000},
    "be_weights": (4, 2, 1, 1),
}
PORT_RATE = 100_000_000_000  # bit/s: HQoS port and every access port (never the bottleneck)


class SplitMix64:
    """splitmix64 (Steele, Lea, Flood 2014): state += golden gamma, then mix."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def ip_str(a: int) -> str:
    return ".".join(str((a >> s) & 0xFF) for s in (24, 16, 8, 0))


def mac_str(m: bytes) -> str:
    return ":".join(f"{b:02x}" for b in m)


class Session:
    __slots__ = ("i", "subport", "pipe", "stag", "ctag", "sid", "mac", "ip")

    def __init__(self, i: int) -> None:
        self.i = i
        self.subport = i >> 12
        self.pipe = i & (SUBPORT_SESSIONS - 1)
        self.stag = 100 + (i >> 11)
        self.ctag = 100 + (i & 2047)
        self.sid = 1 + self.pipe
        self.mac = bytes((0x02, 0x10, 0x00, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF))
        self.ip = POOL_FIRST + i


def sessions(n: int) -> list[Session]:
    if n <= 0 or n % SUBPORT_SESSIONS or n > 65536:
        raise ValueError(f"sessions must be a multiple of {SUBPORT_SESSIONS} up to 65536, not {n}")
    return [Session(i) for i in range(n)]


def ipv4_checksum(hdr: bytes) -> int:
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_udp(src: int, dst: int, dscp: int, ident: int, total: int, sport: int) -> bytes:
    hdr = struct.pack("!BBHHHBBHII", 0x45, dscp << 2, total, ident, 0, 64, 17, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", ipv4_checksum(hdr)) + hdr[12:]
    udp = struct.pack("!HHHH", sport, UDP_DPORT, total - 20, 0)
    return hdr + udp + bytes(total - 28)


def down_dscp(b: int) -> int:
    c = b % 20
    if c == 0:
        return 46
    if c <= 3:
        return 34
    return BE_DSCPS[c % 4]


def down_frames(sess: list[Session], count: int):
    """Yield the downstream frames k = 0 .. count-1."""
    rng = SplitMix64(SEED_DOWN)
    eth = CORE_MAC + ROUTER_MAC + b"\x08\x00"
    n = len(sess)
    for k in range(count):
        a, b = rng.next(), rng.next()
        s = sess[a % n]
        sport = 1024 + ((b >> 32) % 64512)
        yield eth + ipv4_udp(SERVER_IP, s.ip, down_dscp(b), k & 0xFFFF, DOWN_FRAME_LEN - 14, sport)


def up_frames(sess: list[Session], count: int):
    """Yield the upstream frames k = 0 .. count-1."""
    rng = SplitMix64(SEED_UP)
    n = len(sess)
    ip_total = UP_FRAME_LEN - 30
    for k in range(count):
        a, b = rng.next(), rng.next()
        s = sess[a % n]
        sport = 1024 + ((b >> 32) % 64512)
        l2 = (
            AC_MAC
            + s.mac
            + struct.pack("!HHHHHBBHHH", 0x88A8, s.stag, 0x8100, s.ctag, 0x8864, 0x11, 0, s.sid, ip_total + 2, 0x0021)
        )
        yield l2 + ipv4_udp(s.ip, SERVER_IP, 0, k & 0xFFFF, ip_total, sport)


def up_ipoe_frames(sess: list[Session], count: int):
    """Yield the IPoE upstream frames k = 0 .. count-1: up_frames()' IPv4 packets behind
    QinQ + Ethernet instead of QinQ + PPPoE + PPP."""
    rng = SplitMix64(SEED_UP)
    n = len(sess)
    ip_total = UP_FRAME_LEN - 30
    for k in range(count):
        a, b = rng.next(), rng.next()
        s = sess[a % n]
        sport = 1024 + ((b >> 32) % 64512)
        l2 = AC_MAC + s.mac + struct.pack("!HHHHH", 0x88A8, s.stag, 0x8100, s.ctag, 0x0800)
        yield l2 + ipv4_udp(s.ip, SERVER_IP, 0, k & 0xFFFF, ip_total, sport)


def bng_dp_ipoe_ini(n: int) -> str:
    """bng_dp_ini() with IPoE allowed on the line group (gateway 100.80.0.1 of the pool)."""
    out = []
    for line in bng_dp_ini(n).split("\n"):
        out.append(line)
        if line == "[line_group.0]":
            out += ["session_types = pppoe ipoe", "ipoe_gateways = 100.80.0.1/15", "ipoe_proxy_arp = yes"]
    return "\n".join(out)


SERVER6 = bytes.fromhex("20010db8ffff00000000000000000001")  # 2001:db8:ffff::1


def wan6(i: int) -> bytes:
    """The session's /64 (8 bytes) with host ::1."""
    return bytes.fromhex("20010db80100") + i.to_bytes(2, "big") + (1).to_bytes(8, "big")


def lan6(i: int) -> bytes:
    """Inside the session's /56: its /64 number 0x42, host ::5."""
    return bytes.fromhex("20010db802") + i.to_bytes(2, "big") + b"\x42" + (5).to_bytes(8, "big")


def ipv6_udp(src: bytes, dst: bytes, dscp: int, total: int, sport: int) -> bytes:
    plen = total - 40
    vtf = (6 << 28) | ((dscp << 2) << 20)
    hdr = struct.pack("!IHBB", vtf, plen, 17, 64) + src + dst
    udp = struct.pack("!HHHH", sport, UDP_DPORT, plen, 0)
    payload = bytes(plen - 8)
    ph = src + dst + struct.pack("!IxxxB", plen, 17)
    data = ph + udp + payload
    csum = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while csum >> 16:
        csum = (csum & 0xFFFF) + (csum >> 16)
    csum = (~csum & 0xFFFF) or 0xFFFF
    return hdr + udp[:6] + struct.pack("!H", csum) + payload


def down6_frames(sess: list[Session], count: int):
    rng = SplitMix64(SEED_DOWN)
    eth = CORE_MAC + ROUTER_MAC + b"\x86\xdd"
    n = len(sess)
    for _ in range(count):
        a, b, c = rng.next(), rng.next(), rng.next()
        s = sess[a % n]
        dst = wan6(s.i) if c % 2 == 0 else lan6(s.i)
        sport = 1024 + ((b >> 32) % 64512)
        yield eth + ipv6_udp(SERVER6, dst, down_dscp(b), DOWN_FRAME_LEN - 14, sport)


def up6_frames(sess: list[Session], count: int):
    rng = SplitMix64(SEED_UP)
    n = len(sess)
    ip_total = UP_FRAME_LEN - 30
    for _ in range(count):
        a, b, c = rng.next(), rng.next(), rng.next()
        s = sess[a % n]
        src = wan6(s.i) if c % 2 == 0 else lan6(s.i)
        sport = 1024 + ((b >> 32) % 64512)
        l2 = (
            AC_MAC
            + s.mac
            + struct.pack("!HHHHHBBHHH", 0x88A8, s.stag, 0x8100, s.ctag, 0x8864, 0x11, 0, s.sid, ip_total + 2, 0x0057)
        )
        yield l2 + ipv6_udp(src, SERVER6, 0, ip_total, sport)


def up6_ipoe_frames(sess: list[Session], count: int):
    """IPoE IPv6 (dual stack over IPoE): up6_frames()' IPv6 packets behind QinQ + Ethernet
    (0x86dd) instead of QinQ + PPPoE + PPP."""
    rng = SplitMix64(SEED_UP)
    n = len(sess)
    ip_total = UP_FRAME_LEN - 30
    for _ in range(count):
        a, b, c = rng.next(), rng.next(), rng.next()
        s = sess[a % n]
        src = wan6(s.i) if c % 2 == 0 else lan6(s.i)
        sport = 1024 + ((b >> 32) % 64512)
        l2 = AC_MAC + s.mac + struct.pack("!HHHHH", 0x88A8, s.stag, 0x8100, s.ctag, 0x86DD)
        yield l2 + ipv6_udp(src, SERVER6, 0, ip_total, sport)


def bng_dp6_ipoe_ini(n: int) -> str:
    """bng_dp6_ini() with IPoE allowed on the line group, as bng_dp_ipoe_ini()."""
    out = []
    for line in bng_dp6_ini(n).split("\n"):
        out.append(line)
        if line == "[line_group.0]":
            out += ["session_types = pppoe ipoe", "ipoe_gateways = 100.80.0.1/15", "ipoe_proxy_arp = yes"]
    return "\n".join(out)


def bng_dp6_ini(n: int) -> str:
    """bng_dp_ini() with the IPv6 keys: the core subnet6, router, core address and pools."""
    out = []
    for line in bng_dp_ini(n).split("\n"):
        out.append(line)
        if line == "[core]":
            out += ["subnet6 = 2001:db8:64::/64", "router_address6 = 2001:db8:64::1"]
        elif line == "[line_group.0]":
            out += ["core_address6 = 2001:db8:64::2", "prefixes6 = 2001:db8:100::/48:64 2001:db8:200::/40:56"]
    return "\n".join(out)


def write_pcap(path: str, frames, snaplen: int = 65535) -> int:
    """Classic pcap, Ethernet; frames longer than snaplen are stored truncated (the
    record keeps the original length), as tcpdump -s would."""
    n = 0
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        for k, fr in enumerate(frames):
            cap = fr[:snaplen]
            f.write(struct.pack("<IIII", k // 1_000_000, k % 1_000_000, len(cap), len(fr)))
            f.write(cap)
            n += 1
    os.replace(path + ".tmp", path)
    return n


def write_sessions_csv(path: str, sess: list[Session]) -> None:
    with open(path, "w") as f:
        f.write("i,subport,pipe,stag,ctag,pppoe_sid,mac,ipv4\n")
        for s in sess:
            f.write(f"{s.i},{s.subport},{s.pipe},{s.stag},{s.ctag},{s.sid},{mac_str(s.mac)},{ip_str(s.ip)}\n")


def bng_dp_ini(n: int) -> str:
    """A bng-dp instance configuration (docs/config-formats.md) serving the session set."""
    subports = n // SUBPORT_SESSIONS
    g = GOLD
    out = [
        f"; bench-dp instance: {n} sessions, written by server-dp/bench/vbng_traffic.py",
        "[instance]",
        "id = 1",
        "name = bench",
        "pod = bench",
        f"data_mac = {mac_str(DATA_MAC)}",
        "worker_cores = 1",
        f"port_rate = {PORT_RATE}",
        "control_address = 10.200.0.2",
        "control_prefix_len = 24",
        "cp_address = 10.200.0.1",
        "pfcp_port = 8805",
        "vxlan_port = 4789",
        f"access_ports = {subports}",
        "line_groups = 1",
        f"lines = {2 * subports}",
        "qos_profiles = 1",
        "acl_rules = 0",
        "routes = 0",
        "",
        "[core]",
        "subnet = 192.0.2.0/24",
        f"router_address = {ROUTER_IP}",
        "vlan = 0",
        "",
    ]
    for s in range(subports):
        out += [f"[access_port.{s}]", f"name = access{s}", "tpid = 0x88a8", f"rate = {PORT_RATE}", ""]
    out += [
        "[line_group.0]",
        "name = lg0",
        f"ac_mac = {mac_str(AC_MAC)}",
        f"core_address = {CORE_IP}",
        f"core_mac = {mac_str(CORE_MAC)}",
        f"prefixes = {POOL}",
        "qos_profile = gold",
        "",
    ]
    for line in range(2 * subports):
        stag = 100 + line
        out += [
            f"[line.{line}]",
            "group = lg0",
            f"access_port = access{line // 2}",
            f"stag = {stag}-{stag}",
            "ctag = 100-2147",
            "",
        ]
    dscp_map = " ".join(f"{d}:{t}" for d, t in sorted(g["dscp_map"].items()))
    tc_rates = " ".join(f"{t}:{r}" for t, r in sorted(g["tc_rates"].items()))
    out += [
        "[qos_profile.0]",
        "name = gold",
        f"down_rate = {g['down_rate']}",
        f"up_pir = {g['up_pir']}",
        f"up_cir = {g['up_cir']}",
        "up_dscp = keep",
        f"default_tc = {g['default_tc']}",
        f"dscp_map = {dscp_map}",
        f"tc_rates = {tc_rates}",
        "be_weights = " + " ".join(str(w) for w in g["be_weights"]),
        "",
    ]
    return "\n".join(out)


def check(outdir: str, n: int, count: int) -> None:
    """Parse the first frames back with scapy and compare with the session set."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
    from scapy.layers.ppp import PPP, PPPoE
    from scapy.utils import rdpcap

    sess = sessions(n)
    by_ip = {s.ip: s for s in sess}
    m = min(count, 2000)
    down = rdpcap(os.path.join(outdir, f"down_{n}.pcap"), count=m)
    for p in down:
        assert len(p) == DOWN_FRAME_LEN and p[Ether].dst == mac_str(CORE_MAC)
        ip = p[IP]
        q = IP(bytes(ip))
        q.chksum = None
        assert IP(bytes(q)).chksum == ip.chksum
        assert int.from_bytes(bytes(ip)[16:20], "big") in by_ip and ip.len == DOWN_FRAME_LEN - 14
        assert (ip.tos >> 2) in (0, 8, 10, 18, 34, 46) and p[UDP].dport == UDP_DPORT
    up = rdpcap(os.path.join(outdir, f"up_{n}.pcap"), count=m)
    for p in up:
        assert len(p) == UP_FRAME_LEN and p[Ether].type == 0x88A8
        s = by_ip[int.from_bytes(bytes(p[IP])[12:16], "big")]
        assert p[Dot1AD].vlan == s.stag and p[Dot1Q].vlan == s.ctag and p[Ether].src == mac_str(s.mac)
        assert p[PPPoE].sessionid == s.sid and p[PPPoE].len == UP_FRAME_LEN - 14 - 8 - 6
        assert p[PPP].proto == 0x0021 and p[IP].len == UP_FRAME_LEN - 30
    hits = {int.from_bytes(bytes(p[IP])[16:20], "big") for p in down}
    print(f"check {n}: {m} frames each way parse; {len(hits)} distinct sessions in the first {m} downstream")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--sessions", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames per pcap (default 2^18)")
    ap.add_argument("--snaplen", type=int, default=65535, help="store frames truncated to this length")
    ap.add_argument("--check", action="store_true", help="parse the output back with scapy")
    args = ap.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    for n in args.sessions:
        sess = sessions(n)
        write_sessions_csv(os.path.join(args.outdir, f"sessions_{n}.csv"), sess)
        with open(os.path.join(args.outdir, f"bng_dp_{n}.ini"), "w") as f:
            f.write(bng_dp_ini(n))
        sfx = "" if args.snaplen >= 65535 else f".snap{args.snaplen}"
        write_pcap(os.path.join(args.outdir, f"down_{n}{sfx}.pcap"), down_frames(sess, args.frames), args.snaplen)
        write_pcap(os.path.join(args.outdir, f"up_{n}{sfx}.pcap"), up_frames(sess, args.frames), args.snaplen)
        with open(os.path.join(args.outdir, f"bng_dp6_{n}.ini"), "w") as f:
            f.write(bng_dp6_ini(n))
        write_pcap(os.path.join(args.outdir, f"down6_{n}.pcap"), down6_frames(sess, args.frames))
        write_pcap(os.path.join(args.outdir, f"up6_{n}.pcap"), up6_frames(sess, args.frames))
        with open(os.path.join(args.outdir, f"bng_dp_ipoe_{n}.ini"), "w") as f:
            f.write(bng_dp_ipoe_ini(n))
        write_pcap(os.path.join(args.outdir, f"up_ipoe_{n}{sfx}.pcap"), up_ipoe_frames(sess, args.frames), args.snaplen)
        with open(os.path.join(args.outdir, f"bng_dp6_ipoe_{n}.ini"), "w") as f:
            f.write(bng_dp6_ipoe_ini(n))
        write_pcap(os.path.join(args.outdir, f"up6_ipoe_{n}.pcap"), up6_ipoe_frames(sess, args.frames))
        if args.check and not sfx:
            check(args.outdir, n, args.frames)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
