"""What the tests that build pods need from the host (root, tools, the programs `make
binaries` builds), and the one way they bring the lab pod up and down. With
BNGPOD_REQUIRE_POD=1 (as `make test` sets) a missing prerequisite is a failure, not a skip."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bngpod import binaries, emu, validate

REPO = binaries.REPO
LAB = REPO / "topology" / "examples" / "lab.yaml"
POD_TOOLS = ("ovs-vswitchd", "ovsdb-server", "ethtool")
# what a whole emulated pod runs (bng-subemu: the demo)
POD_BINARIES = (binaries.BNG_DP, binaries.BNG_CP, binaries.BNGCPCTL, binaries.BNG_SUBEMU, binaries.ACCESS_INGRESS)


def missing(
    tools: tuple[str, ...] = POD_TOOLS, files: tuple[Path, ...] = POD_BINARIES, root_why: str = ""
) -> str | None:
    """Why these tests cannot run here, or None."""
    if os.geteuid() != 0:
        return f"needs root{root_why}"
    for tool in tools:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (make setup)"
    return binaries.missing(*files)


def require(what: str, why: str | None) -> None:
    """Skip (or, with BNGPOD_REQUIRE_POD=1, fail) when why says something is missing."""
    if why:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(f"{what} cannot run: {why}")
        pytest.skip(why)


@contextmanager
def pod_up(path: Path, **up_options) -> Iterator:
    """The pod of a pod file up (emu.up with these options) for the block, then down, also
    on failure."""
    emu.down(quiet=True)
    pod = validate.load(path)
    emu.up(pod, str(path), **up_options)
    try:
        yield pod
    finally:
        emu.down(quiet=True)


@contextmanager
def lab_pod(**up_options) -> Iterator:
    """The lab pod up (emu.up with these options) for the block, then down, also on failure."""
    with pod_up(LAB, **up_options) as pod:
        yield pod
