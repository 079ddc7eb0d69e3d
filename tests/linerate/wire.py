"""A wire between two interfaces that loses, reorders, duplicates and delays chosen frames:
the impairments the generator's receive side must count (test_gen.py). It reads every frame
arriving on one interface (a raw socket) and sends it out of the other, in order, unless a
rule for its (stream, sequence number) says otherwise. Frames without the generator's
signature pass unchanged."""

from __future__ import annotations

import heapq
import socket
import struct
import threading
import time

from bngpod.rawsock import RawPort, in_netns

MAGIC = 0xB7A5


def signature(frame: bytes) -> tuple[int, int] | None:
    """(stream, seq) of a generator frame (gen/src/rxstats.c's lr_rx_parse), or None."""
    off = 12
    et = struct.unpack_from("!H", frame, off)[0]
    for _ in range(2):
        if et not in (0x8100, 0x88A8):
            break
        off += 4
        et = struct.unpack_from("!H", frame, off)[0]
    off += 2
    if et == 0x8864:
        off += 8
    elif et != 0x0800:
        return None
    if len(frame) < off + 20 or frame[off] >> 4 != 4 or frame[off + 9] != 17:
        return None
    off += (frame[off] & 15) * 4 + 8
    if len(frame) < off + 16:
        return None
    magic, stream, seq = struct.unpack_from("!HHI", frame, off)
    return (stream, seq) if magic == MAGIC else None


class Wire(threading.Thread):
    """drop, dup: sets of (stream, seq); swap: (stream, seq) held back until the next frame
    of its stream has passed; delay_ms: {stream: ms} added to every frame of the stream."""

    def __init__(self, netns: str, rx_if: str, tx_if: str, drop=(), dup=(), swap=(), delay_ms=None):
        super().__init__(daemon=True)
        self.rx = RawPort(netns, rx_if)  # gives frames back with their VLAN tags
        self.rx.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        with in_netns(netns):
            self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            self.tx.bind((tx_if, 0))
        self.drop, self.dup, self.swap = set(drop), set(dup), set(swap)
        self.delay = {k: v / 1000 for k, v in (delay_ms or {}).items()}
        self.held: dict[int, bytes] = {}
        self.later: list[tuple[float, int, bytes]] = []
        self.stop_flag = threading.Event()
        self.seen: list[tuple[int, int, int]] = []  # (stream, seq, length) of signed frames
        self.first: dict[int, bytes] = {}  # the first frame of each stream, as it was on the wire
        self.passed = self.dropped = 0
        self._n = 0

    def _send(self, frame: bytes, sig) -> None:
        if sig and sig[0] in self.delay:
            self._n += 1
            heapq.heappush(self.later, (time.monotonic() + self.delay[sig[0]], self._n, frame))
            return
        self.tx.send(frame)
        self.passed += 1

    def run(self) -> None:
        while not self.stop_flag.is_set():
            now = time.monotonic()
            while self.later and self.later[0][0] <= now:
                self.tx.send(heapq.heappop(self.later)[2])
                self.passed += 1
            frame = self.rx.recv(0.001)
            if frame is None:
                continue
            sig = signature(frame)
            if sig is None:
                self._send(frame, None)
                continue
            self.seen.append((sig[0], sig[1], len(frame)))
            self.first.setdefault(sig[0], frame)
            if sig in self.drop:
                self.dropped += 1
                continue
            if sig in self.swap:
                self.held[sig[0]] = frame
                continue
            self._send(frame, sig)
            if sig in self.dup:
                self._send(frame, sig)
            if sig[0] in self.held:
                self._send(self.held.pop(sig[0]), sig)

    def stop(self) -> None:
        self.stop_flag.set()
        self.join(5)
        self.rx.close()
        self.tx.close()
