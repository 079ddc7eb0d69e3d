"""The switch fold steers IPoE frames of a line exactly as it steers the line's PPPoE frames:
the flows match the access port, S-tag and C-tag, never the EtherType. On a real Open vSwitch
with the IPoE pod's generated flow table (topology/examples/ipoe.yaml; no bng-dp or bng-cp
needed): a DHCP DISCOVER (QinQ + IPv4/UDP 68 -> 67) and an ARP request from every edge of
every line reach the instance the line's PADI reaches, and nothing else; an instance's IPoE
frame to a subscriber goes back to its access port with its tags."""

import pytest
from harness import ipoe_pod
from harness.dhcp_client import ZERO_IP
from scapy.layers.dhcp import BOOTP, DHCP
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.layers.ppp import PPPoED

from bngpod import emu, probe, validate

from . import foldchecks as fc

pytestmark = pytest.mark.pod

SUB = "02:49:00:00:00:01"


@pytest.fixture(scope="module")
def pod(pod_prereqs):
    emu.down(quiet=True)
    pod = validate.load(ipoe_pod.IPOE)
    emu.up(pod, str(ipoe_pod.IPOE), dp=False, cp=False)
    try:
        yield pod
    finally:
        emu.down(quiet=True)


@pytest.fixture(scope="module")
def ports(pod):
    with probe.edges(pod, emu) as opened:
        yield opened


def tagged(tpid: int, stag: int, ctag: int, payload, src=SUB, dst="ff:ff:ff:ff:ff:ff") -> bytes:
    outer = Dot1AD(vlan=stag) if tpid == 0x88A8 else Dot1Q(vlan=stag)
    return bytes(Ether(src=src, dst=dst, type=tpid) / outer / Dot1Q(vlan=ctag) / payload)


def discover():
    return (
        IP(src=ZERO_IP, dst="255.255.255.255")
        / UDP(sport=68, dport=67)
        / BOOTP(op=1, xid=7, chaddr=bytes.fromhex(SUB.replace(":", "")) + bytes(10))
        / DHCP(options=[("message-type", "discover"), "end"])
    )


def test_ipoe_frames_go_where_the_lines_pppoe_frames_go(pod, ports):
    cases = fc.edge_cases(pod)
    placement = fc.stated_placement(pod)
    assert len(cases) >= 12
    for port, stag, ctag, tpid in cases:
        want = fc.owner(pod, placement, port, stag, ctag)
        pppoe = fc.send_and_collect(ports, port, tagged(tpid, stag, ctag, PPPoED(code=0x09)))
        assert list(pppoe) == [want], (port, stag, ctag, list(pppoe))
        arp = ARP(op=1, hwsrc=SUB, psrc="100.80.0.9", pdst="100.80.0.1")
        for what, payload in (("DHCP", discover()), ("ARP", arp)):
            got = fc.send_and_collect(ports, port, tagged(tpid, stag, ctag, payload))
            assert list(got) == [want], f"{what} {port} S{stag}/C{ctag} {tpid:#x}: went to {list(got)}, not {want}"
            (frame,) = got[want]
            assert fc.tags(frame) == (tpid, stag, ctag) and frame.src == SUB
            assert frame.haslayer(DHCP if what == "DHCP" else ARP)


def test_ipoe_frames_of_an_instance_return_to_the_access_port(pod, ports):
    placement = fc.stated_placement(pod)
    for g in pod.groups:
        inst = placement[g.name]
        for ln in g.lines:
            access = pod.port(ln.port.name)
            for stag in sorted({ln.stag.lo, ln.stag.hi}):
                ctag = ln.ctags.lo
                data = IP(src="198.51.100.10", dst="100.80.0.9") / UDP(sport=7, dport=40000) / b"down"
                got = fc.send_and_collect(ports, inst, tagged(access.tpid, stag, ctag, data, src=g.ac_mac, dst=SUB))
                assert list(got) == [access.name], f"{inst} S{stag}/C{ctag}: went to {list(got)}"
                (frame,) = got[access.name]
                assert fc.tags(frame) == (access.tpid, stag, ctag) and frame.haslayer(UDP)


@pytest.mark.parametrize("port,stag", [("access1", 99), ("access2", 260)])
def test_ipoe_frames_of_an_unserved_s_tag_are_dropped(pod, ports, port, stag):
    assert fc.send_and_collect(ports, port, tagged(pod.port(port).tpid, stag, 1, discover())) == {}
