"""The static fold on a real Open vSwitch: QinQ frames sent into the emulated pod's
namespaces must come out of exactly the ports the pod file says, and nowhere else."""

import re

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPPoED

from bngpod import emu, probe

pytestmark = pytest.mark.pod

SUB_MAC = "02:5b:00:00:00:01"


@pytest.fixture(scope="module")
def ports(lab_pod):
    opened = probe.open_edges(lab_pod, emu)
    yield opened
    for port in opened.values():
        port.close()


def qinq(tpid: int, stag: int, ctag: int, src=SUB_MAC, dst="ff:ff:ff:ff:ff:ff") -> Ether:
    outer = Dot1AD(vlan=stag) if tpid == 0x88A8 else Dot1Q(vlan=stag)
    return Ether(src=src, dst=dst, type=tpid) / outer / Dot1Q(vlan=ctag) / PPPoED(code=0x09)


def send_and_collect(ports, sender: str, frame: bytes) -> dict[str, list[Ether]]:
    got = probe.send_and_collect(ports, sender, frame)
    return {name: [Ether(raw) for raw in frames] for name, frames in got.items()}


def tags(frame: Ether) -> tuple[int, int, int]:
    outer = frame.payload
    return frame.type, outer.vlan, outer.payload.vlan


def owner(pod, port: str, stag: int, ctag: int) -> str:
    for g in pod.groups:
        for ln in g.lines:
            if ln.port.name == port and stag in ln.stag and ctag in ln.ctags:
                return g.instance.name
    raise AssertionError("no owner")


def edge_cases(pod):
    """(access port, S-tag, C-tag) at both ends of every range, both TPIDs."""
    cases = []
    for g in pod.groups:
        for ln in g.lines:
            for stag in sorted({ln.stag.lo, ln.stag.hi}):
                for ctag in sorted({ln.ctags.lo, ln.ctags.hi}):
                    for tpid in (0x8100, 0x88A8):
                        cases.append((ln.port.name, stag, ctag, tpid))
    return cases


def test_access_frames_reach_only_their_instance(lab_pod, ports):
    cases = edge_cases(lab_pod)
    assert len(cases) >= 24
    for port, stag, ctag, tpid in cases:
        got = send_and_collect(ports, port, bytes(qinq(tpid, stag, ctag)))
        want = owner(lab_pod, port, stag, ctag)
        assert list(got) == [want], f"{port} S{stag}/C{ctag} {tpid:#x}: went to {list(got)}, not {want}"
        (frame,) = got[want]
        out_tpid, out_s, out_c = tags(frame)
        assert (out_s, out_c) == (stag, ctag)
        line = next(ln for g in lab_pod.groups for ln in g.lines if ln.port.name == port and stag in ln.stag)
        # whole S-tags are forwarded untouched; split S-tags are re-tagged with the port's TPID
        assert out_tpid == (tpid if line.ctag is None else lab_pod.port(port).tpid)
        assert frame.src == SUB_MAC and frame.haslayer(PPPoED)


@pytest.mark.parametrize(
    "port,stag,ctag",
    [("access1", 99, 1), ("access1", 160, 1), ("access2", 250, 7), ("access4", 100, 1), ("access3", 301, 5)],
)
def test_unserved_s_tag_is_dropped(lab_pod, ports, port, stag, ctag):
    before = drop_count()
    for tpid in (0x8100, 0x88A8):
        assert send_and_collect(ports, port, bytes(qinq(tpid, stag, ctag))) == {}
    assert drop_count() >= before + 2


def drop_count() -> int:
    out = emu.ofctl("dump-flows", emu.BRIDGE, "table=0").stdout
    (drop,) = [ln for ln in out.splitlines() if ln.rstrip().endswith("actions=drop")]
    return int(re.search(r"n_packets=(\d+)", drop).group(1))


