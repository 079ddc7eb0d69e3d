"""org.bngpod.seba itself in the emulated pod (issue 16, docs/seba.md): `bngpod up --controller`
with a pod file that has a `seba` section runs org.bngpod.seba.impl.SebaPodController
(voltha-adapters/seba's test scope): onos-app's PodController with this app's SebaManager,
PppoeEventProvider and BngStatsProvider beside org.bngpod.app's components, its REST API at
/onos/bngpod-seba on the same server and realm, SADIS stood in for by RemoteSadis (SADIS's
remote mode) against an HTTP SADIS server and the olt app by an AccessDeviceService whose UNI
events the test posts. The lab pod (real bng-dp, bng-cp, FreeRADIUS), bng-cp pointing at that
controller as the controller mode writes it:

- the controller is ready and org.bngpod.app steers the switch as without SEBA;
- /onos/bngpod-seba answers as the WAB does (401 without credentials, the roles of its web.xml);
- SADIS's BBSim entry of BBSM00000001-1 (S100 C900, MEF profiles) and the netcfg cabling an
  OLT to access1, then the olt app's UNI_ADDED: the Java app maps the UNI onto lg1's line with
  SADIS's identity and rates; bng-cp pulls that table and polls the teardowns from it;
- a SADIS document SADIS refuses (an unknown field) leaves the UNI unmapped, with a problem;
- bng-cp pulls that table from the Java app; a subscriber dials on the line (the scapy PPPoE
  client, RADIUS without Filter-Id): the Accounting-Start carries SADIS's NAS-Port-Id, the
  session reaches org.bngpod.app with SADIS's rates, its PPPoE steps reach org.bngpod.seba;
- the olt app's UNI_REMOVED, after the configured hold-down, becomes the Java app's
  Lost-Carrier teardown request; bng-cp polls it: PADT (no LCP Terminate-Request), the session
  gone, an Accounting-Stop with Acct-Terminate-Cause Lost-Carrier.
"""

import json

import pytest
from harness import ipoe_pod as ip
from harness.pppoe_client import PppoeClient
from harness.rawaccess import RawAccess

from bngpod import emu
from bngpod.launch import controller as ctl

from .sebalab import OLT, UNI, UNI_PORT, lab, netcfg, put_sadis, seba_get, seba_pod, uni_event, wait, wait_mapped

pytestmark = pytest.mark.pod

USER, PASSWORD, MAC = "seba-1", "pw-seba-1", "02:5e:ba:00:00:02"


@pytest.fixture(scope="module")
def pod(pod_prereqs, tmp_path_factory):
    with seba_pod(tmp_path_factory.mktemp("seba-ctl"), "{}", {USER: PASSWORD}) as up:
        yield up


