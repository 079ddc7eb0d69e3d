"""Fixtures of the line-rate tests: a namespace of their own with two veth pairs, the
generator's ports on one end of each and a "wire" (tests.linerate.wire) on the others."""

from __future__ import annotations

import os
import subprocess

import pytest

from . import lrgen


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


@pytest.fixture
def lrgen_binary():
    if os.geteuid() != 0:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail("the generator's tests need root (network namespaces, raw sockets)")
        pytest.skip("needs root")
    try:
        return lrgen.binary()
    except FileNotFoundError as e:
        pytest.fail(str(e))


@pytest.fixture
def loop_ns(lrgen_binary):
    """Namespace lrtest-PID: veth g0 <-> w0 and g1 <-> w1, MTU 1600, no IPv6."""
    ns = f"lrtest-{os.getpid()}"
    _sh("ip", "netns", "add", ns)
    try:
        for k in ("all", "default"):
            _sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{k}.disable_ipv6=1")
        for i in (0, 1):
            _sh("ip", "-n", ns, "link", "add", f"g{i}", "mtu", "1600", "type", "veth", "peer", f"w{i}", "mtu", "1600")
            _sh("ip", "-n", ns, "link", "set", f"g{i}", "up")
            _sh("ip", "-n", ns, "link", "set", f"w{i}", "up")
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
