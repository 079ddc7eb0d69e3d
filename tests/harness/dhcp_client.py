"""An IPoE client (a CPE that asks for its address with DHCPv4) built on scapy's Ethernet,
802.1Q, ARP, IPv4, UDP, BOOTP and DHCP layers, with the client's state machine written here
from RFC 2131 (4.3.2, 4.4) and RFC 2132. It shares nothing with the CP's Go codec.

The client sends QinQ frames (outer 0x8100 or 0x88a8, inner 0x8100) through anything with
`attach(client)` and `send_frame(bytes)` (an access line of the emulated pod, RawAccess, or
the veth of the unit tests) and is handed every frame for its MAC (and broadcasts of its
line) with `deliver(Ether)`.

What it does:
- `dora()`: DISCOVER (broadcast), OFFER, REQUEST (SELECTING: requested address and server
  identifier, broadcast), ACK; the lease, T1, T2, mask, router, DNS and server identifier
  are kept (`lease`);
- `renew()`: REQUEST unicast to the server identifier from the leased address (RENEWING:
  ciaddr set, no requested address, no server identifier), to the gateway's MAC;
- `rebind()`: REQUEST broadcast from the leased address (REBINDING);
- `release()`: RELEASE unicast to the server identifier, no answer expected;
- `decline()`: DECLINE broadcast with the offered address and the server identifier;
- `init_reboot()`: REQUEST broadcast with the remembered address (INIT-REBOOT);
- silence: a client that does nothing after `dora()`; `lease.expired()` says when its lease
  has run out (the tests then check that the BNG forgot it).

Every answer is checked as RFC 2131 fixes it (op, xid, chaddr, UDP ports 67 -> 68, message
type, the server identifier, yiaddr) and every deviation is recorded in `violations`,
which tests assert to be empty."""

from __future__ import annotations

import ipaddress
import os
import queue
import struct
import threading
import time
from dataclasses import dataclass, field

from scapy.layers.dhcp import BOOTP, DHCP
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.packet import Packet

BROADCAST_MAC = "ff:ff:ff:ff:ff:ff"
BROADCAST_IP = "255.255.255.255"
ZERO_IP = "0.0.0.0"  # noqa: S104 (an address in DHCP fields, nothing is bound)
SERVER_PORT, CLIENT_PORT = 67, 68
DISCOVER, OFFER, REQUEST, DECLINE, ACK, NAK, RELEASE, INFORM = 1, 2, 3, 4, 5, 6, 7, 8
NAMES = {1: "discover", 2: "offer", 3: "request", 4: "decline", 5: "ack", 6: "nak", 7: "release", 8: "inform"}
TYPES = {v: k for k, v in NAMES.items()}
# the parameters asked for (RFC 2132): mask, router, DNS, lease, server id, T1, T2
PARAMS = [1, 3, 6, 51, 54, 58, 59]


class DhcpError(Exception):
    pass


def mac_bytes(mac: str) -> bytes:
    return bytes.fromhex(mac.replace(":", ""))


def option(pkt: Packet, name: str):
    """A DHCP option's value by scapy's name (None when absent)."""
    for o in pkt[DHCP].options:
        if isinstance(o, tuple) and o[0] == name:
            return o[1] if len(o) == 2 else o[1:]
    return None


def vlan_tags(frame: Packet) -> list[Packet]:
    """The 802.1Q/802.1ad tags of a frame, outer first."""
    tags, layer = [], frame.payload
    while isinstance(layer, Dot1Q | Dot1AD):
        tags.append(layer)
        layer = layer.payload
    return tags


def message_type(pkt: Packet) -> int | None:
    t = option(pkt, "message-type")
    return TYPES.get(t, t) if isinstance(t, str) else t