def test_seba_app_in_controller_mode(pod):
    from bngpod import controller as files

    events = emu.controller_events()
    assert any(e.get("event") == "ready" for e in events), events
    # the REST API of org.bngpod.seba, as its WAB: login, then roles
    status, _ = seba_get(pod, "/subscribers", user=files.CP_USER, password="wrong")  # noqa: S106 (a wrong one)
    assert status == 401
    status, _ = seba_get(pod, "/subscribers", user=files.VIEWER_USER)
    assert status == 200
    status, body = seba_get(pod, "/subscribers", user=files.CP_USER)
    assert status == 200, body
    assert body["subscribers"] == [], body
    # bng-cp polls the teardowns of this controller (its `onos` section, as the controller mode writes it)
    status, body = seba_get(pod, "/teardowns?after=0", user=files.CP_USER)
    assert status == 200 and body["teardowns"] == [], body

    put_sadis(pod)
    lab(pod, "POST", "/netcfg", netcfg(holdDown=1))
    # what the lab side refuses: a config SebaConfig refuses, an unknown request
    assert ctl.seba_lab(pod, "POST", "/netcfg", {"olts": []})[0] == 400
    assert ctl.seba_lab(pod, "DELETE", "/netcfg", "")[0] == 400
    uni_event(pod, "UNI_ADDED")
    line = wait_mapped(pod)
    assert line["lineGroup"] == "lg1", line
    assert (line["circuitId"], line["remoteId"], line["nasPortId"]) == (UNI, "BBSM00000001", UNI), line
    assert line["uni"] == {"deviceId": OLT, "port": str(UNI_PORT), "name": UNI}, line
    # MEF User_Bandwidth2 down, User_Bandwidth1 up: peak cir+eir+air (kbit/s) in bit/s
    print("SADIS line:", json.dumps(line))
    assert line["up"]["rate"] == (30000 + 100000 + 100000) * 1000, line

    # a SADIS document SADIS would refuse (an unknown field): no line, a problem
    lab(
        pod,
        "PUT",
        "/sadis/subscribers/BBSM00000002-1",
        '{"id":"BBSM00000002-1","nasPortId":"x","circuitId":"x","remoteId":"x","bogus":1,"uniTagList":[]}',
    )
    uni_event(pod, "UNI_ADDED", port=512, name="BBSM00000002-1")
    status, body = wait("the refused document's problem",
                        lambda: (lambda r: r if any("BBSM00000002-1" in p for p in r[1]["problems"]) else None)(
                            seba_get(pod, "/subscribers", user=files.CP_USER)))  # fmt: skip
    assert len(body["subscribers"]) == 1, body

    # bng-cp reads that table from the Java app (its pull at start; every 30 s after)
    emu.stop_cp()
    emu.start_cp()
    wait("bng-cp's pull of the table", lambda: emu.cp_metrics(pod).get("bngcp_onos_subscribers") == 1)

    port = pod.port("access1")
    with RawAccess(port) as access:
        c = PppoeClient(access, MAC, 100, 900, user=USER, password=PASSWORD, auth="pap", outer_tpid=port.tpid)
        res = c.dial(timeout=20)
        assert res.ok, res.reason
        asid = ip.cp_session(USER)["acct_session_id"]
        start = ip.wait_accounting(pod, asid, "Start")
        assert start.get("NAS-Port-Id") == UNI, start

        # bng-cp reports the session to org.bngpod.app, with SADIS's rates (MEF User_Bandwidth2 down)
        def reported():
            status, body = emu.controller_api(pod, "GET", "/sessions", user=files.VIEWER_USER)
            return [x for x in body.get("sessions", []) if x.get("id") == asid] if status == 200 else None

        s = wait("the session in org.bngpod.app", reported)[0]
        print("session reported:", json.dumps(s))
        assert (s["downRate"], s["upRate"]) == (300_000_000, 230_000_000), s
        # and its PPPoE steps to org.bngpod.seba (for bng.pppoe)
        wait("bng-cp's PPPoE events to /onos/bngpod-seba/pppoe-events", lambda: any(
            e.get("event") == "request" and e.get("path") == "/onos/bngpod-seba/pppoe-events"
            for e in emu.controller_events()))  # fmt: skip

        # the olt app's UNI_REMOVED, past the 1 s hold-down: org.bngpod.seba's Lost-Carrier
        # teardown request, which bng-cp polls and carries out
        uni_event(pod, "UNI_REMOVED")

        def teardown():
            status, body = seba_get(pod, "/teardowns?after=0", user=files.CP_USER)
            return body["teardowns"] if status == 200 and body["teardowns"] else None

        reqs = wait("the teardown request", teardown)
        print("teardowns:", json.dumps(reqs))
        got = [(r["accessPort"], r["stag"], r["ctag"], r["cause"]) for r in reqs]
        assert got == [("access1", 100, 900, "Lost-Carrier")], reqs
        assert c.padt_received.wait(15), "no PADT after the UNI_REMOVED"
        assert not c.terminated_by_peer.is_set(), "an LCP Terminate-Request came for Lost-Carrier"
        ip.wait_cp_gone(USER)
        stop = ip.wait_accounting(pod, asid, "Stop")
        assert stop["Acct-Terminate-Cause"] == "Lost-Carrier", stop
    ev = [e for e in emu.controller_events() if e.get("event") == "seba"]
    assert [e.get("type") for e in ev if "uni" in e] == ["UNI_ADDED", "UNI_ADDED", "UNI_REMOVED"], ev
