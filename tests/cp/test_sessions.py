"""bng-cp end to end on loopback (tests/cp/pod.py): subscribers dial with a scapy PPPoE client
through fake DPs speaking VXLAN and PFCP, authenticated by real FreeRADIUS servers.

Assertions are on the wire and in the RADIUS servers' detail files: PPPoE/PPP frames the
client receives, PFCP messages the fake DP decodes (and tshark dissects), Access- and
Accounting-Requests FreeRADIUS logged. The management API is used only to find a session
id and pool usage."""

from __future__ import annotations

import ipaddress
import re
import threading
import time

import pytest
from harness.pppoe_client import LCP, PADO, PADT, PROTO_REJ, TAG_COOKIE, TERM_REQ, PppoeClient, tags

from . import pfcpwire as W
from .badradius import BadRadius
from .pod import AC_MAC, AUTH_PORT, BNGCPCTL, DNS, POOL, RADIUS, Pod

# ---- helpers ----------------------------------------------------------------------------------


def dial_up(pod: Pod, c: PppoeClient, timeout: float = 15.0):
    """Dial `c` and wait until its PFCP session is installed and its Accounting-Start logged:
    (dial result, PFCP session, Start record)."""
    res = c.dial(timeout=timeout)
    assert res.ok, res.reason
    dp = c.dp
    s = dp.wait_session(c.mac, ctag=c.ctag)
    start = pod.wait_accounting(Acct_Status_Type="Start", Framed_IP_Address=res.ipv4, User_Name=c.user)[-1]
    return res, s, start


def stop_of(pod: Pod, asid: str, timeout: float = 10.0):
    return pod.wait_accounting(timeout=timeout, Acct_Status_Type="Stop", Acct_Session_Id=asid)[0]


def mac_in(mac: str, text: str) -> bool:
    return mac.replace(":", "").lower() in re.sub(r"[^0-9a-fA-F]", "", text).lower()


def no_establishment_for(dp, mac: str) -> bool:
    for r in dp.received(W.SESS_EST_REQ):
        s = W.decode_session(r.msg, 0)
        if s.mac == mac:
            return False
    return True


def pool_used(pod: Pod, group: str) -> int | None:
    """Addresses in use in a line group's pools, from the management API (None if unavailable)."""
    try:
        pools = pod.cp.pools()
    except (OSError, AssertionError):
        return None
    used = [p.get("used", 0) for p in pools if p.get("line_group") == group or p.get("name") == group]
    return sum(used) if used else None


def pool_settles(pod: Pod, group: str, want: int, timeout: float = 5.0) -> bool:
    """The line group's pool usage reaches `want` (True also when the API cannot tell)."""
    deadline = time.monotonic() + timeout
    while True:
        got = pool_used(pod, group)
        if got is None or got == want:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def session_id_of(pod: Pod, mac: str) -> str:
    for v in pod.cp.sessions():
        if str(v.get("mac", "")).lower() == mac:
            return str(v["id"])
    raise AssertionError(f"no session of {mac} in the management API: {pod.cp.sessions()}")


