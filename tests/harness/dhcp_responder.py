"""A scripted DHCPv4 server on a QinQ link, written with scapy's layers, to test the IPoE
client (dhcp_client.py) without a BNG. It is strict: every client message is checked
against what RFC 2131 (4.3.2, 4.4.1 table 5) fixes for the client's state, and each
deviation is recorded in `violations`, which the tests assert to be empty.

It answers as the pod's gateway would: from `gateway_mac`/`gateway`, the gateway as server
identifier and router, to the client's MAC (broadcast with the B flag or for a NAK), on the
client's tags; ARP requests for the gateway are answered too. A client that neither renews
nor rebinds loses its lease at lease_time (`expired`); a RENEW or REBIND of a lease it does
not hold is NAKed, as RFC 2131 4.3.2 asks of an authoritative server."""

from __future__ import annotations

import ipaddress
import threading
import time
from dataclasses import dataclass, field

from scapy.layers.dhcp import BOOTP, DHCP
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether

from harness.dhcp_client import (
    ACK,
    DECLINE,
    DISCOVER,
    INFORM,
    NAK,
    NAMES,
    OFFER,
    RELEASE,
    REQUEST,
    message_type,
    vlan_tags,
)
from harness.dhcp_client import ZERO_IP as ZERO
from harness.dhcp_client import option as opt_of


@dataclass
class Binding:
    mac: str
    address: str
    expires: float


