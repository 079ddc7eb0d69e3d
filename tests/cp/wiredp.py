"""PPPoE clients on the access side of a real bng-dp (tests/dp/rig.py).

`WireDp` is what `PppoeClient` needs from a DP (`attach`, `send_frame`): the client's
frames go onto the rig's wire port as QinQ frames, and every frame bng-dp sends towards a
client MAC comes back to that client. Frames on the core side (untagged) are kept in
`core` for the test; the DP's ARP request for its next hop is answered as the router
would."""

from __future__ import annotations

import queue
import threading

from dp.frames import Ether, arp_reply_from_router, is_router_arp_request, parse


class WireDp:
    def __init__(self, rig):
        self.rig = rig
        self.clients: dict[str, object] = {}
        self.core: queue.Queue[bytes] = queue.Queue()
        self.arp_answered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wire-dp", daemon=True)
        self._thread.start()

    def attach(self, client) -> None:
        self.clients[client.mac] = client

    def send_frame(self, frame: bytes) -> None:
        self.rig.wire.send(frame)

    def send_core(self, frame: bytes) -> None:
        self.rig.wire.send(frame)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.rig.wire.recv(0.1)
            if frame is None:
                continue
            p = parse(frame)
            if is_router_arp_request(p):
                self.rig.wire.send(bytes(arp_reply_from_router()))
                self.arp_answered += 1
                continue
            client = self.clients.get(p[Ether].dst.lower())
            if client is not None and len(frame) >= 18 and frame[12:14] in (b"\x81\x00", b"\x88\xa8"):
                client.deliver(p)
            else:
                self.core.put(frame)