def got_teardown(c: PppoeClient, timeout: float = 5.0) -> bool:
    """The BNG ended the client's session: PADT, or LCP Terminate-Request."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if c.padt_received.is_set() or c.terminated_by_peer.is_set():
            return True
        time.sleep(0.05)
    return False


def in_pool(addr: str, instance: int) -> bool:
    return ipaddress.IPv4Address(addr) in ipaddress.IPv4Network(POOL[instance])


# ---- sessions -----------------------------------------------------------------------------------


def test_pap_session(pod):
    c = pod.client(1, user="user1", circuit_id="olt1 1/1/1:7", remote_id="cpe-7", ipv6cp=True)
    res, s, start = dial_up(pod, c)
    dp = pod.dps[1]
    # discovery: PADO from the line group's AC MAC with a cookie; addresses and DNS
    pado = next(r for r in c.rx if r.discovery and r.code == PADO)
    assert pado.frame.src == AC_MAC[1] and pado.tag(TAG_COOKIE)
    assert res.ac_mac == AC_MAC[1] and in_pool(res.ipv4, 1) and res.dns == DNS
    # PFCP: the subscriber as the client dialled it (docs/dp/pfcp.md section 6)
    assert s.violations == []
    assert (s.mac, s.stag, s.ctag, s.pppoe_sid, s.ipv4) == (c.mac, c.stag, c.ctag, res.session_id, res.ipv4)
    assert s.logical_port in (None, "access1")
    assert s.mtu in (None, 1492)
    assert s.lcp == W.Lcp(interval=1, count=2, tx=c.peer_magic, rx=c.magic)
    assert s.qos in (None, "silver")
    # RADIUS: what the Access-Request carried
    req = pod.access_requests("user1")[-1]
    assert req["User-Password"] == "pw1" and req.get("Message-Authenticator", "").startswith("0x")
    assert req["NAS-Identifier"] == "bngpod-itest"
    assert mac_in(c.mac, req.get("Calling-Station-Id", ""))
    assert req.get("ADSL-Agent-Circuit-Id") in ("olt1 1/1/1:7", "0x" + b"olt1 1/1/1:7".hex())
    assert start.get("Acct-Session-Id") and start["User-Name"] == "user1"
    # IPv6CP is refused with Protocol-Reject and the IPv4 session stays up
    assert any(r.proto == LCP and r.ppp_code == PROTO_REJ for r in c.rx)
    time.sleep(1.0)
    assert dp.session_of(c.mac) is s and not c.padt_received.is_set()
    # the CP answers the DP's heartbeats with its Recovery Time Stamp
    hb = dp.heartbeat()
    assert hb.type == W.HEARTBEAT_RSP and hb.find(W.IE_RECOVERY).u(4) == dp.cp_recovery
    # the client hangs up: LCP Terminate, PADT -> PFCP deletion, Stop, address back
    assert c.terminate()
    dp.wait_deleted(s)
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop["Acct-Terminate-Cause"] == "User-Request"
    assert stop["Framed-IP-Address"] == res.ipv4
    assert pool_settles(pod, "lg1", 0), pool_used(pod, "lg1")
    assert dp.inject_errors == []


@pytest.mark.parametrize(
    "client_auth,user",
    [
        pytest.param("chap", "chapuser", marks=pytest.mark.cp(auth="pap,chap"), id="cp-pap-first-client-chap"),
        pytest.param("chap", "chapuser", marks=pytest.mark.cp(auth="chap,pap"), id="cp-chap-first-client-chap"),
        pytest.param("pap", "user2", marks=pytest.mark.cp(auth="chap,pap"), id="cp-chap-first-client-pap"),
    ],
)
def test_chap_and_pap_negotiation(pod, client_auth, user):
    c = pod.client(1, user=user, auth=client_auth)
    res, s, _ = dial_up(pod, c)
    req = pod.access_requests(user)[-1]
    if client_auth == "chap":
        assert "CHAP-Password" in req and "User-Password" not in req
    else:
        assert req["User-Password"] == "pw2"
    assert s.ipv4 == res.ipv4


@pytest.mark.parametrize("auth", ["pap", "chap"])
def test_wrong_password(pod, auth):
    c = pod.client(1, user="user3", password="wrong", auth=auth)  # noqa: S106
    res = c.dial(timeout=10)
    assert not res.ok
    assert "Nak" in res.reason or "Failure" in res.reason, res.reason
    assert got_teardown(c)
    dp = pod.dps[1]
    time.sleep(0.5)
    assert no_establishment_for(dp, c.mac)
    assert pod.accounting(User_Name="user3") == []
    replies = [x for r in pod.radius for x in r.records("reply-detail") if x.user == "user3"]
    assert replies and all(x["Packet-Type"] == "Access-Reject" for x in replies)
    assert pool_settles(pod, "lg1", 0), pool_used(pod, "lg1")
    # the next subscriber is not hurt
    assert pod.client(1, user="user4").dial().ok


def test_radius_failover(pod):
    r1, r2 = pod.radius
    r1.pause()
    try:
        c = pod.client(1, user="user5")
        res, _, start = dial_up(pod, c, timeout=20)
        assert [x.user for x in r2.records("reply-detail")] == ["user5"]
        assert r2.accounting(Acct_Status_Type="Start", User_Name="user5")
        # both down: a clean refusal, nothing installed
        r2.pause()
        c2 = pod.client(1, user="user6")
        res2 = c2.dial(timeout=20)
        assert not res2.ok
        assert got_teardown(c2)
        assert no_establishment_for(pod.dps[1], c2.mac)
    finally:
        r1.resume()
        r2.resume()
    assert pod.cp.alive()


@pytest.mark.parametrize("mode", ["missing", "wrong", "valid"])
def test_message_authenticator(pod, mode):
    """radius1 is replaced by a responder that accepts everyone; radius2 rejects "evil".
    A forged Accept (no or a wrong Message-Authenticator) must be dropped, so the CP fails
    over and radius2's Reject stands; the control case (a valid one) lets "evil" in."""
    r1 = pod.radius[0]
    r1.stop()
    with BadRadius(RADIUS[0][0], AUTH_PORT, RADIUS[0][1], mode) as bad:
        c = pod.client(1, user="evil")
        res = c.dial(timeout=20)
        assert bad.requests, "the CP never asked radius1"
        assert all(bad.request_has_message_authenticator(q) for q in bad.requests)
        if mode == "valid":
            assert res.ok, res.reason
            pod.dps[1].wait_session(c.mac)
            return
        assert not res.ok
        assert got_teardown(c)
        assert len(bad.requests) >= 2, "a dropped reply counts as lost: the CP should retry before failing over"
    replies = [x for x in pod.radius[1].records("reply-detail") if x.user == "evil"]
    assert [x["Packet-Type"] for x in replies] == ["Access-Reject"]
    assert no_establishment_for(pod.dps[1], c.mac)


