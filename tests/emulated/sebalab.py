"""What the emulated-pod tests of org.bngpod.seba share (test_seba_controller.py,
test_seba_kafka.py): the lab pod with a `seba` section in controller mode
(SebaPodController), its REST API, its lab side (SADIS documents, the seba netcfg, the olt
app's UNI events) and BBSim's subscriber BBSM00000001-1 mapped onto lg1's line S100 C900."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness import podenv

from bngpod import emu, radius, validate
from bngpod.launch import controller as ctl

LAB = podenv.REPO / "topology" / "examples" / "lab.yaml"
SADIS = podenv.REPO / "voltha-adapters" / "seba" / "src" / "test" / "resources" / "sadis"
OLT = "of:00000000000000a1"
UNI, UNI_PORT = "BBSM00000001-1", 256
ONU_SERIAL = "BBSM00000001"
STAG, CTAG = 100, 900  # BBSM00000001-1's service in SADIS: on lg1's line of access1


def wait(what: str, check, timeout: float = 30.0):
    """check()'s first true answer, polled every 0.2 s; fails after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


@contextmanager
def seba_pod(tmp: Path, seba: str, users: dict[str, str], **up_options) -> Iterator:
    """The lab pod with the pod file section `seba: <seba>` up in controller mode (so the
    controller runs org.bngpod.seba) for the block, then down. users: FreeRADIUS users
    (name -> password) without reply attributes (a Filter-Id would win over SADIS's rates)."""
    pod_file = tmp / "lab-seba.yaml"
    pod_file.write_text(LAB.read_text() + f"\n# the controller mode runs org.bngpod.seba too\nseba: {seba}\n")
    p = validate.load(pod_file)
    assert p.seba
    podenv.require("controller mode with org.bngpod.seba", emu.controller_missing(p))
    users_file = tmp / "radius-users"
    users_file.write_text(radius.users_file({u: (pw, {}) for u, pw in users.items()}))
    with podenv.pod_up(pod_file, users_file=str(users_file), controller=True, **up_options) as up:
        yield up


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
    """A request to the controller's lab side that must succeed (204)."""
    status, answer = ctl.seba_lab(pod, method, path, body)
    assert status == 204, (method, path, status, answer)


def put_sadis(pod) -> None:
    """SADIS's BBSim entry of BBSM00000001-1 (S100 C900; MEF User_Bandwidth1 up,
    User_Bandwidth2 down) and its bandwidth profiles, into the SADIS stand-in."""
    for bp in ("User_Bandwidth1", "User_Bandwidth2"):
        lab(pod, "PUT", f"/sadis/bandwidthprofiles/{bp}", (SADIS / "bp-mef" / f"{bp}.json").read_bytes())
    lab(pod, "PUT", f"/sadis/subscribers/{UNI}", (SADIS / "subscribers" / f"{UNI}.json").read_bytes())


def netcfg(**fields) -> dict:
    """The seba netcfg cabling the OLT to access1, with these fields beside."""
    return {"olts": [{"deviceId": OLT, "accessPort": "access1"}], **fields}


def uni_event(pod, kind: str, port: int = UNI_PORT, name: str = UNI) -> None:
    """The olt app's UNI_ADDED or UNI_REMOVED of the OLT's port."""
    lab(pod, "POST", "/olt/events", {"type": kind, "deviceId": OLT, "port": port, "name": name})


def wait_mapped(pod) -> dict:
    """BBSM00000001-1's line in /onos/bngpod-seba/subscribers, once the app mapped it."""
    from bngpod import controller as files

    def mapped():
        status, body = seba_get(pod, f"/subscribers/access1/{STAG}/{CTAG}", user=files.CP_USER)
        return body if status == 200 else None

    return wait("line of the UNI in /onos/bngpod-seba/subscribers", mapped)
