"""One emulated DP instance, as the CP sees a bng-dp: a PFCP user-plane function and the
VXLAN end of the control redirect, on the instance's control address (127.200.0.1x).

- PFCP (docs/dp/pfcp.md, UP side, hand-written codec in pfcpwire.py): answers Association
  Setup/Update/Release, heartbeats, Session Establishment (F-SEID with its own UP SEIDs,
  the same CP SEID with the same content is the same session), Modification (Update FAR
  Forwarding Policy, Update QER, BBF MTU, BBF PPP LCP Connectivity, Query URR) and Deletion
  (usage reports with trigger TERMR); retransmissions get the cached answer. Every datagram
  both ways is recorded (`msgs`), decoded, with its addresses, for tshark checks
  (`pcap()`). The DP can send Session Report Requests: usage (USAR) and LCP dead (UPIR +
  BBF PPP LCP Connectivity), can `restart()` (empty, new Recovery Time Stamp), can go
  `mute` (a dead DP), can refuse establishments with a cause.
- VXLAN (docs/dp/control-frames.md): whole QinQ frames in VXLAN, VNI = instance id, UDP
  4789 between this address and the CP's. Frames from the CP are checked like the real
  DP's `vxlan_inject_check()` would (QinQ, source = an AC MAC of this instance, unicast
  destination, PPPoE code and session id) and refusals are kept in `inject_errors`; the
  rest go to the `PppoeClient` owning the destination MAC (unclaimed ones to `unclaimed`).
"""

from __future__ import annotations

import itertools
import os
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.pppoe_client import PADI, PADO, PADR, PADS, PADT, PppoeClient  # noqa: F401 (re-exported)
from scapy.layers.l2 import Ether

from . import pfcpwire as W

VXLAN_FLAGS = 0x08


@dataclass
class Rec:
    """One PFCP datagram: direction 'rx' (from the CP) or 'tx' (to the CP)."""

    t: float
    dir: str
    msg: W.Message | None
    raw: bytes
    src: tuple[str, int]
    dst: tuple[str, int]
    error: str = ""


