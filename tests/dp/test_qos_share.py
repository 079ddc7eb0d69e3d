"""Work-conserving sharing of one access port by several bng-dp processes on veths
(docs/dp/hqos.md, "Sharing an access port across instances"): 3 instances share a
60 Mbit/s port, 2 are loaded beyond their static third. The port use must rise to
about the port rate (static shares: 2/3) and never exceed it beyond the buckets; a
peer killed outright leaves its static share reserved. Measured with each DP's own
trace (TSC-stamped dequeued wire bytes), at loose bounds: the machine is shared."""

from __future__ import annotations

import signal

import pytest

from .share_rig import ShareRig, Trace, cleanup_stale, max_excess, offer, rates

N = 3
R = 60_000_000
FRAME = 1534


@pytest.fixture
def rig(dp_prereqs, tmp_path):
    r = ShareRig(tmp_path, N, R).start()
    try:
        r.sessions()
        yield r
    finally:
        r.close()


def test_two_of_three_loaded_fill_the_port(rig):
    load = {0: 45_000_000, 1: 45_000_000}
    (warm, steady) = offer(rig, [(1.5, load), (3.0, load)])
    tel = [dp.telemetry("/bng/qos_share") for dp in rig.dps]
    # A peer dies: the other two must keep its static share reserved.
    rig.dps[2].proc.send_signal(signal.SIGKILL)
    (after_kill,) = offer(rig, [(1.5, load)])
    tel_after = [rig.dps[i].telemetry("/bng/qos_share") for i in (0, 1)]
    rig.dps[2].proc.wait()
    rig.dps[2].proc = None
    rig.stop()
    traces = [Trace(rig.dps[i].trace) for i in (0, 1)]
    t0, t1 = steady
    per = rates(traces, t0, t1, 0.1)
    use = sorted(sum(w) for w in per)
    mean = sum(use) / len(use)
    buckets = R / 8 * 0.010 + N * 2 * FRAME  # 10 ms of the rates, at least 2 frames each
    ex10 = max_excess(traces, t0, t1, 0.010, R)
    over100 = max(use) / R - 1
    print(f"\nport use 2 of 3 loaded: mean {mean / R:.3f} of R, 100 ms windows {use[0] / R:.3f}..{use[-1] / R:.3f}; "
          f"10 ms excess {ex10:.0f} B (B = {buckets:.0f}); applied {[t['applied_bps'] for t in tel]}")  # fmt: skip
    for t in tel:
        assert t["consistent"] == 1 and t["rx_not_allowed"] == 0 and t["rx_bad_length"] == 0, t
        assert t["rounds"] > 100 and t["rx"] > 100, t
    assert mean >= 0.93 * R, f"port use {mean / R:.3f} of R (static shares: 0.667)"
    assert ex10 <= 1.5 * buckets, f"10 ms windows: {ex10:.0f} bytes above R x t, B = {buckets:.0f}"
    assert over100 <= 0.01 + buckets / (R / 8 * 0.1), f"100 ms windows: {over100:.3%} above R"
    # After the kill: silent for 3 intervals, then its third is reserved again.
    applied = sum(t["applied_bps"] for t in tel_after)
    assert applied <= R - R // 3 + 1000, f"the survivors apply {applied} bit/s, above R - its static share"
    k0, k1 = after_kill
    after = rates(traces, k0 + 0.5, k1, 0.1)
    worst = max(sum(w) for w in after)
    assert worst <= (R - R / 3) * 1.05 + buckets * 8 / 0.1, f"survivors sent {worst / R:.3f} of R"


def test_a_refused_share_file_is_a_clear_exit_not_a_crash(dp_prereqs, tmp_path):
    """A qos-share file bng-dp refuses (here: one peer, nobody to share with) ends the
    process with exit status 1 and a message naming the file's key, never a signal, also
    while telemetry is being asked."""
    r = ShareRig(tmp_path, 1, R)
    cleanup_stale()
    try:
        r._net()
        dp = r.dps[0]
        r._start(dp)
        # Telemetry asked all along, as `bngpod status` or a test would: a command served
        # while the process tears down must not touch freed state.
        while dp.proc.poll() is None:
            try:
                dp.telemetry("/bng/stats")
                dp.telemetry("/bng/sessions")
            except (OSError, ValueError):
                pass
        rc = dp.proc.wait(timeout=60)
        out = dp.proc.stdout.read().decode(errors="replace") if dp.proc.stdout else ""
    finally:
        r.close()
    assert rc == 1, f"exit {rc}: {out[-2000:]}"
    assert "--qos-share" in out and "peers" in out, out[-2000:]


