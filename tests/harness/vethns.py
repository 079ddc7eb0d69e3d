"""A network namespace of its own with a veth pair in it (both ends up, IPv6 off so that
nothing but the test's frames is on the link), for the IPoE client and DHCP server tests.
Removed on exit, also on failure; an earlier run's leftovers are removed first. The
caller holds the machine's netns lock (tests/conftest.py does for every pytest session)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

PREFIX = "bngipt-"  # namespaces of these tests, never the pod's (bngpod-*)


def ip(*args: str, ns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    cmd = ["ip", "netns", "exec", ns, *args] if ns else list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


@contextmanager
def veth_pair(name: str, a: str = "cli0", b: str = "srv0") -> Iterator[str]:
    """The namespace PREFIX+name holding veths a <-> b, both up; yields its name."""
    ns = PREFIX + name
    ip("ip", "netns", "delete", ns, check=False)
    ip("ip", "netns", "add", ns)
    try:
        ip("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", ns=ns)
        ip("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", ns=ns)
        ip("ip", "link", "add", a, "type", "veth", "peer", "name", b, ns=ns)
        for dev in (a, b, "lo"):
            ip("ip", "link", "set", dev, "up", ns=ns)
        yield ns
    finally:
        ip("ip", "netns", "delete", ns, check=False)


@contextmanager
def two_namespaces(a_name: str, b_name: str, a: str = "eth0", b: str = "eth0") -> Iterator[tuple[str, str]]:
    """Namespaces PREFIX+a_name and PREFIX+b_name joined by a veth pair (a in the first, b in
    the second), both up; yields their names."""
    names = (PREFIX + a_name, PREFIX + b_name)
    for ns in names:
        ip("ip", "netns", "delete", ns, check=False)
    try:
        for ns in names:
            ip("ip", "netns", "add", ns)
            ip("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", ns=ns)
            ip("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", ns=ns)
            ip("ip", "link", "set", "lo", "up", ns=ns)
        ip("ip", "link", "add", "name", "bngipt-tmp", "type", "veth", "peer", "name", "bngipt-tmp2", ns=names[0])
        ip("ip", "link", "set", "bngipt-tmp2", "netns", names[1], ns=names[0])
        ip("ip", "link", "set", "bngipt-tmp", "name", a, ns=names[0])
        ip("ip", "link", "set", "bngipt-tmp2", "name", b, ns=names[1])
        ip("ip", "link", "set", a, "up", ns=names[0])
        ip("ip", "link", "set", b, "up", ns=names[1])
        yield names
    finally:
        for ns in names:
            ip("ip", "netns", "delete", ns, check=False)
