"""The independent client's dual-stack dial against a scripted BNG written with scapy's own
layers (IPv6CP by hand, RA and DHCPv6 by scapy): IPv6CP with a Nak of the client's
identifier, RS -> RA, Solicit/Advertise/Request/Reply with IA_PD and IA_NA, Renew, and the
refusals (IPv6CP Protocol-Reject, no IA_NA offered) that must leave IPv4 up.
The scripted BNG is strict: it checks every field the RFCs fix (hop limits, link-local
sources, destination addresses, the client's DUID in every message, the server id in
Request and Renew) and records each violation, which the tests assert to be empty."""

from __future__ import annotations

import ipaddress
import struct
import threading

from scapy.layers import dhcp6 as d6
from scapy.layers.inet import UDP
from scapy.layers.inet6 import (
    ICMPv6ND_RA,
    ICMPv6ND_RS,
    ICMPv6NDOptMTU,
    ICMPv6NDOptPrefixInfo,
    ICMPv6NDOptRDNSS,
    IPv6,
)
from scapy.layers.l2 import Dot1Q, Ether
from scapy.layers.ppp import PPPoE, PPPoED

from harness import ipv6 as v6
from harness.pppoe_client import (
    CONF_ACK,
    CONF_NAK,
    CONF_REQ,
    IPCP,
    IPV6CP,
    LCP,
    PADI,
    PADO,
    PADR,
    PADS,
    PAP,
    PROTO_REJ,
    TAG_HOST_UNIQ,
    PppoeClient,
    cp_packet,
    decode,
    opt,
    options,
    tags,
)

AC_MAC = "02:bb:00:00:00:01"
BNG_IID = bytes.fromhex("00bbfffe00000001")
WAN64 = ipaddress.IPv6Network("2001:db8:100:7::/64")
PD56 = ipaddress.IPv6Network("2001:db8:2000:700::/56")
NA_ADDR = "2001:db8:100:7::1"
SERVER_DUID = d6.DUID_LL(lladdr=AC_MAC)


