"""The CP test harness checked on its own, without bng-cp:

- bngpod.radius: a private FreeRADIUS answers radclient (PAP, CHAP-MD5, reject, reply items,
  accounting with repeated Class), drops an Access-Request without Message-Authenticator,
  and signs every reply with one; its command line starts and stops one;
- fakedp.py: the PFCP UP peer against tests/harness/pfcp_cp.py (an independent CP written for
  bng-dp's tests): association, default session, a subscriber with every BBF IE,
  idempotent re-establishment, CoA modification, usage query, usage and LCP-dead reports,
  deletion, restart; the whole exchange dissected by tshark;
- tests/harness/pppoe_client.py: a full dial against a scripted access concentrator on the CP's VXLAN
  address (auth Nak, IPCP Nak/Reject, echoes, IPv6CP Protocol-Reject, terminate), the
  client's frames dissected by tshark.

Needs root only for nothing; needs freeradius/radclient and tshark (skipped without them,
failed under BNGPOD_REQUIRE_POD=1)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest
from harness.pfcp_cp import LG_ADOPT, Cp, Sub, _cause, line_group_ie, line_group_value
from harness.pppoe_client import (
    CONF_ACK,
    CONF_NAK,
    CONF_REJ,
    CONF_REQ,
    ECHO_REP,
    ECHO_REQ,
    IPCP,
    IPV6CP,
    LCP,
    PADI,
    PADO,
    PADR,
    PADS,
    PADT,
    PAP,
    PROTO_REJ,
    TAG_AC_NAME,
    TAG_COOKIE,
    TAG_HOST_UNIQ,
    TAG_SERVICE,
    TERM_ACK,
    TERM_REQ,
    access_line_tag,
    cp_packet,
    decode,
    opt,
    options,
    tags,
)
from scapy.layers.l2 import Ether

from bngpod.radius import FreeRadius, installed

from . import pfcpwire as W
from .fakedp import FakeDp

NET = os.environ.get("BNGCP_HARNESS_NET", "127.201.7")
CP = f"{NET}.1"
DP = f"{NET}.11"


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(why)
        pytest.skip(why)


# ---- bngpod.radius ----------------------------------------------------------------------------


def radclient(server: str, kind: str, secret: str, attrs: str, timeout: float = 1.0) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["radclient", "-x", "-r", "1", "-t", str(timeout), server, kind, secret],
        input=attrs,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_radiusd(tmp_path):
    _need(installed() and shutil.which("radclient") is not None, "freeradius/radclient not installed")
    users = {
        "alice": ("secret1", {"Framed-IP-Address": "100.80.0.9", "Filter-Id": "gold", "Class": ["c1", "c2"]}),
        "bob": ("secret2", {"WISPr-Bandwidth-Max-Down": 50000000}),
    }
    with FreeRadius(
        tmp_path / "r",
        address=f"{NET}.2",
        auth_port=18121,
        acct_port=18131,
        secret="s3",  # noqa: S106
        nas_addresses=[CP],
        users=users,
    ) as r:
        srv = f"{NET}.2:18121"
        src = f"Packet-Src-IP-Address = {CP}\n"
        ok = radclient(
            srv, "auth", "s3", src + 'User-Name = "alice"\nUser-Password = "secret1"\nMessage-Authenticator = 0x00\n'
        )
        assert "Received Access-Accept" in ok.stdout, ok.stdout + ok.stderr
        assert 'Filter-Id = "gold"' in ok.stdout and "Framed-IP-Address = 100.80.0.9" in ok.stdout
        assert ok.stdout.count("Class = ") == 2
        assert "Message-Authenticator = 0x" in ok.stdout.split("Received")[1]
        chap = radclient(
            srv, "auth", "s3", src + 'User-Name = "bob"\nCHAP-Password = "secret2"\nMessage-Authenticator = 0x00\n'
        )
        assert "Received Access-Accept" in chap.stdout and "WISPr-Bandwidth-Max-Down = 50000000" in chap.stdout
        bad = radclient(
            srv, "auth", "s3", src + 'User-Name = "bob"\nUser-Password = "nope"\nMessage-Authenticator = 0x00\n'
        )
        assert "Received Access-Reject" in bad.stdout
        nomac = radclient(srv, "auth", "s3", src + 'User-Name = "alice"\nUser-Password = "secret1"\n')
        assert "Received" not in nomac.stdout  # dropped: require_message_authenticator
        other = radclient(
            srv, "auth", "s3", 'User-Name = "alice"\nUser-Password = "secret1"\nMessage-Authenticator = 0x00\n'
        )
        assert "Received" not in other.stdout  # 127.0.0.1 is not a client
        acct = radclient(
            f"{NET}.2:18131",
            "acct",
            "s3",
            src + 'User-Name = "alice"\nAcct-Status-Type = Stop\nAcct-Session-Id = "s-1"\nClass = "c1"\nClass = "c2"\n'
            "Acct-Terminate-Cause = Lost-Carrier\nAcct-Input-Octets = 5\nAcct-Input-Gigawords = 1\n",
        )
        assert "Received Accounting-Response" in acct.stdout
        stop = r.wait_accounting(Acct_Status_Type="Stop", Acct_Session_Id="s-1")[0]
        assert stop.all("Class") == ["0x6331", "0x6332"] or stop.all("Class") == ["c1", "c2"]
        assert stop["Acct-Terminate-Cause"] == "Lost-Carrier" and stop["Acct-Input-Gigawords"] == "1"
        assert stop.user == "alice"
        replies = r.records("reply-detail")
        assert [x["Packet-Type"] for x in replies] == ["Access-Accept", "Access-Accept", "Access-Reject"]
        assert [x.user for x in replies] == ["alice", "bob", "bob"]
        assert [x["User-Name"] for x in r.records("auth-detail")] == ["alice", "bob", "bob"]
        pid = r.proc.pid
    assert not os.path.exists(f"/proc/{pid}/status") or "zombie" in open(f"/proc/{pid}/status").read()


def test_radiusd_cli(tmp_path):
    _need(installed() and shutil.which("radclient") is not None, "freeradius/radclient not installed")
    d = tmp_path / "cli"
    py = [sys.executable]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "topology"))
    up = subprocess.run(
        py
        + ["-m", "bngpod.radius", "up", str(d), "--address", f"{NET}.3", "--auth-port", "18122"]
        + ["--acct-port", "18132", "--secret", "sx", "--client", CP, "--users", "5"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    try:
        assert up.returncode == 0, up.stderr
        got = radclient(
            f"{NET}.3:18122",
            "auth",
            "sx",
            f'Packet-Src-IP-Address = {CP}\nUser-Name = "user5"\nUser-Password = "pw5"\nMessage-Authenticator = 0x00\n',
        )
        assert "Received Access-Accept" in got.stdout
    finally:
        down = subprocess.run(
            py + ["-m", "bngpod.radius", "down", str(d)], cwd=root, env=env, capture_output=True, timeout=30
        )
    assert down.returncode == 0
    assert not (d / "freeradius.pid").exists()


# ---- fakedp.py PFCP against tests/harness/pfcp_cp.py ----------------------------------------------------

SAMPLE = Sub(
    stag=100,
    ctag=7,
    mac="02:11:00:00:00:07",
    sid=0x0107,
    ipv4="100.80.0.7",
    mtu=1492,
    mbr_ul=10000,
    mbr_dl=50000,
    gbr_ul=2000,
    gbr_dl=0,
    qos="gold",
    lcp_magic=0x11223344,
    lcp_peer_magic=0x55667788,
    echo_interval=10,
    echo_misses=3,
    urr_period=60,
    logical_port="access1",
)


def test_fakedp_pfcp_against_python_cp(tmp_path):
    _need(W.tshark_available(), "tshark is not installed")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((CP, 8805))
    cp = Cp(sock, dp_addr=(DP, 8805), node_ip=CP, t1=1.0)
    with FakeDp(1, DP, CP) as dp:
        try:
            assert cp.associate() == 1
            assert cp.dp_features == {"pppoe": True, "lcp_keepalive_offload": True}
            assert dp.associated and dp.cp_recovery == cp.recovery
            _, up_default, c = cp.default_session(CP, 4789)
            assert c == 1
            d = dp.default_session()
            assert d.redirect == (CP, 4789) and d.violations == []
            assert d.classes == [(0x8863, None), (0x8864, 0x04), (0x8864, None)]

            cp_seid, up_seid, c = cp.establish(SAMPLE)
            assert c == 1 and up_seid != up_default
            s = dp.sessions[up_seid]
            assert s.violations == []
            assert (s.mac, s.stag, s.ctag, s.pppoe_sid, s.ipv4) == (SAMPLE.mac, 100, 7, 0x0107, "100.80.0.7")
            assert (s.qos, s.mtu, s.mbr_ul, s.mbr_dl, s.gbr_ul, s.urr_period) == ("gold", 1492, 10000, 50000, 2000, 60)
            assert s.lcp == W.Lcp(10, 3, 0x11223344, 0x55667788) and s.logical_port == "access1"
            assert s.cp_seid == cp_seid and s.cp_addr == CP
            # the same CP SEID and content: the same session
            assert cp.establish(SAMPLE, cp_seid=cp_seid)[1:] == (up_seid, 1)
            # the same CP SEID, another session: refused
            assert cp.establish(Sub(mac="02:11:00:00:00:08", sid=9, ipv4="100.80.0.8"), cp_seid=cp_seid)[2] == 64

            c, _ = cp.modify(up_seid, qos="silver")
            assert c == 1 and s.qos == "silver" and len(s.mods) == 1
            s.usage = W.Usage(ul_bytes=100, dl_bytes=200, ul_pkts=1, dl_pkts=2)
            c, rep = cp.modify(up_seid, query=True)
            assert c == 1 and len(rep) == 1
            assert (rep[0].ul_bytes, rep[0].dl_bytes, rep[0].ul_pkts, rep[0].dl_pkts) == (100, 200, 1, 2)
            assert rep[0].trigger == W.URT_IMMER

            out = {}
            t = threading.Thread(target=lambda: out.update(r=dp.report_usage(s, W.Usage(ul_bytes=7 << 32, dl_bytes=5))))
            t.start()
            got = cp.expect_report(timeout=5)
            t.join()
            assert out["r"].type == W.SESS_REPORT_RSP and out["r"].cause == 1 and out["r"].seid == up_seid
            assert got.seid == cp_seid and got.usage[0].ul_bytes == 7 << 32 and got.usage[0].seqn == 1

            t = threading.Thread(target=lambda: out.update(r=dp.report_lcp_dead(s)))
            t.start()
            got = cp.expect_report(timeout=5)
            t.join()
            assert got.lcp_dead and got.lcp == {
                "interval": 10,
                "count": 3,
                "magic_tx": 0x11223344,
                "magic_rx": 0x55667788,
            }

            s.usage = W.Usage(ul_bytes=1, dl_bytes=2, ul_pkts=3, dl_pkts=4)
            c, rep = cp.delete(up_seid)
            assert c == 1 and rep[0].trigger == W.URT_TERMR and rep[0].dl_pkts == 4
            assert up_seid not in dp.sessions and dp.deleted[-1] is s
            assert cp.delete(up_seid)[0] == 65

            old = dp.recovery
            dp.restart()
            assert cp.heartbeat() == dp.recovery != old
            assert cp.establish(SAMPLE)[2] == 72  # a restarted DP has no association
        finally:
            cp.close()
        assert dp.inject_errors == []

        pkts = W.dissect_pcap(dp.pcap(tmp_path / "pfcp.pcap"))
    assert len(pkts) == len(dp.msgs)
    for f in pkts:
        assert W.malformed(f) == [], f
    est = next(f for f, r in zip(pkts, dp.msgs, strict=True) if r.msg and r.msg.type == 50 and r.msg.find(W.BBF_MTU))
    check_subscriber_establishment(est, SAMPLE)
    rsp = next(f for f, r in zip(pkts, dp.msgs, strict=True) if r.msg and r.msg.type == 6)
    assert W.one(rsp, "pfcp.bbf.up_function_features.pppoe") == "1"
    assert W.one(rsp, "pfcp.bbf.up_function_features.lcp_keepalive_offload") == "1"
    assert W.one(rsp, "pfcp.up_function_features.mnop") == "1"
    dead = next(
        f for f, r in zip(pkts, dp.msgs, strict=True) if r.msg and r.msg.type == 56 and r.msg.find(W.BBF_LCP_CONN)
    )
    assert W.one(dead, "pfcp.report_type.upir") == "1"
    assert W.one(dead, "pfcp.bbf.verification_timer.interval") == "10"


def check_subscriber_establishment(f, sub: Sub) -> None:
    """tshark's view of a subscriber's Session Establishment Request against `sub` (the fields
    a CP must send: tags, PPPoE session id, MAC, address, rates, MTU, LCP connectivity)."""
    assert W.malformed(f) == []
    assert W.one(f, "pfcp.msg_type") == "50"
    assert W.one(f, "pfcp.bbf.pppoe_session_id") == f"0x{sub.sid:04x}"
    assert W.one(f, "pfcp.bbf.out_hdr_desc") == "3"
    assert W.one(f, "pfcp.bbf.outer_hdr_desc") == "512"
    assert W.one(f, "pfcp.bbf.outer_hdr_creation.session_id") == f"0x{sub.sid:04x}"
    assert W.one(f, "pfcp.s_tag.svid") == f"0x{sub.stag:04x}"
    assert W.one(f, "pfcp.c_tag.cvid") == f"0x{sub.ctag:04x}"
    assert W.one(f, "pfcp.mac_address.sour") == sub.mac
    assert sub.ipv4 in W.vals(f, "pfcp.ue_ip_addr_ipv4")
    assert W.vals(f, "pfcp.source_interface") == ["0", "1"]
    if sub.logical_port:
        assert W.one(f, "pfcp.bbf.logical_port_id_str") == sub.logical_port
    if sub.qos:
        assert sub.qos.encode().hex(":") in W.vals(f, "pfcp.forwarding_policy_id")
    if sub.mbr_ul is not None:
        assert W.one(f, "pfcp.ul_mbr") == str(sub.mbr_ul)
        assert W.one(f, "pfcp.dl_mbr") == str(sub.mbr_dl)
    if sub.mtu is not None:
        assert W.one(f, "pfcp.bbf.mtu") == str(sub.mtu)
    if sub.lcp_magic is not None:
        assert W.one(f, "pfcp.bbf.verification_timer.interval") == str(sub.echo_interval)
        assert W.one(f, "pfcp.bbf.verification_timer.count") == str(sub.echo_misses)
        assert W.one(f, "pfcp.bbf.lcp_magic_number.tx") == f"0x{sub.lcp_magic:08x}"
        assert W.one(f, "pfcp.bbf.lcp_magic_number.rx") == f"0x{sub.lcp_peer_magic:08x}"


# ---- pppoe_client.py against a scripted access concentrator -------------------------------------------

AC_MAC = "02:bb:00:00:00:01"


class ScriptedAc:
    """Just enough of an AC on the CP's VXLAN address to walk a client through a dial."""

    def __init__(self, addr: str, dp_addr: str, vni: int):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((addr, 4789))
        self.sock.settimeout(0.1)
        self.dp = (dp_addr, 4789)
        self.vni = vni
        self.seen: list[bytes] = []  # frames from the client (VXLAN payloads with header)
        self.events: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.sid = 0x1234
        self.lcp_auth = struct.pack("!HB", 0xC223, 5)  # ask for CHAP first: the PAP client Naks

    def send(self, client_mac: str, stag: int, ctag: int, pppoe: bytes, etype: int = 0x8863) -> None:
        eth = bytes.fromhex(client_mac.replace(":", "")) + bytes.fromhex(AC_MAC.replace(":", ""))
        frame = eth + struct.pack("!HHHHH", 0x8100, stag, 0x8100, ctag, etype) + pppoe
        self.sock.sendto(struct.pack("!BBBBI", 8, 0, 0, 0, self.vni << 8) + frame, self.dp)

    def ppp(self, rx, proto: int, code: int, ident: int, data: bytes = b"") -> None:
        body = struct.pack("!H", proto) + cp_packet(code, ident, data)
        self.send(rx.mac, rx.stag, rx.ctag, struct.pack("!BBHH", 0x11, 0, self.sid, len(body)) + body, 0x8864)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                data, _ = self.sock.recvfrom(65535)
            except TimeoutError:
                continue
            self.seen.append(data)
            frame = Ether(data[8:])
            rx = decode(frame)
            rx.mac, rx.stag, rx.ctag = (
                frame.src,
                struct.unpack_from("!H", data, 8 + 14)[0],
                struct.unpack_from("!H", data, 8 + 18)[0],
            )
            if rx.discovery:
                hu = rx.tag(TAG_HOST_UNIQ) or b""
                if rx.code == PADI:
                    body = tags(
                        (TAG_AC_NAME, b"scripted"), (TAG_SERVICE, b""), (TAG_HOST_UNIQ, hu), (TAG_COOKIE, b"c00kie")
                    )
                    self.send(rx.mac, rx.stag, rx.ctag, struct.pack("!BBHH", 0x11, PADO, 0, len(body)) + body)
                elif rx.code == PADR:
                    assert rx.tag(TAG_COOKIE) == b"c00kie"
                    body = tags((TAG_SERVICE, b""), (TAG_HOST_UNIQ, hu))
                    self.send(rx.mac, rx.stag, rx.ctag, struct.pack("!BBHH", 0x11, PADS, self.sid, len(body)) + body)
                    self.ppp(
                        rx, LCP, CONF_REQ, 1, opt(1, b"\x05\xd4") + opt(3, self.lcp_auth) + opt(5, b"\xaa\xbb\xcc\xdd")
                    )
                elif rx.code == PADT:
                    self.events.append("padt")
                continue
            if rx.proto == LCP and rx.ppp_code == CONF_REQ:
                self.ppp(rx, LCP, CONF_ACK, rx.ppp_id, rx.data)
            elif rx.proto == LCP and rx.ppp_code == CONF_NAK:
                self.events.append(f"lcp-nak {rx.data.hex()}")
                self.lcp_auth = dict(options(rx.data))[3]
                self.ppp(
                    rx, LCP, CONF_REQ, 2, opt(1, b"\x05\xd4") + opt(3, self.lcp_auth) + opt(5, b"\xaa\xbb\xcc\xdd")
                )
            elif rx.proto == LCP and rx.ppp_code == TERM_REQ:
                self.ppp(rx, LCP, TERM_ACK, rx.ppp_id)
                self.events.append("term")
            elif rx.proto == LCP and rx.ppp_code == ECHO_REP:
                self.events.append("echo-reply")
            elif rx.proto == PAP and rx.ppp_code == 1:
                n = rx.data[0]
                user, pw = rx.data[1 : 1 + n], rx.data[2 + n : 2 + n + rx.data[1 + n]]
                self.events.append(f"pap {user.decode()} {pw.decode()}")
                self.ppp(rx, PAP, 2, rx.ppp_id, b"\x02ok")
                self.ppp(rx, IPCP, CONF_REQ, 7, opt(3, bytes([100, 64, 0, 1])))
                self.ppp(rx, LCP, ECHO_REQ, 9, b"\xaa\xbb\xcc\xdd")
            elif rx.proto == IPCP and rx.ppp_code == CONF_REQ:
                o = dict(options(rx.data))
                if o.get(3) == b"\0\0\0\0" and 131 in o:
                    self.ppp(rx, IPCP, CONF_REJ, rx.ppp_id, opt(131, o[131]))
                elif 131 in o:
                    self.events.append("ipcp-reject-ignored")
                elif o.get(129) == b"\0\0\0\0" or o.get(3) == b"\0\0\0\0":
                    self.ppp(
                        rx,
                        IPCP,
                        CONF_NAK,
                        rx.ppp_id,
                        opt(3, bytes([100, 80, 0, 9])) + opt(129, bytes([198, 51, 100, 53])),
                    )
                else:
                    self.ppp(rx, IPCP, CONF_ACK, rx.ppp_id, rx.data)
            elif rx.proto == IPCP and rx.ppp_code == CONF_ACK:
                self.events.append("ipcp-acked")
            elif rx.proto == IPV6CP:
                self.ppp(rx, LCP, PROTO_REJ, 3, struct.pack("!H", IPV6CP) + cp_packet(rx.ppp_code, rx.ppp_id, rx.data))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


