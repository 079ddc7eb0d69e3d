"""A PPPoE/PPP client (a CPE) built on scapy's Ethernet, 802.1Q and PPPoE layers, with the
PPP negotiation written here from the RFCs (1661 LCP, 1334 PAP, 1994 CHAP-MD5, 1332 IPCP,
1877 DNS, 2516 PPPoE, 4638 PPP-Max-Payload, 5072 IPv6CP). It shares nothing with the CP's Go
codec.

Dual stack (`dual_stack=True`): IPv6CP beside IPCP (either may fail alone), then a Router
Solicitation and the BNG's Router Advertisement (the SLAAC address: the RA's /64 with the
interface identifier IPv6CP settled), then DHCPv6 Solicit/Advertise/Request/Reply for a
delegated prefix (IA_PD) and, when the BNG offers one, an address (IA_NA); `renew()` later.
The IPv6 packets come from ipv6.py.

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

from . import ipv6 as v6

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
    payload: bytes = b""  # everything after the PPP protocol (an IPv6 packet for 0x0057)

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
    # dual stack: each of these is None when that step did not succeed (ipv6_reason says why)
    ipv6cp: bool = False  # IPv6CP opened
    ipv6_reason: str = ""
    iid: bytes | None = None  # ours, as IPv6CP settled it
    peer_iid: bytes | None = None  # the BNG's
    ra: v6.RouterAdvert | None = None
    wan_prefix: ipaddress.IPv6Network | None = None  # the session's /64
    ipv6: ipaddress.IPv6Address | None = None  # SLAAC: wan_prefix + iid
    delegated_prefix: ipaddress.IPv6Network | None = None  # IA_PD
    ia_na: ipaddress.IPv6Address | None = None
    dns6: list[ipaddress.IPv6Address] = field(default_factory=list)
    dhcp6: v6.Dhcp6Message | None = None  # the Reply that bound the leases

    @property
    def ipv6_ok(self) -> bool:
        return self.ipv6 is not None and self.delegated_prefix is not None


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
        dual_stack: bool = False,
        iid: bytes | None = None,
        want_ia_na: bool = True,
        ipv6_wait: float = 5.0,
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
        self.ipv6cp = ipv6cp  # one IPv6CP Configure-Request, no negotiation (dual_stack negotiates)
        self.dual_stack = dual_stack
        self.iid = iid if iid is not None else v6.random_iid()
        self.peer_iid: bytes | None = None
        self.want_ia_na = want_ia_na
        self.ipv6_wait = ipv6_wait  # after IPCP is up, how long IPv6CP may still take
        self.duid = v6.duid_ll(mac)
        self.iaid_pd, self.iaid_na = 1, 2
        self.server_duid: bytes | None = None
        self.ipv6_addresses: set[ipaddress.IPv6Address] = set()
        self.last: DialResult | None = None
        self.ns_answered = 0
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

    def send_ipv6(self, packet: bytes) -> None:
        """A whole IPv6 packet (ipv6.py) in our session."""
        self.send(self.ppp_frame(v6.IPV6_PPP, packet))

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
        if rx.proto == v6.IPV6_PPP and self.auto_answer and rx.session_id == self.session_id:
            self._answer_ns(rx)
        if rx.discovery and rx.code == PADT and (self.session_id == 0 or rx.session_id == self.session_id):
            self.padt_received.set()
        self.rx.append(rx)
        self.q.put(rx)

    def _answer_ns(self, rx: Rx) -> None:
        """A Neighbor Solicitation for one of our addresses: the Advertisement (RFC 4861 7.2.4)."""
        pkt = v6.parse_ipv6(rx.payload)
        if pkt is None or not v6.icmp6_valid(pkt) or pkt.payload[0] != v6.NS or len(pkt.payload) < 24:
            return
        target = ipaddress.IPv6Address(pkt.payload[8:24])
        if target in self.ipv6_addresses or target == v6.link_local(self.iid):
            dst = pkt.src if not pkt.src.is_unspecified else v6.ALL_NODES
            self.send_ipv6(v6.neighbor_advert(target, dst, target, solicited=not pkt.src.is_unspecified))
            self.ns_answered += 1

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
        if self.dual_stack and res.ipv6cp:
            self.ipv6_setup(res, deadline=max(t0 + timeout, time.monotonic() + 10))
        res.seconds = time.monotonic() - t0
        self.last = res
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
        # IPv6CP (dual_stack): our Configure-Request's id; None = not sent yet / to resend
        v6cp_id = None
        v6cp_acked = peer_v6cp_acked = v6cp_refused = False
        ipcp_up_at = None
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
                if self.dual_stack and v6cp_id is not None and not v6cp_acked and not v6cp_refused:
                    self.send_ppp(IPV6CP, CONF_REQ, v6cp_id, opt(1, self.iid))
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
                elif rx.ppp_code == PROTO_REJ and rx.data[:2] == struct.pack("!H", IPV6CP):
                    v6cp_refused = True
                    res.ipv6_reason = "IPv6CP Protocol-Rejected by the BNG"
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
            elif rx.proto == IPV6CP and self.dual_stack:
                if rx.ppp_code == CONF_REQ:
                    peer = dict(options(rx.data)).get(1)
                    if peer is not None and len(peer) == 8:
                        self.peer_iid = res.peer_iid = peer
                    self.send_ppp(IPV6CP, CONF_ACK, rx.ppp_id, rx.data)
                    peer_v6cp_acked = True
                elif rx.ppp_code == CONF_NAK and rx.ppp_id == v6cp_id:
                    suggested = dict(options(rx.data)).get(1)
                    if suggested is not None and len(suggested) == 8:
                        self.iid = suggested  # RFC 5072 4.1: take the peer's suggestion
                    v6cp_id = self.next_id()
                    self.send_ppp(IPV6CP, CONF_REQ, v6cp_id, opt(1, self.iid))
                elif rx.ppp_code == CONF_REJ and rx.ppp_id == v6cp_id:
                    v6cp_refused = True
                    res.ipv6_reason = f"IPv6CP Configure-Reject of {rx.data.hex()}"
                elif rx.ppp_code == CONF_ACK and rx.ppp_id == v6cp_id:
                    v6cp_acked = True
                elif rx.ppp_code == TERM_REQ:
                    self.send_ppp(IPV6CP, TERM_ACK, rx.ppp_id)
                    v6cp_refused = True
                    res.ipv6_reason = f"IPv6CP Terminate-Request from the BNG: {rx.data!r}"
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
                if self.dual_stack and v6cp_id is None:
                    v6cp_id = self.next_id()
                    self.send_ppp(IPV6CP, CONF_REQ, v6cp_id, opt(1, self.iid))
                last_tx = time.monotonic()
            if ipcp_acked and peer_ipcp_acked and not res.ok:
                res.ok = True
                res.ipv4 = str(ipaddress.IPv4Address(ipcp_req[3]))
                res.dns = [str(ipaddress.IPv4Address(ipcp_req[k])) for k in (129, 131) if k in ipcp_req]
                res.magic_peer = self.peer_magic
                self.ipv4 = res.ipv4
                ipcp_up_at = time.monotonic()
            if v6cp_acked and peer_v6cp_acked:
                res.ipv6cp = True
                res.iid = self.iid
            if res.ok and (not self.dual_stack or res.ipv6cp or v6cp_refused):
                return
            if res.ok and time.monotonic() - ipcp_up_at > self.ipv6_wait:
                res.ipv6_reason = f"IPv6CP not open {self.ipv6_wait} s after IPCP (acked={v6cp_acked} " + (
                    f"peer_acked={peer_v6cp_acked})"
                )
                return
        if res.ok:  # IPCP up, IPv6CP still open at the deadline
            res.ipv6_reason = res.ipv6_reason or "IPv6CP not open at the deadline"
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

    # -- IPv6 after IPv6CP ------------------------------------------------------------------------
    def ipv6_packet(self, pred, timeout: float = 5.0, what: str = "IPv6 packet") -> v6.Ipv6Packet:
        """The next IPv6 packet of our session for which pred(packet) holds."""
        rx = self.expect(
            lambda r: (
                r.proto == v6.IPV6_PPP
                and r.session_id == self.session_id
                and (p := v6.parse_ipv6(r.payload)) is not None
                and pred(p)
            ),
            timeout,
            what,
        )
        return v6.parse_ipv6(rx.payload)

    def solicit_router(self, timeout: float = 4.0, tries: int = 3) -> v6.RouterAdvert:
        """Router Solicitations (RFC 4861 6.3.7, here 1 s apart) until an RA comes; the RA."""
        for _ in range(tries):
            self.send_ipv6(v6.router_solicitation(self.iid))
            try:
                return self.wait_ra(timeout / tries)
            except DialError:
                continue
        raise DialError(f"{self.mac}: no Router Advertisement")

    def wait_ra(self, timeout: float) -> v6.RouterAdvert:
        pkt = self.ipv6_packet(lambda p: v6.parse_ra(p) is not None, timeout, "Router Advertisement")
        return v6.parse_ra(pkt)

    def _dhcp6(self, msg_type: int, options: list[bytes], want: int, timeout: float = 2.0, tries: int = 3):
        """One DHCPv6 exchange: our message (retransmitted, same transaction id) and the
        server's answer of type want with our transaction id and client id."""
        xid = int.from_bytes(os.urandom(3), "big")
        t0 = time.monotonic()
        for _ in range(tries):
            elapsed = min(int((time.monotonic() - t0) * 100), 0xFFFF)
            opts = [
                v6.dhcp6_option(v6.O_CLIENTID, self.duid),
                v6.dhcp6_option(v6.O_ELAPSED, struct.pack("!H", elapsed)),
                *options,
            ]
            self.send_ipv6(v6.dhcp6_client_packet(self.iid, v6.dhcp6_message(msg_type, xid, opts)))

            def answer(p, xid=xid):
                udp = v6.udp6_payload(p)
                if udp is None or udp[:2] != (v6.DHCP_SERVER_PORT, v6.DHCP_CLIENT_PORT):
                    return False
                m = v6.parse_dhcp6(udp[2])
                return m is not None and m.msg_type == want and m.xid == xid and m.client_id == self.duid

            try:
                pkt = self.ipv6_packet(answer, timeout / tries, f"DHCPv6 message {want}")
            except DialError:
                continue
            return v6.parse_dhcp6(v6.udp6_payload(pkt)[2])
        raise DialError(f"{self.mac}: no DHCPv6 message {want} for our message {msg_type}")

    def _ias(self, adv: v6.Dhcp6Message | None, ia_na: bool) -> list[bytes]:
        pd = next((ia for ia in adv.ia_pd if ia.leases), None) if adv else None
        out = [v6.ia_pd(self.iaid_pd, prefixes=pd.leases if pd else [])]
        na = next((ia for ia in adv.ia_na if ia.leases), None) if adv else None
        if ia_na and (adv is None or na is not None):
            out.append(v6.ia_na(self.iaid_na, addresses=na.leases if na else []))
        return out

    def ipv6_setup(self, res: DialResult, deadline: float) -> None:
        """RS -> RA (SLAAC), DHCPv6 for IA_PD (+ IA_NA when offered). Fills res; a failure
        is res.ipv6_reason, never an exception."""
        try:
            ra = self.solicit_router(timeout=max(1.0, min(4.0, deadline - time.monotonic())))
            res.ra = ra
            wan = next((p for p in ra.prefixes if p.autonomous and p.prefix.prefixlen == 64), None)
            if wan is None:
                res.ipv6_reason = f"RA without an autonomous /64: {ra.prefixes}"
                return
            res.wan_prefix = wan.prefix
            res.ipv6 = v6.slaac(wan.prefix, self.iid)
            self.ipv6_addresses.add(res.ipv6)
            oro = v6.dhcp6_option(v6.O_ORO, struct.pack("!H", v6.O_DNS))
            adv = self._dhcp6(v6.SOLICIT, [oro, *self._ias(None, self.want_ia_na)], v6.ADVERTISE)
            if adv.server_id is None or not any(ia.leases for ia in adv.ia_pd):
                res.ipv6_reason = f"DHCPv6 Advertise without a prefix: status {adv.status} {adv.status_message!r}"
                res.dhcp6 = adv
                return
            self.server_duid = adv.server_id
            sid = v6.dhcp6_option(v6.O_SERVERID, adv.server_id)
            reply = self._dhcp6(v6.REQUEST, [sid, oro, *self._ias(adv, self.want_ia_na)], v6.REPLY)
            self._bind(res, reply)
        except DialError as e:
            res.ipv6_reason = str(e)

    def _bind(self, res: DialResult, reply: v6.Dhcp6Message) -> None:
        res.dhcp6 = reply
        pd = next((ia for ia in reply.ia_pd if ia.leases), None)
        if pd is None:
            res.ipv6_reason = f"DHCPv6 Reply without a prefix: {reply.ia_pd} status {reply.status}"
            return
        res.delegated_prefix = ipaddress.IPv6Network(pd.leases[0].value)
        na = next((ia for ia in reply.ia_na if ia.leases), None)
        res.ia_na = ipaddress.IPv6Address(na.leases[0].value) if na else None
        if res.ia_na:
            self.ipv6_addresses.add(res.ia_na)
        res.dns6 = reply.dns

    def renew(self, timeout: float = 3.0) -> v6.Dhcp6Message:
        """DHCPv6 Renew of our bindings (to the server that gave them); the Reply."""
        res = self.last
        assert res is not None and res.dhcp6 is not None and self.server_duid, "nothing bound to renew"
        ias = [v6.ia_pd(self.iaid_pd, prefixes=[v6.Lease(str(res.delegated_prefix))])]
        if res.ia_na is not None:
            ias.append(v6.ia_na(self.iaid_na, addresses=[v6.Lease(str(res.ia_na))]))
        sid = v6.dhcp6_option(v6.O_SERVERID, self.server_duid)
        return self._dhcp6(v6.RENEW, [sid, *ias], v6.REPLY, timeout)

    def delegated_host(self, n: int = 1) -> ipaddress.IPv6Address:
        """An address inside our delegated prefix (as a LAN host behind the CPE would have)."""
        assert self.last is not None and self.last.delegated_prefix is not None
        return self.last.delegated_prefix.network_address + n

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
        rx.payload = body
        if len(body) >= 4:
            rx.ppp_code, rx.ppp_id, ln = struct.unpack_from("!BBH", body)
            rx.data = body[4:ln] if 4 <= ln <= len(body) else body[4:]
    return rx