@dataclass
class DhcpResponder:
    send_frame: object  # callable(bytes)
    pool: ipaddress.IPv4Network = ipaddress.IPv4Network("100.80.0.0/24")
    gateway: str = "100.80.0.1"
    gateway_mac: str = "02:bb:00:00:00:01"
    dns: str = "198.51.100.53"
    lease_time: int = 3600
    t1: int = 300
    t2: int = 3150
    omit_server_id: bool = False  # misbehave: for the client's own checks
    bindings: dict[str, Binding] = field(default_factory=dict)  # mac -> binding
    offers: dict[str, str] = field(default_factory=dict)  # mac -> offered address
    declined: set[str] = field(default_factory=set)
    expired: list[str] = field(default_factory=list)  # MACs whose lease ran out
    seen: list[tuple[float, str, str]] = field(default_factory=list)  # (time, mac, message)
    violations: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.Lock()

    # -- the wire -----------------------------------------------------------------------------------
    def handle(self, raw: bytes) -> None:
        f = Ether(raw)
        tags = vlan_tags(f)
        if len(tags) != 2:
            return
        with self.lock:
            self._expire()
            if f.haslayer(ARP):
                self._arp(f, tags)
            elif f.haslayer(DHCP):
                self._dhcp(f, tags)

    def _reply(self, f, tags, dst_mac: str, payload) -> None:
        outer = tags[0]
        out = Dot1AD(vlan=outer.vlan) if isinstance(outer, Dot1AD) else Dot1Q(vlan=outer.vlan)
        self.send_frame(bytes(Ether(dst=dst_mac, src=self.gateway_mac) / out / Dot1Q(vlan=tags[1].vlan) / payload))

    def _arp(self, f, tags) -> None:
        a = f[ARP]
        if a.op != 1 or a.pdst != self.gateway or a.psrc == ZERO:
            return
        self._reply(f, tags, a.hwsrc, ARP(op=2, hwsrc=self.gateway_mac, psrc=self.gateway, hwdst=a.hwsrc, pdst=a.psrc))

    def _expire(self) -> None:
        now = time.monotonic()
        for mac, b in list(self.bindings.items()):
            if now >= b.expires:
                del self.bindings[mac]
                self.expired.append(mac)

    def _check(self, ok: bool, what: str) -> None:
        if not ok:
            self.violations.append(what)

    # -- DHCP ---------------------------------------------------------------------------------------
    def _dhcp(self, f, tags) -> None:
        b, msg = f[BOOTP], message_type(f)
        mac = bytes(b.chaddr)[:6].hex(":")
        name = NAMES.get(msg, str(msg))
        self.seen.append((time.monotonic(), mac, name))
        ip, udp = f[IP], f[UDP]
        self._check(b.op == 1, f"{name}: op {b.op}")
        self._check((udp.sport, udp.dport) == (68, 67), f"{name}: UDP {udp.sport} -> {udp.dport}")
        self._check(f.src.lower() == mac, f"{name}: source MAC {f.src} is not chaddr {mac}")
        client_id = opt_of(f, "client_id")
        self._check(client_id in (None, b"\x01" + bytes.fromhex(mac.replace(":", ""))), f"{name}: client id")
        requested, server = opt_of(f, "requested_addr"), opt_of(f, "server_id")
        unicast = ip.dst != "255.255.255.255"
        if msg == DISCOVER:
            self._check(b.ciaddr == ZERO and ip.src == ZERO and not unicast, "discover: addresses")
            self._check(server is None, "discover: a server identifier")
            self._offer(f, tags, mac, b)
        elif msg == REQUEST:
            self._request(f, tags, mac, b, requested, server, unicast)
        elif msg == RELEASE:
            binding = self.bindings.get(mac)
            to_server = unicast and ip.dst == self.gateway and f.dst.lower() == self.gateway_mac
            self._check(to_server, "release: not unicast to the server identifier")
            self._check(server == self.gateway, f"release: server identifier {server}")
            self._check(binding is not None and b.ciaddr == binding.address, f"release: ciaddr {b.ciaddr}")
            self.bindings.pop(mac, None)
        elif msg == DECLINE:
            self._check(b.ciaddr == ZERO and ip.src == ZERO, "decline: addresses")
            self._check(server == self.gateway and requested is not None, "decline: options 50 and 54")
            if requested is not None:
                self.declined.add(requested)
            self.bindings.pop(mac, None)
            self.offers.pop(mac, None)
        elif msg == INFORM:
            self._check(b.ciaddr != ZERO and ip.src == b.ciaddr, "inform: ciaddr")
            self._answer(f, tags, mac, b, ACK, ZERO, lease=False)
        else:
            self.violations.append(f"a client does not send {name}")

    def _free(self) -> str | None:
        used = {bd.address for bd in self.bindings.values()} | set(self.offers.values()) | self.declined
        for host in self.pool.hosts():
            a = str(host)
            if a != self.gateway and a not in used:
                return a
        return None

    def _offer(self, f, tags, mac, b) -> None:
        address = self.bindings[mac].address if mac in self.bindings else self.offers.get(mac) or self._free()
        if address is None:
            return
        self.offers[mac] = address
        self._answer(f, tags, mac, b, OFFER, address)

    def _request(self, f, tags, mac, b, requested, server, unicast) -> None:
        ip = f[IP]
        binding = self.bindings.get(mac)
        if server is not None:  # SELECTING
            self._check(b.ciaddr == ZERO and requested is not None and not unicast, "request (selecting): fields")
            if server != self.gateway:
                self.offers.pop(mac, None)  # another server was chosen
                return
            if requested != self.offers.get(mac):
                self._answer(f, tags, mac, b, NAK, ZERO)
                return
            self._bind(f, tags, mac, b, requested)
        elif requested is not None:  # INIT-REBOOT
            self._check(b.ciaddr == ZERO and not unicast, "request (init-reboot): fields")
            if binding is None or binding.address != requested:
                self._answer(f, tags, mac, b, NAK, ZERO)
            else:
                self._bind(f, tags, mac, b, requested)
        else:  # RENEWING (unicast) or REBINDING (broadcast)
            state = "renewing" if unicast else "rebinding"
            self._check(b.ciaddr != ZERO and ip.src == b.ciaddr, f"request ({state}): ciaddr {b.ciaddr}")
            if unicast:
                self._check(ip.dst == self.gateway, f"request (renewing): to {ip.dst}, not the server identifier")
                self._check(f.dst.lower() == self.gateway_mac, f"request (renewing): to MAC {f.dst}")
            if binding is None or binding.address != b.ciaddr:
                self._answer(f, tags, mac, b, NAK, ZERO)
            else:
                self._bind(f, tags, mac, b, b.ciaddr)

    def _bind(self, f, tags, mac, b, address) -> None:
        self.offers.pop(mac, None)
        self.bindings[mac] = Binding(mac, address, time.monotonic() + self.lease_time)
        self._answer(f, tags, mac, b, ACK, address)

    def _answer(self, f, tags, mac, b, msg, yiaddr, lease=True) -> None:
        opts = [("message-type", msg)]
        if not self.omit_server_id:
            opts.append(("server_id", self.gateway))
        if msg != NAK:
            opts += [("subnet_mask", str(self.pool.netmask)), ("router", self.gateway), ("name_server", self.dns)]
            if lease:
                opts += [("lease_time", self.lease_time), ("renewal_time", self.t1), ("rebinding_time", self.t2)]
        broadcast = msg == NAK or bool(b.flags & 0x8000) or (yiaddr == ZERO and b.ciaddr == ZERO)
        if b.ciaddr != ZERO and msg != NAK:
            dst_ip, dst_mac = b.ciaddr, mac
        elif broadcast:
            dst_ip, dst_mac = "255.255.255.255", "ff:ff:ff:ff:ff:ff"
        else:
            dst_ip, dst_mac = yiaddr, mac
        reply = (
            IP(src=self.gateway, dst=dst_ip)
            / UDP(sport=67, dport=68)
            / BOOTP(op=2, xid=b.xid, flags=b.flags, ciaddr=b.ciaddr, yiaddr=yiaddr, siaddr=ZERO, chaddr=b.chaddr)
            / DHCP(options=opts + ["end"])
        )
        self._reply(f, tags, dst_mac, reply)
