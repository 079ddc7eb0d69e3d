"""PFCP as the fake DP sees it: a TLV codec written from docs/dp/pfcp.md (no scapy, no Go, no
C), the subscriber and default sessions decoded from a Session Establishment Request, and
tshark dissection of captured messages for independent checks.

Nothing here trusts the sender: decoding errors raise `PfcpDecodeError`, and
`session_violations()` lists every way an establishment departs from the profile's
section 6 or 7 instead of stopping at the first."""

from __future__ import annotations

import ipaddress
import re
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path

from harness.tshark import dissect_pcap, one, vals  # noqa: F401 (re-exported: the same tshark helpers)

BBF = 3561
NTP_UNIX = 2208988800

# message types
HEARTBEAT_REQ, HEARTBEAT_RSP = 1, 2
ASSOC_SETUP_REQ, ASSOC_SETUP_RSP = 5, 6
ASSOC_UPDATE_REQ, ASSOC_UPDATE_RSP = 7, 8
ASSOC_RELEASE_REQ, ASSOC_RELEASE_RSP = 9, 10
SESS_EST_REQ, SESS_EST_RSP = 50, 51
SESS_MOD_REQ, SESS_MOD_RSP = 52, 53
SESS_DEL_REQ, SESS_DEL_RSP = 54, 55
SESS_REPORT_REQ, SESS_REPORT_RSP = 56, 57
RESPONSES = {2, 4, 6, 8, 10, 11, 13, 15, 51, 53, 55, 57}
MSG_NAMES = {
    1: "heartbeat_req",
    2: "heartbeat_rsp",
    5: "assoc_setup_req",
    6: "assoc_setup_rsp",
    7: "assoc_update_req",
    8: "assoc_update_rsp",
    9: "assoc_release_req",
    10: "assoc_release_rsp",
    50: "est_req",
    51: "est_rsp",
    52: "mod_req",
    53: "mod_rsp",
    54: "del_req",
    55: "del_rsp",
    56: "report_req",
    57: "report_rsp",
}

# IE types
IE_CREATE_PDR, IE_PDI, IE_CREATE_FAR, IE_FORW_PARAMS, IE_CREATE_URR, IE_CREATE_QER = 1, 2, 3, 4, 6, 7
IE_UPDATE_PDR, IE_UPDATE_FAR, IE_UPD_FORW_PARAMS, IE_UPDATE_URR, IE_UPDATE_QER = 9, 10, 11, 13, 14
IE_REMOVE_PDR, IE_REMOVE_FAR, IE_REMOVE_URR, IE_REMOVE_QER = 15, 16, 17, 18
IE_CAUSE, IE_SOURCE_IF, IE_NETWORK_INSTANCE, IE_GATE, IE_MBR, IE_GBR = 19, 20, 22, 25, 26, 27
IE_PRECEDENCE, IE_VOLUME_THRESHOLD, IE_REPORTING_TRIGGERS, IE_REPORT_TYPE, IE_OFFENDING_IE = 29, 31, 37, 39, 40
IE_FORWARDING_POLICY, IE_DEST_IF, IE_UP_FEATURES, IE_APPLY_ACTION, IE_SMREQ_FLAGS = 41, 42, 43, 44, 49
IE_PDR_ID, IE_FSEID, IE_NODE_ID, IE_MEAS_METHOD, IE_URT, IE_MEAS_PERIOD = 56, 57, 60, 62, 63, 64
IE_VOLUME_MEAS, IE_DURATION_MEAS, IE_START_TIME, IE_END_TIME, IE_QUERY_URR = 66, 67, 75, 76, 77
IE_USAGE_MOD, IE_USAGE_DEL, IE_USAGE_REPORT, IE_URR_ID, IE_OHC, IE_UE_IP, IE_OHR = 78, 79, 80, 81, 84, 93, 95
IE_RECOVERY, IE_UR_SEQN, IE_FAR_ID, IE_QER_ID, IE_CP_FEATURES = 96, 104, 108, 109, 89
IE_ETH_FILTER, IE_MAC, IE_CTAG, IE_STAG, IE_ETHERTYPE = 132, 133, 134, 135, 136
BBF_UP_FEATURES, BBF_LOGICAL_PORT, BBF_OHC, BBF_OHR, BBF_PPPOE_SID = 32768, 32769, 32770, 32771, 32772
BBF_PPP_PROTOCOL, BBF_VERIF_TIMERS, BBF_LCP_MAGIC, BBF_MTU, BBF_LCP_CONN = 32773, 32774, 32775, 32776, 32780

