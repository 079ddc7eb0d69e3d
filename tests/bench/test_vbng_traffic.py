"""The shared bench-dp sessions and traffic (server-dp/bench/vbng_traffic.py): the
golden values docs/benchmarks.md quotes for a C reimplementation, and frames that
scapy parses as the session set says."""

import hashlib
import importlib.util
from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPP, PPPoE

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("vbng_traffic", ROOT / "server-dp" / "bench" / "vbng_traffic.py")
vt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vt)


def test_prng_and_session_draws_are_the_documented_ones():
    r = vt.SplitMix64(1)
    assert [r.next() for _ in range(2)] == [0x910A2DEC89025CC1, 0xBEEB8DA1658EEC67]
    draws = {}
    for seed in (vt.SEED_DOWN, vt.SEED_UP):
        r = vt.SplitMix64(seed)
        v = [r.next() for _ in range(8)]
        draws[seed] = [v[2 * k] % 65536 for k in range(4)]
    assert draws == {1: [23745, 21854, 46521, 15525], 2: [22222, 21295, 64297, 25990]}


def test_session_set():
    s = vt.sessions(65536)
    assert (s[0].stag, s[0].ctag, s[0].sid, s[0].subport, s[0].pipe) == (100, 100, 1, 0, 0)
    last = s[-1]
    assert (last.stag, last.ctag, last.sid, last.subport, last.pipe) == (131, 2147, 4096, 15, 4095)
    assert vt.ip_str(s[0].ip) == "100.80.1.0" and vt.ip_str(last.ip) == "100.81.0.255"
    assert vt.mac_str(last.mac) == "02:10:00:00:ff:ff"
    assert len({(x.stag, x.ctag) for x in s}) == 65536 and len({x.ip >> 8 for x in s}) == 256


def test_frames_hash_to_the_documented_digests():
    want = {
        (4096, "down"): "2cfcd8a8b17427d3bf0ad3323eafe7102fb6f6fbb900f49706bb5f01a9b4d71f",
        (4096, "up"): "b6e169f98ede38c52a0d520030c6ad51d13fb9cd4b4621cd5c69bcf691478d65",
        (65536, "down"): "779ff255afdf0273846ec459dc2ce4a73daaaefe339034b9d7e924788c870af1",
        (65536, "up"): "12be0c8cc1cdba5cf3a1b22cdf439fdbb00b54ee133ce18b70e0a63b21b64bbf",
    }
    for n in (4096, 65536):
        sess = vt.sessions(n)
        for name, gen in (("down", vt.down_frames), ("up", vt.up_frames)):
            h = hashlib.sha256()
            for f in gen(sess, 1024):
                h.update(f)
            assert h.hexdigest() == want[(n, name)], (n, name)


def test_frames_parse_as_the_sessions_say():
    sess = vt.sessions(4096)
    by_ip = {s.ip: s for s in sess}
    for raw in vt.down_frames(sess, 200):
        p = Ether(raw)
        assert len(raw) == 504 and p[Ether].dst == "02:cc:00:00:00:01"
        assert p[IP].ttl == 64 and p[IP].len == 490 and p[UDP].dport == 5001
        assert (p[IP].tos >> 2) in (0, 8, 10, 18, 34, 46)
        assert int.from_bytes(raw[30:34], "big") in by_ip
        q = IP(bytes(p[IP]))
        q.chksum = None
        assert IP(bytes(q)).chksum == p[IP].chksum
    for raw in vt.up_frames(sess, 200):
        p = Ether(raw)
        s = by_ip[int.from_bytes(raw[30 + 12 : 30 + 16], "big")]
        assert len(raw) == 128 and p[Ether].type == 0x88A8 and p[Ether].src == vt.mac_str(s.mac)
        assert p[Dot1AD].vlan == s.stag and p[Dot1Q].vlan == s.ctag
        assert p[PPPoE].sessionid == s.sid and p[PPPoE].len == 100 and p[PPP].proto == 0x21


def test_pcap_snaplen_keeps_the_original_length(tmp_path):
    path = str(tmp_path / "d.pcap")
    assert vt.write_pcap(path, vt.down_frames(vt.sessions(4096), 3), 64) == 3
    data = Path(path).read_bytes()
    incl, orig = int.from_bytes(data[24 + 8 : 24 + 12], "little"), int.from_bytes(data[24 + 12 : 24 + 16], "little")
    assert (incl, orig) == (64, 504) and len(data) == 24 + 3 * (16 + 64)


def test_bng_dp_config_lines_cover_the_sessions():
    text = vt.bng_dp_ini(65536)
    assert "access_ports = 16" in text and "lines = 32" in text and "prefixes = 100.80.0.0/15" in text
    assert "[line.31]" in text and "stag = 131-131" in text and "ctag = 100-2147" in text


def test_ipoe_frames_carry_the_pppoe_frames_ipv4_behind_qinq():
    """IPoE upstream (issue 19): the same IPv4 packets as PPPoE's, behind QinQ + Ethernet."""
    sess = vt.sessions(4096)
    for ipoe, pppoe in zip(vt.up_ipoe_frames(sess, 200), vt.up_frames(sess, 200), strict=True):
        p = Ether(ipoe)
        assert len(ipoe) == 120 and p[Ether].type == 0x88A8 and p[Ether].dst == vt.mac_str(vt.AC_MAC)
        assert p[Dot1Q].type == 0x0800 and PPPoE not in p
        assert ipoe[22:] == pppoe[30:] and ipoe[6:12] == pppoe[6:12] and ipoe[14:20] == pppoe[14:20]
    text = vt.bng_dp_ipoe_ini(4096)
    assert "session_types = pppoe ipoe" in text and "ipoe_gateways = 100.80.0.1/15" in text
    assert text.replace("\nsession_types = pppoe ipoe\nipoe_gateways = 100.80.0.1/15\nipoe_proxy_arp = yes", "") == (
        vt.bng_dp_ini(4096)
    )
