"""Line-group adoption on the real bng-dp (docs/dp/pfcp.md, "bngpod Line Group IE").

dp1's INI (topology/tests/golden/lab/dp/dp1.ini) lists the whole lab pod: lg1 served,
lg2..lg4 standby. lg2 (lines S 200-249 on access2, downstream TPID 0x88a8, and S 150-159
on access1; pool 100.80.4.0/22) is known but not served until the CP adopts it with a PFCP
Association Update carrying the bngpod Line Group IE; the IE's AC MAC, core MAC and core
address replace the INI's. A release makes it standby again and deletes its sessions.

The module has its own bng-dp (the `dp` fixture is per module), so the adoptions here do
not leak into the other modules' instance."""

from __future__ import annotations

import shutil

import pytest
from harness.frames import (
    ARP,
    INTERNET,
    IP,
    PPP,
    ROUTER_ADDR,
    ROUTER_MAC,
    UDP,
    Dot1AD,
    Dot1Q,
    Ether,
    PPPoE,
    Raw,
    Sub,
    arp_request_for,
)
from harness.pfcp_cp import LG_ADOPT, LG_RELEASE, Cp, _cause, line_group_ie, line_group_value

from .test_datapath import frames_where, stat_delta

# lg2 as the INI has it
INI_AC_MAC = "02:bb:00:00:00:02"
INI_CORE_MAC = "02:cc:00:00:00:02"
INI_CORE_ADDR = "100.64.0.12"
# what the adoption gives it instead (as ONOS would after moving it here)
AC_MAC = "02:bb:00:00:00:22"
CORE_MAC = "02:cc:00:00:00:22"
CORE_ADDR = "100.64.0.22"


def lg2_sub(ctag: int) -> Sub:
    return Sub(
        stag=200,
        ctag=ctag,
        mac=f"02:22:00:00:00:{ctag:02x}",
        sid=0x0300 + ctag,
        ipv4=f"100.80.4.{ctag}",
        logical_port="access2",
    )


def up_frame(sub: Sub, dst_mac: str) -> bytes:
    """An upstream IPv4 packet of an lg2 subscriber, 802.1ad outer tag as access2 uses."""
    pkt = IP(src=sub.ipv4, dst=INTERNET, ttl=64) / UDP(sport=4000, dport=53) / Raw(b"q" * 32)
    return bytes(
        Ether(src=sub.mac, dst=dst_mac)
        / Dot1AD(vlan=sub.stag)
        / Dot1Q(vlan=sub.ctag)
        / PPPoE(sessionid=sub.sid)
        / PPP(proto=0x0021)
        / pkt
    )


def down_frame(sub: Sub, core_mac: str) -> bytes:
    pkt = IP(src=INTERNET, dst=sub.ipv4, ttl=20) / UDP(sport=53, dport=4000) / Raw(b"a" * 32)
    return bytes(Ether(src=ROUTER_MAC, dst=core_mac) / pkt)


def arp_answers(dp, addr: str, timeout: float = 1.0) -> list:
    dp.wire.drain()
    dp.wire.send(bytes(arp_request_for(addr)))
    return frames_where(dp, lambda p: ARP in p and p[ARP].op == 2 and p[ARP].psrc == addr, timeout=timeout)


def groups(dp) -> dict:
    return dp.telemetry("/bng/line_groups")["groups"]


def adopt_value(name: str = "lg2", core_addr: str = CORE_ADDR) -> bytes:
    return line_group_value(LG_ADOPT, name, AC_MAC, CORE_MAC, core_addr)


@pytest.fixture
def lg2_standby(dp, cp):
    """Each test starts and ends with lg2 standby."""
    assert cp.release_group("lg2") == 1
    yield
    assert cp.release_group("lg2") == 1


def test_an_update_before_association_is_refused(dp):
    """Runs first, before the module's CP associates: cause 72, nothing adopted."""
    cp = Cp.for_rig(dp)
    try:
        assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 72
    finally:
        cp.close()
    assert groups(dp)["lg2"] == "standby"
    assert dp.telemetry("/bng/pfcp")["lg_adopts"] == 0


def test_the_ini_knows_the_whole_pod(dp):
    assert groups(dp) == {"lg1": "served", "lg2": "standby", "lg3": "standby", "lg4": "standby"}


def test_a_standby_group_is_not_served(dp, cp, lg2_standby):
    sub = lg2_sub(11)
    before = dp.stats()
    refused = dp.telemetry("/bng/sessions")["refused_line"]
    for dst in (INI_AC_MAC, AC_MAC):
        dp.wire.send(up_frame(sub, dst))
    assert stat_delta(dp, before, "drop_unserved_line", 2) == 2
    assert cp.establish(sub)[2] == 73, "an establishment on a standby line is refused like an unknown line"
    assert dp.telemetry("/bng/sessions")["refused_line"] == refused + 1
    assert not arp_answers(dp, INI_CORE_ADDR, 0.5), "a standby group's core address is not answered"
    before = dp.stats()
    dp.wire.send(down_frame(sub, INI_CORE_MAC))
    assert stat_delta(dp, before, "drop_dst_mac", 1) == 1


