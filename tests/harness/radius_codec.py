"""RADIUS on the wire for the tests, written from RFC 2865 and RFC 3579 (it shares no code
with bng-cp's RADIUS client): attributes, User-Password hiding, the Response Authenticator
and Message-Authenticator, and a PAP Access-Request client (`access_request`) that checks
both on the reply. The misbehaving server of the Blast-RADIUS tests (tests/cp/badradius.py)
builds its replies with the same pieces."""

from __future__ import annotations

import hashlib
import hmac
import os
import socket
import struct

ACCESS_REQUEST, ACCESS_ACCEPT, ACCESS_REJECT = 1, 2, 3
ATTR_USER_NAME, ATTR_USER_PASSWORD, ATTR_NAS_IP, ATTR_REPLY_MESSAGE, ATTR_MSG_AUTH = 1, 2, 4, 18, 80


def attribute(t: int, v: bytes) -> bytes:
    return bytes([t, 2 + len(v)]) + v


def attributes(raw: bytes) -> list[tuple[int, bytes]]:
    """The (type, value) attributes of a packet's attribute area, in order; a malformed
    length ends the list."""
    out, off = [], 0
    while off + 2 <= len(raw):
        t, ln = raw[off], raw[off + 1]
        if ln < 2:
            break
        out.append((t, raw[off + 2 : off + ln]))
        off += ln
    return out


def hide_password(password: bytes, secret: bytes, authenticator: bytes) -> bytes:
    """RFC 2865 5.2: User-Password hidden with MD5(secret + previous block)."""
    padded = password + b"\0" * (-len(password) % 16 or (16 if not password else 0))
    out, prev = b"", authenticator
    for i in range(0, len(padded), 16):
        key = hashlib.md5(secret + prev).digest()  # noqa: S324 (the protocol's)
        prev = bytes(a ^ b for a, b in zip(padded[i : i + 16], key, strict=True))
        out += prev
    return out


def message_authenticator(secret: bytes, packet: bytes) -> bytes:
    """RFC 3579 3.2: HMAC-MD5 over the packet, its Message-Authenticator zeroed (and, in a
    reply, the Request Authenticator in place of the Response Authenticator)."""
    return hmac.new(secret, packet, hashlib.md5).digest()


def response_authenticator(head: bytes, request_authenticator: bytes, body: bytes, secret: bytes) -> bytes:
    """RFC 2865 3: MD5(Code + Identifier + Length + Request Authenticator + attributes + secret)."""
    return hashlib.md5(head + request_authenticator + body + secret).digest()  # noqa: S324 (RFC 2865 is MD5)


def access_request(
    server: str,
    port: int,
    secret: str,
    user: str,
    password: str,
    source: str = "0.0.0.0",  # noqa: S104 (any local address)
    timeout: float = 2.0,
    retries: int = 2,
) -> tuple[str, dict[int, list[bytes]]]:
    """Send a PAP Access-Request (with Message-Authenticator) from `source` and return
    ("accept" | "reject" | "code N", reply attributes by type). Raises TimeoutError when no
    valid reply comes. Creates its socket in the caller's network namespace."""
    sec = secret.encode()
    req_auth = os.urandom(16)
    ident = req_auth[0]
    attrs = (
        attribute(ATTR_USER_NAME, user.encode())
        + attribute(ATTR_USER_PASSWORD, hide_password(password.encode(), sec, req_auth))
        + attribute(ATTR_NAS_IP, socket.inet_aton(source if source != "0.0.0.0" else "127.0.0.1"))  # noqa: S104
    )
    body = attrs + attribute(ATTR_MSG_AUTH, b"\0" * 16)
    head = struct.pack("!BBH", ACCESS_REQUEST, ident, 20 + len(body))
    packet = head + req_auth + attrs + attribute(ATTR_MSG_AUTH, message_authenticator(sec, head + req_auth + body))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((source, 0))
        s.settimeout(timeout)
        for _ in range(retries + 1):
            s.sendto(packet, (server, port))
            try:
                while True:
                    data, _addr = s.recvfrom(4096)
                    if len(data) < 20 or data[1] != ident:
                        continue
                    code, _id, length = struct.unpack_from("!BBH", data)
                    if response_authenticator(data[:4], req_auth, data[20:length], sec) != data[4:20]:
                        continue  # not from a server knowing the secret
                    return _reply(code, data[20:length])
            except TimeoutError:
                continue
    raise TimeoutError(f"no valid answer from RADIUS {server}:{port} for {user!r}")


def _reply(code: int, raw: bytes) -> tuple[str, dict[int, list[bytes]]]:
    by_type: dict[int, list[bytes]] = {}
    for t, v in attributes(raw):
        by_type.setdefault(t, []).append(v)
    kind = {ACCESS_ACCEPT: "accept", ACCESS_REJECT: "reject"}.get(code, f"code {code}")
    return kind, by_type