def test_lcp_dead_report(pod):
    c = pod.client(1, user="user7")
    res, s, start = dial_up(pod, c)
    dp = pod.dps[1]
    ans = dp.report_usage(s, W.Usage(ul_bytes=(5 << 32) + 7, dl_bytes=11, ul_pkts=3, dl_pkts=4))
    assert ans.cause == 1 and ans.seid == s.up_seid
    ans = dp.report_lcp_dead(s)
    assert ans.cause == 1 and ans.seid == s.up_seid
    dp.wait_deleted(s)
    assert c.padt_received.wait(5), "no PADT after the DP reported the subscriber dead"
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop["Acct-Terminate-Cause"] == "Lost-Carrier"
    assert (stop["Acct-Input-Gigawords"], stop["Acct-Input-Octets"]) == ("5", "7")
    assert stop["Acct-Output-Octets"] == "11"
    assert stop.get("Acct-Input-Packets") == "3" and stop.get("Acct-Output-Packets") == "4"


def test_padt_from_client(pod):
    c = pod.client(1, user="user8")
    res, s, start = dial_up(pod, c)
    c.send_padt()
    pod.dps[1].wait_deleted(s)
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop.get("Acct-Terminate-Cause")
    assert pool_settles(pod, "lg1", 0), pool_used(pod, "lg1")


def test_terminate_from_cp(pod):
    c = pod.client(1, user="user9")
    res, s, start = dial_up(pod, c)
    sid = session_id_of(pod, c.mac)
    if BNGCPCTL.exists():
        p = pod.cp.ctl("session", "terminate", sid)
        assert p.returncode == 0, p.stdout + p.stderr
    else:
        assert pod.cp.api("DELETE", f"/v1/sessions/{sid}")[0] in (200, 202, 204)
    assert got_teardown(c)
    pod.dps[1].wait_deleted(s)
    assert stop_of(pod, start["Acct-Session-Id"])["Acct-Terminate-Cause"] == "Admin-Reset"
    if BNGCPCTL.exists():
        p = pod.cp.ctl("session", "terminate", sid)
        assert p.returncode == 1 and p.stderr  # unknown now: a clear error


def test_disconnect_request(pod):
    c = pod.client(1, user="user10")
    res, s, start = dial_up(pod, c)
    asid = start["Acct-Session-Id"]
    assert "Disconnect-NAK" in pod.dynauth("disconnect", {"Acct-Session-Id": "no-such-session"})
    out = pod.dynauth("disconnect", {"Acct-Session-Id": asid}, secret="not-the-secret")  # noqa: S106
    assert "Received" not in out and pod.dps[1].session_of(c.mac) is s
    out = pod.dynauth("disconnect", {"Acct-Session-Id": asid, "User-Name": "user10"})
    assert "Disconnect-ACK" in out, out
    assert got_teardown(c)
    pod.dps[1].wait_deleted(s)
    assert stop_of(pod, asid)["Acct-Terminate-Cause"] in ("Admin-Reset", "Admin-Reboot")


def test_rebooted_cpe_second_padr(pod):
    c1 = pod.client(1, user="user11")
    res1, s1, start1 = dial_up(pod, c1)
    # the CPE reboots: no PADT, a new discovery from the same MAC on the same line
    c2 = PppoeClient(pod.dps[1], c1.mac, c1.stag, c1.ctag, user="user11", password="pw11")  # noqa: S106
    res2 = c2.dial(timeout=15)
    assert res2.ok, res2.reason
    dp = pod.dps[1]
    dp.wait_deleted(s1)
    s2 = dp.wait_session(c1.mac)
    assert s2.up_seid != s1.up_seid and s2.pppoe_sid == res2.session_id
    assert [x.mac for x in dp.sessions.values()].count(c1.mac) == 1
    stop_of(pod, start1["Acct-Session-Id"])
    start2 = pod.wait_accounting(Acct_Status_Type="Start", User_Name="user11", count=2)[-1]
    assert start2["Acct-Session-Id"] != start1["Acct-Session-Id"]
    assert sum(1 for v in pod.cp.sessions() if str(v.get("mac", "")).lower() == c1.mac) == 1


