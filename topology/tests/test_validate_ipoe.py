"""IPoE in the pod file (docs/configuration.md): every refusal with the location it names,
the defaults, and what the generators write for the DP and the CP."""

import configparser
import copy
from pathlib import Path

import pytest
import yaml

from bngpod import generate, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
IPOE = yaml.safe_load((EXAMPLES / "ipoe.yaml").read_text())
LAB = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())


def mutated(change, base=IPOE):
    doc = copy.deepcopy(base)
    change(doc)
    return doc


def errors_of(doc) -> list[str]:
    return validate.check(doc).errors


def only_error(doc, where: str, text: str) -> None:
    errors = errors_of(doc)
    assert len(errors) == 1, errors
    assert errors[0].startswith(where + ":"), errors
    assert text in errors[0], errors


def test_the_example_is_valid_and_its_model():
    result = validate.check(copy.deepcopy(IPOE))
    assert result.errors == [] and result.warnings == []
    pod = result.pod
    lg1, lg2, lg3 = pod.groups
    assert lg1.session_types == ("pppoe", "ipoe") and lg1.allows_pppoe and lg1.allows_ipoe
    assert lg2.session_types == ("ipoe",) and not lg2.allows_pppoe
    assert (lg2.ipoe.lease_time, lg2.ipoe.renew_time, lg2.ipoe.max_macs, lg2.ipoe.proxy_arp) == (60, 30, 2, False)
    assert lg3.ipoe.mode == "relay" and [str(a) for a in lg3.ipoe.relay.servers] == ["10.200.0.50"]
    assert lg3.ipoe.relay.option82 == "keep"
    assert str(pod.pools[0].gateway) == "100.80.0.1"


def test_defaults():
    def change(d):
        d["line_groups"][0]["ipoe"] = {}
        d["line_groups"][1].pop("ipoe")

    pod = validate.check(mutated(change)).pod
    for g in pod.groups[:2]:
        i = g.ipoe
        assert (i.mode, i.lease_time, i.renew_time, i.max_macs) == ("server", 3600, 300, 1)
        assert (i.username, i.password, i.proxy_arp, i.relay) == ("mac", "ipoe", True, None)
    # a short lease: T1 defaults to half of it
    pod = validate.check(mutated(lambda d: d["line_groups"][0].__setitem__("ipoe", {"lease_time": 100}))).pod
    assert pod.groups[0].ipoe.renew_time == 50


def test_pppoe_only_groups_are_unchanged():
    pod = validate.check(copy.deepcopy(LAB)).pod
    assert all(g.session_types == ("pppoe",) and g.ipoe is None for g in pod.groups)
    assert all(p.gateway is None for p in pod.pools)


@pytest.mark.parametrize(
    "gateway,text",
    [
        ("100.81.1.1", "is outside pools[1].prefix 100.81.0.0/24"),
        ("100.81.0.0", "network or broadcast address"),
        ("100.81.0.255", "network or broadcast address"),
    ],
)
def test_gateway_inside_the_pool(gateway, text):
    only_error(mutated(lambda d: d["pools"][1].__setitem__("gateway", gateway)), "pools[1].gateway", text)


def test_gateway_must_be_an_address():
    only_error(mutated(lambda d: d["pools"][1].__setitem__("gateway", "100.81.0")), "pools[1].gateway", "ipv4")


def test_ipoe_pools_need_a_gateway():
    only_error(mutated(lambda d: d["pools"][1].pop("gateway")), "pools[1]", "needs a gateway")


def test_a_pppoe_only_pool_needs_no_gateway():
    def change(d):
        d["pools"][0].pop("gateway")
        d["line_groups"][0]["session_types"] = ["pppoe"]
        d["line_groups"][0].pop("ipoe")

    assert errors_of(mutated(change)) == []


def test_ipoe_block_only_with_ipoe():
    only_error(
        mutated(lambda d: d["line_groups"][0].__setitem__("session_types", ["pppoe"])),
        "line_groups[0].ipoe",
        "needs ipoe in session_types",
    )


@pytest.mark.parametrize(
    "types,where,text",
    [
        (["ppp"], "line_groups[1].session_types[0]", "is not one of"),
        ([], "line_groups[1].session_types", "should be non-empty"),
        (["ipoe", "ipoe"], "line_groups[1].session_types", "non-unique"),
        ("ipoe", "line_groups[1].session_types", "is not of type 'array'"),
    ],
)
def test_session_types_values(types, where, text):
    only_error(mutated(lambda d: d["line_groups"][1].__setitem__("session_types", types)), where, text)