@dataclass
class Lease:
    address: str
    server_id: str
    mask: str | None
    router: str | None
    dns: list[str]
    lease_time: int
    t1: int
    t2: int
    bound_at: float  # time.monotonic() of the ACK
    gateway_mac: str  # the ACK's source MAC

    def expired(self, now: float | None = None) -> bool:
        return (now or time.monotonic()) >= self.bound_at + self.lease_time

    @property
    def prefix(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network(f"{self.address}/{self.mask}", strict=False)


@dataclass
class Rx:
    t: float
    frame: Packet
    stag: int
    ctag: int
    kind: str  # dhcp | arp | ipv4 | other
    msg: int | None = None  # DHCP message type


@dataclass
class DhcpClient:
    """One IPoE client: a MAC on a line (outer TPID, S-tag, C-tag) behind `dp`."""

    dp: object
    mac: str
    stag: int
    ctag: int
    outer_tpid: int = 0x8100
    hostname: str = ""
    client_id: bool = True  # option 61 (type 1 + MAC)
    broadcast_flag: bool = False  # ask for broadcast answers (the BOOTP flags' B bit)
    timeout: float = 5.0
    lease: Lease | None = None
    expired_lease: Lease | None = None  # the lease wait_expiry let run out
    offered: str | None = None
    offer_server: str | None = None
    violations: list[str] = field(default_factory=list)
    rx: list[Rx] = field(default_factory=list)
    sent: list[tuple[float, str]] = field(default_factory=list)  # (time, message name)

    def __post_init__(self):
        self.mac = self.mac.lower()
        self.q: queue.Queue[Rx] = queue.Queue()
        self.xid = 0
        self.lock = threading.Lock()
        self.dp.attach(self)

    # -- frames ------------------------------------------------------------------------------------
    def tags(self):
        outer = Dot1Q(vlan=self.stag) if self.outer_tpid == 0x8100 else Dot1AD(vlan=self.stag)
        return outer / Dot1Q(vlan=self.ctag)

    def frame(self, dst_mac: str, payload: Packet, src_mac: str | None = None) -> bytes:
        return bytes(Ether(dst=dst_mac, src=src_mac or self.mac) / self.tags() / payload)

    def send(self, frame: bytes) -> None:
        self.dp.send_frame(frame)

    def _bootp(self, ciaddr: str = ZERO_IP) -> BOOTP:
        return BOOTP(
            op=1,
            htype=1,
            hlen=6,
            xid=self.xid,
            flags=0x8000 if self.broadcast_flag else 0,
            ciaddr=ciaddr,
            chaddr=mac_bytes(self.mac) + bytes(10),
        )

    def _options(self, msg: int, extra: list) -> list:
        opts = [("message-type", msg)]
        if self.client_id:
            opts.append(("client_id", b"\x01" + mac_bytes(self.mac)))
        opts += extra
        if msg in (DISCOVER, REQUEST, INFORM):
            opts.append(("param_req_list", PARAMS))
        if self.hostname and msg in (DISCOVER, REQUEST):
            opts.append(("hostname", self.hostname.encode()))
        return opts + ["end"]

    def dhcp_frame(
        self,
        msg: int,
        extra: list | None = None,
        ciaddr: str = ZERO_IP,
        src_ip: str = ZERO_IP,
        dst_ip: str = BROADCAST_IP,
        dst_mac: str = BROADCAST_MAC,
    ) -> bytes:
        pkt = (
            IP(src=src_ip, dst=dst_ip, ttl=64)
            / UDP(sport=CLIENT_PORT, dport=SERVER_PORT)
            / self._bootp(ciaddr)
            / DHCP(options=self._options(msg, extra or []))
        )
        return self.frame(dst_mac, pkt)

    def _send_dhcp(self, msg: int, **kw) -> None:
        self.sent.append((time.monotonic(), NAMES[msg]))
        self.send(self.dhcp_frame(msg, **kw))

    def ipv4_frame(self, dst: str, payload: bytes = b"x", sport: int = 40000, dport: int = 7, **over) -> bytes:
        """A UDP datagram from the leased address to the gateway's MAC; `over` replaces
        src_ip, src_mac or dst_mac (anti-spoof tests)."""
        src_ip = over.get("src_ip") or (self.lease.address if self.lease else ZERO_IP)
        dst_mac = over.get("dst_mac") or (self.lease.gateway_mac if self.lease else BROADCAST_MAC)
        pkt = IP(src=src_ip, dst=dst, ttl=64) / UDP(sport=sport, dport=dport) / payload
        return self.frame(dst_mac, pkt, src_mac=over.get("src_mac"))

    def arp_frame(self, target: str, sender: str | None = None) -> bytes:
        sender = sender if sender is not None else (self.lease.address if self.lease else ZERO_IP)
        arp = ARP(op=1, hwsrc=self.mac, psrc=sender, hwdst="00:00:00:00:00:00", pdst=target)
        return self.frame(BROADCAST_MAC, arp)

    # -- receiving -----------------------------------------------------------------------------------
    def deliver(self, frame: Packet) -> None:
        """A frame of the client's line for its MAC or broadcast (from the DP's thread)."""
        vids = [t.vlan for t in vlan_tags(frame)]
        if len(vids) < 2 or vids[0] != self.stag or vids[1] != self.ctag:
            return
        if frame.dst.lower() not in (self.mac, BROADCAST_MAC):
            return
        if frame.haslayer(DHCP):
            rx = Rx(time.monotonic(), frame, vids[0], vids[1], "dhcp", message_type(frame))
        elif frame.haslayer(ARP):
            rx = Rx(time.monotonic(), frame, vids[0], vids[1], "arp")
        elif frame.haslayer(IP):
            rx = Rx(time.monotonic(), frame, vids[0], vids[1], "ipv4")
        else:
            rx = Rx(time.monotonic(), frame, vids[0], vids[1], "other")
        self.rx.append(rx)
        self.q.put(rx)

    def wait(self, pred, timeout: float | None = None) -> Rx | None:
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                rx = self.q.get(timeout=left)
            except queue.Empty:
                return None
            if pred(rx):
                return rx

    def wait_dhcp(self, types: tuple[int, ...], timeout: float | None = None) -> Rx | None:
        """The next answer to the current xid of one of these message types; answers are
        checked against RFC 2131 on the way (violations)."""

        def ours(rx: Rx) -> bool:
            if rx.kind != "dhcp":
                return False
            b = rx.frame[BOOTP]
            if b.op != 2 or b.xid != self.xid:
                return False
            self._check_answer(rx)
            return rx.msg in types

        return self.wait(ours, timeout)

    def _check_answer(self, rx: Rx) -> None:
        f = rx.frame
        b, name = f[BOOTP], NAMES.get(rx.msg, str(rx.msg))
        if bytes(b.chaddr)[:6] != mac_bytes(self.mac):
            self.violations.append(f"{name}: chaddr {bytes(b.chaddr)[:6].hex(':')} is not {self.mac}")
        if f[UDP].sport != SERVER_PORT or f[UDP].dport != CLIENT_PORT:
            self.violations.append(f"{name}: UDP {f[UDP].sport} -> {f[UDP].dport}, not 67 -> 68")
        if rx.msg not in (OFFER, ACK, NAK):
            self.violations.append(f"{name}: a server sends OFFER, ACK or NAK (option 53 = {rx.msg})")
            return
        if option(f, "server_id") is None:
            self.violations.append(f"{name}: no server identifier (option 54)")
        if rx.msg in (OFFER, ACK) and b.yiaddr == ZERO_IP and self._last_sent() != "inform":
            self.violations.append(f"{name}: yiaddr 0.0.0.0")
        if rx.msg == NAK and b.yiaddr != ZERO_IP:
            self.violations.append(f"nak: yiaddr {b.yiaddr} (RFC 2131 table 3: 0)")
        want_dst = BROADCAST_MAC if (self.broadcast_flag or rx.msg == NAK) else self.mac
        if rx.msg != NAK and f.dst.lower() != want_dst:
            self.violations.append(f"{name}: to {f.dst}, not {want_dst}")

    def _last_sent(self) -> str:
        return self.sent[-1][1] if self.sent else ""

    # -- the exchanges ------------------------------------------------------------------------------
    def _new_xid(self) -> None:
        self.xid = struct.unpack("!I", os.urandom(4))[0] or 1

    def discover(self, requested: str | None = None) -> Rx | None:
        """DISCOVER; the OFFER (None when none came)."""
        self._new_xid()
        extra = [("requested_addr", requested)] if requested else []
        self._send_dhcp(DISCOVER, extra=extra)
        rx = self.wait_dhcp((OFFER,))
        if rx is not None:
            self.offered = rx.frame[BOOTP].yiaddr
            self.offer_server = option(rx.frame, "server_id")
        return rx

    def request_selecting(self) -> Rx | None:
        """REQUEST for the offer (SELECTING, same xid); the ACK or NAK."""
        if self.offered is None:
            raise DhcpError("no offer to request")
        extra = [("requested_addr", self.offered), ("server_id", self.offer_server)]
        self._send_dhcp(REQUEST, extra=extra)
        return self._bound(self.wait_dhcp((ACK, NAK)))

    def dora(self, retries: int = 2) -> Lease:
        """DISCOVER, OFFER, REQUEST, ACK (retransmitting as RFC 2131 4.1 allows); the lease."""
        last = "no OFFER"
        for _ in range(retries + 1):
            if self.discover() is None:
                continue
            rx = self.request_selecting()
            if rx is not None and rx.msg == ACK:
                return self.lease
            last = "NAK" if rx is not None else "no ACK"
        raise DhcpError(f"{self.mac} on {self.stag}/{self.ctag}: DORA failed ({last})")

    def _bound(self, rx: Rx | None) -> Rx | None:
        if rx is None or rx.msg != ACK:
            if rx is not None and rx.msg == NAK:
                self.lease = None
            return rx
        f = rx.frame
        lease_time = option(f, "lease_time")
        if lease_time is None:
            self.violations.append("ack: no lease time (option 51)")
            lease_time = 0
        t1 = option(f, "renewal_time") or lease_time // 2
        t2 = option(f, "rebinding_time") or lease_time * 7 // 8
        if not 0 < t1 < t2 < lease_time:
            self.violations.append(f"ack: T1 {t1} s, T2 {t2} s, lease {lease_time} s are not 0 < T1 < T2 < lease")
        dns = option(f, "name_server")
        dns = [] if dns is None else [dns] if isinstance(dns, str) else list(dns)
        self.lease = Lease(
            address=f[BOOTP].yiaddr,
            server_id=option(f, "server_id"),
            mask=option(f, "subnet_mask"),
            router=option(f, "router"),
            dns=dns,
            lease_time=lease_time,
            t1=t1,
            t2=t2,
            bound_at=rx.t,
            gateway_mac=f.src.lower(),
        )
        return rx

    def renew(self) -> Rx | None:
        """RENEWING: REQUEST unicast to the server identifier (IP and the gateway's MAC)."""
        lease = self._need_lease()
        self._new_xid()
        self._send_dhcp(
            REQUEST, ciaddr=lease.address, src_ip=lease.address, dst_ip=lease.server_id, dst_mac=lease.gateway_mac
        )
        return self._bound(self.wait_dhcp((ACK, NAK)))

    def rebind(self) -> Rx | None:
        """REBINDING: REQUEST broadcast from the leased address."""
        lease = self._need_lease()
        self._new_xid()
        self._send_dhcp(REQUEST, ciaddr=lease.address, src_ip=lease.address)
        return self._bound(self.wait_dhcp((ACK, NAK)))

    def init_reboot(self, address: str) -> Rx | None:
        """INIT-REBOOT: REQUEST broadcast for a remembered address (no server identifier)."""
        self._new_xid()
        self._send_dhcp(REQUEST, extra=[("requested_addr", address)])
        return self._bound(self.wait_dhcp((ACK, NAK)))

    def release(self) -> None:
        """RELEASE unicast to the server identifier; the lease is gone (no answer comes)."""
        lease = self._need_lease()
        self._new_xid()
        self._send_dhcp(
            RELEASE,
            extra=[("server_id", lease.server_id)],
            ciaddr=lease.address,
            src_ip=lease.address,
            dst_ip=lease.server_id,
            dst_mac=lease.gateway_mac,
        )
        self.lease = None

    def decline(self) -> None:
        """DECLINE broadcast of the bound (or offered) address: it is in use on the link."""
        address = self.lease.address if self.lease else self.offered
        server = self.lease.server_id if self.lease else self.offer_server
        if address is None or server is None:
            raise DhcpError("nothing to decline")
        self._send_dhcp(DECLINE, extra=[("requested_addr", address), ("server_id", server)])
        self.lease = None
        self.offered = None

    def inform(self) -> Rx | None:
        """INFORM from the leased address (configuration only); the ACK."""
        lease = self._need_lease()
        self._new_xid()
        self._send_dhcp(INFORM, ciaddr=lease.address, src_ip=lease.address)
        return self.wait_dhcp((ACK,))

    def resolve(self, target: str, timeout: float | None = None) -> str | None:
        """ARP for target from the leased address; the answering MAC (None: no answer)."""
        self.send(self.arp_frame(target))

        def reply(rx: Rx) -> bool:
            a = rx.frame.getlayer(ARP)
            return rx.kind == "arp" and a.op == 2 and a.psrc == target and a.hwdst.lower() == self.mac

        rx = self.wait(reply, timeout)
        return None if rx is None else rx.frame[ARP].hwsrc.lower()

    def wait_expiry(self, slack: float = 0.5) -> None:
        """Stay silent until the lease has run out (plus slack seconds); the lease is gone."""
        lease = self._need_lease()
        left = lease.bound_at + lease.lease_time + slack - time.monotonic()
        if left > 0:
            time.sleep(left)
        self.expired_lease, self.lease = lease, None

    def _need_lease(self) -> Lease:
        if self.lease is None:
            raise DhcpError(f"{self.mac}: no lease")
        return self.lease
