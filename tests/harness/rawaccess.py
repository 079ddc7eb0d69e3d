"""PPPoE clients (pppoe_client.py) on an access line of the emulated pod.

`RawAccess(port)` is what `PppoeClient` needs from a DP (`attach`, `send_frame`): an
AF_PACKET socket on sub0 of the access port's namespace (bngpod-acc-<port>), with the
outer tag restored from the kernel's ancillary data (bngpod.rawsock), so the clients send
and receive QinQ frames exactly as on the wire through the switch fold to bng-dp."""

from __future__ import annotations

import threading

from scapy.layers.l2 import Ether

from bngpod import emu
from bngpod.rawsock import RawPort


class RawLoop:
    """An AF_PACKET socket on an interface of a namespace with a thread that hands every
    frame it receives to `on_frame` (in that thread) until `close`."""

    def __init__(self, ns: str, ifname: str, name: str):
        self.sock = RawPort(ns, ifname)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def on_frame(self, frame: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.sock.recv(0.1)
            if frame is not None:
                self.on_frame(frame)


class RawAccess(RawLoop):
    """PPPoE clients on sub0 of an access port; frames go to a client by destination MAC,
    the rest is kept in `other`."""

    def __init__(self, port):
        self.clients: dict[str, object] = {}
        self.other: list[bytes] = []
        super().__init__(emu.access_ns(port), "sub0", f"raw-{port.name}")

    def attach(self, client) -> None:
        self.clients[client.mac] = client

    def send_frame(self, frame: bytes) -> None:
        self.sock.send(frame)

    def on_frame(self, frame: bytes) -> None:
        client = self.clients.get(frame[0:6].hex(":"))
        if client is not None and frame[12:14] in (b"\x81\x00", b"\x88\xa8"):
            client.deliver(Ether(frame))
        else:
            self.other.append(frame)
