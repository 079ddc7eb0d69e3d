"""bng-dp under hostile input and restarts: garbage frames on the data port, garbage
PFCP from the CP's own address, heartbeats both ways, and a restart that comes up
empty with a new Recovery Time Stamp."""

from __future__ import annotations

import random
import time

from harness.frames import Sub, core_ipv4, padi, up_ipv4
from harness.pfcp_cp import Cp
from harness.rig import DpRig
from scapy.contrib import pfcp as P

from .conftest import LAB_DP1
from .test_datapath import resolve_router, stat_delta


def mutations(rng: random.Random, frame: bytes, n: int) -> list[bytes]:
    """n variants of frame: cut short, bytes flipped, length fields lied about."""
    out = []
    for _ in range(n):
        f = bytearray(frame)
        k = rng.randrange(4)
        if k == 0:
            f = f[: rng.randrange(len(f))]
        elif k == 1:
            for _ in range(rng.randint(1, 6)):
                f[rng.randrange(len(f))] = rng.randrange(256)
        elif k == 2:
            f[rng.randrange(12, min(len(f), 40))] = rng.choice((0x00, 0xFF, 0x88, 0x81))
        else:
            f += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        if len(f) >= 14:  # the kernel will not send a frame shorter than the header
            out.append(bytes(f))
    return out


def test_garbage_frames_are_counted_and_nothing_breaks(dp):
    cp = Cp.for_rig(dp)
    try:
        assert cp.associate() == 1
        resolve_router(dp)
        sub = Sub(stag=120, ctag=9, mac="02:44:00:00:00:09", sid=0x0909, ipv4="100.80.2.9")
        _c, up_seid, cause = cp.establish(sub)
        assert cause == 1
        rng = random.Random(1234)
        seeds = [bytes(up_ipv4(sub)), bytes(core_ipv4(sub.ipv4)), bytes(padi("02:44:00:00:00:0a", stag=120))]
        frames = [f for s in seeds for f in mutations(rng, s, 600)]
        frames += [bytes(rng.randrange(256) for _ in range(rng.randrange(14, 200))) for _ in range(400)]
        before = dp.stats()
        for f in frames:
            dp.wire.send(f)
        # The kernel itself drops a few before bng-dp can see them (a VLAN ethertype with
        # no room for the tag fails the receive path's untagging): wait until the count
        # stops moving, then every frame that arrived must have been classified once.
        got, last = 0, -1
        while got != last:
            last = got
            time.sleep(0.5)
            got = dp.stats()["rx_pkts"] - before["rx_pkts"]
        assert got >= 0.9 * len(frames), f"{got} of {len(frames)} frames seen"
        after = dp.stats()
        kinds = sum(after[k] - before[k] for k in after if k.startswith("kind_"))
        assert kinds == got, "every frame classified exactly once"
        # Still forwarding for the real subscriber afterwards.
        dp.wire.drain()
        dp.wire.send(bytes(up_ipv4(sub)))
        assert stat_delta(dp, after, "up_pkts", 1) == 1
        assert cp.delete(up_seid)[0] == 1
    finally:
        cp.close()


def test_garbage_pfcp_is_counted_and_the_association_survives(dp):
    cp = Cp.for_rig(dp)
    try:
        assert cp.associate() == 1
        rng = random.Random(99)
        good = bytes(
            P.PFCP(version=1, S=1, seid=0, seq=5)
            / P.PFCPSessionEstablishmentRequest(IE_list=cp.session_ies(Sub(ctag=77, ipv4="100.80.0.77"), 0x4242))
        )
        before = dp.telemetry("/bng/pfcp")
        sock = dp.cp_socket(8807)
        msgs = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 64))) for _ in range(200)]
        msgs += mutations(rng, good, 400)
        try:
            for m in msgs:
                sock.sendto(m, (dp.DP_CTRL, 8805))
            time.sleep(1.0)
        finally:
            sock.close()
        after = dp.telemetry("/bng/pfcp")
        assert after["rx_datagrams"] - before["rx_datagrams"] == len(msgs)
        assert after["bad_header"] + after["unknown_type"] > before["bad_header"] + before["unknown_type"]
        assert cp.heartbeat() == cp.dp_recovery, "still answering, same instance"
        # Whatever the mutations installed was installed whole: every session the UP
        # function knows is in the data path, and nothing else.
        assert dp.telemetry("/bng/sessions")["count"] == after["sub_sessions"]
    finally:
        cp.close()


