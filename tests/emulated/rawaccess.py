"""PPPoE clients (tests/cp/pppoe_client.py) on an access line of the emulated pod.

`RawAccess(port)` is what `PppoeClient` needs from a DP (`attach`, `send_frame`): an
AF_PACKET socket on sub0 of the access port's namespace (bngpod-acc-<port>), with the
outer tag restored from the kernel's ancillary data (bngpod.rawsock), so the clients send
and receive QinQ frames exactly as on the wire through the switch fold to bng-dp."""

from __future__ import annotations

import threading

from scapy.layers.l2 import Ether

from bngpod import emu
from bngpod.rawsock import RawPort


class RawAccess:
    def __init__(self, port):
        self.port = RawPort(emu.access_ns(port), "sub0")
        self.clients: dict[str, object] = {}
        self.other: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"raw-{port.name}", daemon=True)
        self._thread.start()

    def attach(self, client) -> None:
        self.clients[client.mac] = client

    def send_frame(self, frame: bytes) -> None:
        self.port.send(frame)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.port.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.port.recv(0.1)
            if frame is None:
                continue
            client = self.clients.get(frame[0:6].hex(":"))
            if client is not None and frame[12:14] in (b"\x81\x00", b"\x88\xa8"):
                client.deliver(Ether(frame))
            else:
                self.other.append(frame)
