"""A line group moved by ONOS onto the real bng-dp: bng-cp, the fake ONOS and bng-dp together.

tests/cp/test_onos.py moves a group between two fake DPs and tests/dp/test_line_group.py
adopts one on bng-dp with a Python CP; here the real pair does it. The arrangement:

    NS_CP (tests/harness/rig.py's CP namespace)                  NS_DP
      bng-cp       10.200.0.1   (PFCP, VXLAN)  -- veth --  bng-dp dp1 10.200.0.11 (instance 1)
      fake dp2     10.200.0.12  (tests/cp/fakedp.py, instance 2, serves lg2 at first)
      fake ONOS    127.0.0.1    (tests/harness/fakeonos.py)

bng-dp runs the lab pod's dp1.ini, which holds lg2 (access2 S-tags 200-249, 802.1ad) as
standby. The CPE dials on lg2 through the fake dp2 (VXLAN redirect to bng-cp); then the
switch would re-steer its line to dp1 (the test re-attaches the CPE to bng-dp's wire, as
tests/harness/wiredp.py does) and ONOS places lg2 on dp1: bng-cp adopts lg2 on bng-dp with the
Line Group IE and installs the session there again. Only one real bng-dp runs: the rig's
namespaces and DPDK file prefix are fixed, and the move's subject, the adopting instance,
is the one the test needs real."""

from __future__ import annotations

import ipaddress
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from harness import fakeonos
from harness.fakeonos import FakeOnos
from harness.frames import ROUTER_ADDR, UDP, Ether
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
from bngpod.rawsock import in_netns

from .fakedp import FakeDp

PASSWORD = "wonderland"  # noqa: S105 (a lab user on veths)
FAKE_DP2 = "10.200.0.12"  # dp2's control address in the lab pod
LG2_AC_MAC = "02:bb:00:00:00:02"
LG2_CORE_MAC = "02:cc:00:00:00:02"
LG2_POOL = ipaddress.ip_network("100.80.4.0/22")


