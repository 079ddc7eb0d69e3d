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
- the UNI_REMOVED, after the configured hold-down, becomes the Lost-Carrier teardown request
  bng-cp reads.
"""

import json
import time
from pathlib import Path

import pytest
from harness import podenv

from bngpod import emu, validate
from bngpod.launch import controller as ctl

pytestmark = pytest.mark.pod

LAB = podenv.REPO / "topology" / "examples" / "lab.yaml"
SADIS = podenv.REPO / "voltha-adapters" / "seba" / "src" / "test" / "resources" / "sadis"
OLT = "of:00000000000000a1"
UNI, UNI_PORT = "BBSM00000001-1", 256


def wait(what: str, check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def pod(pod_prereqs, tmp_path_factory):
    podenv.require("controller mode with org.bngpod.seba", emu.controller_missing(validate.load(LAB)) or None)
    pod_file = Path(tmp_path_factory.mktemp("seba-ctl")) / "lab-seba.yaml"
    pod_file.write_text(LAB.read_text() + "\n# the controller mode runs org.bngpod.seba too\nseba: {}\n")
    p = validate.load(pod_file)
    assert p.seba
    emu.down(quiet=True)
    emu.up(p, str(pod_file), controller=True)
    try:
        yield p
    finally:
        emu.down(quiet=True)


def seba_get(pod, path: str, user: str = "bngcp", password: str | None = None):
    """GET /onos/bngpod-seba/PATH as a generated user (or with the password given)."""
    from bngpod import clients
    from bngpod import controller as files
    from bngpod.rawsock import in_netns

    state = emu.State.load()
    password = password or files.users(Path(state.data["controller"]["generated"]))[user]
    with in_netns(emu.MGMT_NS):
        return clients.rest(str(pod.control_plane.address), files.CONTROLLER_PORT, "GET", "/onos/bngpod-seba" + path,
                            user, password, None, 5.0)  # fmt: skip


def lab(pod, method: str, path: str, body) -> None:
    status, answer = ctl.seba_lab(pod, method, path, body)
    assert status == 204, (method, path, status, answer)


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

    for bp in ("User_Bandwidth1", "User_Bandwidth2"):
        lab(pod, "PUT", f"/sadis/bandwidthprofiles/{bp}", (SADIS / "bp-mef" / f"{bp}.json").read_bytes())
    lab(pod, "PUT", f"/sadis/subscribers/{UNI}", (SADIS / "subscribers" / f"{UNI}.json").read_bytes())
    lab(pod, "POST", "/netcfg", {"olts": [{"deviceId": OLT, "accessPort": "access1"}], "holdDown": 1})
    # what the lab side refuses: a config SebaConfig refuses, an unknown request
    assert ctl.seba_lab(pod, "POST", "/netcfg", {"olts": []})[0] == 400
    assert ctl.seba_lab(pod, "DELETE", "/netcfg", "")[0] == 400
    lab(pod, "POST", "/olt/events", {"type": "UNI_ADDED", "deviceId": OLT, "port": UNI_PORT, "name": UNI})

    def mapped():
        status, body = seba_get(pod, "/subscribers/access1/100/900", user=files.CP_USER)
        return body if status == 200 else None

    line = wait("line of the UNI in /onos/bngpod-seba/subscribers", mapped)
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
    lab(pod, "POST", "/olt/events", {"type": "UNI_ADDED", "deviceId": OLT, "port": 512, "name": "BBSM00000002-1"})
    status, body = wait("the refused document's problem",
                        lambda: (lambda r: r if any("BBSM00000002-1" in p for p in r[1]["problems"]) else None)(
                            seba_get(pod, "/subscribers", user=files.CP_USER)))  # fmt: skip
    assert len(body["subscribers"]) == 1, body

    # UNI_REMOVED, past the 1 s hold-down: the Lost-Carrier teardown request bng-cp polls
    lab(pod, "POST", "/olt/events", {"type": "UNI_REMOVED", "deviceId": OLT, "port": UNI_PORT, "name": UNI})

    def teardown():
        status, body = seba_get(pod, "/teardowns?after=0", user=files.CP_USER)
        return body["teardowns"] if status == 200 and body["teardowns"] else None

    reqs = wait("the teardown request", teardown)
    print("teardowns:", json.dumps(reqs))
    got = [(r["accessPort"], r["stag"], r["ctag"], r["cause"]) for r in reqs]
    assert got == [("access1", 100, 900, "Lost-Carrier")], reqs
    ev = [e for e in emu.controller_events() if e.get("event") == "seba"]
    assert [e.get("type") for e in ev if "uni" in e] == ["UNI_ADDED", "UNI_ADDED", "UNI_REMOVED"], ev
