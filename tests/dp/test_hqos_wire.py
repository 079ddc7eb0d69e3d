"""HQoS measured on the wire: bng-dp with dp1's configuration, its access port cut to
8 Mbit/s, downstream traffic offered at twice that, what leaves the data port captured
with kernel timestamps (tcpdump) and measured.

Rates are the layer the pod file states them at (docs/configuration.md, Rates): the
Ethernet frame on the access line with its QinQ + PPPoE header and FCS, without
preamble and inter-frame gap. A downstream packet of IPv4 length L is L + 30 + 4 bytes
there; the capture shows L + 30 (no FCS), so 4 is added per frame."""

from __future__ import annotations

import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest
from harness.frames import IP, UDP, Dot1Q, Ether, PPPoE, Raw, Sub, core_ipv4, parse
from harness.pfcp_cp import Cp
from harness.rig import NS_WIRE, DpRig, cleanup_stale
from scapy.utils import rdpcap

from .test_datapath import resolve_router

SUBPORT_BPS = 8_000_000
IP_LEN = 1000
WIRE_LEN = IP_LEN + 30 + 4  # access frame with FCS
LAB_DP1 = Path(__file__).resolve().parents[2] / "topology" / "tests" / "golden" / "lab" / "dp" / "dp1.ini"


def hqos_config(tmp: Path) -> Path:
    """dp1 with access1 at 8 Mbit/s and a profile 'flat' that can fill it: 8 Mbit/s, no
    class caps, DSCP 46 in class 0, everything else best effort."""
    text = LAB_DP1.read_text()
    text = text.replace("rate = 10000000000", f"rate = {SUBPORT_BPS}", 1)
    assert f"rate = {SUBPORT_BPS}" in text, "access1's rate line moved"
    n = int(text.split("qos_profiles       = ")[1].split()[0])
    text = text.replace(f"qos_profiles       = {n}", f"qos_profiles       = {n + 1}", 1)
    text += (
        f"\n[qos_profile.{n}]\nname       = flat\ndown_rate  = {SUBPORT_BPS}\nup_pir     = 50000000\n"
        "up_cir     = 20000000\nup_dscp    = keep\ndefault_tc = 12\ndscp_map   = 46:0\ntc_rates   =\n"
        "be_weights = 1 1 1 1\n"
    )
    path = tmp / "dp1-hqos.ini"
    path.write_text(text)
    return path


@pytest.fixture(scope="module", params=["hsched", "rte_sched"])
def hq(dp_prereqs, tmp_path_factory, request):
    """bng-dp on each HQoS scheduler in turn (--hqos): every test runs on both."""
    if shutil.which("tcpdump") is None:
        pytest.fail("tcpdump is not installed (scripts/setup.sh installs it)")
    rig = DpRig(hqos_config(tmp_path_factory.mktemp("hqos")), extra_args=("--hqos", request.param)).start()
    cp = None
    try:
        cp = Cp.for_rig(rig)
        assert cp.associate() == 1
        resolve_router(rig)
        yield rig, cp
    finally:
        if cp is not None:
            cp.close()
        rig.close()
        cleanup_stale()


class Capture:
    """tcpdump on the wire side: frames bng-dp sent, with kernel timestamps."""

    def __init__(self, path: Path):
        self.path = path
        self.proc = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                NS_WIRE,
                "tcpdump",
                "-i",
                "wire0",
                "-Q",
                "in",
                "--immediate-mode",
                "-B",
                "8192",
                "-U",
                "-w",
                str(path),
                "ether src 02:bb:00:00:00:01",
            ],  # fmt: skip
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)

    def stop(self) -> list:
        time.sleep(0.3)
        self.proc.terminate()
        self.proc.wait(5)
        return list(rdpcap(str(self.path)))


def offer(dp, flows: list[tuple[bytes, float]], seconds: float) -> list[int]:
    """Send each flow's frame (its bytes, offered rate in bit/s at the access layer) for
    `seconds`, paced in 2 ms slices; the send time goes into the payload's first 8 bytes.
    Returns the frames sent per flow."""
    sent = [0] * len(flows)
    start = time.monotonic()
    t_wall0 = time.time() - start
    while (now := time.monotonic() - start) < seconds:
        for i, (frame, bps) in enumerate(flows):
            due = int(now * bps / (WIRE_LEN * 8))
            while sent[i] < due:
                stamp = struct.pack("!d", t_wall0 + time.monotonic())
                dp.wire.send(frame[:-8] + stamp)
                sent[i] += 1
        time.sleep(0.002)
    return sent


def stamp_of(p) -> float:
    return struct.unpack("!d", bytes(p[UDP].payload)[-8:])[0]


def rate_bps(frames: list, t0: float, t1: float) -> float:
    """Access-layer bit rate of the captured frames whose timestamp is in [t0, t1)."""
    return sum(len(bytes(p)) + 4 for p in frames if t0 <= float(p.time) < t1) * 8 / (t1 - t0)


def down_frame(sub: Sub, dscp: int) -> bytes:
    f = bytes(core_ipv4(sub.ipv4, UDP(sport=9, dport=9) / Raw(b"\0" * 8), size=IP_LEN, tos=dscp << 2))
    assert len(f) == 14 + IP_LEN
    return f


