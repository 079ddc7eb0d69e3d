"""HQoS shaping measured on the wire with two worker lcores (--workers 2): the HQoS
lives on the downstream worker, fed by the ring from the upstream worker. The tests
of test_hqos_wire.py run again on a split instance (hsched, the default scheduler),
with the same bounds."""

from __future__ import annotations

import shutil

import pytest
from harness.pfcp_cp import Cp
from harness.rig import cleanup_stale

from .test_datapath import resolve_router
from .test_hqos_wire import (  # noqa: F401 (collected again on the split instance)
    hqos_config,
    test_two_classes_at_twice_the_subport_rate,
    test_two_pipes_share_an_oversubscribed_subport_as_configured,
)
from .test_workers import split_rig


@pytest.fixture(scope="module")
def hq(dp_prereqs, tmp_path_factory):
    if shutil.which("tcpdump") is None:
        pytest.fail("tcpdump is not installed (scripts/setup.sh installs it)")
    rig = split_rig(hqos_config(tmp_path_factory.mktemp("hqos"))).start()
    cp = None
    try:
        assert rig.stats()["workers"] == 2
        cp = Cp.for_rig(rig)
        assert cp.associate() == 1
        resolve_router(rig)
        yield rig, cp
    finally:
        if cp is not None:
            cp.close()
        rig.close()
        cleanup_stale()
