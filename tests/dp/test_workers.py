"""bng-dp with two worker lcores (--workers 2, docs/dp/datapath.md "Two worker lcores"):
the upstream worker receives, classifies and runs upstream and the control frames; the
downstream worker takes the core frames over a ring and runs downstream and HQoS. On
this 2-core machine the EAL gets three lcores on two CPUs (the downstream worker shares
CPU 0 with the control thread): a test of function, not of speed.

The forwarding tests of test_datapath.py run again here on the split instance (same
names, this module's `dp`), then the tests only a split instance needs: both lcores
carry traffic with exact counts, a session deleted under traffic, a clean stop."""

from __future__ import annotations

import subprocess
import threading
import time

import pytest
from harness.frames import INTERNET, IP, Dot1Q, Ether, PPPoE, core_ipv4, parse, up_ipv4
from harness.rig import BNG_DP, NS_DP, DpRig, cleanup_stale

from .conftest import LAB_DP1
from .test_datapath import (  # noqa: F401 (collected again on the split instance)
    new_sub,
    stat_delta,
    test_arp_for_the_core_address_is_answered,
    test_counters_add_up,
    test_cp_frames_in_vxlan_go_out_on_the_access_side,
    test_deleted_session_stops_forwarding_at_once,
    test_discovery_and_unknown_sessions_reach_the_cp_in_vxlan,
    test_downstream_above_mtu_fragments_or_answers_frag_needed,
    test_downstream_is_encapsulated_with_the_session_header,
    test_lcp_echo_offload_answers_and_reports_a_silent_peer,
    test_mss_is_clamped_to_the_session_mtu_both_ways,
    test_policer_drops_above_pir,
    test_session_counters_and_usage_add_up,
    test_spoofed_source_is_dropped_and_counted,
    test_ttl_expiry_is_answered_with_icmp_both_ways,
    test_upstream_is_decapsulated_routed_and_remarked,
    vx,
    wait_for,
)

# Three EAL lcores on the two CPUs: main (control) and the downstream worker on CPU 0,
# the upstream worker on CPU 1; af_packet with one socket (queue pair) per worker.
SPLIT = {"lcores": ("--lcores", "0@0,1@1,2@0"), "vdev_extra": ",qpairs=2"}


def split_rig(config) -> DpRig:
    return DpRig(config, extra_args=("--workers", "2"), **SPLIT)


@pytest.fixture(scope="module")
def dp(dp_prereqs):
    rig = split_rig(LAB_DP1).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


def test_the_instance_runs_two_workers(dp):
    assert dp.stats()["workers"] == 2


def test_a_port_without_a_tx_queue_per_worker_is_refused(dp):
    """af_packet without qpairs=2 has one queue pair: --workers 2 stops at start, naming
    the option (run beside the module's instance, on its data port, before the port is
    started: nothing is sent)."""
    cmd = ["ip", "netns", "exec", NS_DP, str(BNG_DP), *SPLIT["lcores"], "--no-huge", "-m", "512", "--no-pci",
           "--no-shconf", "--file-prefix=bngdpt-q1", "--log-level=error", "--vdev", "net_af_packet1,iface=data0",
           "--", "--config", str(LAB_DP1), "--workers", "2", "--sessions", "1024"]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "--workers 2 needs 2 TX and RX queues" in r.stderr and "qpairs=2" in r.stderr, r.stderr


def count_on_wire(dp, pred, want: int, timeout: float) -> int:
    n = 0
    deadline = time.monotonic() + timeout
    while n < want and time.monotonic() < deadline:
        for f in dp.wire.recv_all(0.2):
            if pred(parse(f)):
                n += 1
    return n


def test_both_directions_of_several_sessions_are_counted_exactly(dp, cp):
    """Eight sessions, 50 frames each way each, sent interleaved: every frame arrives on
    the other side and every counter (instance, per session) says exactly that."""
    subs = [new_sub() for _ in range(8)]
    seids = []
    for s in subs:
        _c, up_seid, cause = cp.establish(s)
        assert cause == 1
        seids.append(up_seid)
    try:
        macs = {s.mac for s in subs}
        addrs = {s.ipv4 for s in subs}

        def ours(p) -> bool:
            if PPPoE in p:
                return p[Ether].dst in macs
            return IP in p and Dot1Q not in p and p[IP].dst == INTERNET and p[IP].src in addrs

        before = dp.stats()
        dp.wire.drain()
        n, seen = 50, 0
        for _ in range(n):
            for s in subs:
                dp.wire.send(bytes(up_ipv4(s)))
                dp.wire.send(bytes(core_ipv4(s.ipv4)))
            # read as we go: the test's raw socket buffer is what would overflow
            seen += sum(1 for f in dp.wire.recv_all(0.02) if ours(parse(f)))
        seen += count_on_wire(dp, ours, 2 * n * len(subs) - seen, timeout=10)
        assert stat_delta(dp, before, "down_sent", n * len(subs)) == n * len(subs)
        after = dp.stats()
        assert after["up_pkts"] - before["up_pkts"] == n * len(subs)
        assert after["down_pkts"] - before["down_pkts"] == n * len(subs)
        assert after["rx_pkts"] - before["rx_pkts"] == 2 * n * len(subs)
        assert after["drop_handoff_full"] == before["drop_handoff_full"]
        assert seen == 2 * n * len(subs), f"{seen} of {2 * n * len(subs)} frames on the wire"
        for s in subs:
            t = dp.telemetry(f"/bng/sessions,ipv4={s.ipv4}")
            t = dp.telemetry(f"/bng/sessions,{t['id']}")
            assert (t["pkts_up"], t["pkts_down"], t["bytes_up"], t["bytes_down"]) == (n, n, 60 * n, 60 * n)
    finally:
        for up_seid in seids:
            cp.delete(up_seid)


