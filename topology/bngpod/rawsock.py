"""Raw Ethernet sockets inside the pod's network namespaces.

A socket belongs to the namespace it was created in, so one process can send and
receive on every namespace of the pod. The kernel strips the outer VLAN tag of a
received frame into ancillary data (PACKET_AUXDATA); frames are given back here with
the tag put back where it was on the wire, so QinQ reads as QinQ."""

from __future__ import annotations

import ctypes
import os
import select
import socket
import struct
import time
from contextlib import contextmanager

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
CLONE_NEWNET = 0x40000000
_AUX = struct.Struct("=IIIHHHH")  # struct tpacket_auxdata

_libc = ctypes.CDLL(None, use_errno=True)


@contextmanager
def in_netns(name: str):
    """Run the block with this thread in network namespace `name`."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {name}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(target)
        os.close(own)


class RawPort:
    """An AF_PACKET socket bound to one interface of one namespace."""

    def __init__(self, netns: str, ifname: str):
        self.netns, self.ifname = netns, ifname
        with in_netns(netns):
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            self.sock.bind((ifname, 0))
        self.sock.setblocking(False)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, frame: bytes) -> None:
        self.sock.send(frame)

    def drain(self) -> None:
        while True:
            try:
                self.sock.recv(65535)
            except BlockingIOError:
                return

    def recv(self, timeout: float) -> bytes | None:
        """One frame as on the wire (outgoing frames of this interface skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            if not select.select([self.sock], [], [], left)[0]:
                return None
            data, ancdata, _flags, addr = self.sock.recvmsg(65535, socket.CMSG_SPACE(_AUX.size))
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            return _restore_vlan(data, ancdata)

    def recv_all(self, timeout: float) -> list[bytes]:
        frames = []
        while (frame := self.recv(timeout)) is not None:
            frames.append(frame)
        return frames


def _restore_vlan(data: bytes, ancdata) -> bytes:
    for level, kind, payload in ancdata:
        if level != SOL_PACKET or kind != PACKET_AUXDATA or len(payload) < _AUX.size:
            continue
        status, _len, _snap, _mac, _net, tci, tpid = _AUX.unpack_from(payload)
        if status & TP_STATUS_VLAN_VALID or tci:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = 0x8100
            return data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data