@pytest.mark.parametrize(
    "key,value,text",
    [
        ("lease_time", 59, "60..604800"),
        ("lease_time", 604801, "60..604800"),
        ("lease_time", 60.0, "whole number"),
        ("renew_time", 29, "from 30 up to half the lease time"),
        ("renew_time", 31, "above half the lease time (60 s / 2 = 30 s)"),
        ("max_macs", 0, "1..64"),
        ("max_macs", 65, "1..64"),
        ("mode", "proxy", "is not one of"),
        ("username", "user", "is not one of"),
        ("password", "", "should be non-empty"),
        ("proxy_arp", "yes", "is not of type 'boolean'"),
        ("lease", 10, "unknown field(s)"),
    ],
)
def test_ipoe_values(key, value, text):
    only_error(
        mutated(lambda d: d["line_groups"][1]["ipoe"].__setitem__(key, value)),
        f"line_groups[1].ipoe.{key}" if key not in ("lease",) else "line_groups[1].ipoe",
        text,
    )


def test_renew_against_the_default_lease():
    # no lease_time: 3600 s, so T1 may be up to 1800 s
    def change(d, renew):
        d["line_groups"][0]["ipoe"] = {"renew_time": renew}

    assert errors_of(mutated(lambda d: change(d, 1800))) == []
    only_error(mutated(lambda d: change(d, 1801)), "line_groups[0].ipoe.renew_time", "3600 s / 2 = 1800 s")


def test_relay_needs_its_block():
    only_error(
        mutated(lambda d: d["line_groups"][2]["ipoe"].pop("relay")), "line_groups[2].ipoe", "needs a relay block"
    )


def test_relay_block_only_in_relay_mode():
    only_error(
        mutated(lambda d: d["line_groups"][2]["ipoe"].__setitem__("mode", "server")),
        "line_groups[2].ipoe.relay",
        "needs mode: relay",
    )


@pytest.mark.parametrize(
    "servers,where,text",
    [
        (["100.80.0.9"], "line_groups[2].ipoe.relay.servers[0]", "inside pool pool1"),
        (["10.200.0.50", "100.82.0.7"], "line_groups[2].ipoe.relay.servers[1]", "inside pool pool3"),
        (["224.0.0.1"], "line_groups[2].ipoe.relay.servers[0]", "not a unicast address"),
        (["255.255.255.255"], "line_groups[2].ipoe.relay.servers[0]", "not a unicast address"),
        ([], "line_groups[2].ipoe.relay.servers", "should be non-empty"),
        (["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"], "line_groups[2].ipoe.relay.servers", "too long"),
        (["10.0.0.1", "10.0.0.1"], "line_groups[2].ipoe.relay.servers", "non-unique"),
        (["10.0.0"], "line_groups[2].ipoe.relay.servers[0]", "ipv4"),
    ],
)
def test_relay_servers(servers, where, text):
    only_error(mutated(lambda d: d["line_groups"][2]["ipoe"]["relay"].__setitem__("servers", servers)), where, text)


def test_relay_option82():
    only_error(
        mutated(lambda d: d["line_groups"][2]["ipoe"]["relay"].__setitem__("option82", "drop")),
        "line_groups[2].ipoe.relay.option82",
        "is not one of",
    )


def test_at_most_eight_gateways_per_group():
    def change(d):
        for k in range(9):
            d["pools"].append({"name": f"extra{k}", "prefix": f"100.90.{k}.0/24", "gateway": f"100.90.{k}.1"})
        d["line_groups"][1]["pools"] = [f"extra{k}" for k in range(9)]
        d["pools"] = [p for p in d["pools"] if p["name"] != "pool2"]

    only_error(mutated(change), "line_groups[1].pools", "at most 8 gateways")


# -- the generators ---------------------------------------------------------------------------------
def _ini(text: str) -> configparser.ConfigParser:
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",))
    cp.read_string(text)
    return cp


