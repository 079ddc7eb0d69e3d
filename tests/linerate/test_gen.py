"""bng-lrgen on a loopback with impairments: two veth pairs in a namespace of the test's own,
the generator sending on g0 and receiving on g1, and a wire (wire.py) from w0 to w1 that
drops, reorders, duplicates and delays chosen frames. The generator's counts must be exactly
the wire's doing; its frames must be what the stream file describes."""

from __future__ import annotations

import json
import subprocess
from collections import Counter

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPP, PPPoE

from . import lrgen, streams
from .wire import Wire

MAC_A, MAC_B = "02:00:00:00:aa:01", "02:00:00:00:bb:01"
SESSION = streams.Session(
    port="access1", stag=100, ctag=7, tpid=0x88A8, pppoe_id=0x1234, mac=MAC_A, ac_mac=MAC_B, address="100.80.0.7"
)


def _streams(tmp_path):
    st = [streams.plain(MAC_A, MAC_B, "10.0.0.1", "10.0.1.1", 0, 0, 4000 + i) for i in range(6)]
    st += [streams.upstream(SESSION, "198.51.100.99", 0, 0, 5000 + i) for i in range(2)]  # 6, 7
    st += [streams.plain(MAC_A, MAC_B, "10.0.0.2", "10.0.1.2", 0, 1, 6000 + i) for i in range(2)]  # 8, 9 probes
    return streams.write(tmp_path / "streams.txt", st), st


def _gen(ns, path):
    return lrgen.LrGen(
        path, [("", lrgen.af_packet(0, "g0")), ("", lrgen.af_packet(1, "g1"))], netns=ns, per_stream=True
    )


def test_loss_reordering_duplicates_and_latency_are_counted_exactly(loop_ns, tmp_path):
    path, _ = _streams(tmp_path)
    drop = {(3, s) for s in range(20, 25)} | {(5, 50)}
    swap = {(2, 10), (2, 100), (5, 60)}
    dup = {(4, 30), (4, 31), (5, 70)}
    wire = Wire(loop_ns, "w0", "w1", drop=drop, dup=dup, swap=swap, delay_ms={9: 30})
    wire.start()
    try:
        with _gen(loop_ns, path) as g:
            res = g.trial(1.5, drain_ms=600, rate0=2000.0, size0=128, rate1=200.0, size1=178)
    finally:
        wire.stop()
    per = {s["id"]: s for s in res["streams"]}
    assert res["ports"][0]["tx_fail"] == 0
    # every stream sent about rate x duration / streams
    assert 300 <= per[0]["tx"] <= 450, per[0]
    expect = {
        0: (0, 0, 0),
        1: (0, 0, 0),
        2: (0, 2, 0),
        3: (5, 0, 0),
        4: (0, 0, 2),
        5: (1, 1, 1),
        6: (0, 0, 0),
        7: (0, 0, 0),
        8: (0, 0, 0),
        9: (0, 0, 0),
    }
    for sid, (lost, reordered, dups) in expect.items():
        s = per[sid]
        assert (s["lost"], s["reordered"], s["duplicates"]) == (lost, reordered, dups), s
        assert s["rx"] == s["tx"] - lost, s
    g0 = next(x for x in res["groups"] if x["group"] == 0)
    assert g0["lost"] == 6 and g0["reordered"] == 3 and g0["duplicates"] == 3
    assert g0["tx"] == sum(per[i]["tx"] for i in range(8))
    # latency: the delayed probe stream is at least 30 ms late; the other is not
    assert per[9]["lat_min_ns"] >= 29.5e6, per[9]  # the TSC rate is known to about 0.1%
    assert per[8]["lat_min_ns"] < 25e6, per[8]
    for s in per.values():
        assert 0 < s["lat_min_ns"] <= s["lat_avg_ns"] <= s["lat_max_ns"], s
    g1 = next(x for x in res["groups"] if x["group"] == 1)
    lat = g1["latency_ns"]
    assert lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"] * 1.02
    assert lat["p99"] >= 29e6  # half the probes were delayed
    # signed frames seen by the wire: as many as the generator sent
    assert len(wire.seen) == g0["tx"] + g1["tx"]


