"""bng-cp against a real bng-dp: the two ends of the PFCP and VXLAN contracts together.

The rest of tests/cp checks bng-cp against an independent fake DP, and tests/dp checks
bng-dp against an independent CP; here the real pair runs (bng-dp on veths in the rig of
tests/dp/rig.py, bng-cp in the rig's CP namespace, lab pod instance dp1) and a scapy CPE
(tests/cp/pppoe_client.py, not built on our codecs) dials on the access wire: discovery,
LCP, CHAP (users file), IPCP through the DP's redirect, the session installed by PFCP
carries traffic both ways, the DP answers LCP echoes itself, its dead-peer report ends the
session (PADT injected through the DP), and a PADT from the CPE removes it from the DP."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from dp.frames import AC_MAC, CORE_MAC, INTERNET, IP, ROUTER_ADDR, ROUTER_MAC, UDP, Ether, Raw
from dp.rig import NS_CP, REPO, DpRig, cleanup_stale

from .pod import BNG_CP, BNGCPCTL
from .pppoe_client import IPV4, PppoeClient
from .wiredp import WireDp

LAB = REPO / "topology" / "tests" / "golden" / "lab"
PASSWORD = "wonderland"  # noqa: S105 (a lab user on veths)
POOL = ipaddress.ip_network("100.80.0.0/22")  # lg1's pool


def _cp_yaml(path: Path) -> None:
    """The lab pod's cp.yaml reduced to dp1 (the rig runs that one instance)."""
    doc = yaml.safe_load((LAB / "cp.yaml").read_text())
    doc["instances"] = [i for i in doc["instances"] if i["id"] == 1]
    groups = set(doc["instances"][0]["line_groups"])
    doc["line_groups"] = [g for g in doc["line_groups"] if g["name"] in groups]
    doc["pools"] = [p for p in doc["pools"] if p["line_group"] in groups]
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def _wait(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def pair(cp_prereqs, tmp_path_factory):
    if os.geteuid() != 0 or not (REPO / "server-dp" / "build" / "bng-dp").exists():
        why = "needs root and a built bng-dp"
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(why)
        pytest.skip(why)
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
        _wait(lambda: _instances(work).get("dp1") == "associated", 15, "bng-cp associated with bng-dp")
        # The DP resolves the core router itself (WireDp answers its ARP request).
        _wait(lambda: "reachable" in str(rig.telemetry(f"/bng/arp,{ROUTER_ADDR}")), 15, "router resolved")
        yield pair
    finally:
        if cp is not None and cp.poll() is None:
            cp.send_signal(signal.SIGTERM)
            try:
                cp.wait(10)
            except subprocess.TimeoutExpired:
                cp.kill()
                cp.wait()
        if log is not None:
            log.close()
            print("--- bng-cp log (tail) ---\n" + (work / "bng-cp.log").read_text()[-3000:])
        if wire is not None:
            wire.close()
        rig.close()
        cleanup_stale()


def _ctl(work: Path, *args: str) -> object:
    out = subprocess.run(
        [str(BNGCPCTL), "--socket", str(work / "cp.sock"), *args, "-o", "json"],
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def _instances(work: Path) -> dict[str, str]:
    v = _ctl(work, "instances")
    return {i["name"]: i["state"] for i in v} if v else {}


def _dp_sessions(rig) -> list[dict]:
    ids = rig.telemetry("/bng/sessions").get("ids", [])
    return [rig.telemetry(f"/bng/sessions,{i}") for i in ids]


def test_dial_through_the_real_dp(pair):
    rig, wire, work = pair["rig"], pair["wire"], pair["work"]
    assert pair["cp"].poll() is None
    client = PppoeClient(wire, "02:00:00:c9:00:01", 100, 7, user="alice", password=PASSWORD, auth="chap")
    res = client.dial(timeout=20)
    assert res.ok, res.reason
    assert res.ac_mac == AC_MAC and res.auth == "chap"
    assert ipaddress.ip_address(res.ipv4) in POOL
    # The session in the DP is the one the CPE negotiated.
    s = _wait(lambda: _dp_sessions(rig), 5, "session installed in bng-dp")[0]
    assert (s["stag"], s["ctag"], s["pppoe_sid"], s["mac"], s["ipv4"]) == (
        100, 7, res.session_id, "02:00:00:c9:00:01", res.ipv4,
    )  # fmt: skip
    assert s["mtu"] == 1492 and s["lcp_offload"] == 1
    view = _ctl(work, "sessions")
    assert [v["pppoe_session_id"] for v in view] == [res.session_id] and view[0]["state"] == "established"

    # Upstream: the CPE's packet leaves on the core side, decapsulated, to the router.
    payload = IP(src=res.ipv4, dst=INTERNET) / UDP(sport=4000, dport=53) / Raw(b"q" * 32)
    client.send(client.ppp_frame(IPV4, bytes(payload)))

    def core_frame():
        while True:
            try:
                f = wire.core.get(timeout=0.2)
            except Exception:  # noqa: BLE001 (queue.Empty)
                return None
            p = Ether(f)
            if IP in p and p[IP].src == res.ipv4 and p[Ether].dst == ROUTER_MAC:
                return p

    up = _wait(core_frame, 5, "upstream packet on the core side")
    assert up[Ether].src == CORE_MAC and bytes(up[UDP].payload) == b"q" * 32

    # Downstream: a packet to the subscriber reaches the CPE in its PPPoE session.
    wire.send_core(
        bytes(
            Ether(src=ROUTER_MAC, dst=CORE_MAC)
            / IP(src=INTERNET, dst=res.ipv4)
            / UDP(sport=53, dport=4000)
            / Raw(b"a" * 32)
        )
    )
    down = client.expect(lambda rx: rx.proto == IPV4, timeout=5, what="downstream IPv4 in the session")
    assert down.session_id == res.session_id and down.frame[Ether].src == AC_MAC

    # LCP keepalive offload: the DP sends the echoes, the CPE answers them.
    _wait(lambda: client.echo_replies_sent >= 2, 6, "LCP echoes from bng-dp")
    s = _dp_sessions(rig)[0]
    assert s["lcp_replies"] >= 2 and s["lcp_dead"] == 0

    # The CPE goes silent: the DP reports it dead, the CP ends the session: PADT to the
    # CPE through the DP, the session gone from both.
    client.auto_answer = False
    _wait(client.padt_received.is_set, 10, "PADT after unanswered echoes")
    _wait(lambda: not _dp_sessions(rig), 5, "session deleted from bng-dp")
    _wait(lambda: _ctl(work, "sessions") == [], 5, "session gone from bng-cp")
    log = (work / "bng-cp.log").read_text()
    assert '"cause":"lost-carrier"' in log


def test_padt_from_the_cpe_removes_the_session(pair):
    rig, wire, work = pair["rig"], pair["wire"], pair["work"]
    client = PppoeClient(wire, "02:00:00:c9:00:02", 101, 9, user="alice", password=PASSWORD, auth="chap")
    res = client.dial(timeout=20)
    assert res.ok, res.reason
    _wait(lambda: any(s["pppoe_sid"] == res.session_id for s in _dp_sessions(rig)), 5, "session in bng-dp")
    client.send_padt()
    _wait(lambda: not any(s["pppoe_sid"] == res.session_id for s in _dp_sessions(rig)), 5, "session deleted")
    _wait(lambda: _ctl(work, "sessions") == [], 5, "session gone from bng-cp")
    pools = _ctl(work, "pools")
    assert [p["used"] for p in pools] == [0], pools


def test_wrong_password_never_reaches_the_dp(pair):
    rig, wire = pair["rig"], pair["wire"]
    client = PppoeClient(wire, "02:00:00:c9:00:03", 102, 3, user="alice", password=PASSWORD + "x", auth="chap")
    res = client.dial(timeout=15)
    assert not res.ok
    assert not _dp_sessions(rig)
