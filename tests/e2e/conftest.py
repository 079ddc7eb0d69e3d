"""The lab pod (topology/examples/lab.yaml) with all its real parts, brought up once per
test module and removed at its end, also when the module fails. Needs root and Open
vSwitch; with BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite fails."""

import os
import shutil

import pytest

from bngpod import emu, validate

from .pod import LAB


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("ovs-vswitchd", "ovsdb-server", "ethtool"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (make setup)"
    if not emu.BNG_DP.exists():
        return f"{emu.BNG_DP} is not built (make build)"
    return None


@pytest.fixture(scope="session")
def pod_prereqs():
    why = _missing()
    if why:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(f"E2E tests cannot run: {why}")
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