class ScriptedBng:
    """attach/send_frame like a DP; answers in the client's thread (as the DP's would)."""

    def __init__(self, ipv6cp: str = "nak", ia_na: bool = True):
        self.ipv6cp = ipv6cp  # nak | ack | reject
        self.ia_na = ia_na
        self.client = None
        self.violations: list[str] = []
        self.events: list[str] = []
        self.lock = threading.Lock()

    def attach(self, client) -> None:
        self.client = client

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.violations.append(what)

    def reply(self, frame) -> None:
        self.client.deliver(Ether(bytes(frame)))

    def ppp(self, sid: int, proto: int, payload: bytes) -> None:
        self.reply(
            Ether(src=AC_MAC, dst=self.client.mac)
            / Dot1Q(vlan=self.client.stag)
            / Dot1Q(vlan=self.client.ctag)
            / PPPoE(sessionid=sid)
            / (struct.pack("!H", proto) + payload)
        )

    def ipv6(self, sid: int, pkt) -> None:
        self.ppp(sid, v6.IPV6_PPP, bytes(pkt))

    def send_frame(self, b: bytes) -> None:
        with self.lock:
            self._on(b)

    def _on(self, b: bytes) -> None:
        rx = decode(Ether(b))
        if rx is None:
            return
        if rx.discovery:
            body = tags((TAG_HOST_UNIQ, rx.tag(TAG_HOST_UNIQ)))
            code = {PADI: PADO, PADR: PADS}.get(rx.code)
            if code is not None:
                self.reply(
                    Ether(src=AC_MAC, dst=self.client.mac)
                    / Dot1Q(vlan=self.client.stag)
                    / Dot1Q(vlan=self.client.ctag)
                    / PPPoED(code=code, sessionid=0x42 if code == PADS else 0)
                    / body
                )
            return
        sid = rx.session_id
        if rx.proto == LCP and rx.ppp_code == CONF_REQ:
            self.ppp(sid, LCP, cp_packet(CONF_ACK, rx.ppp_id, rx.data))
            self.ppp(sid, LCP, cp_packet(CONF_REQ, 1, opt(1, b"\x05\xd4") + opt(3, b"\xc0\x23")))
        elif rx.proto == PAP and rx.ppp_code == 1:
            self.ppp(sid, PAP, cp_packet(2, rx.ppp_id, b"\x02ok"))
            self.ppp(sid, IPCP, cp_packet(CONF_REQ, 7, opt(3, bytes([100, 64, 0, 1]))))
            if self.ipv6cp != "reject":
                self.ppp(sid, IPV6CP, cp_packet(CONF_REQ, 8, opt(1, BNG_IID)))
        elif rx.proto == IPCP and rx.ppp_code == CONF_REQ:
            o = dict(options(rx.data))
            if o.get(3) == b"\0\0\0\0":
                self.ppp(sid, IPCP, cp_packet(CONF_NAK, rx.ppp_id, opt(3, bytes([100, 80, 0, 9]))))
            else:
                self.ppp(sid, IPCP, cp_packet(CONF_ACK, rx.ppp_id, rx.data))
        elif rx.proto == IPV6CP and rx.ppp_code == CONF_REQ:
            if self.ipv6cp == "reject":
                self.ppp(sid, LCP, cp_packet(PROTO_REJ, 3, struct.pack("!H", IPV6CP) + rx.payload[2:]))
                return
            iid = dict(options(rx.data)).get(1)
            self.check(iid is not None and len(iid) == 8, f"IPv6CP without an 8-octet identifier: {rx.data.hex()}")
            if self.ipv6cp == "nak" and iid != bytes.fromhex("0000000000000abc"):
                self.ppp(sid, IPV6CP, cp_packet(CONF_NAK, rx.ppp_id, opt(1, bytes.fromhex("0000000000000abc"))))
            else:
                self.events.append(f"ipv6cp-ack {iid.hex()}")
                self.ppp(sid, IPV6CP, cp_packet(CONF_ACK, rx.ppp_id, rx.data))
        elif rx.proto == v6.IPV6_PPP:
            self._ipv6(sid, IPv6(rx.payload))

    def _ipv6(self, sid: int, pkt) -> None:
        iid = v6.iid_of(ipaddress.IPv6Address(pkt.src))
        me = str(v6.link_local(BNG_IID))
        if ICMPv6ND_RS in pkt:
            self.events.append("rs")
            self.check(pkt.hlim == 255 and pkt.dst == "ff02::2", f"RS hop limit {pkt.hlim} to {pkt.dst}")
            self.check(ipaddress.IPv6Address(pkt.src).is_link_local, f"RS from {pkt.src}")
            ra = (
                IPv6(src=me, dst="ff02::1", hlim=255)
                / ICMPv6ND_RA(M=int(self.ia_na), O=1, routerlifetime=1800)
                / ICMPv6NDOptPrefixInfo(prefix=str(WAN64.network_address), prefixlen=64, L=1, A=1)
                / ICMPv6NDOptMTU(mtu=1492)
                / ICMPv6NDOptRDNSS(lifetime=1800, dns=["2001:db8:53::53"])
            )
            self.ipv6(sid, ra)
            return
        if UDP not in pkt or pkt[UDP].dport != 547:
            self.events.append(f"data {pkt.src} -> {pkt.dst}")
            return
        self.check(pkt.hlim == 1 and pkt.dst == "ff02::1:2", f"DHCPv6 hop limit {pkt.hlim} to {pkt.dst}")
        self.check(pkt[UDP].sport == 546, f"DHCPv6 from port {pkt[UDP].sport}")
        msg = pkt[UDP].payload
        cid = msg[d6.DHCP6OptClientId] if d6.DHCP6OptClientId in msg else None
        self.check(cid is not None and bytes(cid.duid) == v6.duid_ll(self.client.mac), "DHCPv6 client id")
        name = type(msg).__name__
        self.events.append(name)
        if isinstance(msg, d6.DHCP6_Solicit):
            answer = d6.DHCP6_Advertise(trid=msg.trid)
        else:
            self.check(
                d6.DHCP6OptServerId in msg and bytes(msg[d6.DHCP6OptServerId].duid) == bytes(SERVER_DUID),
                f"{name} without our server id",
            )
            answer = d6.DHCP6_Reply(trid=msg.trid)
            if isinstance(msg, d6.DHCP6_Request | d6.DHCP6_Renew):
                self.check(
                    d6.DHCP6OptIA_PD in msg and d6.DHCP6OptIAPrefix in msg[d6.DHCP6OptIA_PD],
                    f"{name} without the IA_PD prefix",
                )
        answer = answer / d6.DHCP6OptServerId(duid=SERVER_DUID) / d6.DHCP6OptClientId(duid=cid.duid)
        if d6.DHCP6OptIA_PD in msg:
            answer /= d6.DHCP6OptIA_PD(
                iaid=msg[d6.DHCP6OptIA_PD].iaid,
                T1=1800,
                T2=2880,
                iapdopt=[d6.DHCP6OptIAPrefix(prefix=str(PD56.network_address), plen=56, preflft=3600, validlft=7200)],
            )
        if d6.DHCP6OptIA_NA in msg:
            if self.ia_na:
                sub = [d6.DHCP6OptIAAddress(addr=NA_ADDR, preflft=3600, validlft=7200)]
            else:
                sub = [d6.DHCP6OptStatusCode(statuscode=2, statusmsg="no addresses")]
            answer /= d6.DHCP6OptIA_NA(iaid=msg[d6.DHCP6OptIA_NA].iaid, T1=1800, T2=2880, ianaopts=sub)
        answer /= d6.DHCP6OptDNSServers(dnsservers=["2001:db8:53::53"])
        self.ipv6(sid, IPv6(src=me, dst=str(v6.link_local(iid)), hlim=1) / UDP(sport=547, dport=546) / answer)


