"""An independent PFCP control-plane function for the bng-dp tests.

It speaks bngpod's TR-459 profile (docs/dp/pfcp.md) with scapy.contrib.pfcp; the BBF IEs,
which scapy knows only as raw enterprise IEs, are written out here from the TR-459
layouts. It shares no code with bng-dp's C codec, so a test that passes through it checks
both sides against the written contract.

The CP talks over any datagram socket it is given (`sendto`, `recvfrom`, `settimeout`):
in the functional rig `dp.cp_socket(8805)`, a socket in the CP namespace bound to
10.200.0.1:8805, with bng-dp at 10.200.0.11:8805. While it waits for an answer it also
serves what the DP sends on its own: heartbeat requests are answered, session reports are
acknowledged (cause 1, or `report_cause`) and kept in `reports`."""

from __future__ import annotations

import ipaddress
import itertools
import struct
import time
from dataclasses import dataclass, field

from scapy.contrib import pfcp as P

BBF = 3561
NTP_UNIX = 2208988800

# BBF TR-459 IE types (enterprise 3561)
BBF_UP_FUNCTION_FEATURES = 32768
BBF_LOGICAL_PORT = 32769
BBF_OUTER_HEADER_CREATION = 32770
BBF_OUTER_HEADER_REMOVAL = 32771
BBF_PPPOE_SESSION_ID = 32772
BBF_PPP_PROTOCOL = 32773
BBF_VERIFICATION_TIMERS = 32774
BBF_PPP_LCP_MAGIC_NUMBER = 32775
BBF_MTU = 32776
BBF_PPP_LCP_CONNECTIVITY = 32780

# bngpod's own IEs (enterprise 32473, IANA's documentation PEN until bngpod has one):
# the Line Group IE of the Association Update (docs/dp/pfcp.md "bngpod Line Group IE")
BNGPOD = 32473
BNGPOD_LINE_GROUP = 32768
BNGPOD_RA_OFFLOAD = 32769  # docs/dp/pfcp.md "bngpod RA offload IE"
BNGPOD_ARP_PING = 32770  # docs/dp/pfcp.md "bngpod IPoE ARP ping IE"
BNGPOD_DROPPED = 32771  # docs/dp/pfcp.md "bngpod Dropped Packets IE" (in a Usage Report)
DHCP_FLOW = b"permit out 17 from any 68 to any 67"  # the default session's dhcp class
DHCP6_FLOW = b"permit out 17 from any 546 to any 547"  # its IPv6 PDR (IPoE RS, DHCPv6)
LG_ADOPT, LG_RELEASE = 1, 2

# Report Type bits, Usage Report Trigger bits (octet 5 in bits 0-7, octet 6 in 8-15)
REPORT_USAR = 0x02
REPORT_UPIR = 0x08
URT_PERIO = 0x0001
URT_VOLTH = 0x0002
URT_IMMER = 0x0080
URT_TERMR = 0x0800

CLASSES = {
    "discovery": (0x8863, None),
    "control": (0x8864, 0x04),
    "unknown": (0x8864, None),
    "dhcp": (0x0800, None),  # with the SDF Filter DHCP_FLOW (IPoE)
    "dhcp6": (0x86DD, None),  # with the SDF Filter DHCP6_FLOW (IPoE IPv6: RS, DHCPv6)
}


@dataclass
class Sub:
    """One PPPoE (or, with ipoe, IPoE) subscriber session as the CP installs it (rates in
    kbit/s)."""

    stag: int = 100
    ctag: int = 7
    mac: str = "02:11:00:00:00:07"
    sid: int = 0x0107
    ipv4: str | None = "100.80.0.7"  # None: no IPv4 PDRs (an IPv6-only session)
    # Dual stack (docs/dp/pfcp.md "Dual stack"): PDR 3 upstream PPP 0x0057, PDR 4 the /64,
    # PDR 5 the delegated prefix; with urr_period, URR 2 (IPv4) and URR 3 (IPv6) beside URR 1.
    ipv6_prefix: str | None = None  # "2001:db8:100:7::/64"
    delegated_prefix: str | None = None  # "2001:db8:200:700::/56"
    mtu: int | None = None
    mbr_ul: int | None = None  # kbit/s
    mbr_dl: int | None = None
    gbr_ul: int | None = None
    gbr_dl: int | None = None
    qos: str | None = None  # Forwarding Policy: a QoS profile name
    lcp_magic: int | None = None  # set: LCP keepalive offload (our magic number)
    lcp_peer_magic: int = 0
    echo_interval: int = 1
    echo_misses: int = 3
    urr_period: int | None = None  # seconds; set: a URR with periodic reporting
    logical_port: str = "access1"
    ra: dict | None = None  # RA offload IE fields (ra_offload_value()); None: no IE
    # IPoE (docs/dp/pfcp.md "IPoE subscriber session"): Ethertype 0x0800, the UE IP upstream,
    # no PPPoE session id, BBF Outer Header Removal 1, BBF OHC session id 0; sid is unused.
    ipoe: bool = False
    arp_ping: tuple[int, int] | None = None  # (interval s, count): the bngpod ARP ping IE

    @property
    def has_ipv6(self) -> bool:
        return self.ipv6_prefix is not None


