"""The machine-wide lock of everything that makes network namespaces, veths, Open vSwitch
or raw sockets (/tmp/bngpod-netns.lock): one set of them at a time, whoever runs them
(pytest, `go test`, Maven's OvsSteeringIT, the benches, a second checkout).

hold() takes it (waiting) unless a process this one descends from holds it already, as
when the tests run under `flock /tmp/bngpod-netns.lock ...`: waiting then would wait for
ever. The same rule as accel-ppp-glue/internal/prereq's NetnsLock."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

PATH = "/tmp/bngpod-netns.lock"


def _parent(pid: int) -> int:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return 0
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses
    return int(stat.rsplit(")", 1)[1].split()[1])


def held_by_ancestor(fd: int) -> bool:
    """A process this one descends from holds a flock on the file of fd (/proc/locks)."""
    st = os.fstat(fd)
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    holders = set()
    try:
        lines = open("/proc/locks").read().splitlines()
    except OSError:
        return False
    for line in lines:
        f = line.split()
        # "1: FLOCK  ADVISORY  WRITE 14137 fe:00:9978434 0 EOF"
        if len(f) >= 6 and f[1] == "FLOCK" and f[3] == "WRITE" and f[5] == want:
            holders.add(int(f[4]))
    pid = os.getppid()
    while pid > 1:
        if pid in holders:
            return True
        pid = _parent(pid)
    return False


@contextmanager
def hold(path: str = PATH) -> Iterator[None]:
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not held_by_ancestor(fd):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the last descriptor closed releases the lock