GROUPED = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 16, 17, 18, 77, 78, 79, 80, 132, BBF_LCP_CONN}

REPORT_USAR, REPORT_UPIR = 0x02, 0x08
URT_PERIO, URT_VOLTH, URT_IMMER, URT_TERMR = 0x0001, 0x0002, 0x0080, 0x0800


class PfcpDecodeError(ValueError):
    pass


@dataclass
class IE:
    type: int
    value: bytes  # without the enterprise id for vendor IEs
    enterprise: int | None = None
    children: list[IE] | None = None  # grouped IEs

    def find(self, t: int) -> IE | None:
        return find(self.children or [], t)

    def find_all(self, t: int) -> list[IE]:
        return [c for c in self.children or [] if c.type == t]

    def u(self, size: int | None = None) -> int:
        v = self.value if size is None else self.value[:size]
        return int.from_bytes(v, "big")


def find(ies: list[IE], t: int) -> IE | None:
    return next((i for i in ies if i.type == t), None)


def parse_ies(b: bytes, depth: int = 0) -> list[IE]:
    if depth > 4:
        raise PfcpDecodeError("IEs nested too deep")
    out, off = [], 0
    while off < len(b):
        if off + 4 > len(b):
            raise PfcpDecodeError(f"truncated IE header at {off}")
        t, ln = struct.unpack_from("!HH", b, off)
        v = b[off + 4 : off + 4 + ln]
        if len(v) != ln:
            raise PfcpDecodeError(f"IE {t} runs past its container")
        off += 4 + ln
        ent = None
        if t & 0x8000:
            if ln < 2:
                raise PfcpDecodeError(f"vendor IE {t} without enterprise id")
            ent, v = struct.unpack("!H", v[:2])[0], v[2:]
        ie = IE(t, v, ent)
        if t in GROUPED and (ent in (None, BBF)):
            ie.children = parse_ies(v, depth + 1)
        out.append(ie)
    return out


def ie(t: int, value: bytes = b"", enterprise: int | None = None) -> bytes:
    if t & 0x8000:
        value = struct.pack("!H", enterprise or BBF) + value
    return struct.pack("!HH", t, len(value)) + value


def group(t: int, *kids: bytes) -> bytes:
    return ie(t, b"".join(kids))


@dataclass
class Message:
    type: int
    seq: int
    seid: int | None
    ies: list[IE]
    raw: bytes

    @property
    def name(self) -> str:
        return MSG_NAMES.get(self.type, f"type{self.type}")

    def find(self, t: int) -> IE | None:
        return find(self.ies, t)

    def find_all(self, t: int) -> list[IE]:
        return [i for i in self.ies if i.type == t]

    @property
    def cause(self) -> int | None:
        c = self.find(IE_CAUSE)
        return c.value[0] if c and c.value else None


def parse_message(b: bytes) -> Message:
    if len(b) < 8:
        raise PfcpDecodeError("short PFCP header")
    flags, mtype, length = struct.unpack_from("!BBH", b)
    if flags >> 5 != 1:
        raise PfcpDecodeError(f"PFCP version {flags >> 5}")
    if flags & 0x04:  # FO: the profile never needs it from the CP in these tests
        pass
    end = 4 + length
    if end > len(b):
        raise PfcpDecodeError("PFCP length runs past the datagram")
    s = flags & 0x01
    if s:
        if end < 16:
            raise PfcpDecodeError("short PFCP session header")
        seid = struct.unpack_from("!Q", b, 4)[0]
        seq = int.from_bytes(b[12:15], "big")
        body = b[16:end]
    else:
        seid = None
        seq = int.from_bytes(b[4:7], "big")
        body = b[8:end]
    return Message(mtype, seq, seid, parse_ies(body), b[:end])


def build_message(mtype: int, seq: int, body: bytes, seid: int | None = None) -> bytes:
    if seid is None:
        return struct.pack("!BBH", 0x20, mtype, 4 + len(body)) + seq.to_bytes(3, "big") + b"\0" + body
    return struct.pack("!BBHQ", 0x21, mtype, 12 + len(body), seid) + seq.to_bytes(3, "big") + b"\0" + body


# ---- values ---------------------------------------------------------------------------------