@dataclass
class Usage:
    """One Usage Report."""

    urr_id: int
    seqn: int = 0
    trigger: int = 0
    start: int = 0  # NTP seconds
    end: int = 0
    total_bytes: int = 0
    ul_bytes: int = 0
    dl_bytes: int = 0
    total_pkts: int = 0
    ul_pkts: int = 0
    dl_pkts: int = 0
    duration: int | None = None
    ul_dropped: int | None = None  # bngpod Dropped Packets IE: packets
    dl_dropped: int | None = None
    ul_dropped_bytes: int | None = None  # ... and their octets (the IE's 32-octet form)
    dl_dropped_bytes: int | None = None


@dataclass
class Report:
    """A Session Report Request the DP sent."""

    seid: int  # header SEID: our (CP) SEID
    report_type: int
    usage: list[Usage] = field(default_factory=list)
    lcp: dict | None = None  # BBF PPP LCP Connectivity: present in an LCP dead report
    arp_ping: tuple[int, int] | None = None  # bngpod IPoE ARP ping (interval, count): ARP dead
    raw: bytes = b""

    @property
    def lcp_dead(self) -> bool:
        return bool(self.report_type & REPORT_UPIR) and self.lcp is not None

    @property
    def arp_dead(self) -> bool:
        return bool(self.report_type & REPORT_UPIR) and self.arp_ping is not None


class PfcpTimeout(Exception):
    pass


# ---- IE helpers -------------------------------------------------------------------------


def bbf(ietype: int, data: bytes = b"", kids: list | None = None) -> P.IE_EnterpriseSpecific:
    """A BBF vendor IE: type (bit 15 set), length, enterprise id 3561, value."""
    if kids is not None:
        data = b"".join(bytes(k) for k in kids)
    return P.IE_EnterpriseSpecific(ietype=ietype, enterprise_id=BBF, data=data)


def line_group_value(
    action: int, name: str, ac_mac: str, core_mac: str, core_addr: str | ipaddress.IPv4Address
) -> bytes:
    """The bngpod Line Group IE value, written from the contract's layout: action, AC MAC,
    core MAC, core IPv4 address, name length, name."""
    n = name.encode()
    return (
        bytes([action])
        + bytes.fromhex(ac_mac.replace(":", ""))
        + bytes.fromhex(core_mac.replace(":", ""))
        + ipaddress.IPv4Address(core_addr).packed
        + bytes([len(n)])
        + n
    )


def line_group_value6(action: int, name: str, ac_mac: str, core_mac: str, core_addr: str, core6: str) -> bytes:
    """The Line Group IE value with its optional trailer: the group's core IPv6 address."""
    return line_group_value(action, name, ac_mac, core_mac, core_addr) + ipaddress.IPv6Address(core6).packed


def ue_ipv6_prefix(prefix: str, sd: int = 1) -> P.IE_UE_IP_Address:
    """UE IP Address with V6, S/D and IP6PL (0x40, which scapy's IE does not name: set through
    its spare bits), the 16-octet prefix, then the 1-octet prefix length (29.244 R16 8.2.62)."""
    net = ipaddress.IPv6Network(prefix)
    return P.IE_UE_IP_Address(spare=8, V6=1, SD=sd, ipv6=str(net.network_address), extra_data=bytes([net.prefixlen]))


def ra_offload_value(
    prefix64: str,
    interval: int = 200,
    lifetime: int = 1800,
    flags: int = 0x40,
    mtu: int = 1492,
    valid: int = 86400,
    preferred: int = 14400,
    iid: bytes = bytes.fromhex("00bb00fffe000001"),
    dns: tuple[str, ...] = (),
) -> bytes:
    """The RA offload IE value, from the contract's layout (docs/dp/pfcp.md)."""
    pfx = ipaddress.IPv6Network(prefix64).network_address.packed[:8]
    v = struct.pack("!HHBH", interval, lifetime, flags, mtu) + pfx + struct.pack("!II", valid, preferred) + iid
    v += bytes([len(dns)]) + b"".join(ipaddress.IPv6Address(d).packed for d in dns)
    return v