def test_coa_profile_change(pod):
    c = pod.client(1, user="user12")
    res, s, start = dial_up(pod, c)
    asid = start["Acct-Session-Id"]
    mark = pod.dps[1].mark()
    out = pod.dynauth("coa", {"Acct-Session-Id": asid, "Filter-Id": "gold"})
    assert "CoA-ACK" in out, out
    mod = pod.dps[1].wait_received(W.SESS_MOD_REQ, since=mark)[0]
    assert mod.msg.seid == s.up_seid
    assert s.qos == "gold"
    f = W.dissect_pcap(pod.dps[1].pcap(pod.dir / "coa.pcap", [mod]))[0]
    assert W.malformed(f) == []
    assert W.one(f, "pfcp.msg_type") == "52"
    assert b"gold".hex(":") in W.vals(f, "pfcp.forwarding_policy_id")
    # an unknown profile is refused and changes nothing
    n = len(s.mods)
    out = pod.dynauth("coa", {"Acct-Session-Id": asid, "Filter-Id": "platinum"})
    assert "CoA-NAK" in out, out
    time.sleep(0.5)
    assert len(s.mods) == n and s.qos == "gold"
    # explicit rates: Update QER (kbit/s)
    out = pod.dynauth(
        "coa", {"Acct-Session-Id": asid, "WISPr-Bandwidth-Max-Down": 40000000, "WISPr-Bandwidth-Max-Up": 8000000}
    )
    assert "CoA-ACK" in out, out
    pod.dps[1].wait(lambda: s.mbr_dl == 40000 and s.mbr_ul == 8000, 5, "Update QER")


def test_pool_exhaustion(pod):
    dp = pod.dps[2]
    size = ipaddress.IPv4Network(POOL[2]).num_addresses - 2  # network and broadcast
    clients, addrs = [], set()
    for i in range(size):
        c = pod.client(2, user=f"user{20 + i}")
        res = c.dial()
        assert res.ok, (i, res.reason)
        assert in_pool(res.ipv4, 2)
        addrs.add(res.ipv4)
        clients.append(c)
    assert len(addrs) == size
    dp.wait(lambda: len([s for s in dp.sessions.values() if not s.default]) == size, 10, "all installed")
    extra = pod.client(2, user="user30")
    res = extra.dial(timeout=10)
    assert not res.ok
    assert got_teardown(extra)
    assert no_establishment_for(dp, extra.mac)
    assert pool_settles(pod, "lg2", size), pool_used(pod, "lg2")
    # two leave, two others get their addresses
    for c in clients[:2]:
        assert c.terminate()
    dp.wait(lambda: len([s for s in dp.sessions.values() if not s.default]) == size - 2, 10, "two deleted")
    # an address goes back to the pool after the session's Accounting-Stop, which follows
    # the PFCP deletion (docs/cp/sessions.md)
    assert pool_settles(pod, "lg2", size - 2), pool_used(pod, "lg2")
    freed = {c.ipv4 for c in clients[:2]}
    again = set()
    for i in range(2):
        c = pod.client(2, user=f"user{31 + i}")
        res = c.dial()
        assert res.ok, res.reason
        again.add(res.ipv4)
        clients.append(c)
    assert again == freed
    for c in clients[2:]:
        assert c.terminate()
    dp.wait(lambda: not [s for s in dp.sessions.values() if not s.default], 10, "all deleted")
    assert pool_settles(pod, "lg2", 0), pool_used(pod, "lg2")


def test_padi_flood(pod):
    dp = pod.dps[1]
    flood = threading.Thread(target=dp.flood_padi, args=(3000, 101, 1))
    flood.start()
    try:
        results = []
        for i in range(3):
            results.append(pod.client(1, user=f"user{13 + i}", stag=102).dial(timeout=20))
        results.append(pod.client(2, user="user16").dial(timeout=20))
    finally:
        flood.join()
    assert all(r.ok for r in results), [r.reason for r in results]
    assert pod.cp.alive()
    assert pod.client(1, user="user17").dial().ok