def test_adoption_serves_the_group_with_the_ies_addresses(dp, cp, lg2_standby):
    sub = lg2_sub(12)
    adopts = dp.telemetry("/bng/pfcp")["lg_adopts"]
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 1
    assert groups(dp)["lg2"] == "served"
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 1, "idempotent"
    assert dp.telemetry("/bng/pfcp")["lg_adopts"] == adopts + 2
    assert dp.telemetry("/bng/line_groups")["adopted"] >= 1

    _cp_seid, up_seid, cause = cp.establish(sub)
    assert cause == 1
    # upstream: to the IE's AC MAC, out from the IE's core MAC
    dp.wire.drain()
    dp.wire.send(up_frame(sub, AC_MAC))
    got = frames_where(dp, lambda p: IP in p and p[IP].src == sub.ipv4 and Dot1Q not in p and Dot1AD not in p)
    assert got, "no core frame"
    assert got[0][Ether].src == CORE_MAC and got[0][Ether].dst == ROUTER_MAC and got[0][IP].ttl == 63
    # downstream: to the IE's core MAC, out from the IE's AC MAC with access2's tags
    dp.wire.drain()
    dp.wire.send(down_frame(sub, CORE_MAC))
    got = frames_where(dp, lambda p: PPPoE in p and p[Ether].dst == sub.mac)
    assert got, "no access frame"
    p = got[0]
    assert p[Ether].src == AC_MAC and p[Ether].type == 0x88A8
    assert p[Dot1AD].vlan == 200 and p[Dot1Q].vlan == sub.ctag and p[PPPoE].sessionid == sub.sid
    assert p[IP].dst == sub.ipv4 and p[IP].ttl == 19
    # the INI's AC MAC is not ours any more
    before = dp.stats()
    dp.wire.send(up_frame(sub, INI_AC_MAC))
    assert stat_delta(dp, before, "drop_dst_mac", 1) == 1
    # ARP: the IE's core address is answered from the IE's core MAC, the INI's is not
    got = arp_answers(dp, CORE_ADDR)
    assert got and got[0][ARP].hwsrc == CORE_MAC and got[0][Ether].src == CORE_MAC
    assert not arp_answers(dp, INI_CORE_ADDR, 0.5)
    # lg1 is untouched
    assert groups(dp)["lg1"] == "served"

    # release: the session is deleted, frames dropped again, ARP silent
    sessions = dp.telemetry("/bng/sessions")["count"]
    deleted = dp.telemetry("/bng/pfcp")["lg_sessions_deleted"]
    assert cp.release_group("lg2") == 1
    assert groups(dp)["lg2"] == "standby"
    assert dp.telemetry("/bng/sessions")["count"] == sessions - 1
    assert dp.telemetry("/bng/pfcp")["lg_sessions_deleted"] == deleted + 1
    assert dp.telemetry("/bng/line_groups")["released"] >= 1
    assert cp.delete(up_seid)[0] == 65, "the released session's context is gone"
    before = dp.stats()
    dp.wire.drain()
    dp.wire.send(up_frame(sub, AC_MAC))
    dp.wire.send(down_frame(sub, CORE_MAC))
    assert stat_delta(dp, before, "drop_unserved_line", 1) == 1
    assert stat_delta(dp, before, "drop_dst_mac", 1) == 1
    assert not frames_where(dp, lambda p: IP in p and p[IP].src == sub.ipv4, timeout=0.3)
    assert not arp_answers(dp, CORE_ADDR, 0.5)
    assert cp.release_group("lg2") == 1, "idempotent"


def test_refusals_are_cause_64_and_change_nothing(dp, cp, lg2_standby):
    refused = dp.telemetry("/bng/line_groups")["refused"]
    assert cp.adopt("lg9", AC_MAC, CORE_MAC, CORE_ADDR) == 64, "unknown group"
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, "100.64.0.11") == 64, "lg1's core address"
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, ROUTER_ADDR) == 64, "the router's address"
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, "100.65.0.1") == 64, "outside the core subnet"
    assert cp.adopt("lg1", AC_MAC, CORE_MAC, "100.64.0.11") == 64, "served with other addresses"
    assert dp.telemetry("/bng/line_groups")["refused"] == refused + 5
    assert groups(dp) == {"lg1": "served", "lg2": "standby", "lg3": "standby", "lg4": "standby"}
    # lg3 and lg4 split S-tag 300 on access3 by C-tag: both may be served next to lg1
    assert cp.adopt("lg3", "02:bb:00:00:00:33", "02:cc:00:00:00:33", "100.64.0.33") == 1
    assert cp.adopt("lg4", "02:bb:00:00:00:44", "02:cc:00:00:00:44", "100.64.0.44") == 1
    assert groups(dp) == {"lg1": "served", "lg2": "standby", "lg3": "served", "lg4": "served"}
    assert cp.release_group("lg3") == 1 and cp.release_group("lg4") == 1