def test_instance_frames_return_to_their_access_port(lab_pod, ports):
    for g in lab_pod.groups:
        inst = g.instance
        for ln in g.lines:
            access = lab_pod.port(ln.port.name)
            for stag in sorted({ln.stag.lo, ln.stag.hi}):
                for ctag in sorted({ln.ctags.lo, ln.ctags.hi}):
                    frame = qinq(access.tpid, stag, ctag, src=g.ac_mac, dst=SUB_MAC)
                    got = send_and_collect(ports, inst.name, bytes(frame))
                    assert list(got) == [access.name], f"{inst.name} S{stag}/C{ctag}: went to {list(got)}"
                    assert tags(got[access.name][0]) == (access.tpid, stag, ctag)
                    assert got[access.name][0].src == g.ac_mac


@pytest.mark.parametrize(
    "sender,port,stag,ctag",
    [
        ("dp1", "access2", 200, 1),  # dp2's S-tag
        ("dp1", "access3", 300, 1),  # dp3's half of a split S-tag
        ("dp3", "access3", 300, 2000),  # dp4's half of the S-tag dp3 also serves
        ("dp4", "access1", 100, 1),
    ],
)
def test_foreign_line_injection_is_dropped(lab_pod, ports, sender, port, stag, ctag):
    tpid = lab_pod.port(port).tpid
    got = send_and_collect(ports, sender, bytes(qinq(tpid, stag, ctag, src="02:bb:00:00:00:09", dst=SUB_MAC)))
    assert got == {}, f"{sender} injected S{stag}/C{ctag}, it reached {list(got)}"


def test_core_side_is_steered_by_mac(lab_pod, ports):
    router = lab_pod.core.router_mac
    for g in lab_pod.groups:
        inst = g.instance.name
        # router -> the group's core MAC: only the serving instance
        down = Ether(src=router, dst=g.core_mac) / IP(src="198.51.100.10", dst=str(g.pools[0].prefix[1])) / UDP()
        assert list(send_and_collect(ports, "uplink", bytes(down))) == [inst]
        # the router asks for the group's core address: only the serving instance hears it
        arp = Ether(src=router, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=router, psrc=str(lab_pod.core.router_address), pdst=str(g.core_address)
        )
        got = send_and_collect(ports, "uplink", bytes(arp))
        assert list(got) == [inst] and got[inst][0][ARP].pdst == str(g.core_address)
        # the instance -> router, and its own ARP broadcast: out of the uplink
        up = Ether(src=g.core_mac, dst=router) / IP(src=str(g.pools[0].prefix[1]), dst="198.51.100.10") / UDP()
        assert list(send_and_collect(ports, inst, bytes(up))) == ["uplink"]
        who = Ether(src=g.core_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=g.core_mac, psrc=str(g.core_address), pdst=str(lab_pod.core.router_address)
        )
        assert list(send_and_collect(ports, inst, bytes(who))) == ["uplink"]


def test_core_mac_of_another_group_is_dropped(lab_pod, ports):
    lg1, lg2 = lab_pod.group("lg1"), lab_pod.group("lg2")
    spoof = Ether(src=lg1.core_mac, dst=lab_pod.core.router_mac) / IP() / UDP()
    assert send_and_collect(ports, lg2.instance.name, bytes(spoof)) == {}
    unknown = Ether(src=lab_pod.core.router_mac, dst="02:cc:00:00:00:99") / IP() / UDP()
    assert send_and_collect(ports, "uplink", bytes(unknown)) == {}


def test_core_router_resolves_a_group_address_through_the_fold(lab_pod, ports):
    """The real kernel router in bngpod-core routes a pool via its group's core
    address: its ARP request must arrive at the instance serving that group."""
    lg3 = lab_pod.group("lg3")
    emu.sh("ip", "neigh", "flush", "all", ns=emu.CORE_NS)
    ports["dp3"].drain()
    emu.sh("ping", "-c1", "-W1", str(lg3.pools[0].prefix[5]), ns=emu.CORE_NS, check=False)
    arps = [Ether(f) for f in ports["dp3"].recv_all(0.5)]
    assert any(f.haslayer(ARP) and f[ARP].pdst == str(lg3.core_address) for f in arps), arps
