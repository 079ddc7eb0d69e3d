"""The static fold's IPv6 neighbour discovery on a real Open vSwitch (userspace datapath,
as in the emulated pod): the core router's multicast Neighbor Solicitation for a line
group's core IPv6 address must come out of the port of the instance serving the group and
nowhere else, and an instance's own multicast NS/NA may leave towards the router only from
its group's core MAC and core IPv6 address.

A switch of its own (namespaces bngnd-*), loaded with basebox-config's rendering of a
hand-made fold: two instances, one group each, the core side untagged or on a VLAN. The
lab pod's fold gains these flows when the pod file gives the groups an `address6`
(test_fold.py runs the IPv4 checks on it)."""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from harness import podenv
from scapy.layers.inet6 import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether

from basebox_config import CoreGroup, Fold, Port, Target, openflow
from bngpod.probe import send_and_collect
from bngpod.rawsock import RawPort

pytestmark = pytest.mark.pod

NS_SW, NS_UP = "bngnd-sw", "bngnd-up"
BRIDGE = "bngnd"
UPLINK = 9
ROUTER_MAC, ROUTER6 = "02:ee:00:00:00:01", "2001:db8:64::1"
A = CoreGroup(
    "gA",
    "02:cc:00:00:00:0a",
    "192.0.2.10",
    Target(7, "dpA", 3301, Port("srv", 33), "02:00:00:00:00:0a"),
    core_address6="2001:db8:64::a",
)
B = CoreGroup(
    "gB",
    "02:cc:00:00:00:0b",
    "192.0.2.11",
    Target(8, "dpB", 3302, Port("srv", 33), "02:00:00:00:00:0b"),
    core_address6="2001:db8:64::b",
)
C = CoreGroup("gC", "02:cc:00:00:00:0c", "192.0.2.12", A.target)  # IPv4 only, on dpA too
EDGES = {"uplink": (NS_UP, UPLINK), "dpA": ("bngnd-vf1", 3301), "dpB": ("bngnd-vf2", 3302)}


def _sh(*args: str, ns: str | None = None, env: dict | None = None, check: bool = True) -> str:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True, env=env).stdout


def _fold(core_vlan: int | None) -> Fold:
    return Fold(
        pod="nd",
        switch="sw",
        dpid="00000000000000fe",
        uplink=Port("wan", UPLINK),
        router_mac=ROUTER_MAC,
        router_address="192.0.2.1",
        core_vlan=core_vlan,
        access_ports=[],
        targets=[A.target, B.target],
        core_groups=[A, B, C],
    )


def _cleanup() -> None:
    for ns in [NS_SW] + [e[0] for e in EDGES.values()]:
        _sh("ip", "netns", "delete", ns, check=False)