@pytest.mark.cp(echo_interval=1, echo_failures=2, interim=2)
@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_cp_restart_keeps_sessions(pod, how):
    dp = pod.dps[1]
    up = [dial_up(pod, pod.client(1, user=u)) for u in ("user18", "user19")]
    asids = [start["Acct-Session-Id"] for _, _, start in up]
    for a in asids:  # interims run (the DP's periodic usage reports)
        pod.wait_accounting(timeout=10, Acct_Status_Type="Interim-Update", Acct_Session_Id=a)
    if how == "sigterm":
        assert pod.cp.stop() == 0
    else:
        pod.cp.kill()
    assoc = dp.assoc_count
    time.sleep(3.5)  # longer than echo interval x misses (2 s)
    before = {a: len(pod.accounting(Acct_Session_Id=a, Acct_Status_Type="Interim-Update")) for a in asids}
    pod.cp.start()
    pod.wait_ready()
    dp.wait(lambda: dp.assoc_count > assoc, 15, "re-association")
    for a in asids:
        pod.wait_accounting(timeout=15, count=before[a] + 1, Acct_Status_Type="Interim-Update", Acct_Session_Id=a)
    for _, s, _ in up:
        assert dp.sessions.get(s.up_seid) is s, "the DP session was deleted or replaced"
    assert dp.deleted == []
    assert pod.accounting(Acct_Status_Type="Stop") == []
    assert len(pod.accounting(Acct_Status_Type="Start")) == 2
    views = {str(v.get("acct_session_id")) for v in pod.cp.sessions()}
    assert set(asids) <= views
    for c in (x for x in dp.clients.values()):
        assert not c.padt_received.is_set() and not c.terminated_by_peer.is_set()


def test_dp_restart_repushes_sessions(pod):
    dp = pod.dps[1]
    up = [dial_up(pod, pod.client(1, user=u)) for u in ("user21", "user22")]
    keys = {s.content_key() for _, s, _ in up}
    assoc = dp.assoc_count
    dp.restart()
    dp.wait(lambda: dp.assoc_count > assoc, 30, "re-association after the DP restart")
    dp.wait(lambda: dp.default_session() and len(dp.sessions) == 3, 15, "default + 2 sessions re-pushed")
    assert {s.content_key() for s in dp.sessions.values() if not s.default} == keys
    assert pod.accounting(Acct_Status_Type="Stop") == []
    for c in dp.clients.values():
        assert not c.padt_received.is_set()


def test_establishment_decoded_by_tshark(pod):
    c = pod.client(1, user="rateuser")
    res, s, start = dial_up(pod, c)
    assert (s.mbr_dl, s.mbr_ul) == (30000, 5000)  # WISPr bit/s -> PFCP kbit/s
    dp = pod.dps[1]
    est = [r for r in dp.received(W.SESS_EST_REQ) if W.decode_session(r.msg, 0).mac == c.mac][0]
    default = [r for r in dp.received(W.SESS_EST_REQ) if W.decode_session(r.msg, 0).default][0]
    f, d = W.dissect_pcap(dp.pcap(pod.dir / "est.pcap", [est, default]))
    assert W.malformed(f) == [] and W.malformed(d) == []
    assert W.one(f, "pfcp.msg_type") == "50"
    assert W.one(f, "pfcp.bbf.pppoe_session_id") == f"0x{res.session_id:04x}"
    assert W.one(f, "pfcp.bbf.outer_hdr_creation.session_id") == f"0x{res.session_id:04x}"
    assert W.one(f, "pfcp.bbf.out_hdr_desc") == "3" and W.one(f, "pfcp.bbf.outer_hdr_desc") == "512"
    assert W.one(f, "pfcp.s_tag.svid") == f"0x{c.stag:04x}" and W.one(f, "pfcp.c_tag.cvid") == f"0x{c.ctag:04x}"
    assert W.one(f, "pfcp.mac_address.sour") == c.mac
    assert res.ipv4 in W.vals(f, "pfcp.ue_ip_addr_ipv4")
    assert W.one(f, "pfcp.dl_mbr") == "30000" and W.one(f, "pfcp.ul_mbr") == "5000"
    assert W.vals(f, "pfcp.bbf.mtu") in ([], ["1492"])
    assert W.one(f, "pfcp.bbf.verification_timer.interval") == "1"
    assert W.one(f, "pfcp.bbf.verification_timer.count") == "2"
    assert W.one(f, "pfcp.bbf.lcp_magic_number.tx") == f"0x{c.peer_magic:08x}"
    assert W.one(f, "pfcp.bbf.lcp_magic_number.rx") == f"0x{c.magic:08x}"
    assert set(W.vals(f, "pfcp.enterprise_id")) == {"3561"}
    assert W.vals(d, "pfcp.ethertype") == ["0x8863", "0x8864", "0x8864"]
    assert W.one(d, "pfcp.dst_interface") == "3"
    assert W.one(d, "pfcp.outer_hdr_creation.ipv4") == pod.dps[1].cp_address
    assert W.one(d, "pfcp.outer_hdr_creation.port") == "4789"