def _cp_yaml(path: Path, onos_url: str) -> None:
    """The lab pod's cp.yaml reduced to dp1 and dp2, with ONOS."""
    doc = lab_cp_doc({1, 2})
    doc["onos"] = {
        "url": onos_url,
        "username": fakeonos.CP_USER,
        "password": fakeonos.CP_PASSWORD,
        "cp_name": "cp-move",
        "poll_interval": "200ms",
        "timeout": "1s",
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.fixture
def move_pod(cp_prereqs, tmp_path):
    require_dp()
    work = tmp_path
    (work / "users").write_text('alice  Cleartext-Password := "wonderland"\n')
    rig = DpRig(LAB / "dp" / "dp1.ini").start()
    wire = cp = log = onos = dp2 = None
    try:
        rig.add_cp_alias(FAKE_DP2)
        with in_netns(NS_CP):  # the sockets live in the CP namespace, the threads anywhere
            onos = FakeOnos("127.0.0.1")
            dp2 = FakeDp(2, FAKE_DP2, rig.CP_ADDR, ac_macs={LG2_AC_MAC}, heartbeat_interval=5.0).start()
        onos.start()
        onos.place(1, {"lg1": 1, "lg2": 2})
        _cp_yaml(work / "cp.yaml", onos.url)
        wire = WireDp(rig)
        log = open(work / "bng-cp.log", "wb")  # noqa: SIM115 (closed below)
        cp = subprocess.Popen(
            ["ip", "netns", "exec", NS_CP, str(BNG_CP), "--config", str(work / "cp.yaml"),
             "--state", str(work / "state"), "--users", str(work / "users"), "--ctl", str(work / "cp.sock"),
             "--lcp-echo-interval", "1s", "--lcp-echo-failures", "3", "--interim", "300s", "--auth", "chap",
             "--log-format", "json", "--log-level", "debug"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait(lambda: instances(work) == {"dp1": "associated", "dp2": "associated"}, 15, "both instances associated")
        wait(lambda: "reachable" in str(rig.telemetry(f"/bng/arp,{ROUTER_ADDR}")), 15, "router resolved by bng-dp")
        yield {"rig": rig, "wire": wire, "cp": cp, "work": work, "onos": onos, "dp2": dp2}
    finally:
        stop(cp, 10)
        if log is not None:
            log.close()
            print("--- bng-cp log (tail) ---\n" + (work / "bng-cp.log").read_text()[-6000:])
        if wire is not None:
            wire.close()
        if dp2 is not None:
            dp2.close()
        if onos is not None:
            onos.close()
        rig.close()
        if rig.log:
            print("--- bng-dp log (tail) ---\n" + rig.log.decode(errors="replace")[-3000:])
        cleanup_stale()


def test_group_moves_onto_the_real_dp_without_redial(move_pod):
    rig, wire, work = move_pod["rig"], move_pod["wire"], move_pod["work"]
    onos, dp2 = move_pod["onos"], move_pod["dp2"]
    assert rig.telemetry("/bng/line_groups")["groups"]["lg2"] == "standby"

    # The CPE dials on lg2 (access2: 802.1ad outer tag, S-tag 200) through the fake dp2.
    mac = "02:00:00:c9:02:07"
    client = PppoeClient(dp2, mac, 200, 7, user="alice", password=PASSWORD, auth="chap", outer_tpid=0x88A8)
    res = client.dial(timeout=20)
    assert res.ok, res.reason
    assert res.ac_mac == LG2_AC_MAC and ipaddress.ip_address(res.ipv4) in LG2_POOL
    s_a = dp2.wait_session(mac, ctag=7)
    assert not dp_sessions(rig), "nothing of lg2 on bng-dp before the move"
    view = ctl(work, "sessions")
    assert len(view) == 1 and view[0]["instance"] == 2
    asid = view[0]["id"]
    onos.wait(lambda: [e for e in onos.events if e["event"] == "up" and e["session"]["id"] == asid], what="up event")

    # The switch re-steers the line to dp1 (the CPE now talks on bng-dp's wire) and ONOS
    # places lg2 there.
    wire.attach(client)
    client.dp = wire
    rx_mark, sent_mark = len(client.rx), len(client.sent)
    t0 = time.monotonic()
    onos.place(2, {"lg1": 1, "lg2": 1})

    wait(lambda: rig.telemetry("/bng/line_groups")["groups"]["lg2"] == "served", 10, "lg2 served by bng-dp")
    s = wait(lambda: [x for x in dp_sessions(rig) if x["mac"] == mac], 10, "the session installed on bng-dp")[0]
    moved_in = time.monotonic() - t0
    assert (s["line_group"], s["access_port"], s["stag"], s["ctag"], s["pppoe_sid"], s["mac"], s["ipv4"]) == (
        "lg2", "access2", 200, 7, res.session_id, mac, res.ipv4,
    )  # fmt: skip
    assert s["qos_profile"] == s_a.qos == "gold" and s["mtu"] == 1492 and s["lcp_offload"] == 1
    assert rig.telemetry("/bng/pfcp")["lg_adopts"] >= 1

    # The old instance lost the session and the group; ONOS heard where it lives now.
    dp2.wait_deleted(s_a)
    dp2.wait(lambda: any(g.action == 2 and g.name == "lg2" for g, _ in dp2.group_updates), what="release on dp2")

    def updates_on_dp1():
        return [
            e
            for e in onos.events
            if e["event"] == "update" and e["session"]["id"] == asid and e["session"]["instance"] == 1
        ]

    upd = onos.wait(updates_on_dp1, what="the update event with instance 1")[0]["session"]
    assert (upd["pppoeId"], upd["mac"], upd["ipv4"], upd["lineGroup"]) == (res.session_id, mac, res.ipv4, "lg2")
    view = ctl(work, "sessions")
    assert [(v["instance"], v["pppoe_session_id"], v["state"]) for v in view] == [(1, res.session_id, "established")]

    # Upstream through bng-dp: decapsulated, from lg2's core MAC to the router.
    up = send_upstream(wire, client, res.ipv4, b"m" * 32)
    assert up[Ether].src == LG2_CORE_MAC and bytes(up[UDP].payload) == b"m" * 32

    # Downstream to lg2's core MAC: in the CPE's session, with its tags and the AC MAC.
    down = send_downstream(wire, client, res.ipv4, LG2_CORE_MAC, b"d" * 32)
    raw = bytes(down.frame)
    assert down.session_id == res.session_id and down.frame[Ether].src == LG2_AC_MAC
    assert raw[12:14] == b"\x88\xa8" and int.from_bytes(raw[14:16], "big") & 0xFFF == 200
    assert raw[16:18] == b"\x81\x00" and int.from_bytes(raw[18:20], "big") & 0xFFF == 7

    # bng-dp's LCP echoes (offload) are answered by the CPE, the session stays up.
    wait(lambda: client.echo_replies_sent >= 2, 8, "LCP echoes from bng-dp answered")
    s = next(x for x in dp_sessions(rig) if x["mac"] == mac)
    assert s["lcp_replies"] >= 2 and s["lcp_dead"] == 0

    # No re-dial: no PADT, no discovery in either direction since the move.
    assert not client.padt_received.is_set()
    after = client.rx[rx_mark:]
    assert not [r for r in after if r.discovery], [(r.code, r.session_id) for r in after if r.discovery]
    assert not [f for f in client.sent[sent_mark:] if f[20:22] == b"\x88\x63"], "the CPE sent discovery frames"
    print(f"move: placement change to session on bng-dp in {moved_in:.3f} s (polling included)")