class Switch:
    """ovsdb-server and ovs-vswitchd of their own in NS_SW, one veth per edge."""

    def __init__(self, run: Path):
        self.run = run
        self.env = dict(os.environ, OVS_RUNDIR=str(run), OVS_DBDIR=str(run), OVS_LOGDIR=str(run))
        self.pids: list[int] = []

    def start(self) -> None:
        for ns in [NS_SW] + [e[0] for e in EDGES.values()]:
            _sh("ip", "netns", "add", ns)
            # no kernel IPv6: its own ND, MLD and RS would be frames no test sent
            for key in ("all", "default"):
                _sh("sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1", ns=ns)
        db = f"unix:{self.run / 'db.sock'}"
        _sh("ovsdb-tool", "create", str(self.run / "conf.db"), "/usr/share/openvswitch/vswitch.ovsschema")
        for daemon, args in (
            ("ovsdb-server", [str(self.run / "conf.db"), f"--remote=punix:{self.run / 'db.sock'}"]),
            ("ovs-vswitchd", [db]),
        ):
            pidfile = self.run / f"{daemon}.pid"
            _sh(
                daemon,
                *args,
                "--no-chdir",
                f"--pidfile={pidfile}",
                f"--log-file={self.run / (daemon + '.log')}",
                f"--unixctl={self.run / (daemon + '.ctl')}",
                "--detach",
                ns=NS_SW,
                env=self.env,
            )
            self.pids.append(int(pidfile.read_text()))
        self.vsctl("--no-wait", "init")
        self.vsctl(
            "add-br",
            BRIDGE,
            "--",
            "set",
            "bridge",
            BRIDGE,
            "datapath_type=netdev",
            "protocols=OpenFlow13",
            "fail_mode=secure",
        )
        for ns, ofport in EDGES.values():
            sw_if = f"nd{ofport}"
            _sh("ip", "link", "add", sw_if, "netns", NS_SW, "type", "veth", "peer", "name", "e0", "netns", ns)
            for n, i in ((NS_SW, sw_if), (ns, "e0")):
                _sh("ip", "link", "set", i, "up", ns=n)
            self.vsctl("add-port", BRIDGE, sw_if, "--", "set", "interface", sw_if, f"ofport_request={ofport}")

    def vsctl(self, *args: str) -> str:
        return _sh("ovs-vsctl", f"--db=unix:{self.run / 'db.sock'}", "--timeout=20", *args, env=self.env)

    def ofctl(self, *args: str) -> str:
        return _sh("ovs-ofctl", "-O", "OpenFlow13", *args, ns=NS_SW, env=self.env)

    def load(self, fold: Fold) -> None:
        flows = self.run / "flows.of13"
        flows.write_text(openflow.render(fold))
        self.ofctl("replace-flows", f"unix:{self.run / (BRIDGE + '.mgmt')}", str(flows))

    def stop(self) -> None:
        for pid in reversed(self.pids):
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        for pid in self.pids:
            for _ in range(50):
                if not Path(f"/proc/{pid}").exists():
                    break
                time.sleep(0.05)


@pytest.fixture(scope="module")
def switch():
    podenv.require("the ND fold test", podenv.missing(tools=("ovs-vswitchd", "ovsdb-server", "ovs-ofctl"), files=()))
    _cleanup()
    run = Path(tempfile.mkdtemp(prefix="bngnd-"))
    sw = Switch(run)
    try:
        sw.start()
        yield sw
    finally:
        sw.stop()
        _cleanup()
        shutil.rmtree(run, ignore_errors=True)


@pytest.fixture(scope="module", params=[None, 77], ids=["untagged", "vlan77"])
def edges(request, switch):
    switch.load(_fold(request.param))
    opened = {name: RawPort(ns, "e0") for name, (ns, _) in EDGES.items()}
    try:
        yield request.param, opened
    finally:
        for port in opened.values():
            port.close()


def _core(vlan: int | None, frame):
    """frame on the core side: untagged, or with the core VLAN's tag after Ether."""
    if vlan is None:
        return bytes(frame)
    eth, rest = frame, frame.payload
    eth.remove_payload()
    return bytes(eth / Dot1Q(vlan=vlan) / rest)


def _solicited_node(addr: str) -> tuple[str, str]:
    """(IPv6 solicited-node multicast address, its MAC) of addr."""
    low = int(ipaddress.IPv6Address(addr)) & 0xFFFFFF
    group = ipaddress.IPv6Address(int(ipaddress.IPv6Address("ff02::1:ff00:0")) | low)
    mac = "33:33:ff:" + ":".join(f"{(low >> s) & 0xFF:02x}" for s in (16, 8, 0))
    return str(group), mac


def _router_ns(vlan, target: str, src_mac: str = ROUTER_MAC) -> bytes:
    group, mac = _solicited_node(target)
    frame = (
        Ether(src=src_mac, dst=mac)
        / IPv6(src=ROUTER6, dst=group, hlim=255)
        / ICMPv6ND_NS(tgt=target)
        / ICMPv6NDOptSrcLLAddr(lladdr=src_mac)
    )
    return _core(vlan, frame)


