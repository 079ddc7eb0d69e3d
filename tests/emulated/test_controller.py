"""The emulated pod in controller mode (`bngpod up --controller`, docs/emulated-pod.md): the
switch driven by the ONOS application's own placement and steering code, its REST API served
as ONOS serves it. The failover pod (topology/examples/failover.yaml: the lab and a standby
dp5) without bng-dp and bng-cp, so that the switch alone is under test:

- the split S-tag of access3 (lg3 C1-1999, lg4 C2000-4094 on S300) is kept on one instance by
  the placement's rule, with its reason in GET /placement;
- the switch holds exactly the app's rules as ONOS's OpenFlow 1.3 provider sends them (one
  table, no inner VLAN, each entry with its rule's cookie), and the fold checks the static
  fold passes (tests/emulated/foldchecks.py) pass on it;
- dp4's switch port going down reaches the app as a port event: dp4 is declared dead by
  `switch`, lg3 and lg4 move together to the standby, the switch is re-steered and the fold
  checks pass for the new placement; the port coming back moves nothing back;
- the REST API answers as ONOS's: 401 without credentials, the roles of the app."""

import time

import pytest
from harness import podenv

from bngpod import clients, emu, probe, validate
from bngpod.rawsock import in_netns

from . import foldchecks as fc

pytestmark = pytest.mark.pod

FAILOVER = podenv.REPO / "topology" / "examples" / "failover.yaml"


@pytest.fixture(scope="module")
def pod(pod_prereqs):
    podenv.require("controller mode", emu.controller_missing())
    emu.down(quiet=True)
    p = validate.load(FAILOVER)
    emu.up(p, str(FAILOVER), dp=False, cp=False, controller=True)
    try:
        yield p
    finally:
        emu.down(quiet=True)


@pytest.fixture(scope="module")
def ports(pod):
    with probe.edges(pod, emu) as opened:
        yield opened


def placement(pod, user="viewer") -> dict:
    status, body = emu.controller_api(pod, "GET", "/placement", user=user)
    assert status == 200, body
    return body


def by_name(pod, body: dict) -> dict[str, str]:
    """line group -> instance name of a GET /placement answer."""
    names = {i.id: i.name for i in pod.instances}
    return {g["lineGroup"]: names[g["instance"]] for g in body["groups"] if g["state"] == "placed"}


def switch_flows() -> list[str]:
    out = emu.ofctl("dump-flows", emu.BRIDGE, "--no-stats").stdout
    return [ln.strip() for ln in out.splitlines() if "actions=" in ln]


