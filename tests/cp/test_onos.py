"""bng-cp with ONOS configured (docs/cp/onos.md): session events and resyncs reach the ONOS
application (played by tests/harness/fakeonos.py), a line group moves between the fake DPs when
ONOS's placement says so (Association Update with the bngpod Line Group IE, the sessions
installed again on the new instance, deleted and released on the old one), and a DP that
stops answering is reported dead."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from harness.fakeonos import FakeOnos

from . import pfcpwire as W
from .pod import AC_MAC, CpOptions, Pod


@pytest.fixture
def onos_pod(cp_prereqs, request):
    onos = FakeOnos().start()
    onos.place(1, {"lg1": 1, "lg2": 2})
    p = Pod(CpOptions(), onos_url=onos.url)
    p.dps[1].group_stags["lg1"] = range(100, 150)
    p.dps[2].group_stags["lg1"] = range(100, 150)
    try:
        p.start()
        yield p, onos
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is None or rep.failed:
            print(f"--- bng-cp log (tail) of {p.dir} ---\n{p.cp.log_text()[-8000:]}")
        p.close()
        onos.close()


def events_of(onos: FakeOnos, sid: str, kind: str) -> list[dict]:
    return [e for e in onos.events if e["event"] == kind and e["session"]["id"] == sid]


def test_line_group_moves_without_redial(onos_pod):
    pod, onos = onos_pod
    dp1, dp2 = pod.dps[1], pod.dps[2]
    onos.wait(lambda: onos.resyncs, what="the resync at CP start")
    assert onos.resyncs[0] == ("cp-itest", [])

    c = pod.client(1, user="user1")
    res = c.dial()
    assert res.ok, res.reason
    s1 = dp1.wait_session(c.mac, ctag=c.ctag)
    sessions = pod.cp.sessions()
    assert len(sessions) == 1
    asid = sessions[0]["id"]
    up = onos.wait(lambda: events_of(onos, asid, "up"), what="the up event")[0]["session"]
    assert up["instance"] == 1 and up["lineGroup"] == "lg1" and up["pppoeId"] == s1.pppoe_sid
    assert up["mac"] == c.mac and up["ipv4"] == res.ipv4 and up["username"] == "user1" and up["stag"] == c.stag

    # ONOS moves lg1 to dp2.
    mark1, mark2 = dp1.mark(), dp2.mark()
    onos.place(2, {"lg1": 2, "lg2": 2})
    dp2.wait(lambda: dp2.group_updates, what="the adopt on dp2")
    g, raw = dp2.group_updates[0]
    assert raw == W.line_group_ie(1, AC_MAC[1], "02:cc:00:00:00:01", "100.64.0.11", "lg1")
    assert raw.hex() == "80000017" + "7ed9" + "01" + "02bb00000001" + "02cc00000001" + "6440000b" + "03" + b"lg1".hex()
    s2 = dp2.wait_session(c.mac, ctag=c.ctag)
    assert (s2.pppoe_sid, s2.mac, s2.stag, s2.ctag, s2.ipv4, s2.qos) == (
        s1.pppoe_sid,
        s1.mac,
        s1.stag,
        s1.ctag,
        s1.ipv4,
        s1.qos,
    )
    assert s2.cp_seid == s1.cp_seid and s2.lcp == s1.lcp
    # deleted on dp1, then the release
    dp1.wait_deleted(s1)
    dp1.wait(lambda: dp1.group_updates, what="the release on dp1")
    assert dp1.group_updates[0][0].action == 2 and dp1.group_updates[0][0].name == "lg1"
    rx1 = [r.msg.type for r in dp1.msgs[mark1:] if r.dir == "rx" and r.msg]
    assert rx1.index(W.SESS_DEL_REQ) < rx1.index(W.ASSOC_UPDATE_REQ), rx1
    rx2 = [r.msg.type for r in dp2.msgs[mark2:] if r.dir == "rx" and r.msg]
    assert rx2.index(W.ASSOC_UPDATE_REQ) < rx2.index(W.SESS_EST_REQ), rx2

    # ONOS hears of the session on its new instance; the CP shows it there.
    upd = onos.wait(
        lambda: [e for e in events_of(onos, asid, "update") if e["session"]["instance"] == 2], what="the update event"
    )[0]["session"]
    assert upd["pppoeId"] == s1.pppoe_sid and upd["ipv4"] == res.ipv4
    st, groups = pod.cp.api("GET", "/v1/groups")
    assert st == 200
    lg1 = next(x for x in groups if x["name"] == "lg1")
    assert lg1["instance"] == 2 and lg1["stated_instance"] == 1 and lg1["moved"] and lg1["sessions"] == 1
    assert [x["instance"] for x in pod.cp.sessions()] == [2]
    out = pod.cp.ctl("groups")
    assert out.returncode == 0 and "lg1" in out.stdout and "dp2" in out.stdout

    # No re-dial: the CPE never saw a PADT.
    time.sleep(1.0)
    assert not c.padt_received.is_set()

    # The switch now steers the line to dp2: discovery from dp1 is not answered, from dp2 it is.
    c2 = pod.client(1, user="user2")
    c2.dp = dp2
    dp2.attach(c2)
    res2 = c2.dial()
    assert res2.ok, res2.reason
    assert dp2.wait_session(c2.mac, ctag=c2.ctag).ipv4 == res2.ipv4
    c3 = pod.client(1, user="user3")
    assert not c3.dial(timeout=3).ok  # through dp1: lg1 is not served there any more

    # The moved session ends on dp2, reported down to ONOS with the same id.
    c.dp = dp2
    dp2.attach(c)
    assert c.terminate()
    dp2.wait_deleted(s2)
    down = onos.wait(lambda: events_of(onos, asid, "down"), what="the down event")[0]["session"]
    assert down["instance"] == 2 and down["cause"] == "user-request"


def test_dead_dp_reported(onos_pod):
    pod, onos = onos_pod
    onos.wait(lambda: [h for h in onos.health if h[0] == 1 and h[1]["alive"]], what="dp1 alive")
    pod.dps[1].mute = True
    h = onos.wait(lambda: [h for h in onos.health if h[0] == 1 and not h[1]["alive"]], timeout=40, what="dp1 dead")
    assert h[0][1]["cp"] == "cp-itest" and h[0][1]["reason"]
    pod.dps[1].mute = False
    onos.wait(
        lambda: sum(1 for x in onos.health if x[0] == 1 and x[1]["alive"]) >= 2, timeout=40, what="dp1 alive again"
    )


def test_rates_and_readings_reach_onos(onos_pod):
    """ONOS shows each session's rates and measures its traffic rate (docs/cp/onos.md): the up
    event carries the reading's time (the totals' zero, at establishment), and a CoA that gives
    the session rates of its own is reported at once as an update with them."""
    pod, onos = onos_pod
    onos.wait(lambda: onos.resyncs, what="the resync at CP start")
    c = pod.client(1, user="user2")
    res = c.dial()
    assert res.ok, res.reason
    dp1 = pod.dps[1]
    s1 = dp1.wait_session(c.mac, ctag=c.ctag)
    asid = pod.cp.sessions()[0]["id"]
    up = onos.wait(lambda: events_of(onos, asid, "up"), what="the up event")[0]["session"]
    since = datetime.fromisoformat(up["since"].replace("Z", "+00:00"))
    at = datetime.fromisoformat(up["usage"]["at"].replace("Z", "+00:00"))
    assert since <= at <= datetime.now(UTC)
    assert "downRate" not in up and "upRate" not in up  # the profile's

    out = pod.dynauth(
        "coa", {"Acct-Session-Id": asid, "WISPr-Bandwidth-Max-Down": 40000000, "WISPr-Bandwidth-Max-Up": 8000000}
    )
    assert "CoA-ACK" in out, out
    dp1.wait(lambda: s1.mbr_dl == 40000 and s1.mbr_ul == 8000, 5, "Update QER")
    upd = onos.wait(
        lambda: [e for e in events_of(onos, asid, "update") if e["session"].get("downRate")],
        what="the update after the CoA",
    )[0]["session"]
    assert upd["downRate"] == 40_000_000 and upd["upRate"] == 8_000_000
    assert upd["usage"]["at"] == up["usage"]["at"]  # no usage report in between: the same reading