def test_dp_ini_ipoe_keys():
    pod = validate.check(copy.deepcopy(IPOE)).pod
    ini = _ini(generate.dp_config(pod, pod.instance("dp1")))
    got = [(ini[f"line_group.{i}"]["session_types"], ini[f"line_group.{i}"]["ipoe_gateways"]) for i in range(3)]
    assert got == [("pppoe ipoe", "100.80.0.1/22"), ("ipoe", "100.81.0.1/24"), ("ipoe", "100.82.0.1/24")]
    assert [ini[f"line_group.{i}"]["ipoe_proxy_arp"] for i in range(3)] == ["yes", "no", "yes"]


def test_dp_ini_several_gateways_and_pppoe_groups():
    def change(d):
        d["pools"].append({"name": "pool4", "prefix": "100.83.0.0/25", "gateway": "100.83.0.126"})
        d["line_groups"][1]["pools"].append("pool4")
        d["line_groups"][0]["session_types"] = ["pppoe"]
        d["line_groups"][0].pop("ipoe")

    pod = validate.check(mutated(change)).pod
    ini = _ini(generate.dp_config(pod, pod.instance("dp2")))
    assert ini["line_group.1"]["ipoe_gateways"] == "100.81.0.1/24 100.83.0.126/25"
    # a PPPoE-only group: the keys are there, saying so (its pool's gateway is not the DP's)
    g0 = ini["line_group.0"]
    assert (g0["session_types"], g0["ipoe_gateways"], g0["ipoe_proxy_arp"]) == ("pppoe", "none", "yes")


def test_cp_yaml_ipoe_keys():
    pod = validate.check(copy.deepcopy(IPOE)).pod
    doc = yaml.safe_load(generate.cp_config(pod))
    assert doc["pools"][0] == {
        "name": "pool1",
        "prefix": "100.80.0.0/22",
        "gateway": "100.80.0.1",
        "dns": ["198.51.100.53"],
        "line_group": "lg1",
    }
    lg1, lg2, lg3 = doc["line_groups"]
    assert lg1["session_types"] == ["pppoe", "ipoe"]
    assert lg1["ipoe"] == {
        "mode": "server",
        "lease_time": 3600,
        "renew_time": 300,
        "max_macs": 1,
        "username": "mac",
        "password": "ipoe",
        "proxy_arp": True,
    }
    assert (lg2["ipoe"]["lease_time"], lg2["ipoe"]["renew_time"], lg2["ipoe"]["max_macs"]) == (60, 30, 2)
    assert lg2["ipoe"]["proxy_arp"] is False and "relay" not in lg2["ipoe"]
    assert lg3["ipoe"]["relay"] == {"servers": ["10.200.0.50"], "option82": "keep"}


def test_cp_yaml_of_a_pppoe_pod_has_no_ipoe_keys():
    pod = validate.check(copy.deepcopy(LAB)).pod
    doc = yaml.safe_load(generate.cp_config(pod))
    assert all("gateway" not in p for p in doc["pools"])
    assert all("session_types" not in g and "ipoe" not in g for g in doc["line_groups"])


def test_arp_ping_is_off_by_default_and_reaches_cp_yaml():
    pod = validate.check(copy.deepcopy(IPOE)).pod
    assert all(g.ipoe.arp_ping is None for g in pod.groups)
    assert all("arp_ping" not in g["ipoe"] for g in yaml.safe_load(generate.cp_config(pod))["line_groups"])
    doc = mutated(lambda d: d["line_groups"][1]["ipoe"].__setitem__("arp_ping", {"interval": 30, "count": 3}))
    result = validate.check(doc)
    assert result.errors == [] and result.pod.groups[1].ipoe.arp_ping == (30, 3)
    cp = yaml.safe_load(generate.cp_config(result.pod))
    assert cp["line_groups"][1]["ipoe"]["arp_ping"] == {"interval": 30, "count": 3}


@pytest.mark.parametrize(
    "value,where,text",
    [
        ({"interval": 0, "count": 3}, "line_groups[1].ipoe.arp_ping.interval", "1..3600"),
        ({"interval": 3601, "count": 3}, "line_groups[1].ipoe.arp_ping.interval", "1..3600"),
        ({"interval": 30, "count": 256}, "line_groups[1].ipoe.arp_ping.count", "1..255"),
        ({"interval": 30.0, "count": 3}, "line_groups[1].ipoe.arp_ping.interval", "whole number"),
        ({"interval": 30}, "line_groups[1].ipoe.arp_ping", "count"),
        ({"interval": 30, "count": 3, "retries": 1}, "line_groups[1].ipoe.arp_ping", "unknown field(s)"),
    ],
)
def test_arp_ping_values(value, where, text):
    only_error(mutated(lambda d: d["line_groups"][1]["ipoe"].__setitem__("arp_ping", value)), where, text)


