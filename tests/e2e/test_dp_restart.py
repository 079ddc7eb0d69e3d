"""kill -9 one bng-dp and start it again: its sessions come back from the control plane
without a re-dial (same PPPoE session id, AC MAC and address; the client sends no PADI and
gets no PADT), and the traffic gap is measured (UDP echo every 50 ms) and printed."""

import os
import signal
import time

import pytest

from bngpod import emu

from . import pod as p

pytestmark = pytest.mark.pod
INTERVAL = 0.05
MAX_GAP = 5.0


@pytest.fixture(scope="module")
def subs(lab_pod):
    lines = {name: p.AccessLine(lab_pod.port(name)) for name in ("access1", "access3")}
    try:
        out = {}
        for i, (group, port) in enumerate((("lg3", "access3"), ("lg1", "access1"))):
            c = p.client(lines[port], p.mac(5, i + 1), p.user_on(group, port))
            res, session = p.dial(c)
            p.udp_echo(c, b"warm up")
            out[group] = {"client": c, "res": res, "session": session, "line": lines[port]}
        yield out
    finally:
        for line in lines.values():
            line.close()


def test_killed_dp_gets_its_sessions_back_without_redial(lab_pod, subs):
    victim, other = subs["lg3"], subs["lg1"]
    c, res = victim["client"], victim["res"]
    sent_before = len(c.sent)
    old_pid = emu.dp_pid("dp3")
    assert old_pid is not None
    repushed = p.cp_metrics().get("bngcp_sessions_repushed_total", 0.0)

    stream = p.EchoStream(c, victim["line"], 40500, INTERVAL)
    stream.start()
    time.sleep(1.0)
    os.kill(old_pid, signal.SIGKILL)
    t_kill = time.monotonic()
    new_pid = emu.restart_dp("dp3")
    t_started = time.monotonic()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not [f for f in stream.answers() if f.t > t_started]:
        time.sleep(0.05)
    t_back = next((f.t for f in stream.answers() if f.t > t_started), None)
    time.sleep(1.0)
    stream.stop()
    gap = stream.longest_gap()
    got = len(stream.answers())
    print(
        f"\nbng-dp dp3 kill -9 and restart: longest traffic gap {gap:.2f} s "
        f"(restart took {t_started - t_kill:.2f} s, traffic back {((t_back or t_kill) - t_kill):.2f} s after the kill; "
        f"{got} of {stream.sent} echoes answered at {INTERVAL * 1000:.0f} ms)"
    )
    assert t_back is not None, "traffic did not come back within 20 s"
    assert gap < MAX_GAP, f"traffic gap {gap:.2f} s"

    # the same session, not a new one: no discovery from the client, no PADT to it
    assert new_pid != old_pid and emu.dp_pid("dp3") == new_pid
    assert p.sent_discovery(c, since=sent_before) == [], "the client re-dialled"
    assert not c.padt_received.is_set() and not c.terminated_by_peer.is_set()
    session = p.wait_session(c.user, lambda s: s["state"] == "established")
    keep = ("id", "pppoe_session_id", "ipv4", "mac", "instance", "acct_session_id")
    assert {k: session[k] for k in keep} == {k: victim["session"][k] for k in keep}
    dp = p.dp_session("dp3", res.ipv4)
    assert dp is not None and dp["state"] == "up"
    assert (dp["pppoe_sid"], dp["mac"], dp["stag"], dp["ctag"]) == (res.session_id, c.mac, c.stag, c.ctag)
    after_restart = [f for f in stream.answers() if f.t > t_started]
    assert after_restart and all(f.src == res.ac_mac and f.pppoe_sid == res.session_id for f in after_restart)
    assert p.cp_metrics()["bngcp_sessions_repushed_total"] >= repushed + 1
    # another instance's subscriber did not notice
    p.udp_echo(other["client"], b"dp1 unaffected")
    assert not other["client"].padt_received.is_set()
