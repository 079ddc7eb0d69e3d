"""Every rejection of the pod validator, each with the location it must name."""

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bngpod import model as m
from bngpod import users, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LAB = yaml.safe_load((EXAMPLES / "lab.yaml").read_text())


def errors_of(doc) -> list[str]:
    return validate.check(doc).errors


def mutated(change):
    doc = copy.deepcopy(LAB)
    change(doc)
    return doc


@pytest.mark.parametrize("name", ["lab.yaml", "minimal.yaml", "bench.yaml", "seba.yaml"])
def test_examples_are_valid(name):
    result = validate.check(validate.load_document(EXAMPLES / name))
    assert result.errors == []
    assert result.warnings == []
    assert result.pod.instances


def test_lab_model():
    pod = validate.load(EXAMPLES / "lab.yaml")
    assert [i.vf.emu_ofport for i in pod.instances] == [4901, 4902, 5001, 5002]
    # both instances of a server share its one physical port
    assert pod.instance("dp1").vf.switch_port is pod.instance("dp2").vf.switch_port
    assert pod.instance("dp1").vf.rate == 12_500_000_000
    assert pod.group("lg4").instance.name == "dp4"
    assert [p.name for p in pod.instance("dp2").access_ports] == ["access1", "access2"]
    assert pod.port("access2").tpid == 0x88A8
    assert len(pod.ports_with_role("access")) == 4
    gold = next(q for q in pod.qos_profiles if q.name == "gold")
    assert (gold.down_rate, gold.up_pir, gold.up_cir) == (100_000_000, 50_000_000, 20_000_000)
    assert gold.dscp_map() == {46: 0, 34: 2, 36: 2}
    silver = next(q for q in pod.qos_profiles if q.name == "silver")
    assert (gold.up_dscp, silver.up_dscp) == (None, 0)  # gold keeps, silver re-marks to best effort
    acl, acl6 = pod.acl
    assert (acl.action, acl.direction, acl.protocol, acl.family) == ("deny", "up", 6, "ipv4")
    assert str(acl.source) == str(acl.destination) == "0.0.0.0/0"
    assert acl.source_ports is None and (acl.destination_ports.lo, acl.destination_ports.hi) == (25, 25)
    # the IPv6 twin: its family follows from its destination; the source is the whole space
    assert (acl6.family, acl6.protocol, str(acl6.source), str(acl6.destination)) == ("ipv6", 6, "::/0", "::/0")
    # dual stack: lg1-lg3 with IPv6, lg4 without
    assert (str(pod.core.subnet6), str(pod.core.router_address6)) == ("2001:db8:64::/64", "2001:db8:64::1")
    assert [str(g.core_address6) if g.core_address6 else None for g in pod.groups] == [
        "2001:db8:64::11",
        "2001:db8:64::12",
        "2001:db8:64::13",
        None,
    ]
    assert [[p.name for p in g.ipv6_pools] for g in pod.groups] == [["v6pool1"], ["v6pool2"], ["v6pool3"], []]
    v6pool3 = pod.group("lg3").ipv6_pools[0]
    assert (v6pool3.group, v6pool3.delegated_length, v6pool3.ia_na) == ("lg3", 60, True)
    assert [str(d) for d in v6pool3.dns] == ["2001:db8:53::53", "2001:db8:53::54"]
    assert (pod.ipv6_ra.interval, pod.ipv6_ra.router_lifetime) == (200, 1800)
    assert pod.radius.ipv6_octets_attribute == "erx"
    assert [(str(r.prefix), r.via and str(r.via)) for r in pod.core.routes] == [
        ("192.0.2.0/24", "100.64.0.2"),
        ("203.0.113.0/24", None),
    ]
    minimal = validate.load(EXAMPLES / "minimal.yaml")
    assert minimal.core.subnet6 is None and minimal.ipv6_pools == []
    assert minimal.radius.ipv6_octets_attribute == "erx" and minimal.ipv6_ra == m.Ipv6Ra()


def test_unbound_ipv6_pool_is_a_warning():
    doc = mutated(_delete(["line_groups", 2, "ipv6_pools"]))
    result = validate.check(doc)
    assert result.errors == []
    assert result.warnings == ["ipv6_pools[2]: IPv6 pool 'v6pool3' is bound to no line group"]


