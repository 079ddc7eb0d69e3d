"""The lab pod (topology/examples/lab.yaml) with all its real parts, brought up once per
test module and removed at its end, also when the module fails. Needs root and Open
vSwitch; with BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite fails."""

import pytest
from harness import podenv


@pytest.fixture(scope="session")
def pod_prereqs():
    podenv.require("E2E tests", podenv.missing())


@pytest.fixture(scope="module")
def lab_pod(pod_prereqs):
    with podenv.lab_pod() as pod:
        yield pod
