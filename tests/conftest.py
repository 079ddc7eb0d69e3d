"""Every suite under tests/ builds network namespaces, veths, Open vSwitch bridges, raw
sockets or FreeRADIUS instances, with fixed names: the session holds the machine's netns
lock (harness/netns_lock.py), so that a second pytest, `go test`, Maven's OvsSteeringIT or
a bench waits instead of tearing this one's pod down. Not as another user than root: those
tests skip (or fail under BNGPOD_REQUIRE_POD=1) before they touch anything."""

from __future__ import annotations

import os

import pytest
from harness import netns_lock


@pytest.fixture(scope="session", autouse=True)
def netns_lock_held():
    if os.geteuid() != 0:
        yield
        return
    with netns_lock.hold():
        yield
