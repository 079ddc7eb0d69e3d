"""IPv6 for the independent IPoE client (dhcp_client.py): a dual-stack CPE on an Ethernet
QinQ line, as issue 19's last item has it (/work/notes/ipoe6-contract.md). The IPv6 side is
written here from the RFCs with the codecs of ipv6.py (RFC 4861 Neighbor Discovery on
Ethernet, RFC 4291 appendix A modified EUI-64, RFC 8415 DHCPv6 with IA_NA, IA_PD and Rapid
Commit); it shares nothing with bng-cp's Go code.

`IpoeDualClient` is a `DhcpClient` (DHCPv4 DORA, renew, release ... unchanged) that also does:
- `solicit_router()`: RS from its link-local (fe80:: + EUI-64 of its MAC) to ff02::2 with a
  Source Link-Layer Address option; the RA, checked: from ac_mac, IPv6 source the BNG's
  link-local (EUI-64 of ac_mac), hop limit 255, SLLA = ac_mac, to our MAC;
- `solicit()`, `request()`, `bind6()`: DHCPv6 Solicit (Rapid Commit optional) with IA_NA and
  IA_PD, Advertise, Request, Reply; the answers checked (UDP 547 -> 546 from the BNG's
  link-local and ac_mac to our link-local and MAC, our client id, a server id, our xid);
- `renew6()`, `rebind6()`, `release6()`: the binding's lifecycle;
- `neighbor_solicit(target)`: NS (hop limit 255, SLLA) to the target's solicited-node
  multicast; the NA, checked (R|S flags, TLLA = ac_mac, to the NS's source);
- `ipv6_frame()` / `send6()`: any IPv6 packet to ac_mac (traffic from its IA_NA or SLAAC
  address, or from inside its delegated prefix as a LAN host would).

Everything the client finds wrong in an answer is appended to `violations` (the tests assert
it empty); a missing answer is None or an exception, never a hang."""

from __future__ import annotations

import ipaddress
import os
import struct
import time
from dataclasses import dataclass, field

from scapy.packet import Packet

from harness import ipv6 as v6
from harness.dhcp_client import DhcpClient, DhcpError, Rx, vlan_tags

ETH_IPV6 = 0x86DD
ALL_ROUTERS_MAC = "33:33:00:00:00:02"
ALL_DHCP_MAC = "33:33:00:01:00:02"
HOP_LIMIT_ND = 255  # RFC 4861: RS, RA, NS, NA on the link


def eui64(mac: str) -> bytes:
    """The modified EUI-64 interface identifier of a MAC (RFC 4291 appendix A): the
    universal/local bit flipped, ff:fe in the middle."""
    b = bytearray(bytes.fromhex(mac.replace(":", "")))
    b[0] ^= 0x02
    return bytes(b[:3]) + b"\xff\xfe" + bytes(b[3:])


def mac_link_local(mac: str) -> ipaddress.IPv6Address:
    """fe80::/64 + the modified EUI-64 of mac: the BNG's router address on an IPoE line
    (from its ac_mac), and the client's own link-local (from its MAC)."""
    return v6.link_local(eui64(mac))


def solicited_node(target) -> ipaddress.IPv6Address:
    """ff02::1:ffXX:XXXX of an address (RFC 4291 2.7.1)."""
    return ipaddress.IPv6Address(b"\xff\x02" + bytes(9) + b"\x01\xff" + ipaddress.IPv6Address(target).packed[13:])


def multicast_mac(address) -> str:
    """33:33 + the low 32 bits of an IPv6 multicast address (RFC 2464 7)."""
    return "33:33:" + ipaddress.IPv6Address(address).packed[12:].hex(":")


def nd_option(kind: int, value: bytes) -> bytes:
    """An ND option padded to whole 8-octet units."""
    length = (2 + len(value) + 7) // 8
    return bytes([kind, length]) + value + bytes(length * 8 - 2 - len(value))