def _client(bng, **kw) -> PppoeClient:
    return PppoeClient(bng, "02:11:00:00:00:42", 100, 42, user="alice", auth="pap", dual_stack=True, **kw)


def test_dual_stack_dial_with_ia_pd_and_ia_na_and_renew():
    bng = ScriptedBng(ipv6cp="nak", ia_na=True)
    c = _client(bng)
    res = c.dial(timeout=10)
    assert res.ok and res.ipv4 == "100.80.0.9", res.reason
    assert res.ipv6cp and res.ipv6_ok, res.ipv6_reason
    # the BNG's Nak gave the identifier; SLAAC from the RA's /64 with it
    assert res.iid == bytes.fromhex("0000000000000abc") and res.peer_iid == BNG_IID
    assert res.wan_prefix == WAN64 and str(res.ipv6) == "2001:db8:100:7::abc"
    assert (res.ra.managed, res.ra.other, res.ra.router_lifetime, res.ra.mtu) == (True, True, 1800, 1492)
    assert res.ra.src == v6.link_local(BNG_IID) and res.ra.hop_limit == 255
    assert res.delegated_prefix == PD56 and str(res.ia_na) == NA_ADDR
    assert [str(d) for d in res.dns6] == ["2001:db8:53::53"]
    assert str(c.delegated_host()) == "2001:db8:2000:700::1"
    reply = c.renew()
    assert reply.msg_type == v6.REPLY and reply.ia_pd[0].leases[0].value == str(PD56)
    assert [e for e in bng.events if e.startswith("DHCP6")] == [
        "DHCP6_Solicit",
        "DHCP6_Request",
        "DHCP6_Renew",
    ]
    # traffic from the WAN address and from inside the delegated prefix
    c.send_ipv6(v6.udp6(res.ipv6, "2001:db8:64::100", 4000, 9, b"wan"))
    c.send_ipv6(v6.udp6(c.delegated_host(), "2001:db8:64::100", 4000, 9, b"lan"))
    assert bng.events[-2:] == [
        "data 2001:db8:100:7::abc -> 2001:db8:64::100",
        "data 2001:db8:2000:700::1 -> 2001:db8:64::100",
    ]
    assert bng.violations == []


def test_no_ia_na_offered_binds_the_prefix_only():
    bng = ScriptedBng(ipv6cp="ack", ia_na=False)
    res = _client(bng, iid=bytes.fromhex("0211223344556677")).dial(timeout=10)
    assert res.ok and res.ipv6_ok, (res.reason, res.ipv6_reason)
    assert str(res.ipv6) == "2001:db8:100:7:211:2233:4455:6677" and res.ia_na is None
    assert res.delegated_prefix == PD56 and not res.ra.managed
    assert bng.violations == []


def test_ipv6cp_refused_leaves_ipv4_up():
    bng = ScriptedBng(ipv6cp="reject")
    res = _client(bng).dial(timeout=10)
    assert res.ok and res.ipv4 == "100.80.0.9", res.reason
    assert not res.ipv6cp and not res.ipv6_ok
    assert res.ipv6_reason == "IPv6CP Protocol-Rejected by the BNG"
    assert "rs" not in bng.events and bng.violations == []
