"""The emulated switch's port sockets get a larger receive buffer than the host default
(network.enlarge_socket_buffers, through pidfd_getfd: Open vSwitch has no setting for it).
Here on sockets of a child process of ours; tests/emulated/test_lifecycle.py checks the
pod's ovs-vswitchd."""

import os
import socket
import subprocess
import sys

import pytest

from bngpod import network

CHILD = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
print(s.fileno(), other.fileno(), flush=True)
sys.stdin.readline()
print(*(x.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) for x in (s, other)), flush=True)
"""


def _inode(pid: int, fd: int) -> int:
    return int(os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1])


@pytest.mark.skipif(os.geteuid() != 0, reason="pidfd_getfd needs CAP_SYS_PTRACE over the process")
def test_only_the_named_sockets_of_the_process_get_the_buffer():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        fd, other = (int(x) for x in child.stdout.readline().split())
        assert network.enlarge_socket_buffers(child.pid, {_inode(child.pid, fd)}, 3 << 20) == 1
        child.stdin.write("\n")
        child.stdin.flush()
        got, untouched = (int(x) for x in child.stdout.readline().split())
        assert got == 2 * (3 << 20)  # the kernel doubles what is set, for its bookkeeping
        assert untouched < 1 << 20
    finally:
        child.kill()
        child.wait()


def test_a_process_that_is_gone_is_an_oserror():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    with pytest.raises(OSError):
        network.enlarge_socket_buffers(child.pid, {1}, 1 << 20)


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET sockets need CAP_NET_RAW")
def test_packet_sockets_of_the_namespace_are_found():
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0) as s:
        assert _inode(os.getpid(), s.fileno()) in network._packet_socket_inodes(os.getpid())
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        assert _inode(os.getpid(), u.fileno()) not in network._packet_socket_inodes(os.getpid())
