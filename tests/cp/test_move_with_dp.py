"""A line group moved by ONOS onto the real bng-dp: bng-cp, the fake ONOS and bng-dp together.

tests/cp/test_onos.py moves a group between two fake DPs and tests/dp/test_line_group.py
adopts one on bng-dp with a Python CP; here the real pair does it. The arrangement:

    NS_CP (tests/dp/rig.py's CP namespace)                      NS_DP
      bng-cp       10.200.0.1   (PFCP, VXLAN)  -- veth --  bng-dp dp1 10.200.0.11 (instance 1)
      fake dp2     10.200.0.12  (tests/cp/fakedp.py, instance 2, serves lg2 at first)
      fake ONOS    127.0.0.1    (tests/cp/fakeonos.py)

bng-dp runs the lab pod's dp1.ini, which holds lg2 (access2 S-tags 200-249, 802.1ad) as
standby. The CPE dials on lg2 through the fake dp2 (VXLAN redirect to bng-cp); then the
switch would re-steer its line to dp1 (the test re-attaches the CPE to bng-dp's wire, as
tests/cp/wiredp.py does) and ONOS places lg2 on dp1: bng-cp adopts lg2 on bng-dp with the
Line Group IE and installs the session there again. Only one real bng-dp runs: the rig's
namespaces and DPDK file prefix are fixed, and the move's subject, the adopting instance,
is the one the test needs real."""

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
from dp.frames import INTERNET, IP, ROUTER_ADDR, ROUTER_MAC, UDP, Ether, Raw
from dp.rig import NS_CP, REPO, DpRig, cleanup_stale

from bngpod.rawsock import in_netns

from .fakedp import FakeDp
from .fakeonos import FakeOnos
from .pod import BNG_CP, BNGCPCTL
from .pppoe_client import IPV4, PppoeClient
from .wiredp import WireDp

LAB = REPO / "topology" / "tests" / "golden" / "lab"
PASSWORD = "wonderland"  # noqa: S105 (a lab user on veths)
FAKE_DP2 = "10.200.0.12"  # dp2's control address in the lab pod
LG2_AC_MAC = "02:bb:00:00:00:02"
LG2_CORE_MAC = "02:cc:00:00:00:02"
LG2_POOL = ipaddress.ip_network("100.80.4.0/22")


def _cp_yaml(path: Path, onos_url: str) -> None:
    """The lab pod's cp.yaml reduced to dp1 and dp2, with ONOS."""
    doc = yaml.safe_load((LAB / "cp.yaml").read_text())
    doc["instances"] = [i for i in doc["instances"] if i["id"] in (1, 2)]
    groups = {g for i in doc["instances"] for g in i["line_groups"]}
    doc["line_groups"] = [g for g in doc["line_groups"] if g["name"] in groups]
    doc["pools"] = [p for p in doc["pools"] if p["line_group"] in groups]
    doc["onos"] = {
        "url": onos_url,
        "username": "onos",
        "password": "rocks",
        "cp_name": "cp-move",
        "poll_interval": "200ms",
        "timeout": "1s",
    }
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


@pytest.fixture
def move_pod(cp_prereqs, tmp_path):
    if os.geteuid() != 0 or not (REPO / "server-dp" / "build" / "bng-dp").exists():
        why = "needs root and a built bng-dp"
        if os.environ.get("BNGPOD_REQUIRE_POD") == "1":
            pytest.fail(why)
        pytest.skip(why)
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
        _wait(lambda: _instances(work) == {"dp1": "associated", "dp2": "associated"}, 15, "both instances associated")
        _wait(lambda: "reachable" in str(rig.telemetry(f"/bng/arp,{ROUTER_ADDR}")), 15, "router resolved by bng-dp")
        yield {"rig": rig, "wire": wire, "cp": cp, "work": work, "onos": onos, "dp2": dp2}
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
    assert not _dp_sessions(rig), "nothing of lg2 on bng-dp before the move"
    view = _ctl(work, "sessions")
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

    _wait(lambda: rig.telemetry("/bng/line_groups")["groups"]["lg2"] == "served", 10, "lg2 served by bng-dp")
    s = _wait(lambda: [x for x in _dp_sessions(rig) if x["mac"] == mac], 10, "the session installed on bng-dp")[0]
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
    view = _ctl(work, "sessions")
    assert [(v["instance"], v["pppoe_session_id"], v["state"]) for v in view] == [(1, res.session_id, "established")]

    # Upstream through bng-dp: decapsulated, from lg2's core MAC to the router.
    payload = IP(src=res.ipv4, dst=INTERNET) / UDP(sport=4000, dport=53) / Raw(b"m" * 32)
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
    assert up[Ether].src == LG2_CORE_MAC and bytes(up[UDP].payload) == b"m" * 32

    # Downstream to lg2's core MAC: in the CPE's session, with its tags and the AC MAC.
    wire.send_core(
        bytes(
            Ether(src=ROUTER_MAC, dst=LG2_CORE_MAC) / IP(src=INTERNET, dst=res.ipv4) / UDP(sport=53, dport=4000)
            / Raw(b"d" * 32)
        )
    )  # fmt: skip
    down = client.expect(lambda rx: rx.proto == IPV4, timeout=5, what="downstream IPv4 in the session")
    raw = bytes(down.frame)
    assert down.session_id == res.session_id and down.frame[Ether].src == LG2_AC_MAC
    assert raw[12:14] == b"\x88\xa8" and int.from_bytes(raw[14:16], "big") & 0xFFF == 200
    assert raw[16:18] == b"\x81\x00" and int.from_bytes(raw[18:20], "big") & 0xFFF == 7

    # bng-dp's LCP echoes (offload) are answered by the CPE, the session stays up.
    _wait(lambda: client.echo_replies_sent >= 2, 8, "LCP echoes from bng-dp answered")
    s = next(x for x in _dp_sessions(rig) if x["mac"] == mac)
    assert s["lcp_replies"] >= 2 and s["lcp_dead"] == 0

    # No re-dial: no PADT, no discovery in either direction since the move.
    assert not client.padt_received.is_set()
    after = client.rx[rx_mark:]
    assert not [r for r in after if r.discovery], [(r.code, r.session_id) for r in after if r.discovery]
    assert not [f for f in client.sent[sent_mark:] if f[20:22] == b"\x88\x63"], "the CPE sent discovery frames"
    print(f"move: placement change to session on bng-dp in {moved_in:.3f} s (polling included)")