def node_id_ipv4(addr: str) -> bytes:
    return ie(IE_NODE_ID, b"\x00" + ipaddress.IPv4Address(addr).packed)


def fseid(seid: int, addr: str) -> bytes:
    return ie(IE_FSEID, b"\x02" + struct.pack("!Q", seid) + ipaddress.IPv4Address(addr).packed)


def recovery(ts: int) -> bytes:
    return ie(IE_RECOVERY, struct.pack("!I", ts))


def cause(c: int) -> bytes:
    return ie(IE_CAUSE, bytes([c]))


def ntp_now() -> int:
    import time

    return int(time.time()) + NTP_UNIX


@dataclass
class Usage:
    ul_bytes: int = 0
    dl_bytes: int = 0
    ul_pkts: int = 0
    dl_pkts: int = 0

    def __add__(self, o: Usage) -> Usage:
        return Usage(
            self.ul_bytes + o.ul_bytes, self.dl_bytes + o.dl_bytes, self.ul_pkts + o.ul_pkts, self.dl_pkts + o.dl_pkts
        )


def usage_report(t: int, urr_id: int, seqn: int, trigger: int, start: int, end: int, u: Usage) -> bytes:
    """A Usage Report IE (t = 78, 79 or 80) with all six volume values and the duration."""
    vol = struct.pack(
        "!BQQQQQQ",
        0x3F,
        u.ul_bytes + u.dl_bytes,
        u.ul_bytes,
        u.dl_bytes,
        u.ul_pkts + u.dl_pkts,
        u.ul_pkts,
        u.dl_pkts,
    )
    return group(
        t,
        ie(IE_URR_ID, struct.pack("!I", urr_id)),
        ie(IE_UR_SEQN, struct.pack("!I", seqn)),
        ie(IE_URT, bytes([trigger & 0xFF, (trigger >> 8) & 0xFF, (trigger >> 16) & 0xFF])),
        ie(IE_START_TIME, struct.pack("!I", start)),
        ie(IE_END_TIME, struct.pack("!I", end)),
        ie(IE_VOLUME_MEAS, vol),
        ie(IE_DURATION_MEAS, struct.pack("!I", max(end - start, 0))),
    )


def lcp_connectivity(interval: int, count: int, tx: int, rx: int) -> bytes:
    return ie(
        BBF_LCP_CONN,
        ie(BBF_VERIF_TIMERS, struct.pack("!HB", interval, count)) + ie(BBF_LCP_MAGIC, struct.pack("!II", tx, rx)),
    )


# ---- sessions -----------------------------------------------------------------------------------


def _vid(tag: IE | None) -> int | None:
    if tag is None or len(tag.value) < 3 or not tag.value[0] & 0x04:
        return None
    return ((tag.value[1] >> 4) << 8) | tag.value[2]


def _ipv4(b: bytes) -> str:
    return str(ipaddress.IPv4Address(b[:4]))


def _rate(v: bytes) -> tuple[int, int]:
    return int.from_bytes(v[0:5], "big"), int.from_bytes(v[5:10], "big")


@dataclass
class Lcp:
    interval: int
    count: int
    tx: int
    rx: int


def decode_lcp(x: IE | None) -> Lcp | None:
    if x is None or not x.children:
        return None
    t = x.find(BBF_VERIF_TIMERS)
    m = x.find(BBF_LCP_MAGIC)
    if t is None or m is None or len(t.value) < 3 or len(m.value) < 8:
        return None
    return Lcp(struct.unpack("!H", t.value[:2])[0], t.value[2], *struct.unpack("!II", m.value[:8]))


@dataclass
class Session:
    """A PFCP session as the fake DP holds it, decoded from its establishment."""

    up_seid: int
    cp_seid: int
    cp_addr: str
    default: bool = False
    mac: str | None = None
    stag: int | None = None
    ctag: int | None = None
    ethertype: int | None = None
    pppoe_sid: int | None = None
    ppp_protocol: bytes | None = None
    logical_port: str | None = None
    ipv4: str | None = None
    ipv4_up: str | None = None
    qos: str | None = None
    qos_up: str | None = None
    mbr_ul: int | None = None  # kbit/s
    mbr_dl: int | None = None
    gbr_ul: int | None = None
    gbr_dl: int | None = None
    mtu: int | None = None
    lcp: Lcp | None = None
    urr_ids: list[int] = field(default_factory=list)
    urr_period: int | None = None
    redirect: tuple[str, int] | None = None  # default session: the CP's VXLAN endpoint
    classes: list[tuple[int, int | None]] = field(default_factory=list)  # default: (ethertype, ppp flags)
    violations: list[str] = field(default_factory=list)
    raw: bytes = b""  # the establishment request
    usage: Usage = field(default_factory=Usage)  # accumulated since the last report
    ur_seqn: int = 0
    last_report: int = 0  # NTP seconds
    mods: list[Message] = field(default_factory=list)

    def content_key(self) -> tuple:
        return (self.default, self.mac, self.stag, self.ctag, self.pppoe_sid, self.ipv4, self.qos, self.mtu)


