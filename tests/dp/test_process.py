"""bng-dp as a process: start, telemetry, hostile arguments, clean stop."""

import subprocess
import time

from harness.rig import BNG_DP, NS_DP, NS_WIRE, RUNTIME_DIR, DpRig, _netns_list
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPPoED

from .conftest import LAB_DP1


def _run(*args: str) -> subprocess.CompletedProcess:
    eal = ["-l", "0,1", "--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--file-prefix=bngdpt-args",
           "--log-level=error", "--vdev", "net_null0"]  # fmt: skip
    return subprocess.run([str(BNG_DP), *eal, "--", *args], capture_output=True, text=True, timeout=30)


def test_refuses_bad_arguments(dp_prereqs):
    cases = [
        ((), "--config is required"),
        (("--config", str(LAB_DP1), "--sessions", "0"), "--sessions: '0' is not a number in"),
        (("--config", str(LAB_DP1), "--sessions", "-5"), "--sessions: '-5' is not a number"),
        (("--config", str(LAB_DP1), "--idle-sleep-us", "12abc"), "--idle-sleep-us: '12abc'"),
        (("--config", str(LAB_DP1), "--port", "net_nothing"), "no such DPDK device"),
        (("--config", "/nonexistent.ini"), "/nonexistent.ini"),
        (("--config", str(LAB_DP1), "stray"), "unexpected argument 'stray'"),
    ]
    for args, message in cases:
        r = _run(*args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert message in r.stderr, (args, r.stderr)


def test_unserved_frames_are_counted_not_answered(dp):
    before = dp.stats()
    padi = PPPoED(code=0x09, sessionid=0)
    frames = [
        # S-tag 300 is not a line of dp1 (S 100-149)
        Ether(src="02:11:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / Dot1AD(vlan=300) / Dot1Q(vlan=7) / padi,
        # unknown ethertype, untagged
        Ether(src="02:11:00:00:00:01", dst="02:cc:00:00:00:01", type=0x88B5) / (b"x" * 50),
    ]
    dp.wire.drain()
    for f in frames:
        dp.wire.send(bytes(f))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        after = dp.stats()
        if after["rx_pkts"] - before["rx_pkts"] >= 2:
            break
        time.sleep(0.05)
    assert after["drop_unserved_line"] - before["drop_unserved_line"] == 1
    assert after["drop_unknown_ethertype"] - before["drop_unknown_ethertype"] == 1
    assert after["tx_pkts"] == before["tx_pkts"]
    assert dp.wire.recv_all(0.3) == []


def test_sigterm_stops_cleanly(dp_prereqs):
    rig = DpRig(LAB_DP1).start()
    try:
        assert rig.stats()["instance"] == "dp1"
        assert rig.stop() == 0
        assert b"bng-dp: stopped" in rig.log
        assert not RUNTIME_DIR.exists()
    finally:
        rig.close()
    left = [ns for ns in _netns_list() if ns in (NS_DP, NS_WIRE)]
    assert left == []