def test_frames_are_built_as_the_stream_file_says(loop_ns, tmp_path):
    path, st = _streams(tmp_path)
    wire = Wire(loop_ns, "w0", "w1")
    wire.start()
    try:
        with _gen(loop_ns, path) as g:
            res = g.trial(0.5, drain_ms=300, rate0=400.0, size0=64, rate1=100.0, size1=178)
    finally:
        wire.stop()
    assert res["rx_other"] == 0
    sizes = {sid: n for sid, _seq, n in wire.seen}
    # 64-byte frames: plain IPv4 + UDP + signature fits (60 bytes without FCS); QinQ + PPPoE
    # needs 74 (78 with FCS): the smallest that carries the signature
    assert sizes[0] == 60 and sizes[6] == 74 and sizes[8] == 174
    f = Ether(wire.first[6])
    assert f[Ether].dst == MAC_B and f[Ether].src == MAC_A and f[Ether].type == 0x88A8
    assert f[Dot1AD].vlan == 100 and f[Dot1AD].type == 0x8100 and f[Dot1Q].vlan == 7
    assert f[PPPoE].sessionid == 0x1234 and f[PPPoE].code == 0 and f[PPP].proto == 0x21
    ip = f[IP]
    assert f[PPPoE].len == ip.len + 2 == 74 - 22 - 6
    assert (ip.src, ip.dst, ip.ttl) == ("100.80.0.7", "198.51.100.99", 64)
    chk = ip.chksum
    del ip.chksum
    assert IP(bytes(ip)).chksum == chk
    assert f[UDP].len == ip.len - 20 and f[UDP].dport == 9 and f[UDP].sport == 5000
    assert bytes(f[UDP].payload)[:2] == b"\xb7\xa5"


def test_imix_is_7_4_1_and_a_clean_wire_shows_no_loss(loop_ns, tmp_path):
    path, _ = _streams(tmp_path)
    wire = Wire(loop_ns, "w0", "w1")
    wire.start()
    try:
        with _gen(loop_ns, path) as g:
            res = g.trial(1.0, drain_ms=500, rate0=1200.0, size0="imix")
    finally:
        wire.stop()
    g0 = next(x for x in res["groups"] if x["group"] == 0)
    assert g0["lost"] == 0 and g0["reordered"] == 0 and g0["duplicates"] == 0 and g0["rx"] == g0["tx"]
    assert g0["tx"] >= 1000
    # plain streams: 60/590/1514 bytes without FCS; QinQ + PPPoE: 74 (the minimum), 590, 1514
    n = Counter("64" if sz in (60, 74) else "594" if sz == 590 else "1518" for _, _, sz in wire.seen)
    total = sum(n.values())
    for k, w in (("64", 7), ("594", 4), ("1518", 1)):
        assert abs(n[k] - total * w / 12) <= 2, n
    assert g0["tx_bytes"] == sum(sz + 4 for _, _, sz in wire.seen)


def test_a_bad_stream_file_is_refused_naming_the_line(lrgen_binary, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# header\n0 0 0 0 -1 14 0011\n")
    p = subprocess.run(
        [str(lrgen_binary), *lrgen.eal_args("lrbad"), "--vdev", "net_null0", "--", "--streams", str(bad), "--serve"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2
    assert "bad.txt:2:" in p.stderr and "header is 2 bytes" in p.stderr


def test_a_capture_replayed_is_analysed_alone(lrgen_binary, tmp_path):
    """--rx-only: the receive side on its own, reading a capture (net_pcap) that a trial wrote
    and the test then impaired: 3 frames removed, 2 swapped, 1 doubled."""
    from scapy.utils import rdpcap, wrpcap

    path = streams.write(tmp_path / "one.txt", [streams.plain(MAC_A, MAC_B, "10.0.0.1", "10.0.1.1", 0, 0, 4000)])
    cap = tmp_path / "tx.pcap"
    tx = subprocess.run(
        [str(lrgen_binary), *lrgen.eal_args("lrcap"), "--vdev", f"net_pcap0,tx_pcap={cap}", "--",
         "--streams", str(path), "--trial", "duration=0.3 drain_ms=0 rate0=1000 size0=128"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    sent = json.loads(tx.stdout.strip().splitlines()[-1])["groups"][0]["tx"]
    frames = list(rdpcap(str(cap)))
    assert len(frames) == sent >= 250
    frames[100], frames[101] = frames[101], frames[100]
    frames.insert(150, frames[149])
    del frames[200:203]
    wrpcap(str(tmp_path / "rx.pcap"), frames)
    rx = subprocess.run(
        [str(lrgen_binary), *lrgen.eal_args("lrcap"), "--vdev", f"net_pcap0,rx_pcap={tmp_path / 'rx.pcap'}", "--",
         "--streams", str(path), "--rx-only", "1", "--expect", str(sent)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    g = json.loads(rx.stdout.strip().splitlines()[-1])["groups"][0]
    assert (g["tx"], g["rx"], g["lost"], g["reordered"], g["duplicates"]) == (sent, sent - 3, 3, 1, 1)
