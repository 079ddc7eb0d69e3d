"""The ONOS application's steering on a real Open vSwitch. onos-app's OvsSteeringIT
(`mvn verify`) renders the app's flow objectives for the lab pod with ONOS's own
DefaultSingleTablePipeline, translates the flow rules into OVS flows and writes one
directory per phase under BNGPOD_ONOS_FLOWS_DIR:

    <phase>/flows.of13       the switch's flows, ovs-ofctl syntax, OpenFlow 1.3
    <phase>/placement.json   {"line group": "instance name", ...}

Phases run in name order (1-stated, then 2-<instance>-failed): each replaces the
bridge's flows and runs the fold checks of foldchecks.py against its placement.
Without BNGPOD_ONOS_FLOWS_DIR the module is skipped: it only makes sense driven."""

import json
import os
from pathlib import Path

import pytest

from bngpod import emu, probe, validate

from . import foldchecks as fc
from .conftest import LAB

FLOWS_DIR = os.environ.get("BNGPOD_ONOS_FLOWS_DIR")

pytestmark = [
    pytest.mark.pod,
    pytest.mark.skipif(not FLOWS_DIR, reason="driven by onos-app's OvsSteeringIT (BNGPOD_ONOS_FLOWS_DIR unset)"),
]


def _phases() -> list[Path]:
    if not FLOWS_DIR:
        return []
    phases = sorted(p for p in Path(FLOWS_DIR).iterdir() if (p / "flows.of13").is_file())
    if not phases:
        raise RuntimeError(f"no <phase>/flows.of13 under {FLOWS_DIR}")
    return phases


PHASES = _phases()


def _flow_lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


@pytest.fixture(scope="module")
def onos_pod(pod_prereqs):
    """The lab pod without bng-dp: the switch alone is under test."""
    emu.down(quiet=True)
    pod = validate.load(LAB)
    emu.up(pod, str(LAB), dp=False)
    try:
        yield pod
    finally:
        emu.down(quiet=True)


@pytest.fixture(scope="module")
def ports(onos_pod):
    with probe.edges(onos_pod, emu) as opened:
        yield opened


@pytest.fixture(scope="module", params=PHASES, ids=[p.name for p in PHASES])
def placement(request, onos_pod):
    """Loads one phase's flows into the bridge; its placement, checked against the pod."""
    phase: Path = request.param
    flows = phase / "flows.of13"
    emu.ofctl("replace-flows", emu.BRIDGE, str(flows))
    loaded = [ln for ln in emu.ofctl("dump-flows", emu.BRIDGE).stdout.splitlines() if "actions=" in ln]
    assert len(loaded) == len(_flow_lines(flows)), f"{flows}: {len(loaded)} flows loaded"
    placed = json.loads((phase / "placement.json").read_text())
    assert set(placed) <= {g.name for g in onos_pod.groups}
    assert set(placed.values()) <= {i.name for i in onos_pod.instances}
    return placed


def test_every_group_is_placed(onos_pod, placement):
    assert set(placement) == {g.name for g in onos_pod.groups}


def test_access_frames_reach_only_their_instance(onos_pod, ports, placement):
    fc.access_frames_reach_only_their_instance(onos_pod, ports, placement, retags_split_stags=False)


@pytest.mark.parametrize("port,stag,ctag", fc.UNSERVED)
def test_unserved_s_tag_is_dropped(onos_pod, ports, placement, port, stag, ctag):
    fc.unserved_s_tag_is_dropped(ports, port, stag, ctag)


def test_instance_frames_return_to_their_access_port(onos_pod, ports, placement):
    fc.instance_frames_return_to_their_access_port(onos_pod, ports, placement)


def test_foreign_line_injection_is_dropped(onos_pod, ports, placement):
    cases = fc.foreign_line_cases(onos_pod, placement)
    assert cases
    for case in cases:
        fc.foreign_line_injection_is_dropped(onos_pod, ports, *case)


def test_core_side_is_steered_by_mac(onos_pod, ports, placement):
    fc.core_side_is_steered_by_mac(onos_pod, ports, placement)


def test_core_mac_of_another_group_is_dropped(onos_pod, ports, placement):
    fc.core_mac_of_another_group_is_dropped(onos_pod, ports, placement)


def test_core_router_resolves_a_group_address_through_the_fold(onos_pod, ports, placement):
    fc.core_router_resolves_a_group_address(onos_pod, ports, placement)
