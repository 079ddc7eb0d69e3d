"""The fold checks, shared by every way the emulated switch gets its flows: the static
fold (test_fold.py) and the ONOS application's steering rendered for OVS
(test_onos_fold.py). Each check takes the placement it expects, line group name ->
instance name, so the same checks run before and after a failover."""

from __future__ import annotations

import re

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPPoED

from bngpod import emu, probe

SUB_MAC = "02:5b:00:00:00:01"
FOREIGN_MAC = "02:bb:00:00:00:09"

# (access port, S-tag, C-tag) no line of the lab pod holds
UNSERVED = [("access1", 99, 1), ("access1", 160, 1), ("access2", 250, 7), ("access4", 100, 1), ("access3", 301, 5)]


def stated_placement(pod) -> dict[str, str]:
    """The placement the pod file states: line group -> instance name."""
    return {g.name: g.instance.name for g in pod.groups if g.instance is not None}


def qinq(tpid: int, stag: int, ctag: int, src=SUB_MAC, dst="ff:ff:ff:ff:ff:ff") -> Ether:
    outer = Dot1AD(vlan=stag) if tpid == 0x88A8 else Dot1Q(vlan=stag)
    return Ether(src=src, dst=dst, type=tpid) / outer / Dot1Q(vlan=ctag) / PPPoED(code=0x09)


def send_and_collect(ports, sender: str, frame: bytes) -> dict[str, list[Ether]]:
    got = probe.send_and_collect(ports, sender, frame)
    return {name: [Ether(raw) for raw in frames] for name, frames in got.items()}


def tags(frame: Ether) -> tuple[int, int, int]:
    outer = frame.payload
    return frame.type, outer.vlan, outer.payload.vlan


def owner(pod, placement: dict[str, str], port: str, stag: int, ctag: int) -> str:
    for g in pod.groups:
        for ln in g.lines:
            if ln.port.name == port and stag in ln.stag and ctag in ln.ctags:
                return placement[g.name]
    raise AssertionError("no owner")


def edge_cases(pod):
    """(access port, S-tag, C-tag, TPID) at both ends of every range, both TPIDs."""
    cases = []
    for g in pod.groups:
        for ln in g.lines:
            for stag in sorted({ln.stag.lo, ln.stag.hi}):
                for ctag in sorted({ln.ctags.lo, ln.ctags.hi}):
                    for tpid in (0x8100, 0x88A8):
                        cases.append((ln.port.name, stag, ctag, tpid))
    return cases


def drop_count() -> int:
    out = emu.ofctl("dump-flows", emu.BRIDGE, "table=0").stdout
    (drop,) = [ln for ln in out.splitlines() if ln.rstrip().endswith("actions=drop")]
    return int(re.search(r"n_packets=(\d+)", drop).group(1))


def access_frames_reach_only_their_instance(pod, ports, placement, retags_split_stags: bool = True):
    """retags_split_stags: the switch pops an S-tag split by C-tag and pushes it back with the
    access port's TPID (the static fold's two tables); the ONOS app's single-table steering
    forwards such an S-tag whole, untouched, to the one instance serving its groups."""
    cases = edge_cases(pod)
    assert len(cases) >= 24
    for port, stag, ctag, tpid in cases:
        got = send_and_collect(ports, port, bytes(qinq(tpid, stag, ctag)))
        want = owner(pod, placement, port, stag, ctag)
        assert list(got) == [want], f"{port} S{stag}/C{ctag} {tpid:#x}: went to {list(got)}, not {want}"
        (frame,) = got[want]
        out_tpid, out_s, out_c = tags(frame)
        assert (out_s, out_c) == (stag, ctag)
        line = next(ln for g in pod.groups for ln in g.lines if ln.port.name == port and stag in ln.stag)
        # whole S-tags are forwarded untouched; split S-tags are re-tagged with the port's TPID
        assert out_tpid == (tpid if line.ctag is None or not retags_split_stags else pod.port(port).tpid)
        assert frame.src == SUB_MAC and frame.haslayer(PPPoED)


def unserved_s_tag_is_dropped(ports, port, stag, ctag):
    before = drop_count()
    for tpid in (0x8100, 0x88A8):
        assert send_and_collect(ports, port, bytes(qinq(tpid, stag, ctag))) == {}
    assert drop_count() >= before + 2