def test_fakedp_association_update_causes_as_bng_dp():
    """The fake DP answers Association Updates with the causes bng-dp gives (pfcp.md, "bngpod
    Line Group IE"; tests/dp/test_line_group.py checks the real one with the same CP)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((CP, 8805))
    cp = Cp(sock, dp_addr=(DP, 8805), node_ip=CP, t1=1.0)
    adopt = line_group_ie(line_group_value(LG_ADOPT, "lg1", "02:bb:00:00:00:01", "02:cc:00:00:00:01", "100.64.0.11"))
    with FakeDp(1, DP, CP) as dp:
        try:
            assert cp.adopt("lg1", "02:bb:00:00:00:01", "02:cc:00:00:00:01", "100.64.0.11") == 72
            assert cp.associate() == 1
            assert _cause(cp.association_update()) == 66  # no Line Group IE
            assert _cause(cp.association_update(adopt, node_id=False)) == 66  # no Node ID
            assert _cause(cp.association_update(adopt, adopt)) == 69  # two Line Group IEs
            assert _cause(cp.association_update(line_group_ie(b"\x01short"))) == 69
            assert dp.group_updates == [] and dp.served_groups == set()
            assert _cause(cp.association_update(adopt)) == 1
            assert dp.served_groups == {"lg1"}
        finally:
            sock.close()


def test_pppoe_client_against_scripted_ac(tmp_path):
    _need(W.tshark_available(), "tshark is not installed")
    with FakeDp(1, DP, CP, ac_macs={AC_MAC}) as dp, ScriptedAc(CP, DP, 1) as ac:
        c = dp.client("02:11:00:00:00:42", 100, 42, user="alice", auth="pap", ipv6cp=True)
        c.password = "pw"
        c.access_line = access_line_tag("olt1 pon 1/1/1:42", "cpe42")
        res = c.dial(timeout=10)
        assert res.ok, res.reason
        assert (res.session_id, res.ipv4, res.dns, res.peer_ipv4, res.mru) == (
            0x1234,
            "100.80.0.9",
            ["198.51.100.53"],
            "100.64.0.1",
            1492,
        )
        assert res.ac_name == b"scripted" and res.magic_peer == 0xAABBCCDD
        deadline = time.monotonic() + 3
        while "echo-reply" not in ac.events and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.terminate()
        deadline = time.monotonic() + 3
        while "padt" not in ac.events and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ac.events[0] == "lcp-nak " + opt(3, b"\xc0\x23").hex()  # asked for CHAP, the PAP client Naks
        assert "pap alice pw" in ac.events and "echo-reply" in ac.events and "ipcp-acked" in ac.events
        assert ac.events[-2:] == ["term", "padt"] and "ipcp-reject-ignored" not in ac.events
        assert any(r.proto == LCP and r.ppp_code == PROTO_REJ for r in c.rx)
        assert c.echo_replies_sent == 1 and dp.inject_errors == [] and dp.unclaimed == []

        pcap = tmp_path / "vxlan.pcap"
        W.write_pcap(pcap, [(d, (DP, 4789), (CP, 4789)) for d in ac.seen])
    pkts = W.dissect_pcap(pcap, ("vxlan", "pppoe", "ppp", "lcp", "pap", "ipcp", "vlan", "eth"))
    for f in pkts:
        assert W.malformed(f) == [], f
        assert W.one(f, "vxlan.vni") == "1"
        assert W.vals(f, "vlan.id") == ["100", "42"]
    assert W.one(pkts[0], "pppoe.code") == "0x09"  # PADI
    flat = [n for f in pkts for n, _ in f]
    assert "pppoed.tags.host_uniq" in flat and "pppoed.tags.ac_cookie" in flat
    assert any(v == "alice" for f in pkts for v in W.vals(f, "pap.peer_id"))
    assert any(v == "olt1 pon 1/1/1:42" for f in pkts for v in W.vals(f, "pppoed.tags.circuit_id"))


def test_fakeonos_checks_sessions_as_the_app():
    """tests/harness/fakeonos.py refuses what the app's SessionCodec refuses: the sessions both
    ends agreed on (tests/contract/onos) pass, a bad field refuses the whole batch with 400
    naming it, and nothing of that batch is recorded."""
    import base64
    import http.client
    import json
    from pathlib import Path
    from urllib.parse import urlsplit

    from harness.fakeonos import CP_PASSWORD, CP_USER, FakeOnos, check_session

    contract = Path(__file__).resolve().parents[1] / "contract" / "onos"
    events = json.loads((contract / "events.json").read_text())["body"]
    good = [e["session"] for e in events["events"]]
    for name in ("resync-0.json", "resync-1.json"):
        good += json.loads((contract / name).read_text())["body"]["sessions"]
    for s in good:
        check_session(s, "s")
    assert any("downRate" in s for s in good) and all("at" in s["usage"] for s in good)

    bad = {
        ("usage", "at"): ("03:10", "s.usage.at"),
        ("downRate",): (-1, "s.downRate"),
        ("upRate",): ("8M", "s.upRate"),
        ("ipv4",): ("invalid IP", "s.ipv4"),
        ("stag",): (4095, "s.stag"),
    }
    for keys, (value, where) in bad.items():
        s = json.loads(json.dumps(good[0]))
        obj = s
        for k in keys[:-1]:
            obj = obj[k]
        obj[keys[-1]] = value
        with pytest.raises(ValueError, match=re.escape(where)):
            check_session(s, "s")

    onos = FakeOnos().start()
    try:
        body = json.loads(json.dumps(events))
        body["events"][1]["session"]["usage"]["at"] = "yesterday"
        u = urlsplit(onos.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
        auth = base64.b64encode(f"{CP_USER}:{CP_PASSWORD}".encode()).decode()
        conn.request(
            "POST",
            u.path + "/sessions/events",
            body=json.dumps(body),
            headers={"Content-Type": "application/json", "Authorization": "Basic " + auth},
        )
        r = conn.getresponse()
        assert r.status == 400
        assert json.loads(r.read())["error"].startswith("events[1].session.usage.at:")
        conn.close()
        assert onos.events == []
    finally:
        onos.close()


def test_fakeonos_seba_side_as_strict_as_the_app():
    """fakeonos's org.bngpod.seba side answers what the Java resources answer: the contract
    files' teardowns (seba-teardowns.json) from seba_teardown, `after` refused as
    TeardownsWebResource refuses it, POST /pppoe-events refused above 1,000 events or for a
    body that is not JSON (PppoeEventsWebResource), the contract's events taken, and a
    teardown the app never makes refused."""
    import base64
    import http.client
    import json
    from pathlib import Path
    from urllib.parse import urlsplit

    from harness.fakeonos import CP_PASSWORD, CP_USER, SEBA_BASE, FakeOnos

    contract = Path(__file__).resolve().parents[1] / "contract" / "onos"
    onos = FakeOnos().start()
    auth = "Basic " + base64.b64encode(f"{CP_USER}:{CP_PASSWORD}".encode()).decode()
    u = urlsplit(onos.url)

    def call(method: str, path: str, body: bytes | None = None) -> tuple[int, dict]:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
        try:
            conn.request(method, SEBA_BASE + path, body=body, headers={"Authorization": auth})
            r = conn.getresponse()
            return r.status, json.loads(r.read() or b"null")
        finally:
            conn.close()

    try:
        onos.seba_subscribers = json.loads((contract / "seba-subscribers.json").read_text())["body"]["subscribers"]
        want = json.loads((contract / "seba-teardowns.json").read_text())["body"]
        for t in want["teardowns"]:
            got = onos.seba_teardown(t["accessPort"], t["stag"], t["ctag"], t["uni"], t["cause"])
            assert got["version"] == t["version"] and got["at"].endswith("Z")
        status, body = call("GET", "/teardowns?after=0")
        assert status == 200 and body["version"] == 2
        assert [{k: v for k, v in t.items() if k != "at"} for t in body["teardowns"]] == [
            {k: v for k, v in t.items() if k != "at"} for t in want["teardowns"]
        ]
        assert call("GET", "/teardowns?after=1")[1]["teardowns"][0]["version"] == 2
        for bad in ("-1", "x", "", "1" * 19, "1.5"):
            status, body = call("GET", f"/teardowns?after={bad}")
            assert status == 400 and body["error"].startswith("after: "), (bad, status, body)
        with pytest.raises(ValueError, match="cause"):
            onos.seba_teardown("access1", 100, 900, "BBSM00000001-1", "User-Request")

        events = json.loads((contract / "seba-pppoe-events.json").read_text())
        status, body = call("POST", "/pppoe-events", json.dumps(events["body"]).encode())
        assert (status, body) == (200, events["answer"]), body
        assert call("POST", "/pppoe-events", b"{not json")[0] == 400
        many = {"events": [events["body"]["events"][0]] * 1001}
        assert call("POST", "/pppoe-events", json.dumps(many).encode())[0] == 400
        assert len(onos.pppoe_events) == events["answer"]["posted"]
    finally:
        onos.close()