def test_the_dp_sends_heartbeats_to_its_cp(dp):
    cp = Cp.for_rig(dp)
    try:
        assert cp.associate() == 1
        before = dp.telemetry("/bng/pfcp")["hb_sent"]
        cp.poll(7.0)  # heartbeat interval 5 s: at least one request, answered by the CP
        assert dp.telemetry("/bng/pfcp")["hb_sent"] > before
        assert cp.answered >= 1
        assert dp.telemetry("/bng/pfcp")["cp_state"] == "associated"
    finally:
        cp.close()


def test_sessions_outlive_a_silent_cp_and_its_restart(dp):
    """The CP goes away (no heartbeat answered): the DP declares it unreachable after N1
    heartbeats, keeps every session, keeps forwarding and answering LCP echoes; a
    restarted CP (new Recovery Time Stamp) associates again and finds its session."""
    from harness.frames import lcp, lcp_code

    from .test_datapath import frames_where

    cp = Cp.for_rig(dp)
    base = dp.telemetry("/bng/sessions")["count"]  # what earlier tests left installed
    sub = Sub(stag=130, ctag=31, mac="02:44:00:00:01:31", sid=0x0131, ipv4="100.80.2.31",
              lcp_magic=0x0C0C0C0C, echo_interval=30, echo_misses=3)  # fmt: skip
    try:
        assert cp.associate() == 1
        resolve_router(dp)
        _c, up_seid, cause = cp.establish(sub)
        assert cause == 1
    finally:
        cp.close()  # nobody answers the DP's heartbeats from now on
    deadline = time.monotonic() + 30
    while dp.telemetry("/bng/pfcp")["cp_state"] != "unreachable" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert dp.telemetry("/bng/pfcp")["cp_state"] == "unreachable"
    assert dp.telemetry("/bng/sessions")["count"] == base + 1
    before = dp.stats()
    dp.wire.drain()
    dp.wire.send(bytes(up_ipv4(sub)))
    dp.wire.send(bytes(lcp(sub, 9, 0x42, 0x0D0D0D0D)))
    got = stat_delta(dp, before, "up_pkts", 1)
    after = dp.stats()
    assert got == 1, {k: after[k] - before[k] for k in after if k != "instance" and after[k] != before[k]}
    assert frames_where(dp, lambda p: lcp_code(p) == 10 and p.dst == sub.mac), "still answering echoes"
    # The CP comes back with a new Recovery Time Stamp and its persisted state.
    cp = Cp.for_rig(dp, recovery=int(time.time()) + 2208988800 + 1)
    try:
        assert cp.associate() == 1
        assert dp.telemetry("/bng/pfcp")["cp_state"] == "associated"
        assert dp.telemetry("/bng/sessions")["count"] == base + 1
        assert cp.delete(up_seid)[0] == 1, "the session and its SEID were kept"
        assert dp.telemetry("/bng/sessions")["count"] == base
    finally:
        cp.close()


def test_a_restarted_instance_comes_up_empty_with_a_new_recovery_time_stamp(dp_prereqs):
    rig = DpRig(LAB_DP1).start()
    try:
        cp = Cp.for_rig(rig)
        assert cp.associate() == 1
        first = cp.dp_recovery
        assert cp.establish(Sub(ctag=55, ipv4="100.80.0.55"))[2] == 1
        assert rig.telemetry("/bng/sessions")["count"] == 1
        cp.close()
        assert rig.stop() == 0
        time.sleep(1.1)  # the time stamp counts seconds
        rig.close()
        rig = DpRig(LAB_DP1).start()
        cp = Cp.for_rig(rig)
        assert cp.associate() == 1
        assert cp.dp_recovery is not None and cp.dp_recovery > first
        assert rig.telemetry("/bng/sessions")["count"] == 0
        cp.close()
    finally:
        rig.close()