def wait_version(pod, above: int, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        body = placement(pod)
        if body["version"] > above:
            return body
        assert time.monotonic() < deadline, f"placement still at version {body['version']}"
        time.sleep(0.1)


def wait_steered(pod, body: dict, timeout: float = 10.0) -> None:
    """Until the switch's LINE_UP of lg3's S300 leads to the instance the placement names."""
    inst = next(i for i in pod.instances if i.id == next(g["instance"] for g in body["groups"]
                                                           if g["lineGroup"] == "lg3"))  # fmt: skip
    want = f"in_port=3,dl_vlan=300 actions=output:{inst.vf.emu_ofport}"
    deadline = time.monotonic() + timeout
    while not any(want in f for f in switch_flows()):
        assert time.monotonic() < deadline, f"the switch is not steered to {inst.name}: no {want!r}"
        time.sleep(0.1)


def test_the_split_stag_is_kept_on_one_instance_with_its_reason(pod):
    body = placement(pod)
    groups = {g["lineGroup"]: g for g in body["groups"]}
    assert groups["lg3"]["instance"] == groups["lg4"]["instance"] == 4
    assert groups["lg3"]["reasonKind"] == "SHARED_STAG"
    assert "lg4 and lg3 share S-tag 300 on access3" in groups["lg3"]["reason"]
    assert "cannot split an S-tag by C-tag" in groups["lg3"]["reason"]
    assert groups["lg4"]["reasonKind"] == "STATED"
    # the standby serves nothing
    assert all(g["instance"] != 5 for g in body["groups"])


def test_the_switch_holds_the_apps_rules_as_onos_sends_them(pod):
    flows = switch_flows()
    assert len(flows) == 339  # lg1 104, lg2 124, lg4 104, lg3 4, S300 of lg3 and lg4 2, the drop
    assert all("send_flow_rem" in f for f in flows), flows[:3]
    # one table, no C-tag anywhere: the S-tag split by C-tag is one entry each way
    out = emu.ofctl("dump-flows", emu.BRIDGE, "--no-stats").stdout
    assert "table=1" not in out and "metadata" not in out and "pop_vlan" not in out
    s300 = [f for f in flows if "dl_vlan=300" in f]
    assert sorted(f.split(" ", 2)[-1] for f in s300) == [
        "priority=40200,in_port=3,dl_vlan=300 actions=output:5002",
        "priority=40200,in_port=5002,dl_vlan=300 actions=output:3",
    ], s300
    cookies = [f.split(",")[0] for f in flows]
    assert len(set(cookies)) == len(cookies) and "cookie=0" not in cookies


def test_the_fold_checks_pass_on_the_controllers_steering(pod, ports):
    placed = by_name(pod, placement(pod))
    fc.access_frames_reach_only_their_instance(pod, ports, placed, retags_split_stags=False)
    fc.instance_frames_return_to_their_access_port(pod, ports, placed)
    for case in fc.foreign_line_cases(pod, placed):
        fc.foreign_line_injection_is_dropped(pod, ports, *case)
    fc.core_side_is_steered_by_mac(pod, ports, placed)
    fc.core_router_resolves_a_group_address(pod, ports, placed)


def test_a_port_down_fails_its_instance_over_and_the_switch_is_re_steered(pod, ports):
    before = placement(pod)
    dp4 = next(i for i in pod.instances if i.name == "dp4")
    emu.sh("ip", "link", "set", f"v{dp4.vf.emu_ofport}", "down", ns=emu.SWITCH_NS)
    try:
        after = wait_version(pod, before["version"])
        dead = next(i for i in after["instances"] if i["id"] == 4)
        assert not dead["available"] and dead["declaredBy"] == "switch", dead
        assert dead["reason"] == f"switch port {dp4.vf.emu_ofport} down"
        groups = {g["lineGroup"]: g for g in after["groups"]}
        # together, onto the standby (the most headroom: a 25G port of its own)
        assert groups["lg3"]["instance"] == groups["lg4"]["instance"] == 5
        assert after["lastFailover"]["instance"] == 4 and sorted(after["lastFailover"]["moved"]) == ["lg3", "lg4"]
        wait_steered(pod, after)
        placed = by_name(pod, after)
        fc.access_frames_reach_only_their_instance(pod, ports, placed, retags_split_stags=False)
        fc.instance_frames_return_to_their_access_port(pod, ports, placed)
        fc.core_side_is_steered_by_mac(pod, ports, placed)
        assert not any("5002" in f for f in switch_flows())
    finally:
        emu.sh("ip", "link", "set", f"v{dp4.vf.emu_ofport}", "up", ns=emu.SWITCH_NS)
    back = wait_version(pod, after["version"])
    assert next(i for i in back["instances"] if i["id"] == 4)["available"]
    # nothing moves back
    assert by_name(pod, back) == by_name(pod, after)


def test_the_rest_api_answers_as_onos_does(pod):
    with in_netns(emu.MGMT_NS):
        status, _ = clients.rest(str(pod.control_plane.address), 8181, "GET", "/onos/bngpod/placement", "bngcp", "x")
    assert status == 401
    status, body = emu.controller_api(pod, "GET", "/placement", user="bngcp")
    assert status == 200 and body["version"] >= 1
    status, body = emu.controller_api(pod, "GET", "/pod", user="bngcp")
    assert status == 403 and "needs the role admin or viewer" in body["error"]
    status, body = emu.controller_api(pod, "POST", "/instances/1/health", {"alive": False}, user="viewer")
    assert status == 403
    status, body = emu.controller_api(pod, "GET", "/placement?after=x", user="viewer")
    assert status == 400 and body["error"].startswith("after:")