def test_server_port_two_of_three_loaded_fill_it(dp_prereqs, tmp_path):
    """The server port (docs/dp/hqos.md, "Sharing a server port"): 3 instances whose VFs
    share a 60 Mbit/s NIC port, each also in an access port group (120 Mbit/s, not the
    bottleneck): two groups per instance in one file. With 2 of 3 loaded, their port
    pacers must rise to about the NIC rate (static VF shares: 2/3) and never above it
    beyond the pacers' buckets."""
    r = ShareRig(tmp_path, N, R, groups=("access", "server"), access_rate=2 * R).start()
    try:
        r.sessions()
        load = {0: 45_000_000, 1: 45_000_000}
        (_warm, steady) = offer(r, [(1.5, load), (3.0, load)])
        tel = [[dp.telemetry(f"/bng/qos_share,{g}") for g in (0, 1)] for dp in r.dps]
        r.stop()
        traces = [Trace(dp.trace) for dp in r.dps]
    finally:
        r.close()
    t0, t1 = steady
    use = sorted(sum(w) for w in rates(traces, t0, t1, 0.1))
    mean = sum(use) / len(use)
    # The pacer's depth: port_burst_us (10 ms) of its rate, at least 4 frames.
    buckets = R / 8 * 0.010 + N * 4 * FRAME
    ex10 = max_excess(traces, t0, t1, 0.010, R)
    over100 = use[-1] / R - 1
    print(f"\nserver port use 2 of 3 loaded: mean {mean / R:.3f} of R, 100 ms {use[0] / R:.3f}..{use[-1] / R:.3f}; "
          f"10 ms excess {ex10:.0f} B (B = {buckets:.0f}); pacers {[t[1]['applied_bps'] for t in tel]}")  # fmt: skip
    for access, server in tel:
        assert (access["groups"], access["kind"], server["kind"]) == (2, "access_port", "server_port"), server
        for t in (access, server):
            assert t["consistent"] == 1 and t["rx_not_allowed"] == 0 and t["rx_bad_length"] == 0, t
            assert t["rounds"] > 100 and t["rx"] > 100, t
        assert server["rx_other_share_id"] == 0 and server["rx_bad_kind"] == 0, server
    assert sum(t[1]["applied_bps"] for t in tel) <= R
    assert mean >= 0.93 * R, f"server port use {mean / R:.3f} of R (static shares: 0.667)"
    assert ex10 <= 1.5 * buckets, f"10 ms windows: {ex10:.0f} bytes above R x t, B = {buckets:.0f}"
    assert over100 <= 0.01 + buckets / (R / 8 * 0.1), f"100 ms windows: {over100:.3%} above R"


def test_weighted_division_three_to_one(dp_prereqs, tmp_path):
    """Weights from the contracted downstream rates (docs/dp/hqos.md "Weights"): the
    session on DP 0 has a QER GBR DL of 30 Mbit/s, DP 1's of 10 Mbit/s (weights 30000 and
    10000 kbit/s); both saturated beyond the port: 75% and 25% of R."""
    r = ShareRig(tmp_path, 2, R).start()
    try:
        r.sessions(gbr_dl=[30_000, 10_000])
        load = {0: 55_000_000, 1: 55_000_000}
        (_warm, steady) = offer(r, [(1.5, load), (3.0, load)])
        tel = [dp.telemetry("/bng/qos_share") for dp in r.dps]
        r.stop()
        traces = [Trace(dp.trace) for dp in r.dps]
    finally:
        r.close()
    t0, t1 = steady
    w = rates(traces, t0, t1, 0.1)
    each = [sum(x[i] for x in w) / len(w) for i in (0, 1)]
    print(f"\nweighted 3:1: {each[0] / R:.3f} and {each[1] / R:.3f} of R; applied {[t['applied_bps'] for t in tel]}")
    assert [t["weight"] for t in tel] == [30_000, 10_000], tel
    assert tel[0]["peer1_weight"] == 10_000 and tel[1]["peer0_weight"] == 30_000, tel
    assert abs(tel[0]["applied_bps"] / R - 0.75) <= 0.03 and abs(tel[1]["applied_bps"] / R - 0.25) <= 0.03, tel
    assert 0.68 <= each[0] / R <= 0.78 and 0.21 <= each[1] / R <= 0.28, each