# -- dual stack over IPoE (issue 19's last item, /work/notes/ipoe6-contract.md) -----------------------
def _v6_on_group(index: int, mode: str | None = None):
    """v6pool1 moved from lg1 to the group at index (lg2: IPoE only; lg3: DHCPv4 relay)."""

    def change(d):
        d["line_groups"][0].pop("ipv6_pools")
        g = d["line_groups"][index]
        g["ipv6_pools"] = ["v6pool1"]
        g["core"]["address6"] = f"2001:db8:64::{11 + index}"
        d["line_groups"][0]["core"].pop("address6")
        if mode is not None:
            g["ipoe"]["mode"] = mode

    return change


def test_the_example_has_a_dual_stack_ipoe_group():
    pod = validate.check(copy.deepcopy(IPOE)).pod
    lg1 = pod.group("lg1")
    assert lg1.allows_ipoe and [p.name for p in lg1.ipv6_pools] == ["v6pool1"]
    assert str(lg1.core_address6) == "2001:db8:64::11" and lg1.ipv6_pools[0].ia_na is True


def test_ipv6_pools_on_an_ipoe_only_group_are_valid():
    result = validate.check(mutated(_v6_on_group(1)))
    assert result.errors == [] and result.warnings == [], result.errors
    g = result.pod.groups[1]
    assert g.session_types == ("ipoe",) and [p.name for p in g.ipv6_pools] == ["v6pool1"]


def test_ipv6_pools_on_a_relay_group_are_a_warning():
    # bng-cp relays DHCPv4 only and drops DHCPv6 of a relay-mode group (docs/cp/ipoe.md)
    result = validate.check(mutated(_v6_on_group(2)))
    assert result.errors == []
    assert result.warnings == [
        "line_groups[2].ipv6_pools: IPoE in relay mode: bng-cp relays DHCPv4 only and drops DHCPv6, "
        "so these pools serve none of its subscribers"
    ]

    def both(d):
        _v6_on_group(2)(d)
        d["line_groups"][2]["session_types"] = ["pppoe", "ipoe"]

    assert validate.check(mutated(both)).warnings[0].endswith("serve its PPPoE subscribers only")


def test_ipoe_ipv6_needs_what_pppoe_ipv6_needs():
    # the group's core address6 (next hop of its /64s and delegated prefixes)
    only_error(
        mutated(lambda d: d["line_groups"][0]["core"].pop("address6")),
        "line_groups[0].core",
        "address6 is required with ipv6_pools",
    )


def test_dp_ini_and_cp_yaml_carry_the_ipoe_groups_ipv6_pools():
    pod = validate.check(mutated(_v6_on_group(1))).pod
    ini = _ini(generate.dp_config(pod, pod.instance("dp2")))
    lg2 = ini["line_group.1"]
    assert (lg2["session_types"], lg2["core_address6"]) == ("ipoe", "2001:db8:64::12")
    assert lg2["prefixes6"] == "2001:db8:180::/48:64 2001:db8:2800::/40:56"
    assert ini["line_group.2"]["prefixes6"] == "none"
    assert (ini["core"]["subnet6"], ini["core"]["router_address6"]) == ("2001:db8:64::/64", "2001:db8:64::1")
    doc = yaml.safe_load(generate.cp_config(pod))
    g = doc["line_groups"][1]
    assert (g["session_types"], g["ipv6_pools"], g["core_address6"]) == (["ipoe"], ["v6pool1"], "2001:db8:64::12")
    assert doc["ipv6_pools"] == [
        {
            "name": "v6pool1",
            "wan_prefix": "2001:db8:180::/48",
            "delegated_prefix": "2001:db8:2800::/40",
            "delegated_length": 56,
            "ia_na": True,
            "dns": ["2001:db8::53"],
            "line_group": "lg2",
        }
    ]
    assert doc["core6"] == {"subnet": "2001:db8:64::/64", "router": "2001:db8:64::1"}