def decode_session(msg: Message, up_seid: int) -> Session:
    """The session a Session Establishment Request describes, with every departure from
    docs/dp/pfcp.md sections 6 and 7 listed in `violations`."""
    v: list[str] = []
    fs = msg.find(IE_FSEID)
    if fs is None or len(fs.value) < 13 or not fs.value[0] & 0x02:
        v.append("F-SEID missing or without IPv4")
        cp_seid, cp_addr = 0, "0.0.0.0"  # noqa: S104
    else:
        cp_seid, cp_addr = struct.unpack("!Q", fs.value[1:9])[0], _ipv4(fs.value[9:13])
    if msg.find(IE_NODE_ID) is None:
        v.append("Node ID missing")
    s = Session(up_seid=up_seid, cp_seid=cp_seid, cp_addr=cp_addr, raw=msg.raw)
    fars = {}
    for far in msg.find_all(IE_CREATE_FAR):
        fid = far.find(IE_FAR_ID)
        if fid is None:
            v.append("Create FAR without FAR ID")
            continue
        fars[fid.u()] = far
    qers = {q.find(IE_QER_ID).u(): q for q in msg.find_all(IE_CREATE_QER) if q.find(IE_QER_ID)}
    urrs = {u.find(IE_URR_ID).u(): u for u in msg.find_all(IE_CREATE_URR) if u.find(IE_URR_ID)}
    pdrs = msg.find_all(IE_CREATE_PDR)
    # a default session: a FAR with destination CP-function
    for far in fars.values():
        fp = far.find(IE_FORW_PARAMS)
        d = fp.find(IE_DEST_IF) if fp else None
        if d is not None and d.value and d.value[0] & 0x0F == 3:
            s.default = True
    if s.default:
        for far in fars.values():
            fp = far.find(IE_FORW_PARAMS)
            ohc = fp.find(IE_OHC) if fp else None
            if ohc is None or len(ohc.value) < 8 or ohc.value[0] != 0x04:
                v.append("default FAR without UDP/IPv4 Outer Header Creation")
            else:
                s.redirect = (_ipv4(ohc.value[2:6]), struct.unpack("!H", ohc.value[6:8])[0])
        for pdr in pdrs:
            pdi = pdr.find(IE_PDI)
            eth = pdi.find(IE_ETH_FILTER) if pdi else None
            et = eth.find(IE_ETHERTYPE) if eth else None
            pp = pdi.find(BBF_PPP_PROTOCOL) if pdi else None
            if et is None:
                v.append("default PDR without Ethertype")
                continue
            s.classes.append((et.u(2), pp.value[0] if pp and pp.value else None))
        s.violations = v
        return s
    up = dn = None
    for pdr in pdrs:
        pdi = pdr.find(IE_PDI)
        si = pdi.find(IE_SOURCE_IF) if pdi else None
        if si is None:
            v.append("PDR without PDI/Source Interface")
            continue
        if si.value[0] & 0x0F == 0:
            up = pdr
        elif si.value[0] & 0x0F == 1:
            dn = pdr
    if up is None or dn is None:
        v.append("no upstream or no downstream PDR")
        s.violations = v
        return s
    pdi = up.find(IE_PDI)
    eth = pdi.find(IE_ETH_FILTER)
    if eth is None:
        v.append("upstream PDR without Ethernet Packet Filter")
    else:
        mac = eth.find(IE_MAC)
        if mac is None or len(mac.value) < 7 or mac.value[0] != 0x01:
            v.append("MAC address missing or not SOUR only")
        else:
            s.mac = ":".join(f"{x:02x}" for x in mac.value[1:7])
        s.ctag, s.stag = _vid(eth.find(IE_CTAG)), _vid(eth.find(IE_STAG))
        if s.ctag is None or s.stag is None:
            v.append("C-TAG or S-TAG missing or without VID flag")
        et = eth.find(IE_ETHERTYPE)
        s.ethertype = et.u(2) if et else None
        if et is not None and s.ethertype != 0x8864:
            v.append(f"Ethertype {s.ethertype:#x}")
    lp = pdi.find(BBF_LOGICAL_PORT)
    s.logical_port = lp.value.decode(errors="replace") if lp else None
    sid = pdi.find(BBF_PPPOE_SID)
    s.pppoe_sid = sid.u(2) if sid else None
    if s.pppoe_sid in (None, 0, 0xFFFF):
        v.append(f"PPPoE session id {s.pppoe_sid}")
    pp = pdi.find(BBF_PPP_PROTOCOL)
    s.ppp_protocol = pp.value if pp else None
    if pp is not None and pp.value not in (b"\x01\x00\x21", b"\x02"):
        v.append(f"BBF PPP Protocol {pp.value.hex()}")
    ue = pdi.find(IE_UE_IP)
    s.ipv4_up = _ipv4(ue.value[1:5]) if ue and len(ue.value) >= 5 else None
    ohr = up.find(BBF_OHR)
    if ohr is None or ohr.value[:1] != b"\x03":
        v.append("upstream BBF Outer Header Removal missing or not 3")
    dpdi = dn.find(IE_PDI)
    due = dpdi.find(IE_UE_IP) if dpdi else None
    if due is None or len(due.value) < 5 or due.value[0] & 0x06 != 0x06:
        v.append("downstream UE IP Address missing or not V4 + destination")
    else:
        s.ipv4 = _ipv4(due.value[1:5])
    if s.ipv4_up is not None and s.ipv4_up != s.ipv4:
        v.append(f"upstream UE IP {s.ipv4_up} != downstream {s.ipv4}")
    for name, pdr, want_dest in (("upstream", up, 1), ("downstream", dn, 0)):
        fid = pdr.find(IE_FAR_ID)
        far = fars.get(fid.u()) if fid else None
        if far is None:
            v.append(f"{name} PDR without an existing FAR")
            continue
        aa = far.find(IE_APPLY_ACTION)
        if aa is None or not aa.value or aa.value[0] != 0x02:
            v.append(f"{name} FAR Apply Action not FORW")
        fp = far.find(IE_FORW_PARAMS)
        d = fp.find(IE_DEST_IF) if fp else None
        if d is None or d.value[0] & 0x0F != want_dest:
            v.append(f"{name} FAR destination interface")
        pol = fp.find(IE_FORWARDING_POLICY) if fp else None
        pname = pol.value[1 : 1 + pol.value[0]].decode(errors="replace") if pol and pol.value else None
        if name == "downstream":
            s.qos = pname
            ohc = fp.find(BBF_OHC) if fp else None
            if ohc is None or len(ohc.value) < 2 or ohc.value[:2] != b"\x02\x00":
                v.append("downstream BBF Outer Header Creation missing or not Traffic-Endpoint")
            elif len(ohc.value) >= 6 and struct.unpack("!H", ohc.value[4:6])[0] != s.pppoe_sid:
                v.append("BBF Outer Header Creation session id != PPPoE session id")
        else:
            s.qos_up = pname
        qid = pdr.find(IE_QER_ID)
        if qid is not None:
            q = qers.get(qid.u())
            if q is None:
                v.append(f"{name} PDR references a missing QER")
            else:
                mbr, gbr = q.find(IE_MBR), q.find(IE_GBR)
                if name == "upstream":
                    s.mbr_ul = _rate(mbr.value)[0] if mbr else None
                    s.gbr_ul = _rate(gbr.value)[0] if gbr else None
                else:
                    s.mbr_dl = _rate(mbr.value)[1] if mbr else None
                    s.gbr_dl = _rate(gbr.value)[1] if gbr else None
        for uid in pdr.find_all(IE_URR_ID):
            if uid.u() not in urrs:
                v.append(f"{name} PDR references a missing URR {uid.u()}")
            elif uid.u() not in s.urr_ids:
                s.urr_ids.append(uid.u())
    if s.qos_up is not None and s.qos_up != s.qos:
        v.append(f"upstream Forwarding Policy {s.qos_up} != downstream {s.qos}")
    for u in urrs.values():
        mp = u.find(IE_MEAS_PERIOD)
        if mp is not None:
            s.urr_period = mp.u(4) if s.urr_period is None else min(s.urr_period, mp.u(4))
    mtu = msg.find(BBF_MTU)
    s.mtu = mtu.u(2) if mtu else None
    if s.mtu is not None and not 576 <= s.mtu <= 9000:
        v.append(f"MTU {s.mtu}")
    s.lcp = decode_lcp(msg.find(BBF_LCP_CONN))
    if s.lcp is not None and (s.lcp.interval == 0 or s.lcp.count == 0 or s.lcp.tx == 0):
        v.append(f"LCP connectivity {s.lcp}")
    s.violations = v
    return s


