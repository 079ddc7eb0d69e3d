"""Fixtures that build the emulated pod. These tests need root and Open vSwitch; with
BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite is a failure, not a skip."""

import pytest
from harness import podenv

REPO = podenv.REPO
LAB = podenv.LAB


@pytest.fixture(scope="session")
def pod_prereqs():
    podenv.require("emulated pod tests", podenv.missing())


@pytest.fixture(scope="module")
def lab_pod(pod_prereqs):
    with podenv.lab_pod() as pod:
        yield pod