@dataclass
class Binding6:
    """What RA and DHCPv6 gave the client."""

    ra: v6.RouterAdvert | None = None
    wan_prefix: ipaddress.IPv6Network | None = None  # the RA's autonomous /64
    slaac: ipaddress.IPv6Address | None = None  # our address of it (EUI-64 of our MAC)
    ia_na: ipaddress.IPv6Address | None = None
    delegated_prefix: ipaddress.IPv6Network | None = None
    dns: list[ipaddress.IPv6Address] = field(default_factory=list)
    server_duid: bytes | None = None
    reply: v6.Dhcp6Message | None = None

    @property
    def address(self) -> ipaddress.IPv6Address | None:
        """The address the CPE uses on the WAN: its IA_NA, else its SLAAC address."""
        return self.ia_na or self.slaac


@dataclass
class IpoeDualClient(DhcpClient):
    """A dual-stack IPoE client: DhcpClient's DHCPv4 plus RA/DHCPv6/ND over the same MAC."""

    ac_mac: str | None = None  # expected router MAC (None: learn it from the first RA)
    iaid_na: int = 1
    iaid_pd: int = 2
    binding6: Binding6 = field(default_factory=Binding6)
    sent6: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self):
        super().__post_init__()
        self.duid = v6.duid_ll(self.mac)
        if self.ac_mac is not None:
            self.ac_mac = self.ac_mac.lower()

    # -- addresses ------------------------------------------------------------------------------
    @property
    def link_local(self) -> ipaddress.IPv6Address:
        return mac_link_local(self.mac)

    @property
    def router_link_local(self) -> ipaddress.IPv6Address:
        return mac_link_local(self._router_mac())

    def _router_mac(self) -> str:
        if self.ac_mac is None:
            raise DhcpError(f"{self.mac}: no router known (no RA yet and no ac_mac given)")
        return self.ac_mac

    def delegated_host(self, n: int = 1) -> ipaddress.IPv6Address:
        """An address inside the delegated prefix (a LAN host behind the CPE)."""
        if self.binding6.delegated_prefix is None:
            raise DhcpError(f"{self.mac}: no delegated prefix")
        return self.binding6.delegated_prefix.network_address + n

    # -- frames ---------------------------------------------------------------------------------
    def ipv6_frame(self, packet: bytes, dst_mac: str | None = None, src_mac: str | None = None) -> bytes:
        """QinQ + Ethertype 0x86DD around an IPv6 packet; to ac_mac unless dst_mac."""
        outer = struct.pack("!HH", self.outer_tpid, self.stag & 0x0FFF)
        inner = struct.pack("!HH", 0x8100, self.ctag & 0x0FFF)
        dst = dst_mac or self._router_mac()
        src = src_mac or self.mac
        return (
            bytes.fromhex(dst.replace(":", ""))
            + bytes.fromhex(src.replace(":", ""))
            + outer
            + inner
            + struct.pack("!H", ETH_IPV6)
            + packet
        )

    def send6(self, packet: bytes, dst_mac: str | None = None, what: str = "ipv6", **kw) -> None:
        self.sent6.append((time.monotonic(), what))
        self.send(self.ipv6_frame(packet, dst_mac, **kw))

    def deliver(self, frame: Packet) -> None:
        """As DhcpClient's, and IPv6 frames (kind "ipv6", rx.ipv6 the parsed packet), also to
        IPv6 multicast MACs of the client's line."""
        tags = vlan_tags(frame)
        vids = [t.vlan for t in tags]
        if len(vids) < 2 or vids[0] != self.stag or vids[1] != self.ctag:
            return
        if tags[-1].type != ETH_IPV6:
            if frame.dst.lower().startswith("33:33:"):
                return
            super().deliver(frame)
            return
        dst = frame.dst.lower()
        if dst != self.mac and not dst.startswith("33:33:"):
            return
        raw = getattr(frame, "original", None) or bytes(frame)  # the bytes as received
        pkt = v6.parse_ipv6(raw[14 + 4 * len(tags) :])
        rx = Rx(time.monotonic(), frame, vids[0], vids[1], "ipv6")
        rx.ipv6 = pkt
        self.rx.append(rx)
        self.q.put(rx)

    def wait6(self, pred, timeout: float | None = None) -> Rx | None:
        """The next IPv6 frame whose parsed packet satisfies pred(packet, rx)."""
        return self.wait(lambda rx: rx.kind == "ipv6" and rx.ipv6 is not None and pred(rx.ipv6, rx), timeout)

    def _check_from_router(self, rx: Rx, what: str, hop_limit: int | None = None) -> None:
        """An answer of the BNG: from ac_mac and the BNG's link-local, to our MAC."""
        f, pkt = rx.frame, rx.ipv6
        src = f.src.lower()
        if self.ac_mac is not None and src != self.ac_mac:
            self.violations.append(f"{what}: from MAC {src}, not ac_mac {self.ac_mac}")
        if pkt.src != mac_link_local(src):
            self.violations.append(f"{what}: from {pkt.src}, not the link-local of {src} ({mac_link_local(src)})")
        if f.dst.lower() != self.mac:
            self.violations.append(f"{what}: to MAC {f.dst}, not ours ({self.mac})")
        if hop_limit is not None and pkt.hop_limit != hop_limit:
            self.violations.append(f"{what}: hop limit {pkt.hop_limit}, not {hop_limit}")

    # -- Router Discovery ------------------------------------------------------------------------
    def router_solicitation(self) -> bytes:
        """RS from our link-local to ff02::2 with our MAC as SLLA (RFC 4861 4.1)."""
        body = bytes(4) + nd_option(v6.OPT_SLLA, bytes.fromhex(self.mac.replace(":", "")))
        return v6.icmp6(self.link_local, v6.ALL_ROUTERS, v6.RS, 0, body, HOP_LIMIT_ND)

    def solicit_router(self, timeout: float | None = None, tries: int = 3) -> v6.RouterAdvert | None:
        """RSs (1 s apart at most) until an RA comes to us; the RA, checked (the SLLA is
        ac_mac, from the BNG's link-local, hop limit 255); its /64 gives the SLAAC address."""
        each = (self.timeout if timeout is None else timeout) / tries
        for _ in range(tries):
            self.send6(self.router_solicitation(), ALL_ROUTERS_MAC, "rs")
            ra = self.wait_ra(each)
            if ra is not None:
                return ra
        return None

    def wait_ra(self, timeout: float | None = None) -> v6.RouterAdvert | None:
        rx = self.wait6(lambda p, _rx: v6.parse_ra(p) is not None, timeout)
        if rx is None:
            return None
        ra = v6.parse_ra(rx.ipv6)
        src = rx.frame.src.lower()
        if self.ac_mac is None:
            self.ac_mac = src
        self._check_from_router(rx, "RA", HOP_LIMIT_ND)
        if ra.slla != src:
            self.violations.append(f"RA: source link-layer address option {ra.slla}, not the frame's {src}")
        if ra.dst not in (v6.ALL_NODES, self.link_local):
            self.violations.append(f"RA: to {ra.dst}, neither ff02::1 nor our link-local")
        b = self.binding6
        b.ra = ra
        wan = next((p for p in ra.prefixes if p.autonomous and p.prefix.prefixlen == 64), None)
        if wan is not None:
            b.wan_prefix = wan.prefix
            b.slaac = v6.slaac(wan.prefix, eui64(self.mac))
        return ra

    # -- DHCPv6 ----------------------------------------------------------------------------------
    def _ias(self, ia_na: bool, ia_pd: bool, offer: v6.Dhcp6Message | None = None) -> list[bytes]:
        out = []
        if ia_na:
            na = next((ia for ia in offer.ia_na if ia.leases), None) if offer else None
            out.append(v6.ia_na(self.iaid_na, addresses=na.leases if na else []))
        if ia_pd:
            pd = next((ia for ia in offer.ia_pd if ia.leases), None) if offer else None
            out.append(v6.ia_pd(self.iaid_pd, prefixes=pd.leases if pd else []))
        return out

    def dhcp6_packet(self, msg_type: int, xid: int, options: list[bytes], elapsed: int = 0) -> bytes:
        opts = [
            v6.dhcp6_option(v6.O_CLIENTID, self.duid),
            v6.dhcp6_option(v6.O_ELAPSED, struct.pack("!H", min(elapsed, 0xFFFF))),
            *options,
        ]
        return v6.udp6(
            self.link_local,
            v6.ALL_DHCP,
            v6.DHCP_CLIENT_PORT,
            v6.DHCP_SERVER_PORT,
            v6.dhcp6_message(msg_type, xid, opts),
            hop_limit=1,
        )

    def _exchange(self, msg_type: int, options: list[bytes], want: tuple[int, ...], timeout: float | None = None,
                  tries: int = 3) -> v6.Dhcp6Message | None:  # fmt: skip
        """Our message (retransmitted with the same xid) and the first answer of a type in
        want with our xid; checked. None when none came."""
        xid = int.from_bytes(os.urandom(3), "big")
        each = (self.timeout if timeout is None else timeout) / tries
        t0 = time.monotonic()
        names = {v6.SOLICIT: "solicit", v6.REQUEST: "request", v6.RENEW: "renew", v6.REBIND: "rebind",
                 v6.RELEASE: "release"}  # fmt: skip
        for _ in range(tries):
            elapsed = int((time.monotonic() - t0) * 100)
            self.send6(self.dhcp6_packet(msg_type, xid, options, elapsed), ALL_DHCP_MAC, names.get(msg_type, "dhcp6"))

            def answer(p, _rx, xid=xid) -> bool:
                udp = v6.udp6_payload(p)
                if udp is None or udp[:2] != (v6.DHCP_SERVER_PORT, v6.DHCP_CLIENT_PORT):
                    return False
                m = v6.parse_dhcp6(udp[2])
                return m is not None and m.xid == xid and m.msg_type in want

            rx = self.wait6(answer, each)
            if rx is None:
                continue
            msg = v6.parse_dhcp6(v6.udp6_payload(rx.ipv6)[2])
            what = f"DHCPv6 {msg.msg_type}"
            self._check_from_router(rx, what)
            if rx.ipv6.dst != self.link_local:
                self.violations.append(f"{what}: to {rx.ipv6.dst}, not our link-local {self.link_local}")
            if msg.client_id != self.duid:
                self.violations.append(f"{what}: client id {msg.client_id!r}, not ours")
            if msg.server_id is None:
                self.violations.append(f"{what}: no server id")
            return msg
        return None

    def solicit(self, rapid_commit: bool = False, ia_na: bool = True, ia_pd: bool = True,
                timeout: float | None = None) -> v6.Dhcp6Message | None:  # fmt: skip
        """Solicit with IA_NA and/or IA_PD (and Rapid Commit); the Advertise, or the Reply
        the server sends to a Rapid Commit (then the client is bound)."""
        opts = [v6.dhcp6_option(v6.O_ORO, struct.pack("!H", v6.O_DNS)), *self._ias(ia_na, ia_pd)]
        if rapid_commit:
            opts.append(v6.dhcp6_option(v6.O_RAPID_COMMIT, b""))
        msg = self._exchange(v6.SOLICIT, opts, (v6.ADVERTISE, v6.REPLY), timeout)
        if msg is not None and msg.msg_type == v6.REPLY:
            if not (rapid_commit and msg.rapid_commit):
                self.violations.append("Reply to a Solicit without Rapid Commit in both (RFC 8415 18.3.1)")
            self._bind(msg)
        return msg

    def request(self, advertise: v6.Dhcp6Message, ia_na: bool = True, ia_pd: bool = True,
                timeout: float | None = None) -> v6.Dhcp6Message | None:  # fmt: skip
        """Request what the Advertise offered (to its server); the Reply (bound)."""
        opts = [
            v6.dhcp6_option(v6.O_SERVERID, advertise.server_id or b""),
            v6.dhcp6_option(v6.O_ORO, struct.pack("!H", v6.O_DNS)),
            *self._ias(ia_na, ia_pd, advertise),
        ]
        reply = self._exchange(v6.REQUEST, opts, (v6.REPLY,), timeout)
        if reply is not None:
            self._bind(reply)
        return reply

    def bind6(self, rapid_commit: bool = False, ia_na: bool = True, ia_pd: bool = True) -> Binding6:
        """RS -> RA, then DHCPv6 (4 messages, or 2 with Rapid Commit); the binding. Raises
        DhcpError when a step has no answer or the Reply binds nothing asked for."""
        if self.solicit_router() is None:
            raise DhcpError(f"{self.mac}: no Router Advertisement")
        first = self.solicit(rapid_commit, ia_na, ia_pd)
        if first is None:
            raise DhcpError(f"{self.mac}: no answer to the DHCPv6 Solicit")
        reply = first if first.msg_type == v6.REPLY else self.request(first, ia_na, ia_pd)
        if reply is None:
            raise DhcpError(f"{self.mac}: no Reply to the DHCPv6 Request")
        b = self.binding6
        if (ia_pd and b.delegated_prefix is None) or (ia_na and b.ia_na is None):
            raise DhcpError(f"{self.mac}: DHCPv6 Reply binds too little: NA {reply.ia_na} PD {reply.ia_pd} "
                            f"status {reply.status} {reply.status_message!r}")  # fmt: skip
        return b

    def _bind(self, reply: v6.Dhcp6Message) -> None:
        b = self.binding6
        b.reply = reply
        b.server_duid = reply.server_id
        na = next((ia for ia in reply.ia_na if ia.leases and ia.leases[0].valid > 0), None)
        pd = next((ia for ia in reply.ia_pd if ia.leases and ia.leases[0].valid > 0), None)
        b.ia_na = ipaddress.IPv6Address(na.leases[0].value) if na else None
        b.delegated_prefix = ipaddress.IPv6Network(pd.leases[0].value) if pd else None
        b.dns = list(reply.dns)
        for ia in (na, pd):
            if ia is not None and ia.t1 and ia.t2 and not ia.t1 <= ia.t2:
                self.violations.append(f"IA {ia.iaid}: T1 {ia.t1} > T2 {ia.t2}")

    def _held(self) -> list[bytes]:
        b = self.binding6
        out = []
        if b.ia_na is not None:
            out.append(v6.ia_na(self.iaid_na, addresses=[v6.Lease(str(b.ia_na))]))
        if b.delegated_prefix is not None:
            out.append(v6.ia_pd(self.iaid_pd, prefixes=[v6.Lease(str(b.delegated_prefix))]))
        if not out:
            raise DhcpError(f"{self.mac}: no DHCPv6 binding")
        return out

    def renew6(self, timeout: float | None = None) -> v6.Dhcp6Message | None:
        """Renew of what we hold, to the server that gave it; the Reply (re-bound)."""
        sid = v6.dhcp6_option(v6.O_SERVERID, self.binding6.server_duid or b"")
        reply = self._exchange(v6.RENEW, [sid, *self._held()], (v6.REPLY,), timeout)
        if reply is not None:
            self._bind(reply)
        return reply

    def rebind6(self, timeout: float | None = None) -> v6.Dhcp6Message | None:
        """Rebind (no server id: any server) of what we hold; the Reply."""
        reply = self._exchange(v6.REBIND, self._held(), (v6.REPLY,), timeout)
        if reply is not None:
            self._bind(reply)
        return reply

    def release6(self, timeout: float | None = None) -> v6.Dhcp6Message | None:
        """Release of what we hold; the server's Reply (RFC 8415 18.3.7); the binding is gone
        either way."""
        sid = v6.dhcp6_option(v6.O_SERVERID, self.binding6.server_duid or b"")
        reply = self._exchange(v6.RELEASE, [sid, *self._held()], (v6.REPLY,), timeout)
        self.binding6 = Binding6(ra=self.binding6.ra)
        return reply

    # -- Neighbor Discovery -----------------------------------------------------------------------
    def neighbor_solicitation(self, target, src=None) -> bytes:
        """NS for target from src (our link-local by default; :: for DAD) to the target's
        solicited-node multicast, hop limit 255, our MAC as SLLA (RFC 4861 4.3, 7.2.2)."""
        src = ipaddress.IPv6Address(src or self.link_local)
        body = bytes(4) + ipaddress.IPv6Address(target).packed
        if not src.is_unspecified:  # DAD (from ::) carries no SLLA (RFC 4861 4.3)
            body += nd_option(v6.OPT_SLLA, bytes.fromhex(self.mac.replace(":", "")))
        return v6.icmp6(src, solicited_node(target), v6.NS, 0, body, HOP_LIMIT_ND)

    def neighbor_solicit(self, target=None, src=None, timeout: float | None = None,
                         tries: int = 3) -> v6.NeighborAdvert | None:  # fmt: skip
        """NS for target (the BNG's link-local by default); the NA for it, checked (R and S
        set, TLLA = ac_mac, to the NS's source, hop limit 255). None when none came."""
        target = ipaddress.IPv6Address(target or self.router_link_local)
        src = ipaddress.IPv6Address(src or self.link_local)
        each = (self.timeout if timeout is None else timeout) / tries
        for _ in range(tries):
            self.send6(self.neighbor_solicitation(target, src), multicast_mac(solicited_node(target)), "ns")
            rx = self.wait6(lambda p, _rx: (na := v6.parse_na(p)) is not None and na.target == target, each)
            if rx is None:
                continue
            na = v6.parse_na(rx.ipv6)
            frm = rx.frame.src.lower()
            if self.ac_mac is not None and frm != self.ac_mac:
                self.violations.append(f"NA: from MAC {frm}, not ac_mac {self.ac_mac}")
            if rx.frame.dst.lower() != self.mac:
                self.violations.append(f"NA: to MAC {rx.frame.dst}, not ours")
            if na.dst != src:
                self.violations.append(f"NA: to {na.dst}, not the NS's source {src}")
            if na.hop_limit != HOP_LIMIT_ND:
                self.violations.append(f"NA: hop limit {na.hop_limit}")
            if not (na.router and na.solicited):
                self.violations.append(f"NA: flags R={na.router} S={na.solicited} (both must be set)")
            if na.tlla != frm:
                self.violations.append(f"NA: target link-layer address {na.tlla}, not the frame's {frm}")
            return na
        return None

    # -- traffic ---------------------------------------------------------------------------------
    def udp6_echo(
        self,
        src,
        dst,
        payload: bytes,
        sport: int = 40600,
        dport: int = 7,
        timeout: float = 1.0,
        tries: int = 3,
        sender: IpoeDualClient | None = None,
        **frame_kw,
    ) -> v6.Ipv6Packet | None:
        """A UDP datagram from src (our address, or one of the delegated prefix, or a spoofed
        one) to an echo service at dst; the echoed IPv6 packet as this client receives it, or
        None. sender: another client sends it (anti-spoof); frame_kw: src_mac for the frame."""
        sender = sender or self
        src, dst = ipaddress.IPv6Address(src), ipaddress.IPv6Address(dst)
        for _ in range(tries):
            sender.send6(v6.udp6(src, dst, sport, dport, payload), **frame_kw)

            def echoed(p, _rx) -> bool:
                u = v6.udp6_payload(p)
                return p.src == dst and p.dst == src and u is not None and u[:2] == (dport, sport) and u[2] == payload

            rx = self.wait6(echoed, timeout)
            if rx is not None:
                return rx.ipv6
        return None
