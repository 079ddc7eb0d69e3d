"""Golden-file tests of every generator, plus checks that each output says what the
pod file says (so a golden file cannot silently hold a wrong answer)."""

import configparser
import difflib
import json
import os
from pathlib import Path

import pytest
import yaml

from bngpod import generate, validate

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
GOLDEN = HERE / "golden"


def files_under(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("example", ["lab", "minimal", "ipoe"])
def test_golden(example, tmp_path):
    pod = validate.load(EXAMPLES / f"{example}.yaml")
    generate.generate_all(pod, tmp_path)
    got = files_under(tmp_path)
    if os.environ.get("BNGPOD_UPDATE_GOLDEN"):
        generate.generate_all(pod, GOLDEN / example)
        pytest.skip("golden files rewritten")
    want = files_under(GOLDEN / example)
    assert sorted(got) == sorted(want), "set of generated files changed"
    for name in want:
        if got[name] != want[name]:
            diff = "".join(difflib.unified_diff(want[name].splitlines(True), got[name].splitlines(True), name, name))
            pytest.fail(f"{name} differs from its golden copy (BNGPOD_UPDATE_GOLDEN=1 to accept):\n{diff[:4000]}")


def test_generation_is_deterministic(tmp_path):
    pod = validate.load(EXAMPLES / "lab.yaml")
    generate.generate_all(pod, tmp_path / "a")
    generate.generate_all(validate.load(EXAMPLES / "lab.yaml"), tmp_path / "b")
    assert files_under(tmp_path / "a") == files_under(tmp_path / "b")


def read_ini(path: Path) -> configparser.ConfigParser:
    ini = configparser.ConfigParser(comment_prefixes=(";",), interpolation=None)
    ini.read_string(path.read_text())
    return ini


def test_dp_config_matches_the_pod():
    pod = validate.load(EXAMPLES / "lab.yaml")
    for inst in pod.instances:
        ini = read_ini(GOLDEN / "lab" / "dp" / f"{inst.name}.ini")
        head = ini["instance"]
        assert int(head["id"]) == inst.id
        assert head["data_mac"] == inst.vf.mac
        for kind, key in (
            ("access_port", "access_ports"),
            ("line_group", "line_groups"),
            ("line", "lines"),
            ("qos_profile", "qos_profiles"),
            ("acl", "acl_rules"),
            ("route", "routes"),
        ):
            count = int(head[key])
            assert count == len([s for s in ini.sections() if s.startswith(kind + ".")])
        # the pod's ACL and routes, in file order, in every instance
        smtp = {
            "action": "deny",
            "direction": "up",
            "protocol": "tcp",
            "source_ports": "any",
            "destination_ports": "25-25",
        }
        assert [dict(ini[f"acl.{i}"]) for i in range(int(head["acl_rules"]))] == [
            {"family": "ipv4", **smtp, "source": "0.0.0.0/0", "destination": "0.0.0.0/0"},
            {"family": "ipv6", **smtp, "source": "::/0", "destination": "::/0"},
        ]
        routes = [(ini[f"route.{i}"]["prefix"], ini[f"route.{i}"]["via"]) for i in range(int(head["routes"]))]
        assert routes == [(str(r.prefix), str(r.via) if r.via else "drop") for r in pod.core.routes]
        assert routes == [("192.0.2.0/24", "100.64.0.2"), ("203.0.113.0/24", "drop")]
        # every instance knows the whole pod; only its own groups are served
        lines = [ini[f"line.{i}"] for i in range(int(head["lines"]))]
        assert [(ln["group"], ln["access_port"], ln["stag"]) for ln in lines] == [
            (g.name, ln.port.name, f"{ln.stag.lo}-{ln.stag.hi}") for g in pod.groups for ln in g.lines
        ]
        ports = [ini[f"access_port.{i}"]["name"] for i in range(int(head["access_ports"]))]
        assert ports == [p.name for p in sorted(pod.ports_with_role("access"), key=lambda p: p.number)]
        groups = [ini[f"line_group.{i}"] for i in range(int(head["line_groups"]))]
        assert [g["name"] for g in groups] == [g.name for g in pod.groups]
        own = {g.name for g in inst.groups}
        assert {g["name"]: g["standby"] for g in groups} == {
            g.name: "no" if g.name in own else "yes" for g in pod.groups
        }
        served = {ln["group"] for ln in lines} & own
        assert served == own
    dp4 = read_ini(GOLDEN / "lab" / "dp" / "dp4.ini")
    assert dp4["line.4"]["ctag"] == "2000-4094" and dp4["line.5"]["ctag"] == "any"
    assert dp4["access_port.3"]["tpid"] == "0x88a8"
    assert dp4["line_group.3"]["standby"] == "no" and dp4["line_group.0"]["standby"] == "yes"


PUNT_DEFAULT_KEYS = {
    "high_client_rate": "100",
    "high_client_burst": "200",
    "high_line_rate": "5000",
    "high_line_burst": "10000",
    "high_ring_percent": "100",
    "mid_client_rate": "5",
    "mid_client_burst": "10",
    "mid_line_rate": "200",
    "mid_line_burst": "400",
    "mid_ring_percent": "75",
    "low_client_rate": "5",
    "low_client_burst": "10",
    "low_line_rate": "200",
    "low_line_burst": "400",
    "low_ring_percent": "50",
}


def test_punt_policing_in_every_dp_config(tmp_path):
    """No control_policing: every key at bng-dp's defaults; given values land in their keys."""
    for example in ("lab", "minimal"):
        for path in sorted((GOLDEN / example / "dp").glob("*.ini")):
            assert dict(read_ini(path)["punt"]) == PUNT_DEFAULT_KEYS, path
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["control_policing"] = {
        "high": {"per_client": {"rate": 50, "burst": 60}, "ring_percent": 90},
        "low": {"per_line": {"rate": 2500, "burst": 5000}, "ring_percent": 40},
    }
    result = validate.check(doc)
    assert result.errors == []
    generate.generate_all(result.pod, tmp_path)
    want = dict(
        PUNT_DEFAULT_KEYS,
        high_client_rate="50",
        high_client_burst="60",
        high_ring_percent="90",
        low_line_rate="2500",
        low_line_burst="5000",
        low_ring_percent="40",
    )
    for inst in result.pod.instances:
        assert dict(read_ini(tmp_path / "dp" / f"{inst.name}.ini")["punt"]) == want, inst.name


def test_acl_protocols_and_ports_are_spelled_for_the_dp():
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["acl"] = [
        {
            "action": "permit",
            "direction": "down",
            "protocol": 17,
            "source_ports": 53,
            "destination_ports": "1024-65535",
        },
        {"action": "deny", "protocol": 47, "destination": "192.0.2.0/24"},
        {"action": "deny", "protocol": "icmp"},
    ]
    result = validate.check(doc)
    assert result.errors == [], result.errors
    ini = configparser.ConfigParser(comment_prefixes=(";",), interpolation=None)
    ini.read_string(generate.dp_config(result.pod, result.pod.instances[0]))
    assert ini["instance"]["acl_rules"] == "3"
    assert dict(ini["acl.0"]) == {
        "family": "ipv4",
        "action": "permit",
        "direction": "down",
        "protocol": "udp",
        "source": "0.0.0.0/0",
        "destination": "0.0.0.0/0",
        "source_ports": "53-53",
        "destination_ports": "1024-65535",
    }
    assert (ini["acl.1"]["protocol"], ini["acl.1"]["direction"], ini["acl.1"]["destination"]) == (
        "47",
        "both",
        "192.0.2.0/24",
    )
    assert (ini["acl.2"]["protocol"], ini["acl.2"]["destination_ports"]) == ("icmp", "any")


def test_up_dscp_in_every_output(tmp_path):
    """Every qos_profile of every instance says up_dscp; the CP and ONOS get the same
    profile setting, null when the profile keeps the subscriber's marking."""
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    assert "dscp" not in doc["qos_profiles"][0]["upstream"]  # gold keeps
    doc["qos_profiles"].append({"name": "bronze", "downstream": {"rate": "1M"}, "upstream": {"pir": "1M", "dscp": 63}})
    result = validate.check(doc)
    assert result.errors == [], result.errors
    generate.generate_all(result.pod, tmp_path)
    want = {"gold": "keep", "silver": "0", "bronze": "63"}
    for inst in result.pod.instances:
        ini = read_ini(tmp_path / "dp" / f"{inst.name}.ini")
        profiles = [ini[f"qos_profile.{i}"] for i in range(int(ini["instance"]["qos_profiles"]))]
        assert {p["name"]: p["up_dscp"] for p in profiles} == want
    cp = yaml.safe_load((tmp_path / "cp.yaml").read_text())
    assert {q["name"]: q["up_dscp"] for q in cp["qos_profiles"]} == {"gold": None, "silver": 0, "bronze": 63}
    onos = json.loads((tmp_path / "onos-netcfg.json").read_text())["apps"]["org.bngpod.app"]["pod"]
    assert {q["name"]: q["upDscp"] for q in onos["qosProfiles"]} == {"gold": None, "silver": 0, "bronze": 63}


def test_cp_config_matches_the_pod():
    cp = yaml.safe_load((GOLDEN / "lab" / "cp.yaml").read_text())
    assert {g["name"]: g["instance"] for g in cp["line_groups"]} == {"lg1": 1, "lg2": 2, "lg3": 3, "lg4": 4}
    assert {p["name"]: p["line_group"] for p in cp["pools"]}["pool3"] == "lg3"
    dp3 = next(i for i in cp["instances"] if i["id"] == 3)
    assert dp3["lines"] == [
        {"group": "lg3", "access_port": "access3", "stag": {"min": 300, "max": 300}, "ctag": {"min": 1, "max": 1999}}
    ]
    assert cp["radius"]["servers"][0]["secret"] == "testing123"


def test_onos_netcfg_matches_the_pod():
    cfg = json.loads((GOLDEN / "lab" / "onos-netcfg.json").read_text())
    pod = cfg["apps"]["org.bngpod.app"]["pod"]
    assert pod["deviceId"] == "of:0000000000000001"
    assert list(cfg["devices"]) == ["of:0000000000000001"]
    assert [i["lineGroups"] for i in pod["instances"]] == [["lg1"], ["lg2"], ["lg3"], ["lg4"]]
    lg2 = next(g for g in pod["lineGroups"] if g["name"] == "lg2")
    assert lg2["lines"][1] == {"port": "access1", "stag": {"min": 150, "max": 159}, "ctag": None}


def test_flow_table_has_one_entry_per_s_tag():
    pod = validate.load(EXAMPLES / "lab.yaml")
    flows = [
        ln for ln in (GOLDEN / "lab" / "basebox" / "flows.of13").read_text().splitlines() if ln.startswith("table=")
    ]
    whole = [ln for g in pod.groups for ln in g.lines if ln.ctag is None]
    per_tag = [f for f in flows if f.startswith("table=0,priority=200") and "dl_vlan=" in f and "output:" in f]
    # one entry towards the instance and one back to the access port, per S-tag
    assert len(per_tag) == 2 * sum(ln.stag.hi - ln.stag.lo + 1 for ln in whole)
    for line in whole:
        for tag in (line.stag.lo, line.stag.hi):
            vf = pod.group(line.group).instance.vf.emu_ofport
            assert f"in_port={line.port.number},dl_vlan={tag},actions=output:{vf}" in "\n".join(flows)


def test_networkd_refuses_an_s_tag_on_two_access_ports(tmp_path):
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    # lg1 (dp1) has S-tag 100 on access1; give lg2 (dp2) S-tag 100 on access2: valid for
    # OpenFlow, but one bridge VLAN for both ports would join two OLTs' subscribers.
    doc["line_groups"][1]["lines"].append({"port": "access2", "stag": 100})
    result = validate.check(doc)
    assert result.errors == [], result.errors
    generate.generate_all(result.pod, tmp_path)
    note = (tmp_path / "basebox" / "networkd" / "NOT-RENDERED.txt").read_text()
    assert "S-tag 100 is used on" in note
    assert (tmp_path / "basebox" / "flows.of13").exists()


def test_ipv6_in_the_dp_config():
    """[core] subnet6/router_address6 and each group's core_address6/prefixes6 (WAN pools
    :64, PD pools :delegated_length) as the pod says; "none" where the pod has no IPv6."""
    pod = validate.load(EXAMPLES / "lab.yaml")
    for inst in pod.instances:
        ini = read_ini(GOLDEN / "lab" / "dp" / f"{inst.name}.ini")
        assert (ini["core"]["subnet6"], ini["core"]["router_address6"]) == ("2001:db8:64::/64", "2001:db8:64::1")
        groups = {ini[s]["name"]: ini[s] for s in ini.sections() if s.startswith("line_group.")}
        for g in pod.groups:
            want6 = " ".join(f"{p.wan_prefix}:64 {p.delegated_prefix}:{p.delegated_length}" for p in g.ipv6_pools)
            assert groups[g.name]["prefixes6"] == (want6 or "none")
            assert groups[g.name]["core_address6"] == str(g.core_address6 or "none")
        assert groups["lg1"]["prefixes6"] == "2001:db8:100::/48:64 2001:db8:2000::/40:56"
        assert groups["lg3"]["prefixes6"] == "2001:db8:102::/48:64 2001:db8:2200::/40:60"
        assert (groups["lg4"]["prefixes6"], groups["lg4"]["core_address6"]) == ("none", "none")
    ini = read_ini(GOLDEN / "minimal" / "dp" / "dp1.ini")
    assert (ini["core"]["subnet6"], ini["core"]["router_address6"]) == ("none", "none")
    assert (ini["line_group.0"]["core_address6"], ini["line_group.0"]["prefixes6"]) == ("none", "none")


def test_ipv6_acl_rules_are_spelled_for_the_dp():
    """An IPv6 rule says family ipv6; its icmp is ICMPv6, written as protocol 58."""
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["acl"] = [
        {"action": "deny", "protocol": "icmp", "source": "2001:db8:100::/48"},
        {
            "action": "permit",
            "direction": "down",
            "protocol": "udp",
            "destination": "2001:db8::/32",
            "destination_ports": 547,
        },
        {"action": "deny", "protocol": "icmp"},
    ]
    result = validate.check(doc)
    assert result.errors == [], result.errors
    ini = configparser.ConfigParser(comment_prefixes=(";",), interpolation=None)
    ini.read_string(generate.dp_config(result.pod, result.pod.instances[0]))
    rules = [dict(ini[f"acl.{i}"]) for i in range(3)]
    assert [(r["family"], r["protocol"], r["source"], r["destination"]) for r in rules] == [
        ("ipv6", "58", "2001:db8:100::/48", "::/0"),
        ("ipv6", "udp", "::/0", "2001:db8::/32"),
        ("ipv4", "icmp", "0.0.0.0/0", "0.0.0.0/0"),
    ]
    assert rules[1]["destination_ports"] == "547-547"


def test_ipv6_in_the_cp_config_and_netcfg():
    pod = validate.load(EXAMPLES / "lab.yaml")
    cp = yaml.safe_load((GOLDEN / "lab" / "cp.yaml").read_text())
    assert cp["core6"] == {"subnet": "2001:db8:64::/64", "router": "2001:db8:64::1"}
    assert cp["ipv6_ra"] == {"interval": 200, "router_lifetime": 1800}
    assert cp["radius"]["ipv6_octets_attribute"] == "erx"
    assert cp["ipv6_pools"] == [
        {
            "name": p.name,
            "wan_prefix": str(p.wan_prefix),
            "delegated_prefix": str(p.delegated_prefix),
            "delegated_length": p.delegated_length,
            "ia_na": p.ia_na,
            "dns": [str(d) for d in p.dns],
            "line_group": p.group,
        }
        for p in pod.ipv6_pools
    ]
    assert [p["ia_na"] for p in cp["ipv6_pools"]] == [False, False, True]
    groups = {g["name"]: g for g in cp["line_groups"]}
    assert (groups["lg1"]["core_address6"], groups["lg1"]["ipv6_pools"]) == ("2001:db8:64::11", ["v6pool1"])
    assert "core_address6" not in groups["lg4"] and "ipv6_pools" not in groups["lg4"]
    netcfg = json.loads((GOLDEN / "lab" / "onos-netcfg.json").read_text())["apps"]["org.bngpod.app"]["pod"]
    assert (netcfg["core"]["subnet6"], netcfg["core"]["routerAddress6"]) == ("2001:db8:64::/64", "2001:db8:64::1")
    assert {g["name"]: g.get("coreAddress6") for g in netcfg["lineGroups"]} == {
        "lg1": "2001:db8:64::11",
        "lg2": "2001:db8:64::12",
        "lg3": "2001:db8:64::13",
        "lg4": None,
    }
    # IPv4-only: no IPv6 key at all besides the defaults the CP reads
    cp = yaml.safe_load((GOLDEN / "minimal" / "cp.yaml").read_text())
    assert "core6" not in cp and "ipv6_pools" not in cp
    assert cp["ipv6_ra"] == {"interval": 200, "router_lifetime": 1800}
    netcfg = json.loads((GOLDEN / "minimal" / "onos-netcfg.json").read_text())["apps"]["org.bngpod.app"]["pod"]
    assert "subnet6" not in netcfg["core"] and all("coreAddress6" not in g for g in netcfg["lineGroups"])


def test_qos_share_files_match_the_pod():
    """Each sharing instance's --qos-share file: one section per group it is in, the same
    peers in the same order in every file of a group, itself at its index; an access
    port's section: its index and rate, equal static shares summing to at most the rate;
    the server port's: its rate, the VF rates as static shares, and the instance INI's
    port_rate (the pacer's ceiling) at the server port's rate. Instances that share
    nothing have no file."""
    pod = validate.load(EXAMPLES / "lab.yaml")
    ports = sorted(pod.ports_with_role("access"), key=lambda p: p.number)
    servers = sorted(pod.ports_with_role("server"), key=lambda p: p.number)
    seen: dict[str, list[str]] = {}
    for name, insts in pod.share_groups().items():
        port = pod.port(name)
        want_peers = [f"{i.control}:9100" for i in insts]
        for k, inst in enumerate(insts):
            ini = read_ini(GOLDEN / "lab" / "qos_share" / f"{inst.name}.ini")
            q = ini[f"qos_share.{name}"]
            assert q["peers"].split() == want_peers
            assert int(q["self"]) == k and want_peers[k].startswith(str(inst.control) + ":")
            assert ports[int(q["access_port"])].name == name and int(q["share_id"]) == int(q["access_port"])
            dp_ini = read_ini(GOLDEN / "lab" / "dp" / f"{inst.name}.ini")
            assert dp_ini[f"access_port.{q['access_port']}"]["name"] == name
            assert int(q["port_rate"]) == port.rate
            shares = [int(x) for x in q["static_shares"].split()]
            assert len(shares) == len(insts) and len(set(shares)) == 1 and sum(shares) <= port.rate
            assert (q["interval_ms"], q["silent_intervals"]) == ("10", "3")
            seen.setdefault(inst.name, []).append(f"qos_share.{name}")
    assert pod.server_share_groups().keys() == {"srv1", "srv2"}
    for name, insts in pod.server_share_groups().items():
        port = pod.port(name)
        for k, inst in enumerate(insts):
            q = read_ini(GOLDEN / "lab" / "qos_share" / f"{inst.name}.ini")[f"qos_share.{name}"]
            assert q["server_port"] == "on" and servers[int(q["share_id"])].name == name
            assert q["peers"].split() == [f"{i.control}:9100" for i in insts] and int(q["self"]) == k
            assert int(q["port_rate"]) == port.rate
            assert [int(x) for x in q["static_shares"].split()] == [i.vf.rate for i in insts]
            dp_ini = read_ini(GOLDEN / "lab" / "dp" / f"{inst.name}.ini")
            assert int(dp_ini["instance"]["port_rate"]) == port.rate > inst.vf.rate
            seen.setdefault(inst.name, []).append(f"qos_share.{name}")
    for inst, sections in seen.items():
        assert read_ini(GOLDEN / "lab" / "qos_share" / f"{inst}.ini").sections() == sections
    assert sorted(seen) == ["dp1", "dp2", "dp3", "dp4"]
    assert sorted(p.name for p in (GOLDEN / "lab" / "qos_share").iterdir()) == sorted(f"{n}.ini" for n in seen)
    # minimal: one instance a port, nothing to share
    assert not (GOLDEN / "minimal" / "qos_share").exists()


def test_qos_share_server_ports_off(tmp_path):
    """qos_share.server_ports: false: the access port groups only, and each instance's
    port_rate is its VF's rate again."""
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["qos_share"] = {"server_ports": False}
    pod = validate.check(doc).pod
    assert pod.server_share_groups() == {}
    generate.generate_all(pod, tmp_path)
    assert read_ini(tmp_path / "qos_share" / "dp1.ini").sections() == ["qos_share.access1"]
    assert int(read_ini(tmp_path / "dp" / "dp1.ini")["instance"]["port_rate"]) == pod.instance("dp1").vf.rate


def test_qos_share_off_writes_no_file(tmp_path):
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["qos_share"] = {"enabled": False}
    pod = validate.check(doc).pod
    generate.generate_all(pod, tmp_path)
    assert not (tmp_path / "qos_share").exists()
    doc["qos_share"] = {"interval_ms": 5, "silent_intervals": 4, "port": 9200}
    generate.generate_all(validate.check(doc).pod, tmp_path / "on")
    q = read_ini(tmp_path / "on" / "qos_share" / "dp3.ini")["qos_share.access3"]
    assert (q["interval_ms"], q["silent_intervals"], q["peers"]) == ("5", "4", "10.200.0.13:9200 10.200.0.14:9200")


def test_a_profiles_guaranteed_rate_reaches_the_onos_placement(tmp_path):
    """downstream.guaranteed (optional): the rate a session is contracted, which the ONOS
    app places line groups by (qosProfiles[].downGuaranteed); absent, the key is absent."""
    doc = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())
    doc["qos_profiles"][0]["downstream"]["guaranteed"] = "20M"
    result = validate.check(doc)
    assert result.errors == [], result.errors
    generate.generate_all(result.pod, tmp_path)
    onos = json.loads((tmp_path / "onos-netcfg.json").read_text())["apps"]["org.bngpod.app"]["pod"]
    got = {q["name"]: q.get("downGuaranteed") for q in onos["qosProfiles"]}
    assert got[doc["qos_profiles"][0]["name"]] == 20_000_000
    assert [v for n, v in got.items() if n != doc["qos_profiles"][0]["name"]] == [None] * (len(got) - 1)