def ra_offload_ie(value: bytes) -> P.IE_EnterpriseSpecific:
    """A bngpod RA offload IE around any value (b"" turns the offload off)."""
    return P.IE_EnterpriseSpecific(ietype=BNGPOD_RA_OFFLOAD, enterprise_id=BNGPOD, data=value)


def arp_ping_ie(interval: int | None, count: int = 0) -> P.IE_EnterpriseSpecific:
    """The bngpod IPoE ARP ping IE; interval None: the empty IE (off)."""
    data = b"" if interval is None else struct.pack("!HB", interval, count)
    return P.IE_EnterpriseSpecific(ietype=BNGPOD_ARP_PING, enterprise_id=BNGPOD, data=data)


def line_group_ie(value: bytes) -> P.IE_EnterpriseSpecific:
    """A bngpod Line Group IE around any value bytes (malformed ones included)."""
    return P.IE_EnterpriseSpecific(ietype=BNGPOD_LINE_GROUP, enterprise_id=BNGPOD, data=value)


def _vlan(cls, vid: int):
    kw = {"VID": 1}
    if cls is P.IE_C_TAG:
        kw.update(cvid_value_hi=vid >> 8, cvid_value_low=vid & 0xFF)
    else:
        kw.update(svid_value_hi=vid >> 8, svid_value_low=vid & 0xFF)
    return cls(**kw)


def _node_id(ip: str):
    return P.IE_NodeId(id_type=0, ipv4=ip)


def _ies(pkt) -> list:
    lst = getattr(pkt, "IE_list", None)
    return list(lst) if lst else []


def _find(ies: list, ietype: int, cls=None):
    for ie in ies:
        if ie.ietype == ietype and (cls is None or isinstance(ie, cls)):
            return ie
    return None


def _find_all(ies: list, ietype: int) -> list:
    return [ie for ie in ies if ie.ietype == ietype]


def _bbf_children(data: bytes) -> dict[int, bytes]:
    """The BBF IEs inside a grouped BBF IE value: {type: value without enterprise id}."""
    out, off = {}, 0
    while off + 6 <= len(data):
        t, ln, ent = struct.unpack_from("!HHH", data, off)
        if ent == BBF and off + 4 + ln <= len(data):
            out[t] = data[off + 6 : off + 4 + ln]
        off += 4 + ln
    return out


def _usage(ie) -> Usage:
    """Decode one Usage Report (any of the three IE types) from its raw value."""
    raw = bytes(ie)[4:]
    u = Usage(urr_id=0)
    off = 0
    while off + 4 <= len(raw):
        t, ln = struct.unpack_from("!HH", raw, off)
        v = raw[off + 4 : off + 4 + ln]
        off += 4 + ln
        if t == 81:
            u.urr_id = struct.unpack("!I", v[:4])[0]
        elif t == 104:
            u.seqn = struct.unpack("!I", v[:4])[0]
        elif t == 63:
            u.trigger = v[0] | (v[1] << 8) | ((v[2] << 16) if len(v) > 2 else 0)
        elif t == 75:
            u.start = struct.unpack("!I", v[:4])[0]
        elif t == 76:
            u.end = struct.unpack("!I", v[:4])[0]
        elif t == 67:
            u.duration = struct.unpack("!I", v[:4])[0]
        elif t == BNGPOD_DROPPED and len(v) in (18, 34) and struct.unpack("!H", v[:2])[0] == BNGPOD:
            # packets; octets too in the 32-octet form (the 16-octet one: bngpod before them)
            u.ul_dropped, u.dl_dropped = struct.unpack("!QQ", v[2:18])
            if len(v) == 34:
                u.ul_dropped_bytes, u.dl_dropped_bytes = struct.unpack("!QQ", v[18:34])
        elif t == 66:
            flags, pos = v[0], 1
            names = ["total_bytes", "ul_bytes", "dl_bytes", "total_pkts", "ul_pkts", "dl_pkts"]
            for bit, name in enumerate(names):
                if flags & (1 << bit):
                    setattr(u, name, struct.unpack_from("!Q", v, pos)[0])
                    pos += 8
    return u


# ---- the CP ---------------------------------------------------------------------------------