MALFORMED = {
    "short": adopt_value()[:17],
    "trailing octet": adopt_value() + b"\0",
    "name length beyond the IE": adopt_value()[:17] + bytes([9]) + b"lg2",
    "name length 0": adopt_value()[:17] + b"\0",
    "action 0": b"\0" + adopt_value()[1:],
    "action 3": b"\3" + adopt_value()[1:],
    "name starts with a dot": line_group_value(LG_ADOPT, ".lg2", AC_MAC, CORE_MAC, CORE_ADDR),
    "name with a slash": line_group_value(LG_ADOPT, "lg/2", AC_MAC, CORE_MAC, CORE_ADDR),
    "name of 64 octets": line_group_value(LG_ADOPT, "g" * 64, AC_MAC, CORE_MAC, CORE_ADDR),
    "multicast AC MAC": line_group_value(LG_ADOPT, "lg2", "03:bb:00:00:00:22", CORE_MAC, CORE_ADDR),
    "zero core MAC": line_group_value(LG_ADOPT, "lg2", AC_MAC, "00:00:00:00:00:00", CORE_ADDR),
    "multicast core address": line_group_value(LG_ADOPT, "lg2", AC_MAC, CORE_MAC, "224.0.0.1"),
    "empty": b"",
    "release with trailing octets": line_group_value(LG_RELEASE, "lg2", AC_MAC, CORE_MAC, CORE_ADDR) + b"xx",
}


def test_malformed_ies_answer_69_and_the_dp_keeps_running(dp, cp, lg2_standby):
    for what, value in MALFORMED.items():
        assert _cause(cp.association_update(line_group_ie(value))) == 69, what
    two = (line_group_ie(adopt_value()), line_group_ie(adopt_value()))
    assert _cause(cp.association_update(*two)) == 69, "two Line Group IEs"
    assert _cause(cp.association_update()) == 66, "no Line Group IE"
    assert _cause(cp.association_update(line_group_ie(adopt_value()), node_id=False)) == 66, "no Node ID"
    assert dp.proc.poll() is None
    assert groups(dp)["lg2"] == "standby"
    assert cp.heartbeat() > 0
    # and a good one still works afterwards
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 1
    assert cp.release_group("lg2") == 1
    pf = dp.telemetry("/bng/pfcp")
    assert pf["rejected_cause_69"] >= len(MALFORMED) + 1


def test_the_update_and_its_answer_decode_in_tshark(dp, cp, lg2_standby, tmp_path):
    from harness.tshark import clean, dissect, one, vals

    if shutil.which("tshark") is None:
        pytest.fail("tshark is not installed (scripts/setup.sh installs it)")
    n = len(cp.received)
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 1
    req = cp.last_request
    rsp = next(d for d in cp.received[n:] if d[1] == 8)
    assert cp.release_group("lg2") == 1
    f_req, f_rsp = dissect(tmp_path, [(req, True), (rsp, False)])
    clean(f_req)
    clean(f_rsp)
    assert one(f_req, "pfcp.msg_type") == "7" and one(f_rsp, "pfcp.msg_type") == "8"
    assert one(f_rsp, "pfcp.cause") == "1" and one(f_rsp, "pfcp.node_id_ipv4") == dp.DP_CTRL
    assert vals(f_req, "pfcp.enterprise_id") == ["32473"]
    assert one(f_req, "pfcp.node_id_ipv4") == cp.node_ip


def test_refusals_are_logged_and_a_restart_starts_from_the_ini(dp, cp):
    """Last test of the module: it restarts the DP (the module's CP socket goes with it)."""
    assert cp.adopt("lg2", AC_MAC, CORE_MAC, CORE_ADDR) == 1
    assert dp.stop() == 0
    text = dp.log.decode(errors="replace")
    assert "line group 'lg9': adoption refused: not a line group" in text
    assert "line group 'lg2': adoption refused: core address is served by group 'lg1'" in text
    assert "line group 'lg1': adoption refused: served with other addresses" in text
    assert "line group 'lg2': AC MAC 02:bb:00:00:00:02 -> 02:bb:00:00:00:22" in text
    assert "line group 'lg2' adopted: served" in text and "line group 'lg2' released: standby" in text
    dp.start()
    assert groups(dp) == {"lg1": "served", "lg2": "standby", "lg3": "standby", "lg4": "standby"}