def instance_frames_return_to_their_access_port(pod, ports, placement):
    for g in pod.groups:
        inst = placement[g.name]
        for ln in g.lines:
            access = pod.port(ln.port.name)
            for stag in sorted({ln.stag.lo, ln.stag.hi}):
                for ctag in sorted({ln.ctags.lo, ln.ctags.hi}):
                    frame = qinq(access.tpid, stag, ctag, src=g.ac_mac, dst=SUB_MAC)
                    got = send_and_collect(ports, inst, bytes(frame))
                    assert list(got) == [access.name], f"{inst} S{stag}/C{ctag}: went to {list(got)}"
                    assert tags(got[access.name][0]) == (access.tpid, stag, ctag)
                    assert got[access.name][0].src == g.ac_mac


def foreign_line_cases(pod, placement) -> list[tuple[str, str, int, int]]:
    """(sender instance, access port, S-tag, C-tag): for every instance, the first edge of
    each line of every group placed elsewhere (split S-tags included: the other half)."""
    cases = []
    for inst in pod.instances:
        for g in pod.groups:
            if placement.get(g.name) == inst.name:
                continue
            for ln in g.lines:
                cases.append((inst.name, ln.port.name, ln.stag.lo, ln.ctags.lo))
    return cases


def foreign_line_injection_is_dropped(pod, ports, sender, port, stag, ctag):
    tpid = pod.port(port).tpid
    got = send_and_collect(ports, sender, bytes(qinq(tpid, stag, ctag, src=FOREIGN_MAC, dst=SUB_MAC)))
    assert got == {}, f"{sender} injected S{stag}/C{ctag} of {port}, it reached {list(got)}"


def core_side_is_steered_by_mac(pod, ports, placement):
    router = pod.core.router_mac
    for g in pod.groups:
        inst = placement[g.name]
        # router -> the group's core MAC: only the serving instance
        down = Ether(src=router, dst=g.core_mac) / IP(src="198.51.100.10", dst=str(g.pools[0].prefix[1])) / UDP()
        assert list(send_and_collect(ports, "uplink", bytes(down))) == [inst], g.name
        # the router asks for the group's core address: only the serving instance hears it
        arp = Ether(src=router, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=router, psrc=str(pod.core.router_address), pdst=str(g.core_address)
        )
        got = send_and_collect(ports, "uplink", bytes(arp))
        assert list(got) == [inst] and got[inst][0][ARP].pdst == str(g.core_address), g.name
        # the instance -> router, and its own ARP broadcast: out of the uplink
        up = Ether(src=g.core_mac, dst=router) / IP(src=str(g.pools[0].prefix[1]), dst="198.51.100.10") / UDP()
        assert list(send_and_collect(ports, inst, bytes(up))) == ["uplink"], g.name
        who = Ether(src=g.core_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=g.core_mac, psrc=str(g.core_address), pdst=str(pod.core.router_address)
        )
        assert list(send_and_collect(ports, inst, bytes(who))) == ["uplink"], g.name


def core_mac_of_another_group_is_dropped(pod, ports, placement):
    router = pod.core.router_mac
    spoofs = 0
    for g in pod.groups:
        for other in pod.groups:
            if placement[other.name] == placement[g.name]:
                continue
            # the instance serving `other` claims g's core MAC
            spoof = Ether(src=g.core_mac, dst=router) / IP() / UDP()
            got = send_and_collect(ports, placement[other.name], bytes(spoof))
            assert got == {}, f"{placement[other.name]} spoofed {g.name}'s core MAC, it reached {list(got)}"
            spoofs += 1
            break
    assert spoofs > 0
    unknown = Ether(src=router, dst="02:cc:00:00:00:99") / IP() / UDP()
    assert send_and_collect(ports, "uplink", bytes(unknown)) == {}


def core_router_resolves_a_group_address(pod, ports, placement, group="lg3"):
    """The real kernel router in bngpod-core routes a pool via its group's core
    address: its ARP request must arrive at the instance serving that group."""
    g = pod.group(group)
    inst = placement[g.name]
    emu.sh("ip", "neigh", "flush", "all", ns=emu.CORE_NS)
    ports[inst].drain()
    emu.sh("ping", "-c1", "-W1", str(g.pools[0].prefix[5]), ns=emu.CORE_NS, check=False)
    arps = [Ether(f) for f in ports[inst].recv_all(0.5)]
    assert any(f.haslayer(ARP) and f[ARP].pdst == str(g.core_address) for f in arps), arps
