"""bng-cp with the SEBA app's side (docs/seba.md, docs/cp/onos.md "Subscriber identities from
SEBA"): a subscriber whose identity comes from SADIS dials, FreeRADIUS (real) sees SADIS's
circuit id, remote id and NAS-Port-Id, the DP gets the bandwidth profile's rates in the QER,
the PPPoE steps reach the app for bng.pppoe, and a Lost-Carrier teardown request (what the
app makes from a UNI_REMOVED past its hold-down) ends the session with its Stop record.

What stands in for ONOS: tests/harness/fakeonos.py plays org.bngpod.app and org.bngpod.seba
(the subscribers table as the Java app writes it, tests/contract/onos/seba-subscribers.json;
teardown requests; POST /pppoe-events checked as PppoeEventsWebResource checks it). The SADIS
and olt apps behind the Java app are tested with ONOS's test kit (voltha-adapters/seba); the
DP is tests/cp/fakedp.py, so rates are read from the QER, not measured on traffic."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from harness.fakeonos import FakeOnos

from .pod import CpOptions, Pod
from .test_sessions import dial_up, stop_of

UNI = "BBSM00000001-1"
SUBSCRIBER = {
    "accessPort": "access1",
    "stag": 100,
    "ctag": 900,
    "lineGroup": "lg1",
    "uni": {"deviceId": "of:00000000000000a1", "port": "256", "name": UNI},
    "onuSerial": "BBSM00000001",
    "serviceName": "hsia",
    "circuitId": "olt1 eth 0/1:1.1",
    "remoteId": "cpe-1",
    "nasPortId": UNI,
    # BBSim's MEF profiles as the app maps them (docs/seba.md): User_Bandwidth2 down, User_Bandwidth1 up
    "down": {
        "profile": "User_Bandwidth2",
        "rate": 300000000,
        "guaranteed": 100000000,
        "peakBurst": 1250000,
        "committedBurst": 625000,
    },
    "up": {
        "profile": "User_Bandwidth1",
        "rate": 230000000,
        "guaranteed": 30000000,
        "peakBurst": 1375000,
        "committedBurst": 1250000,
    },
}


@pytest.fixture
def seba_pod(cp_prereqs, request):
    onos = FakeOnos().start()
    onos.place(1, {"lg1": 1, "lg2": 2})
    onos.seba_subscribers = [SUBSCRIBER]  # before bng-cp starts: its first pull reads it
    p = Pod(CpOptions(), onos_url=onos.url)
    try:
        p.start()
        yield p, onos
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is None or rep.failed:
            print(f"--- bng-cp log (tail) of {p.dir} ---\n{p.cp.log_text()[-8000:]}")
        p.close()
        onos.close()


def text(v: str | None) -> str | None:
    """A RADIUS string as FreeRADIUS's detail file writes it (plain, or 0x... for octets)."""
    if v and v.startswith("0x"):
        return bytes.fromhex(v[2:]).decode()
    return v


def test_sadis_identity_rates_events_and_teardown(seba_pod):
    pod, onos = seba_pod
    onos.wait(lambda: onos.seba_pulls, what="bng-cp's first pull of the subscribers table")
    time.sleep(0.5)  # the answer decoded and stored
    # the TR-101 tag of SEBA's PPPoE agent disagrees on the circuit id: SADIS wins
    c = pod.client(1, user="user3", ctag=900, circuit_id="forged", remote_id="cpe-1")
    res, s, start = dial_up(pod, c)

    req = pod.access_requests("user3")[-1]
    assert text(req.get("ADSL-Agent-Circuit-Id")) == "olt1 eth 0/1:1.1", req
    assert text(req.get("ADSL-Agent-Remote-Id")) == "cpe-1", req
    assert req.get("NAS-Port-Id") == UNI, req
    assert text(start.get("ADSL-Agent-Circuit-Id")) == "olt1 eth 0/1:1.1" and start.get("NAS-Port-Id") == UNI

    # the profile's rates in the QER (kbit/s): peak down, peak and guaranteed up
    assert (s.mbr_dl, s.mbr_ul, s.gbr_ul) == (300000, 230000, 30000), (s.mbr_dl, s.mbr_ul, s.gbr_ul)

    # the PPPoE steps for bng.pppoe
    onos.wait(lambda: len(onos.pppoe_events) >= 2, what="SESSION_INIT and AUTH_SUCCESS")
    line = {"accessPort": "access1", "stag": 100, "ctag": 900, "mac": c.mac}
    assert onos.pppoe_events[:2] == [
        dict(line, type="SESSION_INIT", pppoeId=0),
        dict(line, type="AUTH_SUCCESS", pppoeId=res.session_id),
    ], onos.pppoe_events
    assert onos.pppoe_refused == []

    # a line SADIS does not map: its own NAS-Port-Id, no events
    other = pod.client(1, user="user4", ctag=901)
    dial_up(pod, other)
    assert pod.access_requests("user4")[-1].get("NAS-Port-Id") == "access1:100.901"

    # the UNI stayed removed past the hold-down: Lost-Carrier
    with onos.cond:
        onos.seba_teardowns.append(
            {
                "version": 1,
                "accessPort": "access1",
                "stag": 100,
                "ctag": 900,
                "uni": UNI,
                "cause": "Lost-Carrier",
                "at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            }
        )
    assert c.padt_received.wait(10), "no PADT after the teardown request"
    c.dp.wait_deleted(s)
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop["Acct-Terminate-Cause"] == "Lost-Carrier" and stop.get("NAS-Port-Id") == UNI, stop
    assert [x["id"] for x in pod.cp.sessions()] == [pod.cp.sessions()[0]["id"]] and len(pod.cp.sessions()) == 1
    assert all(e["ctag"] == 900 for e in onos.pppoe_events)
