"""A misbehaving RADIUS authentication server for the Blast-RADIUS tests: it answers every
Access-Request with an Access-Accept whose Response Authenticator is right, and whose
Message-Authenticator is right (`mode="valid"`, the control case), absent (`"missing"`) or
wrong (`"wrong"`). RFC 2865 3 and RFC 3579 3.2: the codec of tests/harness/radius_codec.py."""

from __future__ import annotations

import os
import socket
import struct
import threading

from harness.radius_codec import ATTR_MSG_AUTH as MESSAGE_AUTHENTICATOR
from harness.radius_codec import attributes, message_authenticator, response_authenticator


def reply(req: bytes, secret: bytes, mode: str, code: int = 2, extra: bytes = b"") -> bytes:
    ident, req_auth = req[1], req[4:20]
    body = extra
    if mode != "missing":
        body += bytes([MESSAGE_AUTHENTICATOR, 18]) + b"\0" * 16
    length = 20 + len(body)
    if mode == "valid":
        unsigned = bytes([code, ident]) + struct.pack("!H", length) + req_auth + body
        body = body[:-16] + message_authenticator(secret, unsigned)
    elif mode == "wrong":
        body = body[:-16] + os.urandom(16)
    head = bytes([code, ident]) + struct.pack("!H", length)
    return head + response_authenticator(head, req_auth, body, secret) + body


class BadRadius:
    def __init__(self, address: str, port: int, secret: str, mode: str):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.settimeout(0.1)
        self.secret = secret.encode()
        self.mode = mode
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, src = self.sock.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            if len(data) < 20 or data[0] != 1:
                continue
            self.requests.append(data)
            self.sock.sendto(reply(data, self.secret, self.mode), src)

    def request_has_message_authenticator(self, req: bytes) -> bool:
        return any(t == MESSAGE_AUTHENTICATOR and len(v) == 16 for t, v in attributes(req[20:]))

    def __enter__(self) -> BadRadius:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()