@pytest.mark.cp(lcp_offload={1: False}, echo_interval=1, echo_failures=2)
def test_cp_echoes_without_offload(pod):
    c = pod.client(1, user="user23")
    res, s, start = dial_up(pod, c)
    assert s.lcp is None  # the DP lacks the feature: no BBF PPP LCP Connectivity
    deadline = time.monotonic() + 5
    while c.echo_replies_sent == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert c.echo_replies_sent > 0, "the CP sends no LCP echoes of its own"
    c.auto_answer = False  # the CPE goes silent
    pod.dps[1].wait_deleted(s, timeout=10)
    assert stop_of(pod, start["Acct-Session-Id"])["Acct-Terminate-Cause"] == "Lost-Carrier"


def test_framed_ip_from_radius(pod):
    c = pod.client(1, user="fixedip")
    res, s, _ = dial_up(pod, c)
    assert res.ipv4 == s.ipv4 == "100.80.0.200"
    bad = pod.client(1, user="outside")
    res = bad.dial(timeout=10)
    assert not res.ok
    assert got_teardown(bad)
    assert no_establishment_for(pod.dps[1], bad.mac)


def test_only_the_owning_instance_answers(pod):
    # dp2 redirects a PADI for S-tag 100, a line of dp1: no PADO
    c = pod.client(2, user="user24", stag=100)
    res = c.dial(timeout=4)
    assert not res.ok and "PADO" in res.reason
    assert pod.client(1, user="user24").dial().ok


def test_garbage_does_not_hurt(pod):
    dp = pod.dps[1]
    base = bytes.fromhex("02bb00000001021100ffff018100 0064 8100 0001".replace(" ", ""))
    junk = [
        base + bytes.fromhex("8863 1109 0000 0010") + b"\x01\x01\x00\x20",  # tag runs past the payload
        base + bytes.fromhex("8863 1119 0000 0000"),  # PADR without cookie
        base + bytes.fromhex("8863 11a7 4321 0000"),  # PADT of no session
        base + bytes.fromhex("8864 1100 4321 0006 c021 0901 0004"),  # echo of no session
        base + bytes.fromhex("8864 1100 4321 0004 c021 01ff"),  # short LCP
        base + bytes.fromhex("8864 2200 4321 0000"),  # bad version
        base + bytes.fromhex("8863 1109 0000 ffff"),  # length beyond the frame
        base[:20],
    ]
    for _ in range(50):
        for j in junk:
            dp.send_frame(j)
    c = pod.client(1, user="user25")
    res, s, _ = dial_up(pod, c)
    # LCP garbage inside a live session does not kill it
    for body in (b"\x01", b"\x01\x05\x00\x02", b"\x09\x01\x00\x04", b"\xff\x01\x00\x08abcd"):
        c.send(c.ppp_frame(LCP, body))
    time.sleep(1)
    assert pod.dps[1].session_of(c.mac) is s and pod.cp.alive()
    assert dp.inject_errors == []
    assert not any(r.proto == LCP and r.ppp_code == TERM_REQ for r in c.rx)
    assert not any(r.discovery and r.code == PADT for r in c.rx)


@pytest.mark.cp(echo_interval=1, echo_failures=2)
def test_cp_restart_then_lcp_dead_and_new_sessions(pod):
    """After a restart the CP still owns its restored sessions: the DP's dead report for one
    ends it with the Acct-Session-Id it started with, and a new session gets a new one."""
    dp = pod.dps[1]
    c = pod.client(1, user="user26")
    res, s, start = dial_up(pod, c)
    assert pod.cp.stop() == 0
    time.sleep(3)
    pod.cp.start()
    pod.wait_ready()
    ans = dp.report_lcp_dead(s)
    assert ans.cause == 1, f"the restarted CP answered the dead report with cause {ans.cause}"
    dp.wait_deleted(s)
    assert c.padt_received.wait(5)
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop["Acct-Terminate-Cause"] == "Lost-Carrier" and stop["User-Name"] == "user26"
    _, _, start2 = dial_up(pod, pod.client(1, user="user27"))
    assert start2["Acct-Session-Id"] != start["Acct-Session-Id"]


