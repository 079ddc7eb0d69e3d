"""bng-dp as a process: start, telemetry, hostile arguments, clean stop."""

import re
import subprocess
import time
from pathlib import Path

from harness.frames import padi
from harness.rig import BNG_DP, NS_DP, NS_WIRE, RUNTIME_DIR, DpRig, _netns_list, cleanup_stale
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
        (("--config", str(LAB_DP1), "--workers", "3"), "--workers: '3' is not a number in 1..2"),
        # -l 0,1: no lcore left for the downstream worker
        (("--config", str(LAB_DP1), "--workers", "2", "--sessions", "1024"), "no second EAL worker lcore"),
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


def _with_punt(tmp_path, **keys) -> str:
    """dp1's golden INI with these [punt] keys set."""
    text = LAB_DP1.read_text()
    for key, value in keys.items():
        text, n = re.subn(rf"^{key} *= .*$", f"{key} = {value}", text, flags=re.M)
        assert n == 1, key
    path = tmp_path / "dp1-punt.ini"
    path.write_text(text)
    return str(path)


def test_refuses_a_bad_punt_setting_naming_the_key(dp_prereqs, tmp_path):
    for key, value, message in (
        ("low_line_rate", "0", "punt: low_line_rate '0' is out of range 1..1000000"),
        ("mid_client_burst", "1000001", "punt: mid_client_burst '1000001' is out of range 1..1000000"),
        ("high_ring_percent", "101", "punt: high_ring_percent '101' is out of range 1..100"),
    ):
        r = _run("--config", _with_punt(tmp_path, **{key: value}))
        assert r.returncode == 1, (key, r.stdout, r.stderr)
        assert message in r.stderr, (key, r.stderr)


def test_punt_section_sets_the_running_policer(dp_prereqs, tmp_path):
    """[punt] low_line_burst 5: of 40 PADIs from 40 clients of one line at once, 5 reach the
    CP and 35 are counted low_policed_line (the default burst, 400, would take all 40)."""
    rig = DpRig(Path(_with_punt(tmp_path, low_line_rate=1, low_line_burst=5))).start()
    try:
        before = rig.telemetry("/bng/punt")
        for i in range(40):
            rig.wire.send(bytes(padi(f"02:44:00:00:00:{i:02x}", stag=100, ctag=7)))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            after = rig.telemetry("/bng/punt")
            seen = sum(after[f"low_{k}"] - before[f"low_{k}"] for k in ("admitted", "policed_mac", "policed_line"))
            if seen >= 40:
                break
            time.sleep(0.05)
        admitted = after["low_admitted"] - before["low_admitted"]
        policed = after["low_policed_line"] - before["low_policed_line"]
        # the burst, and at most one token more if the 1/s refill came during the send
        assert 5 <= admitted <= 6 and admitted + policed == 40, (admitted, policed)
        assert after["low_policed_mac"] == before["low_policed_mac"]
    finally:
        rig.close()
        cleanup_stale()