def window(frames: list) -> tuple[float, float]:
    """The steady part of a run: after the first half second (buckets full at start),
    before the last half second of frames (queues draining)."""
    ts = sorted(float(p.time) for p in frames)
    return ts[0] + 0.5, ts[-1] - 0.5


def test_two_classes_at_twice_the_subport_rate(hq, tmp_path):
    dp, cp = hq
    sub = Sub(stag=100, ctag=501, mac="02:11:00:00:05:01", sid=0x0501, ipv4="100.80.1.1", qos="flat")
    _c, up_seid, cause = cp.establish(sub)
    assert cause == 1
    try:
        voice, bulk = down_frame(sub, 46), down_frame(sub, 0)
        cap = Capture(tmp_path / "two-classes.pcap")
        sent = offer(dp, [(voice, 4_000_000), (bulk, 12_000_000)], seconds=4.0)
        frames = [p for p in cap.stop() if PPPoE in p and p[Ether].dst == sub.mac]
    finally:
        cp.delete(up_seid)
    t0, t1 = window(frames)
    agg = rate_bps(frames, t0, t1)
    print(f"\nHQoS two classes: offered {sum(sent)} frames ({sent}), aggregate {agg / 1e6:.3f} Mbit/s")
    assert abs(agg - SUBPORT_BPS) / SUBPORT_BPS < 0.02, f"aggregate {agg:.0f} bit/s, want {SUBPORT_BPS} +-2%"
    hi = [p for p in frames if p[IP].tos >> 2 == 46]
    assert len(hi) == sent[0], f"class 0 lost {sent[0] - len(hi)} of {sent[0]} frames"
    assert all(p[Dot1Q].prio == 5 for p in hi), "class 0 leaves with PCP 5"
    delays = sorted(float(p.time) - stamp_of(p) for p in hi)
    p99 = delays[int(len(delays) * 0.99) - 1]
    lo_delays = sorted(float(p.time) - stamp_of(p) for p in frames if p[IP].tos >> 2 == 0)
    print(f"class 0 delay p99 {p99 * 1e3:.2f} ms max {delays[-1] * 1e3:.2f} ms; best effort median "
          f"{lo_delays[len(lo_delays) // 2] * 1e3:.1f} ms")  # fmt: skip
    assert p99 < 0.020, f"class 0 p99 delay {p99 * 1e3:.1f} ms"
    assert lo_delays[len(lo_delays) // 2] > p99, "best effort waits behind class 0"


def test_two_pipes_share_an_oversubscribed_subport_as_configured(hq, tmp_path):
    dp, cp = hq
    small = Sub(stag=100, ctag=601, mac="02:11:00:00:06:01", sid=0x0601, ipv4="100.80.1.61", qos="flat",
                mbr_dl=2000)  # fmt: skip
    big = Sub(stag=100, ctag=602, mac="02:11:00:00:06:02", sid=0x0602, ipv4="100.80.1.62", qos="flat")
    seids = []
    for s in (small, big):
        _c, up_seid, cause = cp.establish(s)
        assert cause == 1
        seids.append(up_seid)
    try:
        cap = Capture(tmp_path / "two-pipes.pcap")
        offer(dp, [(down_frame(small, 0), 8_000_000), (down_frame(big, 0), 8_000_000)], seconds=4.0)
        frames = [p for p in cap.stop() if PPPoE in p]
    finally:
        for up_seid in seids:
            cp.delete(up_seid)
    t0, t1 = window(frames)
    r_small = rate_bps([p for p in frames if p[Ether].dst == small.mac], t0, t1)
    r_big = rate_bps([p for p in frames if p[Ether].dst == big.mac], t0, t1)
    print(f"\nHQoS two pipes: 2 Mbit/s pipe {r_small / 1e6:.3f}, 8 Mbit/s pipe {r_big / 1e6:.3f} Mbit/s")
    # The 2 Mbit/s pipe keeps its rate (the ladder rounds down by less than 1%), the other
    # takes the rest of the subport, and together they fill it.
    assert 0.97 * 2e6 < r_small < 1.02 * 2e6, r_small
    assert abs(r_small + r_big - SUBPORT_BPS) / SUBPORT_BPS < 0.02
    assert abs(r_big - 6e6) / 6e6 < 0.05, r_big


def test_frames_of_the_capture_are_well_formed(hq):
    """A sanity check of what the measurement parses: the DP's frame for a flat-profile
    session has the 30-byte access header."""
    dp, cp = hq
    sub = Sub(stag=100, ctag=701, mac="02:11:00:00:07:01", sid=0x0701, ipv4="100.80.1.71", qos="flat")
    _c, up_seid, cause = cp.establish(sub)
    assert cause == 1
    try:
        dp.wire.drain()
        dp.wire.send(down_frame(sub, 46))
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            f = dp.wire.recv(0.5)
            if f is not None and parse(f)[Ether].dst == sub.mac:
                assert len(f) == IP_LEN + 30
                break
        else:
            pytest.fail("no frame")
    finally:
        cp.delete(up_seid)