class FakeDp:
    def __init__(
        self,
        instance_id: int,
        address: str,
        cp_address: str,
        *,
        pfcp_port: int = 8805,
        vxlan_port: int = 4789,
        cp_pfcp_port: int = 8805,
        cp_vxlan_port: int = 4789,
        lcp_offload: bool = True,
        ac_macs: set[str] | None = None,
        recovery: int | None = None,
        heartbeat_interval: float | None = None,
        periodic_usage: bool = False,
        usage_step: W.Usage | None = None,
        t1: float = 1.0,
        n1: int = 3,
    ):
        self.id = instance_id
        self.address = address
        self.cp_address = cp_address
        self.pfcp_port, self.vxlan_port = pfcp_port, vxlan_port
        self.cp_pfcp = (cp_address, cp_pfcp_port)
        self.cp_vxlan = (cp_address, cp_vxlan_port)
        self.lcp_offload = lcp_offload
        self.ac_macs = {m.lower() for m in ac_macs} if ac_macs else None
        self.recovery = recovery if recovery is not None else W.ntp_now()
        self.heartbeat_interval = heartbeat_interval
        self.periodic_usage = periodic_usage
        self.usage_step = usage_step or W.Usage(ul_bytes=1000, dl_bytes=3000, ul_pkts=10, dl_pkts=20)
        self.t1, self.n1 = t1, n1
        self.mute = False
        self.est_cause: int | None = None  # set: refuse establishments with this cause
        self.msgs: list[Rec] = []
        self.sessions: dict[int, W.Session] = {}
        self.deleted: list[W.Session] = []
        self.group_updates: list[tuple[W.LineGroup, bytes]] = []  # (decoded, the IE's bytes)
        self.served_groups: set[str] = set()
        self.group_stags: dict[str, range] = {}  # line group -> its S-tags, for a release
        self.released: list[W.Session] = []  # sessions a release deleted
        self.associated = False
        self.assoc_count = 0
        self.cp_recovery: int | None = None
        self.cp_recoveries: list[int] = []
        self.clients: dict[str, PppoeClient] = {}
        self.unclaimed: list[bytes] = []
        self.inject_errors: list[str] = []
        self.vxlan_rx = 0
        self.vxlan_tx = 0
        self.vxlan_log: list[tuple[str, bytes]] = []  # ("rx" from the CP / "tx" to it, datagram)
        self.log_vxlan = True
        self._cache: dict[tuple[int, int, bytes], bytes] = {}
        self._pending: dict[int, W.Message | None] = {}
        self._periodic: dict[int, tuple[W.Session, W.Usage, float]] = {}  # seq -> unanswered usage report
        self._seq = itertools.count(1)
        self._seid_slot = itertools.count(1)
        self._generation = 1
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pfcp_sock: socket.socket | None = None
        self.vxlan_sock: socket.socket | None = None
        self._next_hb = 0.0

    # -- life --------------------------------------------------------------------------------
    def start(self) -> FakeDp:
        self.pfcp_sock = _udp(self.address, self.pfcp_port)
        self.vxlan_sock = _udp(self.address, self.vxlan_port)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"fakedp{self.id}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        for s in (self.pfcp_sock, self.vxlan_sock):
            if s is not None:
                s.close()
        self.pfcp_sock = self.vxlan_sock = None

    def __enter__(self) -> FakeDp:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def restart(self) -> None:
        """A DP process restart: no association, no sessions, a new Recovery Time Stamp."""
        with self._cond:
            self.sessions.clear()
            self.associated = False
            self._cache.clear()
            self.recovery = max(W.ntp_now(), self.recovery + 1)
            self._generation += 1

    # -- clients and VXLAN ----------------------------------------------------------------------
    def attach(self, client: PppoeClient) -> None:
        self.clients[client.mac] = client

    def client(self, mac: str, stag: int, ctag: int, **kw) -> PppoeClient:
        return PppoeClient(self, mac, stag, ctag, **kw)

    def send_frame(self, frame: bytes) -> None:
        hdr = struct.pack("!BBBBI", VXLAN_FLAGS, 0, 0, 0, self.id << 8)
        if self.log_vxlan:
            self.vxlan_log.append(("tx", hdr + frame))
        self.vxlan_sock.sendto(hdr + frame, self.cp_vxlan)
        self.vxlan_tx += 1

    def flood_padi(self, count: int, stag: int, ctag: int, rate: float | None = None) -> None:
        """PADIs from `count` random MACs (the TR-101 flood of a broken or hostile CPE)."""
        body = b"\x01\x01\x00\x00\x01\x03\x00\x04flod"
        gap = 1.0 / rate if rate else 0.0
        for _ in range(count):
            mac = bytes([0x02]) + os.urandom(5)
            frame = (
                b"\xff" * 6
                + mac
                + struct.pack("!HHHH", 0x8100, stag, 0x8100, ctag)
                + struct.pack("!HBBHH", 0x8863, 0x11, PADI, 0, len(body))
                + body
            )
            self.send_frame(frame)
            if gap:
                time.sleep(gap)

    def _on_vxlan(self, data: bytes, src: tuple[str, int]) -> None:
        if src[0] != self.cp_address:
            self.inject_errors.append(f"VXLAN from {src}")
            return
        if self.log_vxlan:
            self.vxlan_log.append(("rx", data))
        if len(data) < 8 or not data[0] & VXLAN_FLAGS:
            self.inject_errors.append("VXLAN header")
            return
        vni = struct.unpack_from("!I", data, 4)[0] >> 8
        if vni != self.id:
            self.inject_errors.append(f"VNI {vni} != {self.id}")
            return
        frame = data[8:]
        self.vxlan_rx += 1
        err = self.inject_check(frame)
        if err:
            self.inject_errors.append(err)
            return
        dst = ":".join(f"{b:02x}" for b in frame[0:6])
        c = self.clients.get(dst)
        if c is None:
            self.unclaimed.append(frame)
            return
        c.deliver(Ether(frame))

    def inject_check(self, f: bytes) -> str:
        """What the real DP's vxlan_inject_check() would refuse, or ''."""
        if len(f) < 28:
            return "inject_short"
        if struct.unpack_from("!H", f, 12)[0] not in (0x8100, 0x88A8) or struct.unpack_from("!H", f, 16)[0] != 0x8100:
            return "inject_not_qinq"
        et = struct.unpack_from("!H", f, 20)[0]
        if et not in (0x8863, 0x8864):
            return "inject_ethertype"
        src = ":".join(f"{b:02x}" for b in f[6:12])
        if self.ac_macs is not None and src not in self.ac_macs:
            return f"inject_src_mac {src}"
        if f[0] & 1 or f[0:6] == b"\0" * 6:
            return "inject_dst_mac"
        vt, code, sid, ln = struct.unpack_from("!BBHH", f, 22)
        if vt != 0x11 or 28 + ln > len(f):
            return "inject_pppoe_hdr"
        if et == 0x8863:
            if code not in (PADO, PADS, PADT):
                return f"inject_pppoe_code {code:#x}"
            if (code == PADO) != (sid == 0) or sid == 0xFFFF:
                return f"inject_pppoe_sid {code:#x} {sid:#x}"
        else:
            if code != 0:
                return "inject_pppoe_code"
            if sid in (0, 0xFFFF):
                return "inject_pppoe_sid"
            proto = struct.unpack_from("!H", f, 28)[0] if ln >= 2 else 0
            if proto not in (0xC021, 0xC023, 0xC223, 0x8021, 0x8057):
                return f"inject_ppp_proto {proto:#x}"
        return ""

    # -- the loop -----------------------------------------------------------------------------
    def _run(self) -> None:
        socks = [self.pfcp_sock, self.vxlan_sock]
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select(socks, [], [], 0.05)
            except (OSError, ValueError):
                return
            for s in ready:
                try:
                    data, src = s.recvfrom(65535)
                except OSError:
                    continue
                try:
                    if s is self.pfcp_sock:
                        self._on_pfcp(data, src)
                    else:
                        self._on_vxlan(data, src)
                except Exception as e:  # noqa: BLE001 (a test peer keeps running and records the problem)
                    self.inject_errors.append(f"handler error: {e!r}")
            self._timers()

    def _timers(self) -> None:
        now = time.monotonic()
        if self.heartbeat_interval and self.associated and not self.mute and now >= self._next_hb:
            self._next_hb = now + self.heartbeat_interval
            self._send(W.build_message(W.HEARTBEAT_REQ, self._next_seq(), W.recovery(self.recovery)))
        if self.periodic_usage and not self.mute:
            ntp = W.ntp_now()
            with self._cond:
                # a report never answered is not lost: its usage goes into the next one (pfcp.md 8)
                for seq, (s, u, sent) in list(self._periodic.items()):
                    if now - sent > self.t1 * self.n1:
                        del self._periodic[seq]
                        s.usage = s.usage + u
                for s in list(self.sessions.values()):
                    if s.urr_period and s.urr_ids and ntp - s.last_report >= s.urr_period:
                        s.usage = s.usage + self.usage_step
                        u = s.usage
                        data = self._usage_report_msg(s, W.URT_PERIO)
                        self._periodic[int.from_bytes(data[12:15], "big")] = (s, u, now)
                        self._send(data)

    def _next_seq(self) -> int:
        return next(self._seq) & 0xFFFFFF

    def _send(self, data: bytes, dst: tuple[str, int] | None = None) -> None:
        dst = dst or self.cp_pfcp
        try:
            msg = W.parse_message(data)
        except W.PfcpDecodeError:
            msg = None
        with self._cond:
            self.msgs.append(Rec(time.time(), "tx", msg, data, (self.address, self.pfcp_port), dst))
            self._cond.notify_all()
        self.pfcp_sock.sendto(data, dst)

    # -- PFCP in ----------------------------------------------------------------------------------
    def _on_pfcp(self, data: bytes, src: tuple[str, int]) -> None:
        err = ""
        try:
            msg = W.parse_message(data)
        except W.PfcpDecodeError as e:
            msg, err = None, str(e)
        with self._cond:
            self.msgs.append(Rec(time.time(), "rx", msg, data, src, (self.address, self.pfcp_port), err))
            self._cond.notify_all()
        if msg is None or src[0] != self.cp_address or self.mute:
            return
        if msg.type in W.RESPONSES:  # a response to our request
            with self._cond:
                if msg.type == W.SESS_REPORT_RSP and msg.cause == 1:
                    self._periodic.pop(msg.seq, None)
                if msg.seq in self._pending:
                    self._pending[msg.seq] = msg
                    self._cond.notify_all()
            return
        key = (msg.seq, msg.type, data)
        with self._cond:
            cached = self._cache.get(key)
        if cached is not None:
            self._send(cached, src)
            return
        handler: Callable | None = {
            W.HEARTBEAT_REQ: self._heartbeat,
            W.ASSOC_SETUP_REQ: self._assoc_setup,
            W.ASSOC_UPDATE_REQ: self._assoc_update,
            W.ASSOC_RELEASE_REQ: self._assoc_release,
            W.SESS_EST_REQ: self._establish,
            W.SESS_MOD_REQ: self._modify,
            W.SESS_DEL_REQ: self._delete,
        }.get(msg.type)
        if handler is None:
            return
        with self._cond:
            answer = handler(msg)
            self._cache[key] = answer
            self._cond.notify_all()
        self._send(answer, src)

    def _node(self) -> bytes:
        return W.node_id_ipv4(self.address)

    def _heartbeat(self, msg: W.Message) -> bytes:
        r = msg.find(W.IE_RECOVERY)
        if r is not None:
            self.cp_recoveries.append(r.u(4))
        return W.build_message(W.HEARTBEAT_RSP, msg.seq, W.recovery(self.recovery))

    def _assoc_setup(self, msg: W.Message) -> bytes:
        r = msg.find(W.IE_RECOVERY)
        if msg.find(W.IE_NODE_ID) is None or r is None:
            return W.build_message(W.ASSOC_SETUP_RSP, msg.seq, self._node() + W.cause(66))
        self.cp_recovery = r.u(4)
        self.cp_recoveries.append(self.cp_recovery)
        self.associated = True
        self.assoc_count += 1
        bbf = b"\x11\x00\x00\x00" if self.lcp_offload else b"\x01\x00\x00\x00"
        body = (
            self._node()
            + W.cause(1)
            + W.recovery(self.recovery)
            + W.ie(W.IE_UP_FEATURES, b"\x00\x00\x10")
            + W.ie(W.BBF_UP_FEATURES, bbf)
        )
        return W.build_message(W.ASSOC_SETUP_RSP, msg.seq, body)

    def _assoc_update(self, msg: W.Message) -> bytes:
        """Association Update with the bngpod Line Group IE (docs/dp/pfcp.md, Contract A):
        adopt makes the group's AC MAC one of this DP's, release drops it and deletes the
        group's sessions (by the S-tags in `group_stags`). Every IE is kept in `group_updates`
        as it came on the wire."""
        # bng-dp's order (pfcp.md): Node ID (66), association (72), the IE (66 missing, 69 two)
        if msg.find(W.IE_NODE_ID) is None:
            return W.build_message(W.ASSOC_UPDATE_RSP, msg.seq, self._node() + W.cause(66))
        if not self.associated:
            return W.build_message(W.ASSOC_UPDATE_RSP, msg.seq, self._node() + W.cause(72))
        raws = [r for r in W.raw_ies(msg.raw) if r[:2] == b"\x80\x00" and r[4:6] == b"\x7e\xd9"]
        if len(raws) != 1:
            return W.build_message(W.ASSOC_UPDATE_RSP, msg.seq, self._node() + W.cause(66 if not raws else 69))
        g = W.decode_line_group(raws[0][6:])
        if g is None:
            return W.build_message(W.ASSOC_UPDATE_RSP, msg.seq, self._node() + W.cause(69))
        self.group_updates.append((g, raws[0]))
        if g.action == 1:
            self.served_groups.add(g.name)
            if self.ac_macs is not None:
                self.ac_macs.add(g.ac_mac)
        else:
            self.served_groups.discard(g.name)
            if self.ac_macs is not None:
                self.ac_macs.discard(g.ac_mac)
            stags = self.group_stags.get(g.name, ())
            for up, sess in list(self.sessions.items()):
                if not sess.default and sess.stag in stags:
                    self.released.append(self.sessions.pop(up))
        return W.build_message(W.ASSOC_UPDATE_RSP, msg.seq, self._node() + W.cause(1))

    def _assoc_release(self, msg: W.Message) -> bytes:
        if not self.associated:
            return W.build_message(W.ASSOC_RELEASE_RSP, msg.seq, self._node() + W.cause(72))
        self.deleted.extend(self.sessions.values())
        self.sessions.clear()
        self.associated = False
        return W.build_message(W.ASSOC_RELEASE_RSP, msg.seq, self._node() + W.cause(1))

    def _est_answer(self, msg: W.Message, cp_seid: int, cause: int, up_seid: int = 0, extra: bytes = b"") -> bytes:
        body = self._node() + W.cause(cause) + extra
        if cause == 1:
            body += W.fseid(up_seid, self.address)
        return W.build_message(W.SESS_EST_RSP, msg.seq, body, seid=cp_seid)

    def _establish(self, msg: W.Message) -> bytes:
        s = W.decode_session(msg, 0)
        if not self.associated:
            return self._est_answer(msg, s.cp_seid, 72)
        if self.est_cause is not None:
            return self._est_answer(msg, s.cp_seid, self.est_cause)
        for old in self.sessions.values():
            if old.cp_seid == s.cp_seid:
                if old.content_key() == s.content_key():
                    return self._est_answer(msg, s.cp_seid, 1, old.up_seid)
                return self._est_answer(msg, s.cp_seid, 64, extra=W.ie(W.IE_OFFENDING_IE, struct.pack("!H", 57)))
            if s.default and old.default:
                return self._est_answer(msg, s.cp_seid, 64)
        s.up_seid = (self._generation << 32) | next(self._seid_slot)
        s.last_report = W.ntp_now()
        self.sessions[s.up_seid] = s
        return self._est_answer(msg, s.cp_seid, 1, s.up_seid)

    def _modify(self, msg: W.Message) -> bytes:
        s = self.sessions.get(msg.seid or 0)
        if s is None:
            return W.build_message(W.SESS_MOD_RSP, msg.seq, W.cause(65), seid=0)
        s.mods.append(msg)
        reports = b""
        for uf in msg.find_all(W.IE_UPDATE_FAR):
            fp = uf.find(W.IE_UPD_FORW_PARAMS)
            pol = fp.find(W.IE_FORWARDING_POLICY) if fp else None
            if pol is not None and pol.value:
                s.qos = pol.value[1 : 1 + pol.value[0]].decode(errors="replace")
        for uq in msg.find_all(W.IE_UPDATE_QER):
            mbr, gbr = uq.find(W.IE_MBR), uq.find(W.IE_GBR)
            if mbr is not None:
                s.mbr_ul, s.mbr_dl = W._rate(mbr.value)
            if gbr is not None:
                s.gbr_ul, s.gbr_dl = W._rate(gbr.value)
        mtu = msg.find(W.BBF_MTU)
        if mtu is not None:
            s.mtu = mtu.u(2)
        lcp = msg.find(W.BBF_LCP_CONN)
        if lcp is not None:
            s.lcp = W.decode_lcp(lcp)
        fs = msg.find(W.IE_FSEID)
        if fs is not None and len(fs.value) >= 9:
            s.cp_seid = struct.unpack("!Q", fs.value[1:9])[0]
        flags = msg.find(W.IE_SMREQ_FLAGS)
        queried = {q.find(W.IE_URR_ID).u() for q in msg.find_all(W.IE_QUERY_URR) if q.find(W.IE_URR_ID)}
        if flags is not None and flags.value and flags.value[0] & 0x04:
            queried |= set(s.urr_ids)
        for uid in sorted(queried & set(s.urr_ids)):
            reports += self._usage_ie(s, W.IE_USAGE_MOD, uid, W.URT_IMMER)
        return W.build_message(W.SESS_MOD_RSP, msg.seq, W.cause(1) + reports, seid=s.cp_seid)

    def _delete(self, msg: W.Message) -> bytes:
        s = self.sessions.pop(msg.seid or 0, None)
        if s is None:
            return W.build_message(W.SESS_DEL_RSP, msg.seq, W.cause(65), seid=0)
        reports = b"".join(self._usage_ie(s, W.IE_USAGE_DEL, uid, W.URT_TERMR) for uid in s.urr_ids)
        self.deleted.append(s)
        return W.build_message(W.SESS_DEL_RSP, msg.seq, W.cause(1) + reports, seid=s.cp_seid)

    def _usage_ie(self, s: W.Session, t: int, urr_id: int, trigger: int) -> bytes:
        now = W.ntp_now()
        b = W.usage_report(t, urr_id, s.ur_seqn, trigger, s.last_report, now, s.usage)
        s.ur_seqn += 1
        s.last_report = now
        s.usage = W.Usage()
        return b

    def _usage_report_msg(self, s: W.Session, trigger: int) -> bytes:
        body = W.ie(W.IE_REPORT_TYPE, bytes([W.REPORT_USAR]))
        for uid in s.urr_ids or [1]:
            body += self._usage_ie(s, W.IE_USAGE_REPORT, uid, trigger)
        return W.build_message(W.SESS_REPORT_REQ, self._next_seq(), body, seid=s.cp_seid)

    # -- DP requests (from the test thread) ---------------------------------------------------
    def request(self, data: bytes, timeout: float | None = None) -> W.Message:
        """Send a DP request (retransmitted every t1, n1 times); the CP's answer."""
        seq = int.from_bytes(data[12:15] if data[0] & 1 else data[4:7], "big")
        with self._cond:
            self._pending[seq] = None
        try:
            for _ in range(self.n1):
                self._send(data)
                deadline = time.monotonic() + (timeout or self.t1)
                with self._cond:
                    while self._pending[seq] is None and time.monotonic() < deadline:
                        self._cond.wait(timeout=max(deadline - time.monotonic(), 0.01))
                    if self._pending[seq] is not None:
                        return self._pending[seq]
            raise TimeoutError(f"DP {self.id}: no answer to {W.MSG_NAMES.get(data[1])} seq {seq}")
        finally:
            with self._cond:
                self._pending.pop(seq, None)

    def report_usage(self, s: W.Session, usage: W.Usage | None = None, trigger: int = W.URT_PERIO) -> W.Message:
        """A USAR Session Report with `usage` (added to what the session accumulated)."""
        with self._cond:
            if usage is not None:
                s.usage = s.usage + usage
            data = self._usage_report_msg(s, trigger)
        return self.request(data)

    def report_lcp_dead(self, s: W.Session) -> W.Message:
        """The LCP keepalive failure report (UPIR + BBF PPP LCP Connectivity)."""
        lcp = s.lcp or W.Lcp(1, 3, 1, 0)
        body = W.ie(W.IE_REPORT_TYPE, bytes([W.REPORT_UPIR])) + W.lcp_connectivity(
            lcp.interval, lcp.count, lcp.tx, lcp.rx
        )
        return self.request(W.build_message(W.SESS_REPORT_REQ, self._next_seq(), body, seid=s.cp_seid))

    def heartbeat(self) -> W.Message:
        return self.request(W.build_message(W.HEARTBEAT_REQ, self._next_seq(), W.recovery(self.recovery)))

    # -- waiting and looking ------------------------------------------------------------------
    def wait(self, pred: Callable[[], object], timeout: float = 10.0, what: str = "condition"):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = pred()
                if got:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"DP {self.id}: {what} not met within {timeout} s")
                self._cond.wait(timeout=min(left, 0.1))

    def wait_associated(self, timeout: float = 15.0) -> None:
        self.wait(lambda: self.associated, timeout, "association")

    def default_session(self) -> W.Session | None:
        return next((s for s in self.sessions.values() if s.default), None)

    def session_of(self, mac: str, ctag: int | None = None) -> W.Session | None:
        return next(
            (s for s in self.sessions.values() if s.mac == mac.lower() and ctag in (None, s.ctag)),
            None,
        )

    def wait_session(self, mac: str, timeout: float = 10.0, ctag: int | None = None) -> W.Session:
        return self.wait(lambda: self.session_of(mac, ctag), timeout, f"session of {mac}")

    def wait_deleted(self, s: W.Session, timeout: float = 10.0) -> None:
        self.wait(lambda: s.up_seid not in self.sessions, timeout, f"deletion of {s.up_seid:#x}")

    def received(self, mtype: int) -> list[Rec]:
        with self._cond:
            return [r for r in self.msgs if r.dir == "rx" and r.msg is not None and r.msg.type == mtype]

    def wait_received(self, mtype: int, count: int = 1, timeout: float = 10.0, since: int = 0) -> list[Rec]:
        return self.wait(
            lambda: (lambda got: got if len(got) >= count else None)(
                [r for r in self.msgs[since:] if r.dir == "rx" and r.msg is not None and r.msg.type == mtype]
            ),
            timeout,
            f"{count} x {W.MSG_NAMES.get(mtype)}",
        )

    def mark(self) -> int:
        """An index into `msgs` for `wait_received(since=...)`."""
        with self._cond:
            return len(self.msgs)

    def vxlan_pcap(self, path: Path) -> Path:
        """The VXLAN datagrams both ways (UDP 4789), for tshark."""
        dp, cp = (self.address, self.vxlan_port), self.cp_vxlan
        W.write_pcap(path, [(d, cp, dp) if way == "rx" else (d, dp, cp) for way, d in self.vxlan_log])
        return path

    def pcap(self, path: Path, recs: list[Rec] | None = None) -> Path:
        recs = self.msgs if recs is None else recs
        W.write_pcap(path, [(r.raw, r.src, r.dst) for r in recs])
        return path


def _udp(addr: str, port: int) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # a PADI flood makes the CP answer thousands of PADOs: the Python thread must not lose
    # the frames of the subscribers dialling meanwhile to a full socket buffer
    try:
        s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 16 << 20)  # root: past rmem_max
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((addr, port))
    return s
