"""Fixtures that build the emulated pod. These tests need root and Open vSwitch; with
BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite is a failure, not a skip."""

import os
import shutil
from pathlib import Path

import pytest

from bngpod import emu, validate

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "topology" / "examples" / "lab.yaml"


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("ovs-vswitchd", "ovsdb-server", "ethtool"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (make setup)"
    return None


@pytest.fixture(scope="session")
def pod_prereqs():
    why = _missing()
    if why:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(f"emulated pod tests cannot run: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def lab_pod(pod_prereqs):
    emu.down(quiet=True)
    pod = validate.load(LAB)
    emu.up(pod, str(LAB))
    try:
        yield pod
    finally:
        emu.down(quiet=True)