def _set(path, value):
    def change(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _append(path, value):
    def change(doc):
        node = doc
        for key in path:
            node = node[key]
        node.append(value)

    return change


def _delete(path):
    def change(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


def _chain(*changes):
    def change(doc):
        for c in changes:
            c(doc)

    return change


V6POOL0 = ["ipv6_pools", 0]
V6POOL1 = ["ipv6_pools", 1]
EXTRA_LINE_DP1 = _append(["line_groups", 0, "lines"], {"port": "access2", "stag": "240-260"})

ROUTE = ["core", "routes", 0]
UP_DSCP = ["qos_profiles", 1, "upstream", "dscp"]
UP_DSCP_HELP = "is not valid here (a DSCP 0..63, or no dscp to keep the subscriber's marking)"
ACL = ["acl", 0]
POLICING = ["control_policing"]
LOW_LINE = {"low": {"per_line": {"rate": 2500, "burst": 5000}}}
FPS_HELP = "is not valid here (frames per second, an integer 1..1000000)"
FRAMES_HELP = "is not valid here (frames, an integer 1..1000000)"
RING_HELP = "is not valid here (a share of the punt ring in percent, an integer 1..100)"


def _policing(value):
    return _set(POLICING, value)


def _bucket(rate, burst, cls="low", key="per_line"):
    return _policing({cls: {key: {"rate": rate, "burst": burst}}})


REJECTIONS = [
    # bng-dp's punt policer
    ("punt rate 0", _bucket(0, 400), f"control_policing.low.per_line.rate: 0 {FPS_HELP}"),
    (
        "punt rate negative",
        _bucket(-5, 10, "mid", "per_client"),
        f"control_policing.mid.per_client.rate: -5 {FPS_HELP}",
    ),
    ("punt rate above the bound", _bucket(1_000_001, 400), f"control_policing.low.per_line.rate: 1000001 {FPS_HELP}"),
    ("punt rate with an SI suffix", _bucket("2k", 400), f"control_policing.low.per_line.rate: '2k' {FPS_HELP}"),
    ("punt rate boolean", _bucket(True, 400), f"control_policing.low.per_line.rate: True {FPS_HELP}"),
    ("punt rate fraction", _bucket(2.5, 400), f"control_policing.low.per_line.rate: 2.5 {FPS_HELP}"),
    (
        "punt rate as a float",
        _bucket(2500.0, 400),
        "control_policing.low.per_line.rate: 2500.0 must be a whole number of frames per second",
    ),
    ("punt burst 0", _bucket(100, 0, "high"), f"control_policing.high.per_line.burst: 0 {FRAMES_HELP}"),
    (
        "punt burst above the bound",
        _bucket(100, 1_000_001, "high", "per_client"),
        f"control_policing.high.per_client.burst: 1000001 {FRAMES_HELP}",
    ),
    (
        "punt burst as a float",
        _bucket(100, 400.0, "mid"),
        "control_policing.mid.per_line.burst: 400.0 must be a whole number of frames",
    ),
    ("punt ring 0", _policing({"low": {"ring_percent": 0}}), f"control_policing.low.ring_percent: 0 {RING_HELP}"),
    (
        "punt ring 101",
        _policing({"high": {"ring_percent": 101}}),
        f"control_policing.high.ring_percent: 101 {RING_HELP}",
    ),
    (
        "punt ring as a float",
        _policing({"mid": {"ring_percent": 75.0}}),
        "control_policing.mid.ring_percent: 75.0 must be a whole number of percent",
    ),
    (
        "punt bucket without a burst",
        _policing({"low": {"per_line": {"rate": 2500}}}),
        "control_policing.low.per_line: 'burst' is a required property",
    ),
    (
        "punt unknown class",
        _policing({"padi": {"per_line": {"rate": 1, "burst": 1}}}),
        "control_policing: unknown field(s) ('padi' was unexpected)",
    ),
    (
        "punt unknown bucket",
        _policing({"low": {"per_port": {"rate": 1, "burst": 1}}}),
        "control_policing.low: unknown field(s) ('per_port' was unexpected)",
    ),
    (
        "punt unknown bucket key",
        _policing({"low": {"per_line": {"rate": 1, "burst": 1, "pps": 1}}}),
        "control_policing.low.per_line: unknown field(s) ('pps' was unexpected)",
    ),
    ("punt class null", _policing({"low": None}), "control_policing.low: None is not of type 'object'"),
    ("punt section a list", _policing([LOW_LINE]), "control_policing: [{"),
    # upstream DSCP rewrite
    ("upstream DSCP 64", _set(UP_DSCP, 64), f"qos_profiles[1].upstream.dscp: 64 {UP_DSCP_HELP}"),
    ("upstream DSCP -1", _set(UP_DSCP, -1), f"qos_profiles[1].upstream.dscp: -1 {UP_DSCP_HELP}"),
    ("upstream DSCP as a word", _set(UP_DSCP, "abc"), f"qos_profiles[1].upstream.dscp: 'abc' {UP_DSCP_HELP}"),
    ("upstream DSCP keep spelled out", _set(UP_DSCP, "keep"), f"qos_profiles[1].upstream.dscp: 'keep' {UP_DSCP_HELP}"),
    ("upstream DSCP null", _set(UP_DSCP, None), f"qos_profiles[1].upstream.dscp: None {UP_DSCP_HELP}"),
    ("upstream DSCP boolean", _set(UP_DSCP, True), f"qos_profiles[1].upstream.dscp: True {UP_DSCP_HELP}"),
    ("upstream DSCP fraction", _set(UP_DSCP, 1.5), f"qos_profiles[1].upstream.dscp: 1.5 {UP_DSCP_HELP}"),
    (
        "upstream DSCP as a float",
        _set(UP_DSCP, 46.0),
        "qos_profiles[1].upstream.dscp: DSCP 46.0 must be a whole number 0..63",
    ),
    # static routes
    (
        "route with via and drop",
        _set([*ROUTE, "drop"], True),
        "core.routes[0]: a route has either via or drop: true, not both",
    ),
    (
        "route without via or drop",
        _delete([*ROUTE, "via"]),
        "core.routes[0]: via is required (or drop: true for a blackhole route)",
    ),
    (
        "route with drop: false and no via",
        _chain(_delete([*ROUTE, "via"]), _set([*ROUTE, "drop"], False)),
        "core.routes[0]: via is required",
    ),
    (
        "default route as a static route",
        _set([*ROUTE, "prefix"], "0.0.0.0/0"),
        "core.routes[0].prefix: the default route is core.router; a static route must be more specific",
    ),
    (
        "route inside a martian range",
        _set([*ROUTE, "prefix"], "127.1.0.0/16"),
        "core.routes[0].prefix: 127.1.0.0/16 is inside 127.0.0.0/8, which is never forwarded",
    ),
    (
        "route to the limited broadcast",
        _set([*ROUTE, "prefix"], "255.255.255.255/32"),
        "core.routes[0].prefix: 255.255.255.255/32 is inside 240.0.0.0/4, which is never forwarded",
    ),
    (
        "route inside the core subnet",
        _set([*ROUTE, "prefix"], "100.64.0.128/25"),
        "core.routes[0].prefix: 100.64.0.128/25 is inside core.subnet (100.64.0.0/24), which is connected",
    ),
    (
        "route inside a pool",
        _set([*ROUTE, "prefix"], "100.80.5.0/24"),
        "core.routes[0].prefix: 100.80.5.0/24 is inside pool pool2 (100.80.4.0/22); pools are routed by their "
        "line group",
    ),
    (
        "route prefix twice",
        _set(["core", "routes", 1, "prefix"], "192.0.2.0/24"),
        "core.routes[1].prefix: 192.0.2.0/24 is already routed by core.routes[0]",
    ),
    (
        "route prefix with host bits",
        _set([*ROUTE, "prefix"], "192.0.2.1/24"),
        "core.routes[0].prefix: 192.0.2.1/24 has host bits set; did you mean 192.0.2.0/24?",
    ),
    (
        "route via outside the core subnet",
        _set([*ROUTE, "via"], "100.65.0.2"),
        "core.routes[0].via: 100.65.0.2 is outside core.subnet 100.64.0.0/24",
    ),
    (
        "route via the core broadcast",
        _set([*ROUTE, "via"], "100.64.0.255"),
        "core.routes[0].via: 100.64.0.255 is the network or broadcast address of 100.64.0.0/24",
    ),
    (
        "route via a line group's core address",
        _set([*ROUTE, "via"], "100.64.0.13"),
        "core.routes[0].via: 100.64.0.13 is line_groups[2].core.address, an address of a DP instance",
    ),
    (
        "route via a name",
        _set([*ROUTE, "via"], "gw1"),
        "core.routes[0].via: 'gw1' is not a 'ipv4'",
    ),
    (
        "too many routes",
        _set(["core", "routes"], [{"prefix": f"20.{i // 256}.{i % 256}.0/24", "drop": True} for i in range(257)]),
        "core.routes: 257 routes; a DP instance takes at most 256",
    ),
    # the operator ACL
    (
        "ACL ports with icmp",
        _set([*ACL, "protocol"], "icmp"),
        "acl[0].destination_ports: ports need protocol tcp or udp, not icmp",
    ),
    (
        "ACL ports without a protocol",
        _delete([*ACL, "protocol"]),
        "acl[0].destination_ports: ports need protocol tcp or udp, not any",
    ),
    (
        "ACL ports with protocol 47",
        _set([*ACL, "protocol"], 47),
        "acl[0].destination_ports: ports need protocol tcp or udp, not 47",
    ),
    ("ACL port 0", _set([*ACL, "destination_ports"], 0), "acl[0].destination_ports: 0 is outside the ports 1-65535"),
    (
        "ACL port 65536",
        _set([*ACL, "source_ports"], "1024-65536"),
        "acl[0].source_ports: 1024-65536 is outside the ports 1-65535",
    ),
    (
        "ACL port range reversed",
        _set([*ACL, "destination_ports"], "30-25"),
        "acl[0].destination_ports: 30-25 is an empty range (start above end)",
    ),
    (
        "ACL port range malformed",
        _set([*ACL, "destination_ports"], "25:30"),
        "acl[0].destination_ports: '25:30' is not valid here (a port 1..65535 or a range such as 1024-65535)",
    ),
    ("ACL action", _set([*ACL, "action"], "drop"), "acl[0].action: 'drop' is not one of ['permit', 'deny']"),
    ("ACL without action", _delete([*ACL, "action"]), "acl[0]: 'action' is a required property"),
    ("ACL direction", _set([*ACL, "direction"], "in"), "acl[0].direction: 'in' is not one of ['up', 'down', 'both']"),
    (
        "ACL protocol 256",
        _set([*ACL, "protocol"], 256),
        "acl[0].protocol: 256 is not valid here (any, tcp, udp, icmp or an IP protocol number 0..255)",
    ),
    (
        "ACL protocol name",
        _set([*ACL, "protocol"], "sctp"),
        "acl[0].protocol: 'sctp' is not valid here (any, tcp, udp, icmp",
    ),
    (
        "ACL source with host bits",
        _set([*ACL, "source"], "100.80.0.1/22"),
        "acl[0].source: 100.80.0.1/22 has host bits set; did you mean 100.80.0.0/22?",
    ),
    (
        "ACL destination malformed",
        _set([*ACL, "destination"], "10.0.0.0/40"),
        "acl[0].destination: '10.0.0.0/40' is not an IPv4 prefix",
    ),
    ("ACL unknown field", _set([*ACL, "log"], True), "acl[0]: unknown field(s) ('log' was unexpected)"),
    (
        "too many ACL rules",
        _set(["acl"], [{"action": "deny", "protocol": 47}] * 1025),
        "acl: 1025 rules; a DP instance takes at most 1024",
    ),
    # overlapping S/C ranges on the same access port
    (
        "stag overlap on a port",
        _set(["line_groups", 1, "lines", 1, "stag"], "140-159"),
        "line_groups[1].lines[1].stag: 140-159 overlaps line_groups[0].lines[0] (100-149) on port access1",
    ),
    (
        "ctag overlap on a shared S-tag",
        _set(["line_groups", 3, "lines", 0, "ctag"], "1999-4094"),
        "line_groups[3].lines[0].ctag: S-tag 300 C-tag 1999-4094 overlaps line_groups[2].lines[0] "
        "(S-tag 300 C-tag 1-1999) on port access3",
    ),
    (
        "whole S-tag against a C-tag range",
        _delete(["line_groups", 3, "lines", 0, "ctag"]),
        "line_groups[3].lines[0].ctag: S-tag 300 C-tag 1-4094 overlaps line_groups[2].lines[0]",
    ),
    # one instance serving the same S-tag on two access ports
    (
        "same S-tag on two ports of one instance",
        _append(["line_groups", 0, "lines"], {"port": "access2", "stag": "120"}),
        "instances[0]: instance dp1 would serve S-tag 120 on two access ports (access1 via lg1, access2 via lg1)",
    ),
    # references to unknown things
    (
        "unknown access port",
        _set(["line_groups", 0, "lines", 0, "port"], "access9"),
        "line_groups[0].lines[0].port: unknown switch port 'access9'",
    ),
    (
        "line on a non-access port",
        _set(["line_groups", 0, "lines", 0, "port"], "uplink1"),
        "line_groups[0].lines[0].port: port 'uplink1' has role uplink, not access",
    ),
    ("unknown server", _set(["instances", 1, "server"], "server9"), "instances[1].server: unknown server 'server9'"),
    ("unknown server port", _set(["instances", 1, "port"], "p7"), "instances[1].port: server server1 has no port 'p7'"),
    ("unknown VF", _set(["instances", 1, "vf"], 7), "instances[1].vf: server1/p1 has no VF 7"),
    ("unknown pool", _set(["line_groups", 0, "pools"], ["pool9"]), "line_groups[0].pools[0]: unknown pool 'pool9'"),
    (
        "too many DSCPs for a DP configuration line",
        _set(["qos_profiles", 0, "classes", 1, "dscp"], list(range(0, 46)) + list(range(47, 64))),
        "qos_profiles[0].classes: 64 DSCPs mapped outside best effort do not fit a DP configuration line",
    ),
    (
        "too many lines for one instance",
        _set(["line_groups", 0, "lines"], [{"port": "access1", "stag": 100, "ctag": c} for c in range(1, 1100)]),
        "instances[0]: instance dp1 has 1099 lines; one DP instance takes at most 1024",
    ),
    (
        "name too long for the DP",
        _set(["instances", 0, "name"], "d" * 32),
        "instances[0].name: 'dddddddddddddddddddddddddddddddd' does not match",
    ),
    (
        "profile above an instance's port rate",
        _set(["qos_profiles", 0, "downstream", "rate"], "20G"),
        "qos_profiles[0].downstream.rate: 20000000000 bit/s is above the port rate of instance dp1 (12500000000)",
    ),
    ("line group without pools", _set(["line_groups", 0, "pools"], []), "line_groups[0].pools: [] should be non-empty"),
    (
        "unknown line group",
        _set(["instances", 0, "line_groups"], ["lg9"]),
        "instances[0].line_groups[0]: unknown line group 'lg9'",
    ),
    (
        "unknown QoS profile",
        _set(["line_groups", 0, "qos_profile"], "platinum"),
        "line_groups[0].qos_profile: unknown QoS profile 'platinum'",
    ),
    ("unknown uplink", _set(["core", "uplink"], "uplink9"), "core.uplink: unknown switch port 'uplink9'"),
    (
        "server cabled to an access port",
        _set(["servers", 0, "ports", 0, "switch_port"], "access1"),
        "servers[0].ports[0].switch_port: port 'access1' has role access, not server",
    ),
    # placement conflicts
    (
        "two instances on one VF",
        _set(["instances", 1, "vf"], 1),
        "instances[1].vf: VF 1 of server1/p1 is already used by instances[0] (dp1)",
    ),
    (
        "line group served by two instances",
        _set(["instances", 1, "line_groups"], ["lg2", "lg1"]),
        "instances[1].line_groups[1]: line group 'lg1' is already served by instances[0] (dp1)",
    ),
    # pools and CIDRs
    (
        "overlapping pools",
        _set(["pools", 1, "prefix"], "100.80.2.0/23"),
        "pools[1].prefix: 100.80.2.0/23 overlaps pools[0] (100.80.0.0/22)",
    ),
    (
        "pool overlapping the core subnet",
        _set(["pools", 1, "prefix"], "100.64.0.0/25"),
        "pools[1].prefix: 100.64.0.0/25 overlaps core.subnet (100.64.0.0/24)",
    ),
    (
        "pool inside a martian range",
        _set(["pools", 0, "prefix"], "127.0.0.0/24"),
        "pools[0].prefix: 127.0.0.0/24 is inside 127.0.0.0/8, which is never forwarded",
    ),
    (
        "pool with host bits",
        _set(["pools", 0, "prefix"], "100.80.1.0/22"),
        "pools[0].prefix: 100.80.1.0/22 has host bits set; did you mean 100.80.0.0/22?",
    ),
    (
        "malformed CIDR",
        _set(["pools", 0, "prefix"], "100.80.0.0/33"),
        "pools[0].prefix: '100.80.0.0/33' is not an IPv4 prefix",
    ),
    (
        "malformed core subnet",
        _set(["core", "subnet"], "300.64.0.0/24"),
        "core.subnet: '300.64.0.0/24' is not an IPv4 prefix",
    ),
    (
        "malformed address",
        _set(["core", "router", "address"], "100.64.0.256"),
        "core.router.address: '100.64.0.256' is not a 'ipv4'",
    ),
    (
        "pool bound to two line groups",
        _set(["line_groups", 1, "pools"], ["pool2", "pool1"]),
        "line_groups[1].pools[1]: pool 'pool1' is already bound to line_groups[0] (lg1)",
    ),
    (
        "router outside the core subnet",
        _set(["core", "router", "address"], "100.65.0.1"),
        "core.router.address: 100.65.0.1 is outside core.subnet 100.64.0.0/24",
    ),
    (
        "core address reused",
        _set(["line_groups", 1, "core", "address"], "100.64.0.11"),
        "line_groups[1].core.address: 100.64.0.11 is already used by line_groups[0].core.address",
    ),
    (
        "control address outside management",
        _set(["instances", 0, "control"], "10.9.0.1"),
        "instances[0].control: 10.9.0.1 is outside management.subnet 10.200.0.0/24",
    ),
    (
        "control address reused",
        _set(["instances", 1, "control"], "10.200.0.11"),
        "instances[1].control: 10.200.0.11 is already used by instances[0].control",
    ),
    # MACs and ids
    (
        "duplicate AC MAC",
        _set(["line_groups", 1, "ac_mac"], "02:bb:00:00:00:01"),
        "line_groups[1].ac_mac: MAC 02:bb:00:00:00:01 is already used by line_groups[0].ac_mac",
    ),
    (
        "AC MAC equal to a VF MAC",
        _set(["line_groups", 0, "core", "mac"], "02:00:00:00:01:02"),
        "line_groups[0].core.mac: MAC 02:00:00:00:01:02 is already used by servers[0].ports[0].vfs[1].mac",
    ),
    (
        "multicast MAC",
        _set(["line_groups", 0, "ac_mac"], "03:bb:00:00:00:01"),
        "line_groups[0].ac_mac: 03:bb:00:00:00:01 is a multicast MAC",
    ),
    (
        "malformed MAC",
        _set(["line_groups", 0, "ac_mac"], "02:bb:00:00:01"),
        "line_groups[0].ac_mac: '02:bb:00:00:01' does not match",
    ),
    ("duplicate instance id", _set(["instances", 1, "id"], 1), "instances[1].id: duplicate id 1 (also instances[0])"),
    # rates
    (
        "zero downstream rate",
        _set(["qos_profiles", 1, "downstream", "rate"], 0),
        "qos_profiles[1].downstream.rate: rate 0 must be greater than 0",
    ),
    (
        "negative policer rate",
        _set(["qos_profiles", 0, "upstream", "pir"], "-5M"),
        "qos_profiles[0].upstream.pir: rate -5M must be greater than 0",
    ),
    (
        "zero port rate",
        _set(["switch", "ports", 0, "rate"], "0G"),
        "switch.ports[0].rate: rate 0G must be greater than 0",
    ),
    (
        "CIR above PIR",
        _set(["qos_profiles", 0, "upstream", "cir"], "60M"),
        "qos_profiles[0].upstream.cir: CIR 60000000 is above PIR 50000000",
    ),
    (
        "guaranteed above the downstream rate",
        _set(["qos_profiles", 0, "downstream", "guaranteed"], "1G"),
        "qos_profiles[0].downstream.guaranteed: guaranteed rate 1000000000 is above the profile's"
        " downstream rate 100000000",
    ),
    (
        "class above pipe rate",
        _set(["qos_profiles", 0, "classes", 0, "rate"], "1G"),
        "qos_profiles[0].classes[0].rate: class rate 1000000000 is above the profile's downstream rate 100000000",
    ),
    (
        "VF rates above the port",
        _set(["servers", 0, "ports", 0, "vfs", 0, "rate"], "20G"),
        "servers[0].ports[0].vfs: VF rates add up to 32500000000 bit/s, above the port's 25000000000 bit/s",
    ),
    # duplicate names
    (
        "duplicate line group name",
        _set(["line_groups", 1, "name"], "lg1"),
        "line_groups[1].name: duplicate name 'lg1' (also line_groups[0])",
    ),
    (
        "duplicate instance name",
        _set(["instances", 1, "name"], "dp1"),
        "instances[1].name: duplicate name 'dp1' (also instances[0])",
    ),
    (
        "duplicate port name",
        _set(["switch", "ports", 1, "name"], "access1"),
        "switch.ports[1].name: duplicate name 'access1' (also switch.ports[0])",
    ),
    (
        "duplicate port number",
        _set(["switch", "ports", 1, "number"], 1),
        "switch.ports[1].number: duplicate number 1 (also switch.ports[0])",
    ),
    (
        "duplicate pool name",
        _set(["pools", 1, "name"], "pool1"),
        "pools[1].name: duplicate name 'pool1' (also pools[0])",
    ),
    (
        "duplicate profile name",
        _set(["qos_profiles", 1, "name"], "gold"),
        "qos_profiles[1].name: duplicate name 'gold' (also qos_profiles[0])",
    ),
    # IPv6: prefixes, lengths, overlaps
    (
        "IPv6 WAN pools overlap",
        _set([*V6POOL1, "wan_prefix"], "2001:db8:100:8000::/49"),
        "ipv6_pools[1].wan_prefix: 2001:db8:100:8000::/49 overlaps ipv6_pools[0].wan_prefix (2001:db8:100::/48)",
    ),
    (
        "PD pool overlaps a WAN pool",
        _set([*V6POOL1, "delegated_prefix"], "2001:db8:100::/40"),
        "ipv6_pools[1].delegated_prefix: 2001:db8:100::/40 overlaps ipv6_pools[0].wan_prefix (2001:db8:100::/48)",
    ),
    (
        "PD pools overlap",
        _set([*V6POOL1, "delegated_prefix"], "2001:db8:2000::/36"),
        "ipv6_pools[1].delegated_prefix: 2001:db8:2000::/36 overlaps ipv6_pools[0].delegated_prefix",
    ),
    (
        "IPv6 pool overlaps core.subnet6",
        _set([*V6POOL0, "delegated_prefix"], "2001:db8:64::/48"),
        "ipv6_pools[0].delegated_prefix: 2001:db8:64::/48 overlaps core.subnet6 (2001:db8:64::/64)",
    ),
    (
        "WAN pool of one /64",
        _set([*V6POOL0, "wan_prefix"], "2001:db8:100::/64"),
        "ipv6_pools[0].wan_prefix: 2001:db8:100::/64: a WAN pool is /32../63 (each session a /64 of it)",
    ),
    (
        "WAN pool shorter than /32",
        _set([*V6POOL0, "wan_prefix"], "2001:db8::/31"),
        "ipv6_pools[0].wan_prefix: 2001:db8::/31: a WAN pool is /32../63",
    ),
    (
        "delegated length shorter than its pool",
        _chain(_set([*V6POOL0, "delegated_prefix"], "2001:db8:2000::/44"), _set([*V6POOL0, "delegated_length"], 40)),
        "ipv6_pools[0].delegated_length: /40 is shorter than the pool 2001:db8:2000::/44 itself",
    ),
    (
        "delegated length 65",
        _set([*V6POOL0, "delegated_length"], 65),
        "ipv6_pools[0].delegated_length: 65 is not valid here (the length of each delegated prefix, an integer 40..64)",
    ),
    (
        "delegated length 39",
        _set([*V6POOL0, "delegated_length"], 39),
        "ipv6_pools[0].delegated_length: 39 is not valid here",
    ),
    (
        "IPv6 pool with host bits",
        _set([*V6POOL0, "wan_prefix"], "2001:db8:100::1/48"),
        "ipv6_pools[0].wan_prefix: 2001:db8:100::1/48 has host bits set; did you mean 2001:db8:100::/48?",
    ),
    (
        "IPv6 pool not a prefix",
        _set([*V6POOL0, "wan_prefix"], "2001:db8:100:::/48"),
        "ipv6_pools[0].wan_prefix: '2001:db8:100:::/48' is not an IPv6 prefix",
    ),
    (
        "IPv6 pool as an IPv4 prefix",
        _set([*V6POOL0, "wan_prefix"], "100.80.0.0/22"),
        "ipv6_pools[0].wan_prefix: '100.80.0.0/22' does not match",
    ),
    (
        "link-local WAN pool",
        _set([*V6POOL0, "wan_prefix"], "fe80::/48"),
        "ipv6_pools[0].wan_prefix: fe80::/48 overlaps fe80::/10, which is never forwarded",
    ),
    (
        "multicast PD pool",
        _set([*V6POOL0, "delegated_prefix"], "ff00::/40"),
        "ipv6_pools[0].delegated_prefix: ff00::/40 overlaps ff00::/8, which is never forwarded",
    ),
    (
        "IPv4-mapped core subnet6",
        _set(["core", "subnet6"], "::ffff:0:0/96"),
        "core.subnet6: ::ffff:0:0/96 overlaps ::/8, which is never forwarded",
    ),
    (
        "link-local DNS server",
        _set([*V6POOL0, "dns"], ["fe80::53"]),
        "ipv6_pools[0].dns[0]: fe80::53 is inside fe80::/10; a global unicast address is required",
    ),
    ("three IPv6 DNS servers", _set([*V6POOL0, "dns"], ["2001:db8::1", "2001:db8::2", "2001:db8::3"]), "is too long"),
    ("IPv4 DNS server in an IPv6 pool", _set([*V6POOL0, "dns"], ["198.51.100.53"]), "is not a 'ipv6'"),
    (
        "duplicate IPv6 pool name",
        _set([*V6POOL1, "name"], "v6pool1"),
        "ipv6_pools[1].name: duplicate name 'v6pool1' (also ipv6_pools[0])",
    ),
    # IPv6: binding and the core addresses
    (
        "IPv6 pool bound twice",
        _set(["line_groups", 1, "ipv6_pools"], ["v6pool1"]),
        "line_groups[1].ipv6_pools[0]: IPv6 pool 'v6pool1' is already bound to line_groups[0] (lg1)",
    ),
    (
        "unknown IPv6 pool",
        _set(["line_groups", 0, "ipv6_pools"], ["nope"]),
        "line_groups[0].ipv6_pools[0]: unknown IPv6 pool 'nope'",
    ),
    (
        "IPv4 pool as an IPv6 pool",
        _set(["line_groups", 3, "ipv6_pools"], ["pool4"]),
        "line_groups[3].ipv6_pools[0]: unknown IPv6 pool 'pool4'",
    ),
    (
        "IPv6 pools without the group's core address6",
        _delete(["line_groups", 0, "core", "address6"]),
        "line_groups[0].core: address6 is required with ipv6_pools (the next hop of the group's IPv6 prefixes)",
    ),
    (
        "five IPv6 pools in a group",
        _chain(
            *[
                _append(
                    ["ipv6_pools"],
                    {
                        "name": f"x{n}",
                        "wan_prefix": f"2001:db8:{0x110 + n:x}::/48",
                        "delegated_prefix": f"2001:db8:{0x30 + n:x}00::/40",
                        "delegated_length": 56,
                    },
                )
                for n in range(5)
            ],
            _set(["line_groups", 3, "core", "address6"], "2001:db8:64::14"),
            _set(["line_groups", 3, "ipv6_pools"], [f"x{n}" for n in range(5)]),
        ),
        "line_groups[3].ipv6_pools: 5 IPv6 pools; a line group takes at most 4 (bng-dp's 8 prefixes6 pairs)",
    ),
    (
        "group address6 outside subnet6",
        _set(["line_groups", 0, "core", "address6"], "2001:db8:65::11"),
        "line_groups[0].core.address6: 2001:db8:65::11 is outside core.subnet6 2001:db8:64::/64",
    ),
    (
        "router address6 outside subnet6",
        _set(["core", "router", "address6"], "2001:db8:65::1"),
        "core.router.address6: 2001:db8:65::1 is outside core.subnet6 2001:db8:64::/64",
    ),
    (
        "two groups with one address6",
        _set(["line_groups", 0, "core", "address6"], "2001:db8:64::12"),
        "line_groups[1].core.address6: 2001:db8:64::12 is already used by line_groups[0].core.address6",
    ),
    (
        "group address6 is the router's",
        _set(["line_groups", 2, "core", "address6"], "2001:db8:64::1"),
        "line_groups[2].core.address6: 2001:db8:64::1 is already used by core.router.address6",
    ),
    (
        "group address6 is the subnet-router anycast",
        _set(["line_groups", 0, "core", "address6"], "2001:db8:64::"),
        "line_groups[0].core.address6: 2001:db8:64:: is the subnet-router anycast address of 2001:db8:64::/64",
    ),
    (
        "link-local group address6",
        _set(["line_groups", 0, "core", "address6"], "fe80::11"),
        "line_groups[0].core.address6: fe80::11 is inside fe80::/10; a global unicast address is required",
    ),
    (
        "address6 with a zone index",
        _set(["line_groups", 0, "core", "address6"], "2001:db8:64::11%eth0"),
        "line_groups[0].core.address6: '2001:db8:64::11%eth0' is not a 'ipv6'",
    ),
    (
        "address6 without core.subnet6",
        _delete(["core", "subnet6"]),
        "line_groups[0].core.address6: core.subnet6 is needed when any address6 is given",
    ),
    (
        "router address6 without core.subnet6",
        _delete(["core", "subnet6"]),
        "core.router.address6: core.subnet6 is needed when any address6 is given",
    ),
    (
        "core.subnet6 without the router's address6",
        _delete(["core", "router", "address6"]),
        "core.router: address6 is required with core.subnet6 (the IPv6 default route of every DP)",
    ),
    (
        "core.subnet6 shorter than /48",
        _chain(_set(["core", "subnet6"], "2001:db8::/47"), _set(["core", "router", "address6"], "2001:db8::1")),
        "core.subnet6: 2001:db8::/47 is larger than a core link takes (/48 or longer)",
    ),
    (
        "site-local core subnet6",
        _set(["core", "subnet6"], "fec0::/64"),
        "core.subnet6: fec0::/64 overlaps fec0::/10, which is never forwarded",
    ),
    (
        "PD pool shorter than /32",
        _chain(_set([*V6POOL0, "delegated_prefix"], "2001:db0::/31"), _set([*V6POOL0, "delegated_length"], 48)),
        "ipv6_pools[0].delegated_prefix: 2001:db0::/31 is larger than a DP takes as one pool (/32 or longer)",
    ),
    (
        "nine assigned prefix lengths",
        _chain(
            *[
                _append(
                    ["ipv6_pools"],
                    {
                        "name": f"len{n}",
                        "wan_prefix": f"2001:db8:{0x120 + n:x}::/48",
                        "delegated_prefix": f"2001:db8:{0x40 + n:x}00::/40",
                        "delegated_length": 41 + n,
                    },
                )
                for n in range(6)
            ]
        ),
        "ipv6_pools: 9 assigned prefix lengths (/41, /42, /43, /44, /45, /46, /56, /60, /64); a DP instance takes "
        "at most 8",
    ),
    (
        "core.subnet6 of one address",
        _set(["core", "subnet6"], "2001:db8:64::/127"),
        "core.subnet6: 2001:db8:64::/127 is too small for the router and the line groups (at most /126)",
    ),
    # IPv6: Router Advertisements
    (
        "RA router lifetime below the interval",
        _set(["ipv6_ra"], {"interval": 600, "router_lifetime": 300}),
        "ipv6_ra.router_lifetime: 300 s is below the interval (600 s); RFC 4861: 0 or from the interval up to 9000 s",
    ),
    (
        "RA default lifetime below a long interval",
        _set(["ipv6_ra"], {"interval": 1800, "router_lifetime": 1799}),
        "ipv6_ra.router_lifetime: 1799 s is below the interval (1800 s)",
    ),
    (
        "RA interval 3 s",
        _set(["ipv6_ra", "interval"], 3),
        "ipv6_ra.interval: 3 is not valid here (seconds between unsolicited RAs, an integer 4..1800)",
    ),
    ("RA interval above 1800 s", _set(["ipv6_ra", "interval"], 1801), "ipv6_ra.interval: 1801 is not valid here"),
    (
        "RA lifetime above 9000 s",
        _set(["ipv6_ra", "router_lifetime"], 9001),
        "ipv6_ra.router_lifetime: 9001 is not valid here (seconds, 0 or an integer from the interval up to 9000)",
    ),
    # IPv6: ACL family and RADIUS
    (
        "ACL rule of two families",
        _set(["acl", 1], {"action": "deny", "source": "2001:db8::/32", "destination": "10.0.0.0/8"}),
        "acl[1]: source 2001:db8::/32 and destination 10.0.0.0/8 are of different families; a rule is IPv4 or IPv6",
    ),
    (
        "ACL IPv6 prefix with host bits",
        _set(["acl", 1, "destination"], "2001:db8::1/32"),
        "acl[1].destination: 2001:db8::1/32 has host bits set; did you mean 2001:db8::/32?",
    ),
    (
        "ACL IPv6 prefix too long",
        _set(["acl", 1, "destination"], "2001:db8::/129"),
        "acl[1].destination: '2001:db8::/129' is not an IPv6 prefix",
    ),
    (
        "unknown per-family octets attribute",
        _set(["radius", "ipv6_octets_attribute"], "vsa"),
        "radius.ipv6_octets_attribute: 'vsa' is not one of ['erx', 'none']",
    ),
    # the uplink
    ("missing core section", _delete(["core"]), "(top level): 'core' is a required property"),
    (
        "no uplink port",
        _chain(_set(["switch", "ports", 4, "role"], "server")),
        "switch.ports: no port has role uplink: the pod needs a core uplink",
    ),
    # structure
    (
        "unknown field",
        _set(["line_groups", 0, "colour"], "blue"),
        "line_groups[0]: unknown field(s) ('colour' was unexpected)",
    ),
    (
        "tag out of range",
        _set(["line_groups", 0, "lines", 0, "stag"], "100-4095"),
        "line_groups[0].lines[0].stag: 100-4095 is outside the VLAN ids 1-4094",
    ),
    (
        "empty tag range",
        _set(["line_groups", 0, "lines", 0, "stag"], "149-100"),
        "line_groups[0].lines[0].stag: 149-100 is an empty range",
    ),
    ("bad TPID", _set(["switch", "ports", 0, "tpid"], "0x9100"), "switch.ports[0].tpid: '0x9100' is not one of"),
    (
        "TPID on a server port",
        _set(["switch", "ports", 5, "tpid"], "0x8100"),
        "switch.ports[5].tpid: only access ports have a TPID",
    ),
    (
        "instance id beyond a VNI",
        _set(["instances", 0, "id"], 1 << 24),
        "instances[0].id: 16777216 is greater than the maximum",
    ),
    (
        "duplicate DSCP",
        _set(["qos_profiles", 0, "classes", 1, "dscp"], [46]),
        "qos_profiles[0].classes[1].dscp: DSCP 46 is already mapped by qos_profiles[0].classes[0]",
    ),
    (
        "weights off best effort",
        _set(["qos_profiles", 0, "classes", 0, "weights"], [1, 1, 1, 1]),
        "qos_profiles[0].classes[0].weights: only the best-effort class (tc 12) has WRR weights",
    ),
]


@pytest.mark.parametrize("why,change,expected", REJECTIONS, ids=[r[0] for r in REJECTIONS])
def test_rejection(why, change, expected):
    errors = errors_of(mutated(change))
    assert any(expected in e for e in errors), f"{why}: expected {expected!r} in {errors}"


@pytest.mark.parametrize(
    "why,change",
    [
        ("no ACL and no routes", _chain(_delete(["acl"]), _delete(["core", "routes"]))),
        ("upstream DSCP 63", _set(UP_DSCP, 63)),
        ("upstream DSCP on every profile", _set(["qos_profiles", 0, "upstream", "dscp"], 46)),
        ("no upstream DSCP: keep", _delete(UP_DSCP)),
        ("route via the router", _set([*ROUTE, "via"], "100.64.0.1")),
        ("route around the core subnet and the pools", _set([*ROUTE, "prefix"], "100.0.0.0/8")),
        ("route inside another route", _set(["core", "routes", 1, "prefix"], "192.0.2.128/25")),
        ("ACL protocol by number with a port range", _set([*ACL, "protocol"], 17)),
        ("ACL on prefixes, both directions", _set(["acl", 0], {"action": "permit", "source": "100.80.0.0/22"})),
        ("punt policing empty: the defaults", _policing({})),
        (
            "IPv4 only",
            _chain(
                _delete(["core", "subnet6"]),
                _delete(["core", "router", "address6"]),
                _delete(["ipv6_pools"]),
                _delete(["ipv6_ra"]),
                _delete(["acl", 1]),
                *[_delete(["line_groups", i, "core", "address6"]) for i in range(3)],
                *[_delete(["line_groups", i, "ipv6_pools"]) for i in range(3)],
            ),
        ),
        ("a core address6 without IPv6 pools", _set(["line_groups", 3, "core", "address6"], "2001:db8:64::14")),
        ("RA router lifetime 0 (not a default router)", _set(["ipv6_ra", "router_lifetime"], 0)),
        ("RA router lifetime equal to the interval", _set(["ipv6_ra"], {"interval": 1800, "router_lifetime": 1800})),
        ("RA section empty: the defaults", _set(["ipv6_ra"], {})),
        ("one delegated prefix: the pool's own length", _set([*V6POOL0, "delegated_length"], 40)),
        ("delegated /64s", _set([*V6POOL0, "delegated_length"], 64)),
        (
            "WAN pool /63 and /32",
            _chain(
                _set([*V6POOL0, "wan_prefix"], "2001:db8:100::/63"), _set([*V6POOL1, "wan_prefix"], "2001:db9::/32")
            ),
        ),
        ("no IPv6 DNS servers", _delete([*V6POOL0, "dns"])),
        (
            "ACL IPv6 rule on link-local and multicast",
            _set(["acl", 1], {"action": "deny", "source": "fe80::/10", "destination": "ff00::/8"}),
        ),
        (
            "ACL IPv6 rule by destination only, ICMPv6",
            _set(["acl", 1], {"action": "deny", "protocol": "icmp", "destination": "2001:db8:dead::/48"}),
        ),
        ("no per-family octets in accounting", _set(["radius", "ipv6_octets_attribute"], "none")),
        ("punt policing of one bucket", _policing(LOW_LINE)),
        (
            "punt buckets at their bounds",
            _chain(_bucket(1, 1, "high"), _bucket(1_000_000, 1_000_000, "low", "per_client")),
        ),
        (
            "punt ring at its bounds",
            _policing({"high": {"ring_percent": 100}, "mid": {"ring_percent": 1}, "low": {"ring_percent": 1}}),
        ),
    ],
)
def test_accepted_variants(why, change):
    assert errors_of(mutated(change)) == [], why


def test_control_policing_model():
    defaults = validate.load(EXAMPLES / "lab.yaml").control_policing
    assert defaults == m.PUNT_DEFAULTS and list(defaults) == ["high", "mid", "low"]
    low = defaults["low"]
    assert (low.per_client, low.per_line, low.ring_percent) == (m.PuntBucket(5, 10), m.PuntBucket(200, 400), 50)
    doc = mutated(
        _policing(
            {
                "high": {"ring_percent": 90},
                "low": {"per_line": {"rate": 2500, "burst": 5000}, "per_client": {"rate": 2, "burst": 4}},
            }
        )
    )
    result = validate.check(doc)
    assert result.errors == [] and result.warnings == []
    got = result.pod.control_policing
    assert got["high"] == m.PuntClass(m.PuntBucket(100, 200), m.PuntBucket(5000, 10000), 90)
    assert got["mid"] == m.PUNT_DEFAULTS["mid"]
    assert got["low"] == m.PuntClass(m.PuntBucket(2, 4), m.PuntBucket(2500, 5000), 50)


def test_bench_pod_raises_discovery_per_line():
    """bench.yaml: a PADI and a retransmission from every subscriber of its fullest line at
    once, a whole line's worth again every second."""
    pod = validate.load(EXAMPLES / "bench.yaml")
    on_line: dict[tuple, int] = {}
    for u in users.generate(pod, 2500):  # the 10K point: 2,500 per line group
        line = next(
            ln
            for ln in pod.group(u["line_group"]).lines
            if ln.port.name == u["port"] and u["stag"] in ln.stag and u["ctag"] in ln.ctags
        )
        key = (line.port.name, line.stag, line.ctag)
        on_line[key] = on_line.get(key, 0) + 1
    fullest = max(on_line.values())
    assert fullest == 2500
    policing = pod.control_policing
    for cls in ("low", "mid"):
        assert policing[cls].per_line == m.PuntBucket(fullest, 2 * fullest), cls
        assert policing[cls].per_client == m.PUNT_DEFAULTS[cls].per_client
        assert policing[cls].ring_percent == m.PUNT_DEFAULTS[cls].ring_percent
    assert policing["high"] == m.PUNT_DEFAULTS["high"]


@pytest.mark.parametrize(
    "rings,warned",
    [((100, 75, 50), False), ((100, 100, 100), False), ((40, 75, 50), True), ((100, 50, 75), True)],
)
def test_inverted_ring_thresholds_are_a_warning(rings, warned):
    doc = mutated(_policing({c: {"ring_percent": r} for c, r in zip(("high", "mid", "low"), rings, strict=True)}))
    result = validate.check(doc)
    assert result.errors == []
    expected = f"control_policing: ring_percent high {rings[0]}, mid {rings[1]}, low {rings[2]}: a backlog"
    assert any(expected in w for w in result.warnings) == warned, result.warnings


def test_every_error_reported_at_once():
    doc = mutated(
        _chain(
            _set(["instances", 1, "vf"], 1),
            _set(["pools", 1, "prefix"], "100.80.2.0/23"),
            _set(["line_groups", 1, "ac_mac"], "02:bb:00:00:00:01"),
        )
    )
    errors = errors_of(doc)
    assert len(errors) >= 3, errors


def test_unserved_group_is_a_warning():
    doc = mutated(_set(["instances", 3, "line_groups"], []))
    result = validate.check(doc)
    assert result.errors == []
    assert "line_groups[3]: line group 'lg4' is served by no instance" in result.warnings


@pytest.mark.parametrize(
    "text,expected",
    [
        (b"pod: [unclosed", "not valid YAML"),
        (b"- just\n- a list\n", "the pod file must be a mapping"),
        (b"a: &x [1]\nb: *x\n", "YAML aliases are not supported"),
        (b"\xff\xfe\x00garbage", "the pod file must be a mapping"),
        (b"pod: \x00\x01\x02", "not valid YAML"),
        (b"!!python/object:os.system {}", "not valid YAML"),
    ],
)
def test_hostile_documents(text, expected):
    with pytest.raises(validate.PodError) as err:
        validate.parse_document(text)
    assert any(expected in e for e in err.value.errors), err.value.errors


@pytest.mark.parametrize(
    "value,bits",
    [(100, 100), ("100M", 100_000_000), ("2.5G", 2_500_000_000), ("512k", 512_000), ("0", 0), ("-1M", -1_000_000)],
)
def test_parse_rate(value, bits):
    assert validate.parse_rate(value) == bits


def bngpod_cli(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "bngpod", *args], capture_output=True, text=True, env=env)


def test_cli_reports_errors_with_locations(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(mutated(_set(["instances", 1, "vf"], 1))))
    proc = bngpod_cli("validate", str(bad))
    assert proc.returncode == 1
    assert f"{bad}: instances[1].vf: VF 1 of server1/p1 is already used by instances[0] (dp1)" in proc.stderr
    good = bngpod_cli("validate", str(EXAMPLES / "lab.yaml"))
    assert good.returncode == 0, good.stderr
    assert "pod lab is valid: 4 instance(s), 4 line group(s), 6 line(s)" in good.stdout


def test_cli_missing_file():
    proc = bngpod_cli("validate", "/nonexistent/pod.yaml")
    assert proc.returncode == 1
    assert "cannot read" in proc.stderr


# -- qos_share: sharing an access port's rate between the instances that shape it ------


def test_qos_share_defaults_and_groups():
    pod = validate.load(EXAMPLES / "lab.yaml")
    assert pod.qos_share == m.QosShare(enabled=True, interval_ms=10, silent_intervals=3, port=9100, server_ports=True)
    assert {p: [i.name for i in insts] for p, insts in pod.share_groups().items()} == {
        "access1": ["dp1", "dp2"],
        "access3": ["dp3", "dp4"],
    }
    off = validate.check(mutated(lambda d: d.update(qos_share={"enabled": False}))).pod
    assert off.share_groups() == {}


@pytest.mark.parametrize(
    "value,where",
    [
        ({"port": 8805}, "qos_share.port: UDP port 8805 is the PFCP or VXLAN port"),
        ({"interval_ms": 0}, "qos_share"),
        ({"interval_ms": 1001}, "qos_share"),
        ({"silent_intervals": 1}, "qos_share"),
        ({"port": 0}, "qos_share"),
        ({"enabled": "yes"}, "qos_share"),
        ({"peers": []}, "qos_share"),
        ({"server_ports": "yes"}, "qos_share"),
    ],
)
def test_qos_share_rejections(value, where):
    errors = errors_of(mutated(lambda d: d.update(qos_share=value)))
    assert any(e.startswith(where) for e in errors), errors


def test_qos_share_port_conflict_ignored_when_off():
    assert errors_of(mutated(lambda d: d.update(qos_share={"enabled": False, "port": 8805}))) == []


def test_qos_share_too_slow_a_port():
    def slow(d):
        d["switch"]["ports"][0]["rate"] = 50000

    errors = errors_of(mutated(slow))
    assert any(e.startswith("qos_share: access port 'access1'") for e in errors), errors


def test_qos_share_two_shared_ports_two_groups():
    # dp1 serves lg1 (access1, with dp2) and lg3 (access3, with dp4): it takes part in
    # both groups (and in its server port's).
    def two(d):
        d["instances"][0]["line_groups"] = ["lg1", "lg3"]
        d["instances"][2]["line_groups"] = []

    result = validate.check(mutated(two))
    assert result.errors == [] and not any("qos_share" in w for w in result.warnings), result.warnings
    groups = {p: [i.name for i in insts] for p, insts in result.pod.share_groups().items()}
    assert groups == {"access1": ["dp1", "dp2"], "access3": ["dp1", "dp4"]}
    servers = {p: [i.name for i in insts] for p, insts in result.pod.server_share_groups().items()}
    assert servers == {"srv1": ["dp1", "dp2"], "srv2": ["dp3", "dp4"]}
