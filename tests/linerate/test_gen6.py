"""bng-lrgen's IPv6: frames built as the stream file says (QinQ + PPPoE + PPP 0x0057 + IPv6 +
UDP upstream, IPv6 + UDP downstream; lengths and the UDP checksum right), read back by its
receive side, and its Neighbor Solicitation responder answering exactly the solicitations
for its address. Through net_pcap captures: no namespace, no timing (root: DPDK's EAL)."""

from __future__ import annotations

import json
import subprocess

from scapy.layers.inet import UDP
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, IPv6
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPP, PPPoE
from scapy.utils import rdpcap, wrpcap

from . import lrgen, streams

MAC_A, MAC_B, MAC_CORE = "02:00:00:00:aa:01", "02:00:00:00:bb:01", "02:00:00:00:cc:01"
SESSION = streams.Session(
    port="access1", stag=100, ctag=7, tpid=0x88A8, pppoe_id=0x1234, mac=MAC_A, ac_mac=MAC_B, address="100.80.0.7"
)
WAN, LAN, DST, ROUTER6 = "2001:db8:100:7::2", "2001:db8:2000:700::100", "2001:db8:99::99", "2001:db8:64::1"


def _run(binary, *args) -> dict:
    p = subprocess.run([str(binary), *lrgen.eal_args("lr6cap"), *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _udp_ok(ip6) -> bool:
    chk = ip6[UDP].chksum
    u = ip6.copy()
    del u[UDP].chksum
    return chk != 0 and IPv6(bytes(u))[UDP].chksum == chk


def test_ipv6_frames_are_built_as_the_stream_file_says_and_read_back(lrgen_binary, tmp_path):
    st = [
        streams.upstream6(SESSION, WAN, DST, 0, 0, 5000),
        streams.upstream6(SESSION, LAN, DST, 0, 0, 5001, streams.DSCP_EF),
        streams.downstream6(WAN, MAC_CORE, MAC_B, ROUTER6, 0, 1, 6000),
    ]
    path = streams.write(tmp_path / "s6.txt", st)
    cap = tmp_path / "tx.pcap"
    res = _run(lrgen_binary, "--vdev", f"net_pcap0,tx_pcap={cap}", "--", "--streams", str(path),
               "--trial", "duration=0.2 drain_ms=0 rate0=1000 size0=64 rate1=500 size1=512")  # fmt: skip
    frames = [Ether(bytes(f)) for f in rdpcap(str(cap))]
    sent = sum(g["tx"] for g in res["groups"])
    assert len(frames) == sent >= 100  # 300 due; a loaded host may run late
    up = [f for f in frames if f.haslayer(PPPoE)]
    down = [f for f in frames if not f.haslayer(PPPoE)]
    assert len(up) == res["groups"][0]["tx"] and len(down) == res["groups"][1]["tx"]
    # upstream at 64 bytes asked: QinQ + PPPoE + IPv6 + UDP + signature needs 94 (98 with FCS)
    for f in up[:20]:
        assert len(f) == 94 and f[Ether].dst == MAC_B and f[Ether].src == MAC_A
        assert f[Dot1AD].vlan == 100 and f[Dot1Q].vlan == 7
        assert f[PPPoE].sessionid == 0x1234 and f[PPP].proto == 0x57
        ip = f[IPv6]
        assert f[PPPoE].len == 2 + 40 + ip.plen and ip.plen == 94 - 30 - 40 == f[UDP].len
        assert ip.src in (WAN, LAN) and ip.dst == DST and ip.hlim == 64 and ip.nh == 17
        assert ip.tc == (streams.DSCP_EF << 2 if ip.src == LAN else 0)
        assert f[UDP].dport == 9 and bytes(f[UDP].payload)[:2] == b"\xb7\xa5"
        assert _udp_ok(ip), f.show(dump=True)
    # downstream at 512 bytes asked (access side): 16 bytes shorter on the core side
    for f in down[:20]:
        assert len(f) == 512 - 4 - 16 and f[Ether].type == 0x86DD and f[Ether].dst == MAC_B
        ip = f[IPv6]
        assert (ip.src, ip.dst, ip.plen) == (ROUTER6, WAN, 512 - 4 - 16 - 14 - 40) and _udp_ok(ip)
    # the receive side finds every one of them: their own stream, in order, none lost
    rx = _run(lrgen_binary, "--vdev", f"net_pcap0,rx_pcap={cap}", "--", "--streams", str(path),
              "--rx-only", "1", "--per-stream")  # fmt: skip
    per = {s["id"]: s for s in rx["streams"]}
    assert rx["rx_other"] == 0 and rx["rx_bad_stream"] == 0
    assert sum(per[i]["rx"] for i in (0, 1)) == len(up) and per[2]["rx"] == len(down)
    assert all(s["lost"] == 0 and s["reordered"] == 0 for s in per.values())


def _ns(target: str, src: str = "2001:db8:64::11", hlim: int = 255, chksum: int | None = None) -> Ether:
    ns = ICMPv6ND_NS(tgt=target) / ICMPv6NDOptSrcLLAddr(lladdr=MAC_CORE)
    if chksum is not None:
        ns.cksum = chksum
    return Ether(src=MAC_CORE, dst="33:33:ff:00:00:01") / IPv6(src=src, dst="ff02::1:ff00:1", hlim=hlim) / ns


def test_neighbor_solicitations_for_its_address_and_only_those_are_answered(lrgen_binary, tmp_path):
    good = _ns(ROUTER6)
    frames = [
        good,
        _ns("2001:db8:64::2"),  # another address
        _ns(ROUTER6, hlim=64),  # not from a neighbour
        _ns(ROUTER6, chksum=0x1234),  # damaged
        _ns(ROUTER6, src="::"),  # duplicate address detection: answered to all nodes
        Ether(bytes(good)[:70]),  # cut short
    ]
    wrpcap(str(tmp_path / "rx.pcap"), frames)
    one = streams.write(tmp_path / "one.txt", [streams.plain(MAC_A, MAC_B, "10.0.0.1", "10.0.1.1", 0, 0, 4000)])
    rx = _run(lrgen_binary, "--vdev", f"net_pcap0,rx_pcap={tmp_path / 'rx.pcap'},tx_pcap={tmp_path / 'tx.pcap'}",
              "--", "--streams", str(one), "--rx-only", "1", "--nd", f"0={ROUTER6}")  # fmt: skip
    assert rx["ports"][0]["nd_replies"] == 2 and rx["rx_other"] == len(frames) - 2
    out = [Ether(bytes(f)) for f in rdpcap(str(tmp_path / "tx.pcap"))]
    assert len(out) == 2
    for na, to_all in zip(out, (False, True), strict=True):
        ip = na[IPv6]
        assert na[Ether].src != MAC_CORE and ip.src == ROUTER6 and ip.hlim == 255 and ip.plen == 32
        assert na[ICMPv6ND_NA].tgt == ROUTER6 and na[ICMPv6NDOptDstLLAddr].lladdr == na[Ether].src
        assert (na[ICMPv6ND_NA].R, na[ICMPv6ND_NA].S, na[ICMPv6ND_NA].O) == (1, 0 if to_all else 1, 1)
        if to_all:
            assert (na[Ether].dst, ip.dst) == ("33:33:00:00:00:01", "ff02::1")
        else:
            assert (na[Ether].dst, ip.dst) == (MAC_CORE, "2001:db8:64::11")
        chk = na[ICMPv6ND_NA].cksum
        c = na[IPv6].copy()
        del c[ICMPv6ND_NA].cksum
        assert IPv6(bytes(c))[ICMPv6ND_NA].cksum == chk