def test_a_session_deleted_under_traffic_stops_and_its_id_comes_back_clean(dp, cp):
    """Traffic both ways for one session while the CP deletes it: the instance keeps
    running, nothing is forwarded for the address after the deletion has settled, the
    frames after it are counted as no-session drops, and a new session installed next
    (which may get the old id once the grace period is over) starts from zero."""
    sub = new_sub()
    _c, up_seid, cause = cp.establish(sub)
    assert cause == 1
    stop = threading.Event()
    sent = [0]

    def blast():
        up, down = bytes(up_ipv4(sub)), bytes(core_ipv4(sub.ipv4))
        while not stop.is_set():
            dp.wire.send(up)
            dp.wire.send(down)
            sent[0] += 1
            time.sleep(0.0005)

    t = threading.Thread(target=blast)
    t.start()
    try:
        time.sleep(1.0)
        before = dp.stats()
        assert cp.delete(up_seid)[0] == 1
        assert stat_delta(dp, before, "drop_no_session_down", 20) >= 20
        time.sleep(0.3)  # frames already in HQoS leave or are dropped as session_gone
        dp.wire.drain()
        out = count_on_wire(dp, lambda p: PPPoE in p and p[Ether].dst == sub.mac, 1, timeout=1.0)
        up = count_on_wire(dp, lambda p: IP in p and Dot1Q not in p and p[IP].src == sub.ipv4, 1, timeout=0.5)
        assert out == 0 and up == 0, "forwarded after the deletion"
    finally:
        stop.set()
        t.join()
    assert sent[0] > 100
    fresh = new_sub()
    with_id = None
    _c, up2, cause = cp.establish(fresh)
    assert cause == 1
    try:
        with_id = dp.telemetry(f"/bng/sessions,ipv4={fresh.ipv4}")["id"]
        s = dp.telemetry(f"/bng/sessions,{with_id}")
        assert (s["pkts_up"], s["pkts_down"], s["drops_up"], s["drops_down"]) == (0, 0, 0, 0)
    finally:
        cp.delete(up2)
    assert dp.proc is not None and dp.proc.poll() is None, "bng-dp died"


def test_a_flood_both_ways_is_accounted_for(dp, cp):
    """As fast as this test's raw sockets send, both directions at once for 3 s (16 gold
    sessions, 100 Mbit/s each): every frame ends in exactly one place (test_counters_add_up
    after it) and nothing waits on the other lcore's ring at the end. Prints what the two
    workers forwarded per second: the sender's rate on 2 shared CPUs, not a speed of bng-dp."""
    subs = [new_sub(qos="gold") for _ in range(16)]
    seids = []
    for s in subs:
        _c, up_seid, cause = cp.establish(s)
        assert cause == 1
        seids.append(up_seid)
    try:
        ups = [bytes(up_ipv4(s)) for s in subs]
        downs = [bytes(core_ipv4(s.ipv4)) for s in subs]
        stop = threading.Event()
        sent = {"up": 0, "down": 0}

        def send(kind: str, frames: list[bytes]) -> None:
            i = 0
            while not stop.is_set():
                dp.wire.send(frames[i % len(frames)])
                i += 1
            sent[kind] = i

        before, t0 = dp.stats(), time.monotonic()
        threads = [threading.Thread(target=send, args=a) for a in (("up", ups), ("down", downs))]
        for t in threads:
            t.start()
        time.sleep(3.0)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        assert wait_for(lambda: dp.stats()["rx_pkts"] - before["rx_pkts"] >= sum(sent.values()) * 0.5, 5)
        time.sleep(1.0)  # HQoS drains
        after = dp.stats()
        up = after["up_pkts"] - before["up_pkts"]
        down = after["down_sent"] - before["down_sent"]
        full = after["drop_handoff_full"] - before["drop_handoff_full"]
        print(f"\nsplit workers, flood: sent {sent}, forwarded up {up / elapsed:.0f}/s, "
              f"down {down / elapsed:.0f}/s, handoff_full {full}")  # fmt: skip
        assert up > 0 and down > 0
        assert after["rx_pkts"] - before["rx_pkts"] <= sum(sent.values())
        hq = dp.telemetry("/bng/hqos")
        assert hq["enq_pkts"] + after["drop_hqos_queue_full"] == after["down_pkts"]
    finally:
        for up_seid in seids:
            cp.delete(up_seid)
    test_counters_add_up(dp, cp)


def test_the_split_instance_stops_cleanly(dp, cp):
    """SIGTERM: both workers leave their loops, the ring and the port are released, the
    process says it stopped and exits 0. (Last in the module: it stops the instance.)"""
    assert wait_for(lambda: dp.stats()["rx_pkts"] > 0)
    rc = dp.stop()
    assert rc == 0, dp.log.decode(errors="replace")
    assert b"split workers: upstream lcore 1, downstream and HQoS lcore 2" in dp.log
    assert b"bng-dp: stopped" in dp.log
