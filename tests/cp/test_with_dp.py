"""bng-cp against a real bng-dp: the two ends of the PFCP and VXLAN contracts together.

The rest of tests/cp checks bng-cp against an independent fake DP, and tests/dp checks
bng-dp against an independent CP; here the real pair runs (bng-dp on veths in the rig of
tests/harness/rig.py, bng-cp in the rig's CP namespace, lab pod instance dp1) and a scapy CPE
(tests/harness/pppoe_client.py, not built on our codecs) dials on the access wire: discovery,
LCP, CHAP (users file), IPCP through the DP's redirect, the session installed by PFCP
carries traffic both ways, the DP answers LCP echoes itself, its dead-peer report ends the
session (PADT injected through the DP), and a PADT from the CPE removes it from the DP."""

from __future__ import annotations

import ipaddress
import subprocess
from pathlib import Path

import pytest
import yaml
from harness.frames import AC_MAC, CORE_MAC, ROUTER_ADDR, UDP, Ether
from harness.pppoe_client import PppoeClient
from harness.rig import NS_CP, DpRig, cleanup_stale
from harness.wiredp import (
    LAB,
    WireDp,
    ctl,
    dp_sessions,
    instances,
    lab_cp_doc,
    require_dp,
    send_downstream,
    send_upstream,
    stop,
    wait,
)

from bngpod.binaries import BNG_CP

PASSWORD = "wonderland"  # noqa: S105 (a lab user on veths)
POOL = ipaddress.ip_network("100.80.0.0/22")  # lg1's pool


def _cp_yaml(path: Path) -> None:
    """The lab pod's cp.yaml reduced to dp1 (the rig runs that one instance)."""
    path.write_text(yaml.safe_dump(lab_cp_doc({1}), sort_keys=False))


@pytest.fixture(scope="module")
def pair(cp_prereqs, tmp_path_factory):
    require_dp()
    work = tmp_path_factory.mktemp("cpdp")
    _cp_yaml(work / "cp.yaml")
    (work / "users").write_text('alice  Cleartext-Password := "wonderland"\n')
    rig = DpRig(LAB / "dp" / "dp1.ini").start()
    wire = cp = log = None
    try:
        wire = WireDp(rig)
        log = open(work / "bng-cp.log", "wb")  # noqa: SIM115 (closed below)
        cp = subprocess.Popen(
            ["ip", "netns", "exec", NS_CP, str(BNG_CP), "--config", str(work / "cp.yaml"),
             "--state", str(work / "state"), "--users", str(work / "users"), "--ctl", str(work / "cp.sock"),
             "--lcp-echo-interval", "1s", "--lcp-echo-failures", "2", "--interim", "2s", "--auth", "chap"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        pair = {"rig": rig, "wire": wire, "cp": cp, "work": work}
        wait(lambda: instances(work).get("dp1") == "associated", 15, "bng-cp associated with bng-dp")
        # The DP resolves the core router itself (WireDp answers its ARP request).
        wait(lambda: "reachable" in str(rig.telemetry(f"/bng/arp,{ROUTER_ADDR}")), 15, "router resolved")
        yield pair
    finally:
        stop(cp, 10)
        if log is not None:
            log.close()
            print("--- bng-cp log (tail) ---\n" + (work / "bng-cp.log").read_text()[-3000:])
        if wire is not None:
            wire.close()
        rig.close()
        cleanup_stale()


def test_dial_through_the_real_dp(pair):
    rig, wire, work = pair["rig"], pair["wire"], pair["work"]
    assert pair["cp"].poll() is None
    client = PppoeClient(wire, "02:00:00:c9:00:01", 100, 7, user="alice", password=PASSWORD, auth="chap")
    res = client.dial(timeout=20)
    assert res.ok, res.reason
    assert res.ac_mac == AC_MAC and res.auth == "chap"
    assert ipaddress.ip_address(res.ipv4) in POOL
    # The session in the DP is the one the CPE negotiated.
    s = wait(lambda: dp_sessions(rig), 5, "session installed in bng-dp")[0]
    assert (s["stag"], s["ctag"], s["pppoe_sid"], s["mac"], s["ipv4"]) == (
        100, 7, res.session_id, "02:00:00:c9:00:01", res.ipv4,
    )  # fmt: skip
    assert s["mtu"] == 1492 and s["lcp_offload"] == 1
    view = ctl(work, "sessions")
    assert [v["pppoe_session_id"] for v in view] == [res.session_id] and view[0]["state"] == "established"

    # Upstream: the CPE's packet leaves on the core side, decapsulated, to the router.
    up = send_upstream(wire, client, res.ipv4, b"q" * 32)
    assert up[Ether].src == CORE_MAC and bytes(up[UDP].payload) == b"q" * 32

    # Downstream: a packet to the subscriber reaches the CPE in its PPPoE session.
    down = send_downstream(wire, client, res.ipv4, CORE_MAC, b"a" * 32)
    assert down.session_id == res.session_id and down.frame[Ether].src == AC_MAC

    # LCP keepalive offload: the DP sends the echoes, the CPE answers them.
    wait(lambda: client.echo_replies_sent >= 2, 6, "LCP echoes from bng-dp")
    s = dp_sessions(rig)[0]
    assert s["lcp_replies"] >= 2 and s["lcp_dead"] == 0

    # The CPE goes silent: the DP reports it dead, the CP ends the session: PADT to the
    # CPE through the DP, the session gone from both.
    client.auto_answer = False
    wait(client.padt_received.is_set, 10, "PADT after unanswered echoes")
    wait(lambda: not dp_sessions(rig), 5, "session deleted from bng-dp")
    wait(lambda: ctl(work, "sessions") == [], 5, "session gone from bng-cp")
    log = (work / "bng-cp.log").read_text()
    assert '"cause":"lost-carrier"' in log


def test_padt_from_the_cpe_removes_the_session(pair):
    rig, wire, work = pair["rig"], pair["wire"], pair["work"]
    client = PppoeClient(wire, "02:00:00:c9:00:02", 101, 9, user="alice", password=PASSWORD, auth="chap")
    res = client.dial(timeout=20)
    assert res.ok, res.reason
    wait(lambda: any(s["pppoe_sid"] == res.session_id for s in dp_sessions(rig)), 5, "session in bng-dp")
    client.send_padt()
    wait(lambda: not any(s["pppoe_sid"] == res.session_id for s in dp_sessions(rig)), 5, "session deleted")
    wait(lambda: ctl(work, "sessions") == [], 5, "session gone from bng-cp")
    pools = ctl(work, "pools")
    assert [p["used"] for p in pools] == [0], pools


def test_wrong_password_never_reaches_the_dp(pair):
    rig, wire = pair["rig"], pair["wire"]
    client = PppoeClient(wire, "02:00:00:c9:00:03", 102, 3, user="alice", password=PASSWORD + "x", auth="chap")
    res = client.dial(timeout=15)
    assert not res.ok
    assert not dp_sessions(rig)