def test_acct_session_id_unique_across_restarts(pod):
    seen = set()
    for i in range(3):
        _, _, start = dial_up(pod, pod.client(1, user=f"user{33 + i}"))
        assert start["Acct-Session-Id"] not in seen
        seen.add(start["Acct-Session-Id"])
        assert pod.cp.stop() == 0
        pod.cp.start()
        pod.wait_ready()


def test_radius_profile_and_class(pod):
    c = pod.client(1, user="golduser")
    res, s, start = dial_up(pod, c)
    assert s.qos == "gold"  # Filter-Id names the QoS profile: the Forwarding Policy
    assert start.all("Class") in (
        ["cls-gold-1", "cls-gold-2"],
        ["0x" + b"cls-gold-1".hex(), "0x" + b"cls-gold-2".hex()],
    )
    assert c.terminate()
    stop = stop_of(pod, start["Acct-Session-Id"])
    assert stop.all("Class") == start.all("Class")


@pytest.mark.cp(interim=30)
def test_interim_interval_from_radius(pod):
    """Acct-Interim-Interval from RADIUS (4 s) wins over --interim (30 s): two interims in 12 s."""
    c = pod.client(1, user="interim")
    _, s, start = dial_up(pod, c)
    pod.wait_accounting(
        timeout=12, count=2, Acct_Status_Type="Interim-Update", Acct_Session_Id=start["Acct-Session-Id"]
    )


def test_pppoe_max_payload(pod):
    """RFC 4638: a client that offers PPP-Max-Payload 1500 gets it echoed in the PADS and may
    negotiate an MRU of 1500; the DP is told the MTU."""
    c = pod.client(1, user="user36", max_payload=1500, mru=1500)
    res, s, _ = dial_up(pod, c)
    pads = next(r for r in c.rx if r.discovery and r.code == 0x65)
    assert pads.tag(0x0120) == b"\x05\xdc"
    assert s.mtu == 1500
    plain = pod.client(1, user="user37")
    res2, s2, _ = dial_up(pod, plain)
    assert res2.mru in (None, 1492) and s2.mtu in (None, 1492)


def test_discovery_tags_and_cookie(pod):
    c = pod.client(1, user="user38")
    relay = b"relay-agent-7"
    c.send(c.discovery_frame(0x09, tags((0x0101, b""), (0x0103, c.host_uniq), (0x0110, relay))))
    pado = c.expect(lambda r: r.discovery and r.code == PADO, 5, "PADO")
    assert pado.tag(0x0103) == c.host_uniq and pado.tag(0x0110) == relay  # RFC 2516: echoed
    assert pado.tag(0x0102) and pado.tag(0x0101) is not None and pado.tag(TAG_COOKIE)
    assert pado.session_id == 0 and pado.frame.src == AC_MAC[1]
    # a PADR with a forged cookie gets no session
    bad = bytes(x ^ 0x5A for x in pado.tag(TAG_COOKIE))
    c.ac_mac = pado.frame.src
    c.send(c.discovery_frame(0x19, tags((0x0101, b""), (0x0103, c.host_uniq), (0x0104, bad)), dst=c.ac_mac))
    time.sleep(1)
    assert not any(r.discovery and r.code == 0x65 and r.session_id for r in c.rx)
    # the genuine cookie does (and the Relay-Session-Id comes back in the PADS)
    pads = c.request(pado)
    assert pads.session_id not in (0, 0xFFFF) and pads.tag(0x0110) == relay


def test_same_mac_on_two_lines(pod):
    """The same MAC behind two C-tags is two subscribers (ids are per line and MAC)."""
    a = pod.client(1, user="user39", ctag=501, mac="02:11:00:aa:00:01")
    ra, sa, _ = dial_up(pod, a)
    # the fake DP routes frames by MAC, so the second client takes over the MAC from here on
    b = PppoeClient(pod.dps[1], a.mac, a.stag, 502, user="user40", password="pw40")  # noqa: S106
    rb, sb, _ = dial_up(pod, b)
    assert pod.dps[1].sessions.get(sa.up_seid) is sa, "the first subscriber's session was replaced"
    assert (sa.ctag, sb.ctag) == (501, 502) and ra.ipv4 != rb.ipv4


def test_8021ad_access_port(pod):
    """dp2's access port is 802.1ad: the client tags with 0x88a8 and the CP answers in kind."""
    c = pod.client(2, user="user1")
    assert c.outer_tpid == 0x88A8
    res, s, _ = dial_up(pod, c)
    pado = next(r for r in c.rx if r.discovery and r.code == PADO)
    assert bytes(pado.frame)[12:14] == b"\x88\xa8"
    assert (s.stag, s.ctag) == (c.stag, c.ctag)


