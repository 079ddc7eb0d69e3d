"""The outside testers' profiles of the lab pod (profiles/, make_profiles.py), checked field by
field against the pod file: every frame a TRex profile describes is built with scapy and must
be what bng-dp's classifier accepts for the session (its line served by the session's group,
the group's AC MAC, a session id, an address of the group's pools); the BNG Blaster config's
access ranges and user names must dial exactly the pod's users on their own lines; the
Spirent script's REST calls (its dry run) must build the same. The same profiles against the
running pod: test_profiles_pod.py."""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPP, PPPoE

from bngpod import users as pod_users
from bngpod import validate

from .profiles import bngblaster, common, spirent, trex

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
LAB = REPO / "topology" / "examples" / "lab.yaml"
CORE = common.CoreSide("198.51.100.99", 24, "198.51.100.1", "02:aa:00:00:00:01")


@pytest.fixture(scope="module")
def pod():
    return validate.load(LAB)


@pytest.fixture(scope="module")
def users(pod):
    # 60 per group: lg1's 50 S-tags take two C-tags; lg2 spans two ports
    return pod_users.generate(pod, 60)


def export_of(pod, users) -> list[dict]:
    """A session export as bng-subemu gives it, for these users (ids and addresses as a CP
    might have given them: not linear in the tags)."""
    groups = {g.name: g for g in pod.groups}
    out = []
    for i, u in enumerate(users):
        g = groups[u["line_group"]]
        hosts = g.pools[0].prefix.hosts()
        addr = [next(hosts) for _ in range(1 + (i * 7) % 50)][-1]
        out.append({"user": u["user"], "port": u["port"], "stag": u["stag"], "ctag": u["ctag"],
                    "pppoe_id": 1 + (i * 37) % 4000, "mac": f"02:5b:00:00:{i >> 8:02x}:{i & 255:02x}",
                    "ac_mac": g.ac_mac, "address": str(addr), "line_group": g.name})  # fmt: skip
    return out


