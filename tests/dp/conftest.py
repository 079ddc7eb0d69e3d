"""Fixtures for the bng-dp functional tests: root, a built bng-dp, namespaces.
With BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite fails."""

import pytest
from harness import podenv
from harness.pfcp_cp import Cp
from harness.rig import BNG_DP, DpRig, cleanup_stale

from bngpod.binaries import REPO

LAB_DP1 = REPO / "topology" / "tests" / "golden" / "lab" / "dp" / "dp1.ini"


@pytest.fixture(scope="session")
def dp_prereqs():
    podenv.require(
        "bng-dp functional tests", podenv.missing(tools=(), files=(BNG_DP,), root_why=" (network namespaces)")
    )


@pytest.fixture(scope="module")
def dp(dp_prereqs):
    rig = DpRig(LAB_DP1).start()
    try:
        yield rig
    finally:
        rig.close()
        cleanup_stale()


@pytest.fixture(scope="module")
def cp(dp):
    """A CP associated with the module's bng-dp, whose next hop (the router) is resolved."""
    from .test_datapath import resolve_router  # the helper lives with the datapath tests

    cp = Cp.for_rig(dp)
    try:
        assert cp.associate() == 1
        resolve_router(dp)
        yield cp
    finally:
        cp.close()
