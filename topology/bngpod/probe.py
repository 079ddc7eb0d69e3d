"""Send a frame from one edge of the emulated pod and see where it comes out."""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Iterator

from .rawsock import RawPort

WAIT = 0.5  # seconds a frame may take through the userspace datapath
SETTLE = 0.15  # after the first copy, how long to listen for copies elsewhere


def send_and_collect(ports: dict[str, RawPort], sender: str, frame: bytes) -> dict[str, list[bytes]]:
    """Send one frame from ports[sender]; return the copies of it every other edge
    received, by edge name (edges that received nothing are left out). A copy is a frame
    with the probe's source MAC: the switch never rewrites it, and the DP instances' own
    frames (ARP, announcements) that cross the switch meanwhile are not the probe's."""
    for port in ports.values():
        port.drain()
    ports[sender].send(frame)
    listeners = {ports[name].sock: name for name in ports if name != sender}
    got: dict[str, list[bytes]] = {}
    deadline = time.monotonic() + WAIT
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select(list(listeners), [], [], left)
        for sock in ready:
            name = listeners[sock]
            raw = ports[name].recv(0)
            if raw is not None and raw[6:12] == frame[6:12]:
                got.setdefault(name, []).append(raw)
                deadline = min(deadline, time.monotonic() + SETTLE)
    return got


def open_edges(pod, emu) -> dict[str, RawPort]:
    """Every edge of the switch: access ports, instance VFs and the uplink, by name."""
    opened = {}
    for p in pod.ports_with_role("access"):
        opened[p.name] = RawPort(emu.access_ns(p), "sub0")
    for inst in pod.instances:
        opened[inst.name] = RawPort(emu.dp_ns(inst), "data0")
    opened["uplink"] = RawPort(emu.CORE_NS, "up0")
    return opened


@contextlib.contextmanager
def edges(pod, emu) -> Iterator[dict[str, RawPort]]:
    """open_edges, closed again at the end of the with block."""
    opened = open_edges(pod, emu)
    try:
        yield opened
    finally:
        for port in opened.values():
            port.close()