class Cp:
    """A PFCP CP function towards one bng-dp instance."""

    def __init__(
        self,
        sock,
        dp_addr: tuple[str, int] = ("10.200.0.11", 8805),
        node_ip: str = "10.200.0.1",
        recovery: int | None = None,
        t1: float = 1.0,
        n1: int = 3,
    ):
        self.sock = sock
        self.dp_addr = dp_addr
        self.node_ip = node_ip
        self.recovery = recovery if recovery is not None else int(time.time()) + NTP_UNIX
        self.t1 = t1
        self.n1 = n1
        self._seq = itertools.count(1)
        self._seid = itertools.count(0x100000)
        self.reports: list[Report] = []
        self.report_cause = 1
        self.dp_recovery: int | None = None
        self.dp_features: dict = {}
        self.dp_ipoe = False
        self.up_seid_of: dict[int, int] = {}  # CP SEID -> UP SEID
        self.answered: int = 0  # DP requests answered
        self.received: list[bytes] = []  # every datagram from the DP, for captures
        self.last_request: bytes = b""

    @classmethod
    def for_rig(cls, dp, **kw) -> Cp:
        """A CP on the functional rig's CP socket."""
        return cls(dp.cp_socket(8805), dp_addr=(dp.DP_CTRL, 8805), node_ip=dp.CP_ADDR, **kw)

    def close(self) -> None:
        self.sock.close()

    # -- transport ------------------------------------------------------------------------
    def _hdr(self, seid: int | None, seq: int):
        if seid is None:
            return P.PFCP(version=1, S=0, seq=seq)
        return P.PFCP(version=1, S=1, seid=seid, seq=seq)

    def request(self, body, seid: int | None = None) -> P.PFCP:
        """Send a request (retransmitted every t1, n1 times) and return the DP's answer."""
        seq = next(self._seq) & 0xFFFFFF
        data = bytes(self._hdr(seid, seq) / body)
        self.last_request = data
        for _ in range(self.n1):
            self.sock.sendto(data, self.dp_addr)
            deadline = time.monotonic() + self.t1
            while True:
                left = deadline - time.monotonic()
                msg = self._recv(max(left, 0.0))
                if msg is None:
                    break
                if msg.seq == seq and msg.message_type == data[1] + 1:
                    return msg
        raise PfcpTimeout(f"no answer to message type {data[1]} seq {seq}")

    def _recv(self, timeout: float) -> P.PFCP | None:
        """One datagram from the DP; DP requests are served here. None on timeout."""
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data, _ = self.sock.recvfrom(65535)
        except TimeoutError:
            return None
        self.received.append(data)
        msg = P.PFCP(data)
        if msg.message_type == 1:  # Heartbeat Request
            self._answer(msg, P.PFCPHeartbeatResponse(IE_list=[P.IE_RecoveryTimeStamp(timestamp=self.recovery)]))
            return msg
        if msg.message_type == 56:  # Session Report Request
            self.reports.append(self._report(msg, data))
            self._answer(msg, P.PFCPSessionReportResponse(IE_list=[P.IE_Cause(cause=self.report_cause)]), seid=True)
            return msg
        return msg

    def _answer(self, req, body, seid: bool = False) -> None:
        up = self.up_seid_of.get(req.seid, 0) if seid else None
        self.sock.sendto(bytes(self._hdr(up, req.seq) / body), self.dp_addr)
        self.answered += 1

    def _report(self, msg, data: bytes) -> Report:
        ies = _ies(msg.payload)
        rt = _find(ies, 39)
        lcp = None
        arp_ping = None
        for ie in ies:
            if isinstance(ie, P.IE_EnterpriseSpecific) and ie.ietype == BNGPOD_ARP_PING:
                v = bytes(ie.data)
                arp_ping = struct.unpack("!HB", v) if len(v) == 3 else (0, 0)
            if isinstance(ie, P.IE_EnterpriseSpecific) and ie.ietype == BBF_PPP_LCP_CONNECTIVITY:
                kids = _bbf_children(bytes(ie.data))
                t = kids.get(BBF_VERIFICATION_TIMERS, b"\0\0\0")
                m = kids.get(BBF_PPP_LCP_MAGIC_NUMBER, b"\0" * 8)
                lcp = {
                    "interval": struct.unpack("!H", t[:2])[0],
                    "count": t[2],
                    "magic_tx": struct.unpack("!I", m[:4])[0],
                    "magic_rx": struct.unpack("!I", m[4:8])[0],
                }
        return Report(
            seid=msg.seid,
            report_type=bytes(rt)[4] if rt is not None else 0,
            usage=[_usage(ie) for ie in _find_all(ies, 80)],
            lcp=lcp,
            arp_ping=arp_ping,
            raw=data,
        )

    def poll(self, timeout: float = 0.0) -> int:
        """Serve what the DP sends for up to timeout seconds; the number of reports now held."""
        deadline = time.monotonic() + timeout
        while True:
            if self._recv(max(deadline - time.monotonic(), 0.0)) is None:
                return len(self.reports)

    def expect_report(self, timeout: float = 5.0) -> Report:
        deadline = time.monotonic() + timeout
        while not self.reports:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PfcpTimeout("no session report")
            self._recv(left)
        return self.reports.pop(0)

    # -- node procedures --------------------------------------------------------------------
    def associate(self) -> int:
        rsp = self.request(
            P.PFCPAssociationSetupRequest(
                IE_list=[
                    _node_id(self.node_ip),
                    P.IE_RecoveryTimeStamp(timestamp=self.recovery),
                    P.IE_CPFunctionFeatures(),
                ]
            )
        )
        ies = _ies(rsp.payload)
        ts = _find(ies, 96)
        self.dp_recovery = ts.timestamp if ts is not None else None
        feat = next((ie for ie in ies if isinstance(ie, P.IE_EnterpriseSpecific)), None)
        if feat is not None and feat.ietype == BBF_UP_FUNCTION_FEATURES:
            b = bytes(feat.data)
            self.dp_features = {"pppoe": bool(b[0] & 0x01), "lcp_keepalive_offload": bool(b[0] & 0x10)}
            self.dp_ipoe = bool(b[0] & 0x02)  # IPoE sessions only to a DP announcing it
        return _cause(rsp)

    def release(self) -> int:
        return _cause(self.request(P.PFCPAssociationReleaseRequest(IE_list=[_node_id(self.node_ip)])))

    def heartbeat(self) -> int:
        """A heartbeat; the DP's recovery time stamp (NTP seconds)."""
        rsp = self.request(P.PFCPHeartbeatRequest(IE_list=[P.IE_RecoveryTimeStamp(timestamp=self.recovery)]))
        return _find(_ies(rsp.payload), 96).timestamp

    def association_update(self, *ies, node_id: bool = True) -> P.PFCP:
        """An Association Update Request with Node ID (unless node_id is False) and ies."""
        lst = ([_node_id(self.node_ip)] if node_id else []) + list(ies)
        return self.request(P.PFCPAssociationUpdateRequest(IE_list=lst))

    def adopt(self, name: str, ac_mac: str, core_mac: str, core_addr: str) -> int:
        """Make the DP serve line group `name` with these addresses; the cause."""
        v = line_group_value(LG_ADOPT, name, ac_mac, core_mac, core_addr)
        return _cause(self.association_update(line_group_ie(v)))

    def release_group(self, name: str) -> int:
        """Make the DP stop serving line group `name`; the cause. A release carries no
        addresses the DP uses: zeros here."""
        zero_mac = "00:00:00:00:00:00"
        v = line_group_value(LG_RELEASE, name, zero_mac, zero_mac, ipaddress.IPv4Address(0))
        return _cause(self.association_update(line_group_ie(v)))

    # -- sessions ---------------------------------------------------------------------------
    def _fseid(self, cp_seid: int):
        return P.IE_FSEID(v4=1, seid=cp_seid, ipv4=self.node_ip)

    def session_ies(self, sub: Sub, cp_seid: int) -> list:
        """The IEs of a subscriber's Session Establishment Request (docs/dp/pfcp.md): the
        IPv4 PDRs 1, 2 when sub.ipv4, the IPv6 PDRs 3, 4 (and 5) when sub.ipv6_prefix."""
        ies = self._session_ies4(sub, cp_seid)
        if not sub.has_ipv6:
            return ies
        v4 = sub.ipv4 is not None
        pdrs = [ie for ie in ies if isinstance(ie, P.IE_CreatePDR)]
        rest = [ie for ie in ies if not isinstance(ie, P.IE_CreatePDR)]
        if not v4:
            pdrs = []
        up6, dn6 = self.ipv6_pdrs(sub)
        if sub.urr_period and v4:
            for p in pdrs:
                p.IE_list.append(P.IE_URR_Id(id=2))
            rest.append(self._urr(2, sub.urr_period))
        if sub.urr_period:
            rest.append(self._urr(3, sub.urr_period))
        return rest[:2] + pdrs + [up6, *dn6] + rest[2:]

    def ipv6_pdrs(self, sub: Sub) -> tuple:
        """Create PDR 3 (upstream: PPP 0x0057, or with sub.ipoe Ethertype 0x86DD and BBF Outer
        Header Removal 1) and 4, 5 (the /64, the delegated prefix)."""
        rates = any(v is not None for v in (sub.mbr_ul, sub.mbr_dl, sub.gbr_ul, sub.gbr_dl))
        eth = P.IE_EthernetPacketFilter(
            IE_list=[
                P.IE_MACAddress(SOUR=1, source_mac=sub.mac),
                P.IE_Ethertype(type=0x86DD if sub.ipoe else 0x8864),
                _vlan(P.IE_C_TAG, sub.ctag),
                _vlan(P.IE_S_TAG, sub.stag),
            ]
        )
        pdi = [P.IE_SourceInterface(interface=0), eth]
        if sub.logical_port:
            pdi.append(bbf(BBF_LOGICAL_PORT, sub.logical_port.encode()))
        if not sub.ipoe:
            pdi += [bbf(BBF_PPPOE_SESSION_ID, struct.pack("!H", sub.sid)), bbf(BBF_PPP_PROTOCOL, b"\x01\x00\x57")]
        up = [
            P.IE_PDR_Id(id=3),
            P.IE_Precedence(precedence=100),
            P.IE_PDI(IE_list=pdi),
            bbf(BBF_OUTER_HEADER_REMOVAL, b"\x01" if sub.ipoe else b"\x03"),
            P.IE_FAR_Id(id=1),
        ]
        downs = []
        for pid, pfx in ((4, sub.ipv6_prefix), (5, sub.delegated_prefix)):
            if pfx is None:
                continue
            downs.append(
                [
                    P.IE_PDR_Id(id=pid),
                    P.IE_Precedence(precedence=100),
                    P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=1), ue_ipv6_prefix(pfx)]),
                    P.IE_FAR_Id(id=2),
                ]
            )
        for p in [up, *downs]:
            if sub.urr_period:
                p.append(P.IE_URR_Id(id=1))
                p.append(P.IE_URR_Id(id=3))
            if rates:
                p.append(P.IE_QER_Id(id=1))
        return P.IE_CreatePDR(IE_list=up), [P.IE_CreatePDR(IE_list=d) for d in downs]

    @staticmethod
    def _urr(urr_id: int, period: int):
        return P.IE_CreateURR(
            IE_list=[
                P.IE_URR_Id(id=urr_id),
                P.IE_MeasurementMethod(VOLUM=1, DURAT=1),
                P.IE_ReportingTriggers(periodic_reporting=1),
                P.IE_MeasurementPeriod(period=period),
            ]
        )

    def _session_ies4(self, sub: Sub, cp_seid: int) -> list:
        v4_addr = sub.ipv4 or "192.0.2.1"
        eth = P.IE_EthernetPacketFilter(
            IE_list=[
                P.IE_MACAddress(SOUR=1, source_mac=sub.mac),
                P.IE_Ethertype(type=0x0800 if sub.ipoe else 0x8864),
                _vlan(P.IE_C_TAG, sub.ctag),
                _vlan(P.IE_S_TAG, sub.stag),
            ]
        )
        up_pdi = [P.IE_SourceInterface(interface=0), eth]
        if sub.ipoe:  # the anti-spoofing source address
            up_pdi.insert(1, P.IE_UE_IP_Address(V4=1, SD=0, ipv4=v4_addr))
        if sub.logical_port:
            up_pdi.append(bbf(BBF_LOGICAL_PORT, sub.logical_port.encode()))
        if not sub.ipoe:
            up_pdi += [
                bbf(BBF_PPPOE_SESSION_ID, struct.pack("!H", sub.sid)),
                bbf(BBF_PPP_PROTOCOL, b"\x01\x00\x21"),
            ]
        rates = any(v is not None for v in (sub.mbr_ul, sub.mbr_dl, sub.gbr_ul, sub.gbr_dl))
        up_pdr = [
            P.IE_PDR_Id(id=1),
            P.IE_Precedence(precedence=100),
            P.IE_PDI(IE_list=up_pdi),
            # Ethernet (IPoE) or PPP/PPPoE/Ethernet
            bbf(BBF_OUTER_HEADER_REMOVAL, b"\x01" if sub.ipoe else b"\x03"),
            P.IE_FAR_Id(id=1),
        ]
        dn_pdr = [
            P.IE_PDR_Id(id=2),
            P.IE_Precedence(precedence=100),
            # an IPv6-only session drops these IPv4 PDRs (session_ies): the address is a stand-in
            P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=1), P.IE_UE_IP_Address(V4=1, SD=1, ipv4=v4_addr)]),
            P.IE_FAR_Id(id=2),
        ]
        if sub.urr_period:
            up_pdr.append(P.IE_URR_Id(id=1))
            dn_pdr.append(P.IE_URR_Id(id=1))
        if rates:
            up_pdr.append(P.IE_QER_Id(id=1))
            dn_pdr.append(P.IE_QER_Id(id=1))
        fp_dn = [
            P.IE_DestinationInterface(interface=0),
            # Traffic-Endpoint, L2TP tunnel id 0, session id = the PPPoE session id
            bbf(BBF_OUTER_HEADER_CREATION, struct.pack("!HHH", 0x0200, 0, 0 if sub.ipoe else sub.sid)),
        ]
        if sub.qos:
            fp_dn.append(P.IE_ForwardingPolicy(policy_identifier=sub.qos.encode()))
        ies = [
            _node_id(self.node_ip),
            self._fseid(cp_seid),
            P.IE_CreatePDR(IE_list=up_pdr),
            P.IE_CreatePDR(IE_list=dn_pdr),
            P.IE_CreateFAR(
                IE_list=[
                    P.IE_FAR_Id(id=1),
                    P.IE_ApplyAction(FORW=1),
                    P.IE_ForwardingParameters(IE_list=[P.IE_DestinationInterface(interface=1)]),
                ]
            ),
            P.IE_CreateFAR(
                IE_list=[P.IE_FAR_Id(id=2), P.IE_ApplyAction(FORW=1), P.IE_ForwardingParameters(IE_list=fp_dn)]
            ),
        ]
        if sub.urr_period:
            ies.append(
                P.IE_CreateURR(
                    IE_list=[
                        P.IE_URR_Id(id=1),
                        P.IE_MeasurementMethod(VOLUM=1, DURAT=1),
                        P.IE_ReportingTriggers(periodic_reporting=1),
                        P.IE_MeasurementPeriod(period=sub.urr_period),
                    ]
                )
            )
        if rates:
            ies.append(
                P.IE_CreateQER(
                    IE_list=[
                        P.IE_QER_Id(id=1),
                        P.IE_GateStatus(ul=0, dl=0),
                        P.IE_MBR(ul=sub.mbr_ul or 0, dl=sub.mbr_dl or 0),
                        P.IE_GBR(ul=sub.gbr_ul or 0, dl=sub.gbr_dl or 0),
                    ]
                )
            )
        if sub.mtu:
            ies.append(bbf(BBF_MTU, struct.pack("!H", sub.mtu)))
        if sub.lcp_magic is not None:
            ies.append(self.lcp_ie(sub))
        if sub.ra is not None:
            ies.append(ra_offload_ie(ra_offload_value(sub.ipv6_prefix, **sub.ra)))
        if sub.arp_ping is not None:
            ies.append(arp_ping_ie(*sub.arp_ping))
        return ies

    @staticmethod
    def lcp_ie(sub: Sub):
        return bbf(
            BBF_PPP_LCP_CONNECTIVITY,
            kids=[
                bbf(BBF_VERIFICATION_TIMERS, struct.pack("!HB", sub.echo_interval, sub.echo_misses)),
                bbf(BBF_PPP_LCP_MAGIC_NUMBER, struct.pack("!II", sub.lcp_magic, sub.lcp_peer_magic)),
            ],
        )

    def establish(self, sub: Sub, cp_seid: int | None = None) -> tuple[int, int, int]:
        """Install one subscriber: (cp_seid, up_seid, cause); up_seid is 0 when refused."""
        cp_seid = cp_seid if cp_seid is not None else next(self._seid)
        rsp = self.request(P.PFCPSessionEstablishmentRequest(IE_list=self.session_ies(sub, cp_seid)), seid=0)
        return self._established(rsp, cp_seid)

    def _established(self, rsp, cp_seid: int) -> tuple[int, int, int]:
        cause = _cause(rsp)
        fseid = _find(_ies(rsp.payload), 57)
        up_seid = fseid.seid if (cause == 1 and fseid is not None) else 0
        if up_seid:
            self.up_seid_of[cp_seid] = up_seid
        return cp_seid, up_seid, cause

    def default_session(
        self, cp_ip: str, port: int = 4789, classes: tuple[str, ...] = ("discovery", "control", "unknown")
    ) -> tuple[int, int, int]:
        """The control-redirect session: (cp_seid, up_seid, cause)."""
        cp_seid = next(self._seid)
        ies = [_node_id(self.node_ip), self._fseid(cp_seid)]
        prec = {"discovery": 10, "control": 20, "dhcp": 30, "dhcp6": 31, "unknown": 65000}
        for pdr_id, name in enumerate(classes, start=1):
            ethertype, ppp = CLASSES[name]
            pdi = [
                P.IE_SourceInterface(interface=0),
                P.IE_EthernetPacketFilter(IE_list=[P.IE_Ethertype(type=ethertype)]),
            ]
            if ppp is not None:
                pdi.append(bbf(BBF_PPP_PROTOCOL, bytes([ppp])))
            if name == "dhcp":
                pdi.append(P.IE_SDF_Filter(FD=1, flow_description=DHCP_FLOW))
            if name == "dhcp6":  # the dhcp class's second PDR, same FAR
                pdi.append(P.IE_SDF_Filter(FD=1, flow_description=DHCP6_FLOW))
            ies.append(
                P.IE_CreatePDR(
                    IE_list=[
                        P.IE_PDR_Id(id=pdr_id),
                        P.IE_Precedence(precedence=prec[name]),
                        P.IE_PDI(IE_list=pdi),
                        P.IE_FAR_Id(id=1),
                    ]
                )
            )
        ies.append(
            P.IE_CreateFAR(
                IE_list=[
                    P.IE_FAR_Id(id=1),
                    P.IE_ApplyAction(FORW=1),
                    P.IE_ForwardingParameters(
                        IE_list=[
                            P.IE_DestinationInterface(interface=3),  # CP-function
                            P.IE_OuterHeaderCreation(UDPIPV4=1, ipv4=cp_ip, port=port),
                        ]
                    ),
                ]
            )
        )
        rsp = self.request(P.PFCPSessionEstablishmentRequest(IE_list=ies), seid=0)
        return self._established(rsp, cp_seid)

    def modify(
        self,
        up_seid: int,
        qos: str | None = None,
        mbr_ul: int | None = None,
        mbr_dl: int | None = None,
        query: bool = False,
        lcp: Sub | bool | None = None,
        mtu: int | None = None,
        ies: list | None = None,
    ) -> tuple[int, list[Usage]]:
        """A modification: new profile (Update FAR 2), rates (Update QER 1), a usage query,
        LCP offload on (a Sub) or off (False), MTU. (cause, usage reports)."""
        body = list(ies or [])
        if qos is not None:
            body.append(
                P.IE_UpdateFAR(
                    IE_list=[
                        P.IE_FAR_Id(id=2),
                        P.IE_UpdateForwardingParameters(
                            IE_list=[P.IE_ForwardingPolicy(policy_identifier=qos.encode())]
                        ),
                    ]
                )
            )
        if mbr_ul is not None or mbr_dl is not None:
            body.append(P.IE_UpdateQER(IE_list=[P.IE_QER_Id(id=1), P.IE_MBR(ul=mbr_ul or 0, dl=mbr_dl or 0)]))
        if query:
            body.append(P.IE_QueryURR(IE_list=[P.IE_URR_Id(id=1)]))
        if lcp is False:
            body.append(bbf(BBF_PPP_LCP_CONNECTIVITY))  # null length: offload off
        elif isinstance(lcp, Sub):
            body.append(self.lcp_ie(lcp))
        if mtu is not None:
            body.append(bbf(BBF_MTU, struct.pack("!H", mtu)))
        rsp = self.request(P.PFCPSessionModificationRequest(IE_list=body), seid=up_seid)
        return _cause(rsp), [_usage(ie) for ie in _find_all(_ies(rsp.payload), 78)]

    def delete(self, up_seid: int) -> tuple[int, list[Usage]]:
        """(cause, final usage reports)."""
        rsp = self.request(P.PFCPSessionDeletionRequest(IE_list=[]), seid=up_seid)
        return _cause(rsp), [_usage(ie) for ie in _find_all(_ies(rsp.payload), 79)]


def _cause(rsp) -> int:
    c = _find(_ies(rsp.payload), 19)
    return c.cause if c is not None else 0


def ntp(unix_seconds: int) -> int:
    return unix_seconds + NTP_UNIX


def ip_int(s: str) -> int:
    return int(ipaddress.IPv4Address(s))
