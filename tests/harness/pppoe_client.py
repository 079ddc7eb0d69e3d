"""A PPPoE/PPP client (a CPE) built on scapy's Ethernet, 802.1Q and PPPoE layers, with the
PPP negotiation written here from the RFCs (1661 LCP, 1334 PAP, 1994 CHAP-MD5, 1332 IPCP,
1877 DNS, 2516 PPPoE, 4638 PPP-Max-Payload). It shares nothing with the CP's Go codec.

A client lives behind a `FakeDp` (fakedp.py), which hands it every frame the CP sends to
its MAC and carries its frames to the CP in VXLAN. Echo-Requests and Terminate-Requests
are answered as they arrive (on the DP's thread) unless `auto_answer` is off; everything
received is also queued for the test thread and logged in `rx`."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import queue
import struct
import threading
import time
from dataclasses import dataclass, field

from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPPoE, PPPoED
from scapy.packet import Packet, Raw

PADI, PADO, PADR, PADS, PADT = 0x09, 0x07, 0x19, 0x65, 0xA7
TAG_END, TAG_SERVICE, TAG_AC_NAME, TAG_HOST_UNIQ, TAG_COOKIE = 0x0000, 0x0101, 0x0102, 0x0103, 0x0104
TAG_VENDOR, TAG_RELAY, TAG_MAX_PAYLOAD = 0x0105, 0x0110, 0x0120
TAG_SERVICE_ERR, TAG_AC_SYSTEM_ERR, TAG_GENERIC_ERR = 0x0201, 0x0202, 0x0203

LCP, PAP, CHAP, IPCP, IPV6CP, IPV4 = 0xC021, 0xC023, 0xC223, 0x8021, 0x8057, 0x0021
CONF_REQ, CONF_ACK, CONF_NAK, CONF_REJ, TERM_REQ, TERM_ACK, CODE_REJ, PROTO_REJ = 1, 2, 3, 4, 5, 6, 7, 8
ECHO_REQ, ECHO_REP, DISCARD_REQ = 9, 10, 11
BROADCAST = "ff:ff:ff:ff:ff:ff"


def tags(*items: tuple[int, bytes]) -> bytes:
    return b"".join(struct.pack("!HH", t, len(v)) + v for t, v in items)


def parse_tags(b: bytes) -> list[tuple[int, bytes]]:
    out, off = [], 0
    while off + 4 <= len(b):
        t, ln = struct.unpack_from("!HH", b, off)
        out.append((t, b[off + 4 : off + 4 + ln]))
        off += 4 + ln
        if t == TAG_END:
            break
    return out


def access_line_tag(circuit_id: str = "", remote_id: str = "", up: int = 0, down: int = 0) -> bytes:
    """The TR-101 vendor tag value (enterprise 3561): sub-options 1, 2, 0x81, 0x82."""
    v = struct.pack("!I", 3561)
    if circuit_id:
        v += bytes([1, len(circuit_id)]) + circuit_id.encode()
    if remote_id:
        v += bytes([2, len(remote_id)]) + remote_id.encode()
    if up:
        v += bytes([0x81, 4]) + struct.pack("!I", up)
    if down:
        v += bytes([0x82, 4]) + struct.pack("!I", down)
    return v


def options(b: bytes) -> list[tuple[int, bytes]]:
    """PPP configuration options (type, value) of a Configure-* body."""
    out, off = [], 0
    while off + 2 <= len(b):
        t, ln = b[off], b[off + 1]
        if ln < 2:
            break
        out.append((t, b[off + 2 : off + ln]))
        off += ln
    return out


def opt(t: int, v: bytes) -> bytes:
    return bytes([t, 2 + len(v)]) + v


def cp_packet(code: int, ident: int, data: bytes = b"") -> bytes:
    return struct.pack("!BBH", code, ident, 4 + len(data)) + data


@dataclass
class Rx:
    """One frame from the CP, decoded."""

    t: float
    frame: Packet
    discovery: bool
    code: int  # PPPoE code
    session_id: int
    tags: list[tuple[int, bytes]] = field(default_factory=list)
    proto: int | None = None  # PPP protocol (session frames)
    ppp_code: int | None = None
    ppp_id: int | None = None
    data: bytes = b""  # PPP packet after code/id/length

    def tag(self, t: int) -> bytes | None:
        return next((v for k, v in self.tags if k == t), None)


@dataclass
class DialResult:
    ok: bool
    reason: str = ""
    session_id: int = 0
    ipv4: str | None = None
    dns: list[str] = field(default_factory=list)
    peer_ipv4: str | None = None  # the BNG's IPCP address
    mru: int | None = None  # what the BNG asked for (its MRU)
    auth: str = ""
    magic_peer: int = 0
    ac_mac: str | None = None
    ac_name: bytes = b""
    auth_message: bytes = b""
    seconds: float = 0.0


class DialError(AssertionError):
    pass


class PppoeClient:
    """One CPE on (S-tag, C-tag, MAC) behind a FakeDp."""

    def __init__(
        self,
        dp,
        mac: str,
        stag: int,
        ctag: int,
        user: str = "user1",
        password: str = "pw1",  # noqa: S107 (a lab password)
        auth: str = "pap",
        outer_tpid: int = 0x8100,
        host_uniq: bytes | None = None,
        max_payload: int | None = None,
        mru: int = 1492,
        circuit_id: str = "",
        remote_id: str = "",
        rate_up: int = 0,
        rate_down: int = 0,
        magic: int | None = None,
        ipv6cp: bool = False,
        auto_answer: bool = True,
        restart: float = 3.0,
    ):
        self.dp = dp
        self.mac = mac.lower()
        self.stag, self.ctag = stag, ctag
        self.user, self.password, self.auth = user, password, auth
        self.outer_tpid = outer_tpid
        self.host_uniq = host_uniq if host_uniq is not None else os.urandom(4)
        self.max_payload = max_payload
        self.mru = mru
        self.access_line = (
            access_line_tag(circuit_id, remote_id, rate_up, rate_down) if circuit_id or remote_id else None
        )
        self.magic = magic if magic is not None else (int.from_bytes(os.urandom(4), "big") | 1)
        self.ipv6cp = ipv6cp
        self.auto_answer = auto_answer
        self.restart = restart  # RFC 1661 restart timer (pppd's default, 3 s)
        self.q: queue.Queue[Rx] = queue.Queue()
        self.rx: list[Rx] = []
        self.sent: list[bytes] = []
        self.session_id = 0
        self.ac_mac: str | None = None
        self.peer_magic = 0
        self.ipv4: str | None = None
        self.echo_replies_sent = 0
        self.terminated_by_peer = threading.Event()
        self.padt_received = threading.Event()
        self._ident = 0
        self._lock = threading.Lock()
        dp.attach(self)

    # -- frames -----------------------------------------------------------------------------
    def _eth(self, dst: str) -> Packet:
        outer = Dot1Q(vlan=self.stag) if self.outer_tpid == 0x8100 else Dot1AD(vlan=self.stag)
        return Ether(src=self.mac, dst=dst) / outer / Dot1Q(vlan=self.ctag)

    def send(self, frame: Packet | bytes) -> None:
        b = bytes(frame)
        with self._lock:
            self.sent.append(b)
        self.dp.send_frame(b)

    def discovery_frame(self, code: int, body: bytes, dst: str = BROADCAST, session_id: int = 0) -> Packet:
        return self._eth(dst) / PPPoED(code=code, sessionid=session_id) / Raw(body)

    def ppp_frame(self, proto: int, payload: bytes, session_id: int | None = None) -> Packet:
        sid = self.session_id if session_id is None else session_id
        return self._eth(self.ac_mac or BROADCAST) / PPPoE(sessionid=sid) / Raw(struct.pack("!H", proto) + payload)

    def send_ppp(self, proto: int, code: int, ident: int, data: bytes = b"") -> None:
        self.send(self.ppp_frame(proto, cp_packet(code, ident, data)))

    def next_id(self) -> int:
        self._ident = (self._ident + 1) & 0xFF
        return self._ident

    # -- input (called by the DP thread) ------------------------------------------------------
    def deliver(self, frame: Packet) -> None:
        rx = decode(frame)
        if rx is None:
            return
        if not rx.discovery and rx.proto == LCP and self.auto_answer and rx.session_id == self.session_id:
            if rx.ppp_code == ECHO_REQ:
                self.send_ppp(LCP, ECHO_REP, rx.ppp_id, struct.pack("!I", self.magic) + rx.data[4:])
                self.echo_replies_sent += 1
            elif rx.ppp_code == TERM_REQ:
                self.send_ppp(LCP, TERM_ACK, rx.ppp_id)
                self.terminated_by_peer.set()
        if rx.discovery and rx.code == PADT and (self.session_id == 0 or rx.session_id == self.session_id):
            self.padt_received.set()
        self.rx.append(rx)
        self.q.put(rx)

    def expect(self, pred, timeout: float = 5.0, what: str = "frame") -> Rx:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DialError(f"{self.mac}: no {what} within {timeout} s")
            try:
                rx = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if pred(rx):
                return rx

    def drain(self) -> list[Rx]:
        out = []
        while True:
            try:
                out.append(self.q.get_nowait())
            except queue.Empty:
                return out

    # -- discovery --------------------------------------------------------------------------
    def padi_body(self) -> bytes:
        items = [(TAG_SERVICE, b""), (TAG_HOST_UNIQ, self.host_uniq)]
        if self.max_payload:
            items.append((TAG_MAX_PAYLOAD, struct.pack("!H", self.max_payload)))
        if self.access_line:
            items.append((TAG_VENDOR, self.access_line))
        return tags(*items)

    def send_padi(self) -> None:
        self.send(self.discovery_frame(PADI, self.padi_body()))

    def discover(self, timeout: float = 3.0, retries: int = 3) -> Rx:
        """PADI until a PADO arrives (retries with back-off); the PADO."""
        for attempt in range(retries):
            self.send_padi()
            try:
                return self.expect(
                    lambda r: r.discovery and r.code == PADO and r.tag(TAG_HOST_UNIQ) == self.host_uniq,
                    timeout=timeout * (attempt + 1) / retries,
                    what="PADO",
                )
            except DialError:
                continue
        raise DialError(f"{self.mac}: no PADO")

    def request(self, pado: Rx, timeout: float = 3.0, cookie: bytes | None = None) -> Rx:
        """PADR echoing the PADO's tags; the PADS (or a PADS with an error tag)."""
        self.ac_mac = pado.frame[Ether].src
        items = [(TAG_SERVICE, pado.tag(TAG_SERVICE) or b""), (TAG_HOST_UNIQ, self.host_uniq)]
        c = cookie if cookie is not None else pado.tag(TAG_COOKIE)
        if c is not None:
            items.append((TAG_COOKIE, c))
        relay = pado.tag(TAG_RELAY)
        if relay is not None:
            items.append((TAG_RELAY, relay))
        if self.max_payload:
            items.append((TAG_MAX_PAYLOAD, struct.pack("!H", self.max_payload)))
        if self.access_line:
            items.append((TAG_VENDOR, self.access_line))
        for attempt in range(3):
            self.send(self.discovery_frame(PADR, tags(*items), dst=self.ac_mac))
            try:
                pads = self.expect(
                    lambda r: r.discovery and r.code == PADS and r.tag(TAG_HOST_UNIQ) == self.host_uniq,
                    timeout=timeout / 3 * (attempt + 1),
                    what="PADS",
                )
            except DialError:
                continue
            self.session_id = pads.session_id
            return pads
        raise DialError(f"{self.mac}: no PADS")

    def send_padt(self, session_id: int | None = None) -> None:
        sid = self.session_id if session_id is None else session_id
        self.send(self.discovery_frame(PADT, tags((TAG_HOST_UNIQ, self.host_uniq)), dst=self.ac_mac, session_id=sid))

    # -- the whole dial ---------------------------------------------------------------------
    def dial(self, timeout: float = 15.0) -> DialResult:
        """Discovery, LCP, PAP or CHAP, IPCP. Never raises for a refusal: the result says why."""
        t0 = time.monotonic()
        res = DialResult(ok=False, auth=self.auth)
        try:
            pado = self.discover()
        except DialError as e:
            res.reason = str(e)
            return res
        res.ac_mac = pado.frame[Ether].src
        res.ac_name = pado.tag(TAG_AC_NAME) or b""
        try:
            pads = self.request(pado)
        except DialError as e:
            res.reason = str(e)
            return res
        if pads.session_id == 0 or any(
            t in (TAG_SERVICE_ERR, TAG_AC_SYSTEM_ERR, TAG_GENERIC_ERR) for t, _ in pads.tags
        ):
            res.reason = f"PADS refused: {pads.tags}"
            return res
        res.session_id = self.session_id
        self._negotiate(res, deadline=t0 + timeout)
        res.seconds = time.monotonic() - t0
        return res

    def _negotiate(self, res: DialResult, deadline: float) -> None:
        our_lcp_id = self.next_id()
        our_lcp = opt(1, struct.pack("!H", self.mru)) + opt(5, struct.pack("!I", self.magic))
        lcp_acked = peer_lcp_acked = False
        auth_done = False
        auth_started = False
        ipcp_req = {3: b"\0\0\0\0", 129: b"\0\0\0\0", 131: b"\0\0\0\0"}
        ipcp_id = None
        ipcp_acked = peer_ipcp_acked = False
        last_tx = 0.0
        pap_id = None
        self.send_ppp(LCP, CONF_REQ, our_lcp_id, our_lcp)
        last_tx = time.monotonic()
        while time.monotonic() < deadline:
            now = time.monotonic()
            if now - last_tx > self.restart:  # restart timer
                last_tx = now
                if not lcp_acked:
                    self.send_ppp(LCP, CONF_REQ, our_lcp_id, our_lcp)
                elif auth_started and not auth_done and self.auth == "pap" and pap_id is not None:
                    self._send_pap(pap_id)
                elif auth_done and not ipcp_acked and ipcp_id is not None:
                    self.send_ppp(IPCP, CONF_REQ, ipcp_id, b"".join(opt(k, v) for k, v in ipcp_req.items()))
            try:
                rx = self.q.get(timeout=0.1)
            except queue.Empty:
                continue
            if rx.discovery:
                if rx.code == PADT:
                    res.reason = "PADT from the BNG"
                    return
                continue
            if rx.session_id != self.session_id:
                continue
            if rx.proto == LCP:
                if rx.ppp_code == CONF_REQ:
                    reply_code, body = self._answer_lcp(rx, res)
                    self.send_ppp(LCP, reply_code, rx.ppp_id, body)
                    if reply_code == CONF_ACK:
                        peer_lcp_acked = True
                elif rx.ppp_code == CONF_ACK and rx.ppp_id == our_lcp_id:
                    lcp_acked = True
                elif rx.ppp_code in (CONF_NAK, CONF_REJ) and rx.ppp_id == our_lcp_id:
                    our_lcp = self._adjust(our_lcp, rx)
                    our_lcp_id = self.next_id()
                    self.send_ppp(LCP, CONF_REQ, our_lcp_id, our_lcp)
                    last_tx = time.monotonic()
                elif rx.ppp_code == TERM_REQ:
                    if not self.auto_answer:
                        self.send_ppp(LCP, TERM_ACK, rx.ppp_id)
                    res.reason = "LCP Terminate-Request from the BNG"
                    if rx.data:
                        res.reason += f": {rx.data!r}"
                    return
                elif rx.ppp_code == ECHO_REQ and not self.auto_answer:
                    self.send_ppp(LCP, ECHO_REP, rx.ppp_id, struct.pack("!I", self.magic) + rx.data[4:])
                if lcp_acked and peer_lcp_acked and not auth_started:
                    auth_started = True
                    if self.ipv6cp:
                        self.send_ppp(IPV6CP, CONF_REQ, self.next_id(), opt(1, os.urandom(8)))
                    if self.auth == "pap":
                        pap_id = self.next_id()
                        self._send_pap(pap_id)
                        last_tx = time.monotonic()
                    elif self.auth == "none":
                        auth_done = True
            elif rx.proto == PAP and rx.ppp_code in (2, 3):
                msg = rx.data[1 : 1 + rx.data[0]] if rx.data else b""
                res.auth_message = msg
                if rx.ppp_code == 3:
                    res.reason = f"PAP Authenticate-Nak: {msg!r}"
                    self._wait_terminate()
                    return
                auth_done = True
            elif rx.proto == CHAP:
                if rx.ppp_code == 1:  # Challenge
                    size = rx.data[0]
                    challenge = rx.data[1 : 1 + size]
                    digest = hashlib.md5(bytes([rx.ppp_id]) + self.password.encode() + challenge).digest()  # noqa: S324 (CHAP-MD5 is MD5)
                    self.send_ppp(CHAP, 2, rx.ppp_id, bytes([16]) + digest + self.user.encode())
                    auth_started = True
                elif rx.ppp_code == 3:
                    res.auth_message = rx.data
                    auth_done = True
                elif rx.ppp_code == 4:
                    res.auth_message = rx.data
                    res.reason = f"CHAP Failure: {rx.data!r}"
                    self._wait_terminate()
                    return
            elif rx.proto == IPCP:
                if rx.ppp_code == CONF_REQ:
                    addr = dict(options(rx.data)).get(3)
                    if addr is not None:
                        res.peer_ipv4 = str(ipaddress.IPv4Address(addr))
                    self.send_ppp(IPCP, CONF_ACK, rx.ppp_id, rx.data)
                    peer_ipcp_acked = True
                elif rx.ppp_code == CONF_NAK and rx.ppp_id == ipcp_id:
                    for k, v in options(rx.data):
                        ipcp_req[k] = v
                    ipcp_id = None
                elif rx.ppp_code == CONF_REJ and rx.ppp_id == ipcp_id:
                    for k, _ in options(rx.data):
                        ipcp_req.pop(k, None)
                    ipcp_id = None
                elif rx.ppp_code == CONF_ACK and rx.ppp_id == ipcp_id:
                    ipcp_acked = True
            if auth_done and ipcp_id is None and not ipcp_acked:
                ipcp_id = self.next_id()
                self.send_ppp(IPCP, CONF_REQ, ipcp_id, b"".join(opt(k, v) for k, v in ipcp_req.items()))
                last_tx = time.monotonic()
            if ipcp_acked and peer_ipcp_acked:
                res.ok = True
                res.ipv4 = str(ipaddress.IPv4Address(ipcp_req[3]))
                res.dns = [str(ipaddress.IPv4Address(ipcp_req[k])) for k in (129, 131) if k in ipcp_req]
                res.magic_peer = self.peer_magic
                self.ipv4 = res.ipv4
                return
        res.reason = (
            f"timeout: lcp_acked={lcp_acked} peer_lcp_acked={peer_lcp_acked} auth_done={auth_done} "
            f"ipcp_acked={ipcp_acked} peer_ipcp_acked={peer_ipcp_acked}"
        )

    def _answer_lcp(self, rx: Rx, res: DialResult) -> tuple[int, bytes]:
        """Our answer to the BNG's LCP Configure-Request: (code, options)."""
        rej, nak = b"", b""
        want_auth = {"pap": struct.pack("!H", PAP), "chap": struct.pack("!HB", CHAP, 5)}.get(self.auth)
        for t, v in options(rx.data):
            if t == 1:
                res.mru = struct.unpack("!H", v)[0] if len(v) == 2 else None
            elif t == 3:
                if want_auth is None or v != want_auth:
                    nak += opt(3, want_auth or v)
            elif t == 5:
                self.peer_magic = struct.unpack("!I", v)[0] if len(v) == 4 else 0
            else:
                rej += opt(t, v)
        if rej:
            return CONF_REJ, rej
        if nak:
            return CONF_NAK, nak
        return CONF_ACK, rx.data

    @staticmethod
    def _adjust(ours: bytes, rx: Rx) -> bytes:
        cur = dict(options(ours))
        for t, v in options(rx.data):
            if rx.ppp_code == CONF_REJ:
                cur.pop(t, None)
            else:
                cur[t] = v
        return b"".join(opt(t, v) for t, v in cur.items())

    def _send_pap(self, ident: int) -> None:
        u, p = self.user.encode(), self.password.encode()
        self.send_ppp(PAP, 1, ident, bytes([len(u)]) + u + bytes([len(p)]) + p)

    def _wait_terminate(self, timeout: float = 3.0) -> None:
        """After an authentication failure the BNG terminates LCP (and sends PADT)."""
        try:
            self.expect(
                lambda r: (r.proto == LCP and r.ppp_code == TERM_REQ) or (r.discovery and r.code == PADT), timeout
            )
        except DialError:
            pass

    # -- after the dial ----------------------------------------------------------------------
    def terminate(self, timeout: float = 5.0) -> bool:
        """LCP Terminate-Request, wait for the Ack, then PADT. True when acked."""
        ident = self.next_id()
        acked = False
        for _ in range(3):
            self.send_ppp(LCP, TERM_REQ, ident, b"bye")
            try:
                self.expect(lambda r: r.proto == LCP and r.ppp_code == TERM_ACK and r.ppp_id == ident, timeout / 3)
                acked = True
                break
            except DialError:
                continue
        self.send_padt()
        return acked

    def echo(self, timeout: float = 3.0) -> Rx:
        """An LCP Echo-Request from us; the BNG's Echo-Reply."""
        ident = self.next_id()
        self.send_ppp(LCP, ECHO_REQ, ident, struct.pack("!I", self.magic))
        return self.expect(
            lambda r: r.proto == LCP and r.ppp_code == ECHO_REP and r.ppp_id == ident, timeout, "echo reply"
        )


def decode(frame: Packet) -> Rx | None:
    """A frame the CP sent: Ether / outer tag / C-tag / PPPoE."""
    raw = bytes(frame)
    if len(raw) < 14 + 8 + 6:
        return None
    off = 12
    for _ in range(2):
        tpid = struct.unpack_from("!H", raw, off)[0]
        if tpid not in (0x8100, 0x88A8):
            return None
        off += 4
    etype = struct.unpack_from("!H", raw, off)[0]
    off += 2
    if etype not in (0x8863, 0x8864) or off + 6 > len(raw):
        return None
    vt, code, sid, length = struct.unpack_from("!BBHH", raw, off)
    payload = raw[off + 6 : off + 6 + length]
    rx = Rx(time.monotonic(), frame, etype == 0x8863, code, sid)
    if rx.discovery:
        rx.tags = parse_tags(payload)
        return rx
    if len(payload) >= 2:
        rx.proto = struct.unpack_from("!H", payload)[0]
        body = payload[2:]
        if len(body) >= 4:
            rx.ppp_code, rx.ppp_id, ln = struct.unpack_from("!BBH", body)
            rx.data = body[4:ln] if 4 <= ln <= len(body) else body[4:]
    return rx