# ---- captures and tshark --------------------------------------------------------------------


def write_pcap(path: Path, datagrams: list[tuple[bytes, tuple[str, int], tuple[str, int]]]) -> None:
    """datagrams: (UDP payload, source, destination) as raw-IPv4 frames (linktype 101)."""
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for i, (m, (sa, sp), (da, dport)) in enumerate(datagrams):
        udp = struct.pack("!HHHH", sp, dport, 8 + len(m), 0) + m
        ip = (
            struct.pack(
                "!BBHHHBBH4s4s",
                0x45,
                0,
                20 + len(udp),
                i & 0xFFFF,
                0,
                64,
                17,
                0,
                ipaddress.IPv4Address(sa).packed,
                ipaddress.IPv4Address(da).packed,
            )
            + udp
        )
        out += struct.pack("<IIII", i, 0, len(ip), len(ip)) + ip
    path.write_bytes(out)


def tshark_available() -> bool:
    return shutil.which("tshark") is not None


def malformed(fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(n, v) for n, v in fields if n.startswith("_ws.malformed") or n.startswith("_ws.expert")]


# ---- bngpod Line Group IE (docs/dp/pfcp.md, enterprise 32473, type 32768) -----------------------
BNGPOD = 32473
BNGPOD_LINE_GROUP = 32768