def test_control_frames_decoded_by_tshark(pod):
    """Every frame of a PAP dial and hang-up, both ways in VXLAN, as tshark reads them."""
    dp = pod.dps[1]
    dp.vxlan_log.clear()
    c = pod.client(1, user="user2")
    res, s, _ = dial_up(pod, c)
    assert c.terminate()
    dp.wait_deleted(s)
    time.sleep(0.3)
    prefixes = ("vxlan", "pppoe", "ppp", "lcp", "pap", "ipcp", "vlan", "eth")
    pkts = W.dissect_pcap(dp.vxlan_pcap(pod.dir / "vxlan.pcap"), prefixes)
    from_cp = [f for (way, _), f in zip(dp.vxlan_log, pkts, strict=True) if way == "rx"]
    assert from_cp
    for f in pkts:
        assert W.malformed(f) == [], f
        assert W.one(f, "vxlan.vni") == "1"
    for f in from_cp:
        assert W.one(f, "eth.src") == AC_MAC[1] and W.one(f, "eth.dst") == c.mac
        assert W.vals(f, "vlan.id") == [str(c.stag), str(c.ctag)]
    codes = [v for f in from_cp for v in W.vals(f, "pppoe.code") if v != "0x00"]
    assert codes[:2] == ["0x07", "0x65"]  # PADO, PADS
    conf_req = [f for f in from_cp if W.vals(f, "ppp.protocol") == ["0xc021"] and W.vals(f, "ppp.code") == ["1"]]
    assert conf_req
    assert W.vals(conf_req[-1], "lcp.opt.mru") in ([], ["1492"])
    assert int(W.one(conf_req[-1], "lcp.opt.magic_number"), 16) == c.peer_magic
    assert any(v == "2" for f in from_cp for v in W.vals(f, "pap.code"))  # Authenticate-Ack
    assert res.ipv4 in [v for f in from_cp for v in W.vals(f, "ipcp.opt.ip_address")]
    assert DNS[0] in [v for f in from_cp for v in W.vals(f, "ipcp.opt.pri_dns_address")]


def test_many_concurrent_dials(pod):
    """60 subscribers dialling at once on both instances: all up, no address twice, one PFCP
    session and one Accounting-Start each."""
    clients = [pod.client(1, user=f"user{1 + i % 40}") for i in range(60)]
    results: dict[str, object] = {}

    def go(c):
        results[c.mac] = c.dial(timeout=30)

    threads = [threading.Thread(target=go, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = {m: r.reason for m, r in results.items() if not r.ok}
    assert bad == {}
    addrs = [r.ipv4 for r in results.values()]
    assert len(set(addrs)) == len(addrs) and all(in_pool(a, 1) for a in addrs)
    dp = pod.dps[1]
    dp.wait(lambda: len([s for s in dp.sessions.values() if not s.default]) == len(clients), 15, "60 sessions")
    assert {s.ipv4 for s in dp.sessions.values() if not s.default} == set(addrs)
    assert {s.pppoe_sid for s in dp.sessions.values() if not s.default} == {r.session_id for r in results.values()}
    pod.wait_accounting(timeout=15, count=len(clients), Acct_Status_Type="Start")
    assert dp.inject_errors == []


def test_session_timeout_from_radius(pod):
    c = pod.client(1, user="shortlived")
    res, s, start = dial_up(pod, c)
    pod.dps[1].wait_deleted(s, timeout=10)
    assert got_teardown(c)
    assert stop_of(pod, start["Acct-Session-Id"])["Acct-Terminate-Cause"] == "Session-Timeout"


LOCAL_USERS = """# a lab users file
localuser  Cleartext-Password := "local-pw"
    Framed-IP-Address = 100.80.0.77,
    Filter-Id = "gold"
"""


@pytest.mark.cp(users_file=LOCAL_USERS)
def test_local_users_file(pod):
    """With --users the CP authenticates from the file, without asking RADIUS."""
    c = pod.client(1, user="localuser", password="local-pw")  # noqa: S106
    res = c.dial()
    assert res.ok, res.reason
    s = pod.dps[1].wait_session(c.mac)
    assert res.ipv4 == s.ipv4 == "100.80.0.77" and s.qos == "gold"
    bad = pod.client(1, user="localuser", password="nope")  # noqa: S106
    assert not bad.dial(timeout=10).ok
    assert pod.access_requests("localuser") == []