def load_profile(path: Path):
    sys.path.insert(0, str(HERE / "trex_shim"))
    try:
        spec = importlib.util.spec_from_file_location(f"trex_profile_{abs(hash(path))}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.register()
    finally:
        sys.path.remove(str(HERE / "trex_shim"))


def check_upstream_frame(pod, frame: bytes, s: dict, size: int, dscp: int = 0, core=CORE) -> None:
    """What bng-dp's classifier and session lookup need of an upstream session frame."""
    f = Ether(frame)
    port = next(p for p in pod.ports_with_role("access") if p.name == s["port"])
    assert f.type == port.tpid
    outer = f[Dot1AD] if port.tpid == 0x88A8 else f[Dot1Q]
    inner = outer.payload
    assert isinstance(inner, Dot1Q) and outer.type == 0x8100 and inner.type == 0x8864
    group = common.group_of_line(pod, s["port"], outer.vlan, inner.vlan)
    assert group is not None and group.name == s["line_group"], (outer.vlan, inner.vlan)
    assert f.dst == group.ac_mac and f.src == s["mac"]
    ppp = f[PPPoE]
    assert (ppp.version, ppp.type, ppp.code) == (1, 1, 0) and 1 <= ppp.sessionid <= 0xFFFE
    assert ppp.sessionid == s["pppoe_id"] and f[PPP].proto == 0x21
    ip = f[IP]
    assert ipaddress.IPv4Address(ip.src) in group.pools[0].prefix and ip.src == s["address"]
    assert ip.dst == core.address and ip.ttl > 1 and ip.tos == dscp << 2
    assert ppp.len == ip.len + 2 and ip.len == len(frame) - 30  # no Ethernet padding
    assert len(frame) + 4 == max(size, 78) and isinstance(f[IP].payload, UDP)


def test_trex_profile_frames_are_the_sessions(pod, users, tmp_path):
    exp = export_of(pod, users)
    (tmp_path / "export.json").write_text(json.dumps(exp))
    sessions = common.load_sessions(pod, tmp_path / "export.json")
    path = tmp_path / "trex_bngpod.py"
    path.write_text(trex.render(pod, sessions, CORE))
    prof = load_profile(path)
    for port in ("access1", "access2"):
        mine = [s for s in exp if s["port"] == port]
        for size in (64, 594, 1518):
            st = prof.get_streams(side="access", access_port=port, size=str(size), pps="1000")
            assert len(st) == len(mine)
            for s, stream in zip(mine, st, strict=True):
                check_upstream_frame(pod, stream.packet.get_pkt(), s, size)
            assert sum(x.mode.pps for x in st) == pytest.approx(1000)
    # IMIX: three streams per session, 7:4:1
    st = prof.get_streams(side="access", access_port="access1", size="imix", pps="1200")
    n = len([s for s in exp if s["port"] == "access1"])
    by = {}
    for x in st:
        by.setdefault(len(x.packet.get_pkt()) + 4, []).append(x.mode.pps)
    assert {k: len(v) for k, v in by.items()} == {78: n, 594: n, 1518: n}  # 64 B upstream is raised to 78
    assert sum(by[594]) / sum(by[1518]) == pytest.approx(4) and sum(by[1518]) == pytest.approx(100)
    # the probe: EF, latency stats, on sessions of this port
    st = prof.get_streams(side="access", access_port="access2", size="512", probe="1")
    probes = [x for x in st if x.flow_stats is not None]
    assert len(probes) == 4 and sum(x.mode.pps for x in probes) == pytest.approx(1000)
    mine = [s for s in exp if s["port"] == "access2"]
    for s, x in zip(mine, probes, strict=False):
        check_upstream_frame(pod, x.packet.get_pkt(), s, 178, dscp=46)
    # downstream from the core side: every session, to its address, via the core router
    st = prof.get_streams(side="core", size="512", pps="5000")
    assert len(st) == len(exp)
    for s, x in zip(exp, st, strict=True):
        f = Ether(x.packet.get_pkt())
        assert f.dst == CORE.gateway_mac and f.src == CORE.tester_mac and f.type == 0x0800
        assert f[IP].dst == s["address"] and f[IP].src == CORE.address and len(f) + 4 == 512 - 16
    # the 89/11 mix: shares of layer-1 bandwidth
    up = prof.get_streams(side="access", access_port="access1", mix="1", l1_mbps="1000")
    down = prof.get_streams(side="core", mix="1", l1_mbps="1000")
    up_bps = sum(x.mode.pps for x in up) * (128 + 20) * 8
    down_bps = sum(x.mode.pps for x in down) * (504 + 20) * 8
    assert down_bps == pytest.approx(890e6) and up_bps == pytest.approx(110e6)
    assert {len(x.packet.get_pkt()) + 4 for x in up} == {128} and {len(x.packet.get_pkt()) + 4 for x in down} == {488}


def test_a_session_export_that_does_not_fit_the_pod_is_refused(pod, users, tmp_path):
    good = export_of(pod, users)
    cases = {
        "no line group serves": dict(good[0], stag=999),
        "AC MAC": dict(good[0], ac_mac="02:00:00:00:00:99"),
        "in no pool": dict(good[0], address="10.9.9.9"),
        "PPPoE session id": dict(good[0], pppoe_id=0),
    }
    for why, bad in cases.items():
        p = tmp_path / "bad.json"
        p.write_text(json.dumps([bad]))
        with pytest.raises(ValueError, match=why):
            common.load_sessions(pod, p)


def test_bngblaster_config_dials_exactly_the_pods_users(pod, users):
    cfg = bngblaster.render(pod, users, CORE, size=512)
    by_user = {u["user"]: u for u in users}
    ports = {p.name: p for p in pod.ports_with_role("access")}
    seen = []
    for a in cfg["interfaces"]["access"]:
        assert a["type"] == "pppoe" and a["authentication-protocol"] == "PAP"
        group = a["username"].split("-{i1}")[0]
        assert a["password"] == f"pw-{group}-{{i1}}"
        # outer VLAN first (iterate-vlan-outer): session k of the entry is user i1-start + k
        k = 0
        for c in range(a["inner-vlan-min"], a["inner-vlan-max"] + 1):
            for s in range(a["outer-vlan-min"], a["outer-vlan-max"] + 1):
                u = by_user[f"{group}-{a['i1-start'] + k}"]
                assert (u["stag"], u["ctag"]) == (s, c), (a, u)
                assert a["qinq"] == (ports[u["port"]].tpid == 0x88A8)
                assert common.group_of_line(pod, u["port"], s, c).name == group
                seen.append(u["user"])
                k += 1
    assert sorted(seen) == sorted(by_user) and cfg["sessions"]["count"] == len(users)
    assert cfg["sessions"]["iterate-vlan-outer"] is True
    net = cfg["interfaces"]["network"][0]
    assert net["address"] == "198.51.100.99/24" and net["gateway"] == "198.51.100.1"
    st = {s["name"]: s for s in cfg["streams"]}
    assert st["bngpod-512"]["length"] == 512 - 34 and st["bngpod-512"]["type"] == "ipv4"
    assert st["bngpod-512"]["direction"] == "both" and st["bngpod-voip-probe"]["priority"] == 184
    imix = bngblaster.render(pod, users, CORE, size="imix", probe=False)["streams"]
    assert [(s["length"], s["pps"]) for s in imix] == [(76, 5.833), (560, 3.333), (1484, 0.833)]


def test_spirent_script_dry_run_builds_the_pods_sessions_and_rfc2544(pod, users, tmp_path):
    script = tmp_path / "spirent_bngpod.py"
    script.write_text(spirent.render(pod, users, CORE))
    calls_file = tmp_path / "calls.json"
    subprocess.run([sys.executable, str(script), "--dry-run", str(calls_file)], check=True, capture_output=True,
                   timeout=60)  # fmt: skip
    calls = json.loads(calls_file.read_text())
    created = {c["handle"]: c for c in calls if c["call"] == "create"}
    stacked = {c["handle"]: c["attributes"] for c in calls if c["call"] == "config"}
    by_user = {u["user"]: u for u in users}
    ports = {p.name: p for p in pod.ports_with_role("access")}
    dialled = []
    for blk in (c for c in created.values() if c["type"] == "PppoeClientBlockConfig"):
        dev = created[blk["under"]]
        kids = [c for c in created.values() if c["under"] == dev["handle"]]
        vlans = [c for c in kids if c["type"] == "VlanIf"]
        outer, inner = vlans
        # the stack: IPv4 over PPP over PPPoE over the C-tag over the S-tag over Ethernet
        ipv4 = next(c["handle"] for c in kids if c["type"] == "Ipv4If")
        chain, h = [], ipv4
        while h in stacked and "StackedOnEndpoint-targets" in stacked[h]:
            h = stacked[h]["StackedOnEndpoint-targets"]
            chain.append(created[h]["type"])
        assert chain == ["PppIf", "PppoeIf", "VlanIf", "VlanIf", "EthIIIf"]
        assert stacked[dev["handle"]]["TopLevelIf-targets"] == ipv4
        assert blk["attributes"]["Authentication"] == "PAP"
        m = re.fullmatch(r"(lg\d+)-@x\((\d+),(\d+),1,0,0\)", blk["attributes"]["Username"])
        group, first, count = m.group(1), int(m.group(2)), int(m.group(3))
        assert count == dev["attributes"]["DeviceCount"]
        assert blk["attributes"]["Password"] == f"pw-{group}-@x({first},{count},1,0,0)"
        assert inner["attributes"]["IdStep"] == 0 and outer["attributes"]["IdStep"] == 1
        for k in range(count):
            u = by_user[f"{group}-{first + k}"]
            assert (u["stag"], u["ctag"]) == (outer["attributes"]["VlanId"] + k, inner["attributes"]["VlanId"])
            assert outer["attributes"]["Tpid"] == ports[u["port"]].tpid
            dialled.append(u["user"])
    assert sorted(dialled) == sorted(by_user)
    sbs = {c["attributes"]["Name"]: c["attributes"] for c in created.values() if c["type"] == "StreamBlock"}
    assert sbs["bngpod-up"]["FixedFrameLength"] == 512 and sbs["bngpod-down"]["FixedFrameLength"] == 496
    assert sbs["bngpod-probe-up"]["FixedFrameLength"] == 178
    rfc = next(c for c in calls if c.get("command") == "Rfc2544SetupThroughputTestCommand")["params"]
    assert rfc["FrameSizeList"] == "64 128 256 512 1024 1280 1518" and rfc["AcceptableFrameLoss"] == 0
    assert rfc["Duration"] == 60 and rfc["SearchMode"] == "BINARY"
    order = [c.get("command") for c in calls if c["call"] == "perform"]
    assert order.index("PppoxConnectCommand") < order.index("Rfc2544SetupThroughputTestCommand")


def test_make_profiles_writes_all_three(pod, users, tmp_path):
    (tmp_path / "users.json").write_text(json.dumps(users))
    (tmp_path / "export.json").write_text(json.dumps(export_of(pod, users)))
    out = subprocess.run(
        [sys.executable, str(HERE / "make_profiles.py"), "--pod", str(LAB), "--users", str(tmp_path / "users.json"),
         "--sessions", str(tmp_path / "export.json"), "--core-gateway-mac", "02:aa:00:00:00:01",
         "--access-if", "ens1f0", "--out", str(tmp_path / "p")],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert json.loads(out.stdout)["written"] == ["bngblaster.json", "spirent_bngpod.py", "trex_bngpod.py"]
    cfg = json.loads((tmp_path / "p" / "bngblaster.json").read_text())
    assert {a["interface"] for a in cfg["interfaces"]["access"]} == {"ens1f0"}
    assert len(load_profile(tmp_path / "p" / "trex_bngpod.py").get_streams(side="core")) == len(users)


# ---- profiles from bng-cp's own export (testdata/cp-export.*: TestSessionExport in
# accel-ppp-glue/internal/core writes them from a real bng-cp with three PPPoE sessions and an
# IPoE one, on the pod of testdata/cp-export-pod.yaml) ----

CP_POD = HERE / "testdata" / "cp-export-pod.yaml"
CP_EXPORT = HERE / "testdata" / "cp-export"
CP_PASSWORD = "pw-alice"  # the Go test pod's users file


@pytest.fixture(scope="module")
def cp_pod():
    return validate.load(CP_POD)


def cp_export(fmt: str) -> list[dict]:
    return common.read_export(CP_EXPORT.with_suffix("." + fmt))


def cp_users() -> list[dict]:
    return [{"user": s["user"], "password": CP_PASSWORD} for s in cp_export("json") if s["kind"] == "pppoe"]


def test_the_cp_export_reads_the_same_as_json_and_csv(cp_pod):
    js, cs = (common.load_sessions(cp_pod, CP_EXPORT.with_suffix(f".{f}")) for f in ("json", "csv"))
    assert js == cs and [s.kind for s in js].count("ipoe") == 1 and len(js) == 4
    raw = cp_export("json")
    for s, r in zip(js, raw, strict=True):
        assert (s.port, s.stag, s.ctag, s.pppoe_id, s.mac, s.address) == (
            r["port"], r["stag"], r["ctag"], r["pppoe_id"], r["mac"], r["address"]
        )  # fmt: skip
        assert s.tpid == r["tpid"] == 0x8100 and s.ac_mac == r["ac_mac"] and s.instance == 1


def test_trex_profile_from_the_cp_export_sends_exactly_those_sessions(cp_pod, tmp_path):
    raw = cp_export("csv")
    path = tmp_path / "trex_cp.py"
    path.write_text(trex.render(cp_pod, common.load_sessions(cp_pod, CP_EXPORT.with_suffix(".csv")), CORE))
    prof = load_profile(path)
    st = prof.get_streams(side="access", access_port="access1", size="512", pps="400")
    assert len(st) == len(raw) == 4
    for r, x in zip(raw, st, strict=True):
        frame = x.packet.get_pkt()
        if r["kind"] == "pppoe":
            s = dict(r, stag=int(r["stag"]), ctag=int(r["ctag"]), pppoe_id=int(r["pppoe_id"]))
            check_upstream_frame(cp_pod, frame, s, 512)
            continue
        f = Ether(frame)  # IPoE: QinQ + IPv4 to the group's AC MAC (its gateway), no PPPoE
        assert f.type == 0x8100 and f[Dot1Q].vlan == int(r["stag"]) and f[Dot1Q].payload.vlan == int(r["ctag"])
        assert f[Dot1Q].payload.type == 0x0800 and PPPoE not in f
        assert f.src == r["mac"] and f.dst == r["ac_mac"] and f[IP].src == r["address"] and len(frame) + 4 == 512
    down = prof.get_streams(side="core", size="512", pps="400")
    assert [Ether(x.packet.get_pkt())[IP].dst for x in down] == [r["address"] for r in raw]
    # IPoE's core frame is 8 bytes shorter than its access one, PPPoE's 16
    assert [len(x.packet.get_pkt()) + 4 for x in down] == [496, 496, 496, 504]


def test_bngblaster_and_spirent_from_the_cp_export_dial_its_lines_and_users(cp_pod, tmp_path):
    sessions = common.load_sessions(cp_pod, CP_EXPORT.with_suffix(".json"))
    raw = cp_export("json")
    cfg = bngblaster.render(cp_pod, cp_users(), CORE, sessions=sessions)
    acc = cfg["interfaces"]["access"]
    assert cfg["sessions"]["count"] == len(acc) == len(raw)
    for a, r in zip(acc, raw, strict=True):
        assert (a["type"], a["outer-vlan"], a["inner-vlan"], a["qinq"]) == (r["kind"], r["stag"], r["ctag"], False)
        if r["kind"] == "pppoe":
            assert (a["username"], a["password"], a["authentication-protocol"]) == (r["user"], CP_PASSWORD, "PAP")
        else:
            assert a["dhcp"] is True and "username" not in a
    with pytest.raises(ValueError, match="no such user"):
        bngblaster.render(cp_pod, [], CORE, sessions=sessions)
    script = tmp_path / "spirent_cp.py"
    script.write_text(spirent.render(cp_pod, cp_users(), CORE, sessions=sessions))
    calls_file = tmp_path / "calls.json"
    subprocess.run([sys.executable, str(script), "--dry-run", str(calls_file)], check=True, capture_output=True,
                   timeout=60)  # fmt: skip
    calls = json.loads(calls_file.read_text())
    created = {c["handle"]: c for c in calls if c["call"] == "create"}
    devs = [c for c in created.values() if c["type"] == "EmulatedDevice" and c["attributes"]["Name"] != "core"]
    assert len(devs) == len(raw)
    for dev, r in zip(devs, raw, strict=True):
        kids = {c["type"]: c for c in created.values() if c["under"] == dev["handle"] and c["type"] != "VlanIf"}
        vlans = [c["attributes"] for c in created.values() if c["under"] == dev["handle"] and c["type"] == "VlanIf"]
        assert dev["attributes"]["DeviceCount"] == 1 and kids["EthIIIf"]["attributes"]["SourceMac"] == r["mac"]
        assert [(v["VlanId"], v["Tpid"]) for v in vlans] == [(r["stag"], r["tpid"]), (r["ctag"], 0x8100)]
        if r["kind"] == "pppoe":
            blk = kids["PppoeClientBlockConfig"]["attributes"]
            assert (blk["Username"], blk["Password"]) == (r["user"], CP_PASSWORD) and "Dhcpv4BlockConfig" not in kids
        else:
            assert "Dhcpv4BlockConfig" in kids and "PppoeIf" not in kids
    performed = [c.get("command") for c in calls if c["call"] == "perform"]
    assert "PppoxConnectCommand" in performed and "Dhcpv4BindCommand" in performed


def test_a_cp_export_that_does_not_fit_the_pod_is_refused(cp_pod, tmp_path):
    good = cp_export("json")
    ipoe = next(s for s in good if s["kind"] == "ipoe")
    cases = {
        "TPID 0x88a8": dict(good[0], tpid=0x88A8),
        "an IPoE session with PPPoE session id": dict(ipoe, pppoe_id=7),
        "MAC": dict(good[0], mac="02:00:00:00:00"),
        "no line group serves": dict(good[0], stag=102),
    }
    for why, bad in cases.items():
        p = tmp_path / "bad.json"
        p.write_text(json.dumps([bad]))
        with pytest.raises(ValueError, match=why):
            common.load_sessions(cp_pod, p)
    # a group that allows PPPoE only refuses an IPoE session
    lab = validate.load(LAB)
    g = lab.groups[0]
    line = g.lines[0]
    p = tmp_path / "ipoe.json"
    addr = str(next(g.pools[0].prefix.hosts()))
    bad = dict(ipoe, port=line.port.name, stag=line.stag.lo, ctag=line.ctags.lo, ac_mac=g.ac_mac, line_group=g.name,
               address=addr, tpid=None)  # fmt: skip
    p.write_text(json.dumps([bad]))
    with pytest.raises(ValueError, match="kind 'ipoe'"):
        common.load_sessions(lab, p)
    # CSV: the header must be bngcpctl's
    p = tmp_path / "bad.csv"
    p.write_text(CP_EXPORT.with_suffix(".csv").read_text().replace("pppoe_id", "session_id", 1))
    with pytest.raises(ValueError, match="columns"):
        common.load_sessions(cp_pod, p)