@dataclass
class LineGroup:
    action: int  # 1 adopt, 2 release
    ac_mac: str
    core_mac: str
    core_ip: str
    name: str
    core_ip6: str | None = None  # the optional trailer (docs/dp/pfcp.md)


def raw_ies(msg: bytes) -> list[bytes]:
    """The top-level IEs of a message, each with its header, as on the wire."""
    off = 16 if msg[0] & 1 else 8
    end = 4 + struct.unpack_from("!H", msg, 2)[0]
    out = []
    while off + 4 <= end:
        ln = struct.unpack_from("!H", msg, off + 2)[0]
        out.append(msg[off : off + 4 + ln])
        off += 4 + ln
    return out


def _mac(b: bytes) -> str:
    return ":".join(f"{x:02x}" for x in b)


def decode_line_group(v: bytes) -> LineGroup | None:
    """The IE's value after the enterprise id; None when Contract A says cause 69."""
    if len(v) < 19 or v[0] not in (1, 2):
        return None
    n = v[17]
    if not 1 <= n <= 63 or len(v) not in (18 + n, 18 + n + 16):
        return None
    name = v[18 : 18 + n].decode("ascii", "replace")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        return None
    core6 = str(ipaddress.IPv6Address(v[18 + n :])) if len(v) == 18 + n + 16 else None
    if v[0] == 1 and len(v) == 18 + n + 16 and (v[18 + n] in (0, 0xFF) or (v[18 + n] == 0xFE and v[19 + n] & 0x80)):
        return None  # as bng-dp: an adoption's core IPv6 address is not ::/8, ff00::/8 or fe80::/9
    return LineGroup(v[0], _mac(v[1:7]), _mac(v[7:13]), _ipv4(v[13:17]), name, core6)


def line_group_ie(action: int, ac_mac: str, core_mac: str, core_ip: str, name: str) -> bytes:
    """The whole IE, built from Contract A's layout (the test's own encoder)."""
    v = bytes([action]) + bytes.fromhex(ac_mac.replace(":", "")) + bytes.fromhex(core_mac.replace(":", ""))
    v += bytes(int(x) for x in core_ip.split(".")) + bytes([len(name)]) + name.encode()
    return ie(BNGPOD_LINE_GROUP, v, BNGPOD)
