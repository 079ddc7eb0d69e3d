"""The static fold on a real Open vSwitch: QinQ frames sent into the emulated pod's
namespaces must come out of exactly the ports the pod file says, and nowhere else.
The checks live in foldchecks.py; test_onos_fold.py runs them on the ONOS app's steering."""

import pytest

from bngpod import emu, probe

from . import foldchecks as fc

pytestmark = pytest.mark.pod


@pytest.fixture(scope="module")
def ports(lab_pod):
    with probe.edges(lab_pod, emu) as opened:
        yield opened


@pytest.fixture(scope="module")
def placement(lab_pod):
    return fc.stated_placement(lab_pod)


def test_access_frames_reach_only_their_instance(lab_pod, ports, placement):
    fc.access_frames_reach_only_their_instance(lab_pod, ports, placement)


@pytest.mark.parametrize("port,stag,ctag", fc.UNSERVED)
def test_unserved_s_tag_is_dropped(lab_pod, ports, port, stag, ctag):
    fc.unserved_s_tag_is_dropped(ports, port, stag, ctag)


def test_instance_frames_return_to_their_access_port(lab_pod, ports, placement):
    fc.instance_frames_return_to_their_access_port(lab_pod, ports, placement)


def test_foreign_line_injection_is_dropped(lab_pod, ports, placement):
    cases = fc.foreign_line_cases(lab_pod, placement)
    # the split S-tag's other half is among them, both ways
    assert ("dp3", "access3", 300, 2000) in cases and ("dp4", "access3", 300, 1) in cases
    for case in cases:
        fc.foreign_line_injection_is_dropped(lab_pod, ports, *case)


def test_core_side_is_steered_by_mac(lab_pod, ports, placement):
    fc.core_side_is_steered_by_mac(lab_pod, ports, placement)


def test_core_mac_of_another_group_is_dropped(lab_pod, ports, placement):
    fc.core_mac_of_another_group_is_dropped(lab_pod, ports, placement)


def test_core_router_resolves_a_group_address_through_the_fold(lab_pod, ports, placement):
    fc.core_router_resolves_a_group_address(lab_pod, ports, placement)