def test_router_ns_reaches_only_the_serving_instance(edges):
    vlan, ports = edges
    for group, want in ((A, "dpA"), (B, "dpB")):
        got = send_and_collect(ports, "uplink", _router_ns(vlan, group.core_address6))
        assert set(got) == {want}, (group.group, got)
        assert len(got[want]) == 1
        ns = Ether(got[want][0])
        assert ns[ICMPv6ND_NS].tgt == group.core_address6
        assert (ns[Dot1Q].vlan if vlan else None) == (vlan if vlan else None)


def test_router_ns_for_other_addresses_is_dropped(edges):
    vlan, ports = edges
    # an address no group has, the router's own (DAD), and a group's IPv4-only sibling
    for target in ("2001:db8:64::c", ROUTER6, "2001:db8:65::a"):
        assert send_and_collect(ports, "uplink", _router_ns(vlan, target)) == {}, target
    # a multicast NA (not a solicitation) for a group's address is not steered either
    na = Ether(src=ROUTER_MAC, dst="33:33:00:00:00:01") / IPv6(src=ROUTER6, dst="ff02::1", hlim=255)
    na = na / ICMPv6ND_NA(tgt=A.core_address6, R=1, S=0, O=1)
    assert send_and_collect(ports, "uplink", _core(vlan, na)) == {}


def test_router_ns_on_the_wrong_vlan_is_dropped(edges):
    vlan, ports = edges
    assert send_and_collect(ports, "uplink", _router_ns(None if vlan else 77, A.core_address6)) == {}


def _instance_nd(vlan, group: CoreGroup, kind: str, src_mac=None, src6=None) -> bytes:
    src_mac = src_mac or group.core_mac
    src6 = src6 or group.core_address6
    if kind == "ns":  # resolving the router
        dst6, dst_mac = _solicited_node(ROUTER6)
        icmp = ICMPv6ND_NS(tgt=ROUTER6) / ICMPv6NDOptSrcLLAddr(lladdr=src_mac)
    else:  # unsolicited NA of its own address
        dst6, dst_mac = "ff02::1", "33:33:00:00:00:01"
        icmp = ICMPv6ND_NA(tgt=group.core_address6, R=0, S=0, O=1)
    return _core(vlan, Ether(src=src_mac, dst=dst_mac) / IPv6(src=src6, dst=dst6, hlim=255) / icmp)


@pytest.mark.parametrize("kind", ["ns", "na"])
def test_instance_nd_leaves_to_the_router(edges, kind):
    vlan, ports = edges
    for group, sender in ((A, "dpA"), (B, "dpB")):
        got = send_and_collect(ports, sender, _instance_nd(vlan, group, kind))
        assert set(got) == {"uplink"}, (group.group, kind, got)


@pytest.mark.parametrize("kind", ["ns", "na"])
def test_instance_nd_of_another_group_is_dropped(edges, kind):
    vlan, ports = edges
    cases = [
        ("dpA", _instance_nd(vlan, A, kind, src6=B.core_address6)),  # B's address from A's MAC
        ("dpA", _instance_nd(vlan, B, kind)),  # B's MAC and address from dpA's port
        ("dpA", _instance_nd(vlan, A, kind, src6="fe80::cc:aff:fe00:a")),  # link-local source
        ("dpA", _instance_nd(vlan, C, kind, src6=A.core_address6)),  # C has no IPv6: not from its MAC
    ]
    for sender, frame in cases:
        assert send_and_collect(ports, sender, frame) == {}, Ether(frame).summary()


def test_arp_steering_still_works(edges):
    vlan, ports = edges
    arp = Ether(src=ROUTER_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(
        op=1, hwsrc=ROUTER_MAC, psrc="192.0.2.1", pdst=B.core_address
    )
    assert set(send_and_collect(ports, "uplink", _core(vlan, arp))) == {"dpB"}


def test_nd_flows_count_what_they_steer(edges, switch):
    vlan, ports = edges
    send_and_collect(ports, "uplink", _router_ns(vlan, A.core_address6))
    dump = switch.ofctl("dump-flows", f"unix:{switch.run / (BRIDGE + '.mgmt')}", "table=0,icmp6")
    line = next(x for x in dump.splitlines() if f"nd_target={A.core_address6}" in x)
    assert "n_packets=0," not in line, line
