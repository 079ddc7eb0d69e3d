"""basebox-config renderers on a hand-made fold model (no pod file involved)."""

import os
import random
from pathlib import Path

import pytest

from basebox_config import AccessPort, CoreGroup, Fold, Port, RenderError, Steer, Target, networkd, openflow

GOLDEN = Path(__file__).resolve().parent / "golden"


def small_fold(core_vlan=None) -> Fold:
    a1 = AccessPort("olt1", 1, 0x8100)
    a2 = AccessPort("olt2", 2, 0x88A8)
    t1 = Target(7, "dpA", 3301, Port("srv", 33), "02:00:00:00:00:0a")
    t2 = Target(8, "dpB", 3302, Port("srv", 33), "02:00:00:00:00:0b")
    fold = Fold(
        pod="unit",
        switch="sw",
        dpid="00000000000000ff",
        uplink=Port("wan", 9),
        router_mac="02:ee:00:00:00:01",
        router_address="192.0.2.1",
        core_vlan=core_vlan,
        access_ports=[a1, a2],
        targets=[t1, t2],
    )
    fold.steers = [
        Steer("gA", a1, 10, 12, None, None, t1, "02:bb:00:00:00:0a"),
        Steer("gB", a2, 20, 20, 1, 100, t2, "02:bb:00:00:00:0b"),
        Steer("gA", a2, 20, 20, 101, 4094, t1, "02:bb:00:00:00:0a"),
    ]
    fold.core_groups = [
        CoreGroup("gA", "02:cc:00:00:00:0a", "192.0.2.10", t1, core_address6="2001:db8:64::a"),
        CoreGroup("gB", "02:cc:00:00:00:0b", "192.0.2.11", t2),
    ]
    return fold


@pytest.mark.parametrize("seed", range(200))
def test_vid_blocks_cover_exactly(seed):
    rng = random.Random(seed)
    lo = rng.randint(1, 4094)
    hi = rng.randint(lo, 4094)
    covered = set()
    for value, mask in openflow.vid_blocks(lo, hi):
        block = {v for v in range(4096) if v & mask == value}
        assert not covered & block
        covered |= block
    assert covered == set(range(lo, hi + 1))


def test_vid_blocks_are_few():
    assert openflow.vid_blocks(1, 4094) == openflow.vid_blocks(1, 4094)
    assert len(openflow.vid_blocks(1, 4094)) <= 24
    assert openflow.vid_blocks(300, 300) == [(300, 0xFFF)]


def test_flows_steer_each_tag_both_ways():
    flows = openflow.render_flows(small_fold())
    text = "\n".join(flows)
    for tag in (10, 11, 12):
        assert f"cookie=0x7,in_port=1,dl_vlan={tag},actions=output:3301" in text
        assert f"cookie=0x7,in_port=3301,dl_vlan={tag},actions=output:1" in text
    assert "dl_vlan=13" not in text
    # the split S-tag: popped on both sides, C-tag blocks restored with the port's TPID
    assert "in_port=2,dl_vlan=20,actions=pop_vlan,write_metadata:20,goto_table:1" in text
    assert "in_port=3302,dl_vlan=20,actions=pop_vlan,write_metadata:20,goto_table:2" in text
    assert "in_port=3301,dl_vlan=20,actions=pop_vlan,write_metadata:20,goto_table:2" in text
    assert "push_vlan:0x88a8,mod_vlan_vid:20,output:3302" in text
    # every table ends in a counted drop
    assert [f for f in flows if f.endswith("actions=drop")] == [
        f"table={t},priority=0,cookie=0x0,actions=drop" for t in (0, 1, 2, 3)
    ]


def test_core_side_by_mac_untagged_and_tagged():
    text = "\n".join(openflow.render_flows(small_fold()))
    assert "in_port=9,vlan_tci=0x0000/0x1000,dl_dst=02:cc:00:00:00:0b,actions=output:3302" in text
    assert "in_port=9,vlan_tci=0x0000/0x1000,arp,arp_tpa=192.0.2.10,actions=output:3301" in text
    # a VF's core-side frames: in a table of their own, by source MAC
    assert "table=0,priority=200,cookie=0x7,in_port=3301,vlan_tci=0x0000/0x1000,actions=goto_table:3" in text
    assert (
        "table=3,priority=200,cookie=0x7,in_port=3301,dl_src=02:cc:00:00:00:0a,dl_dst=02:ee:00:00:00:01,"
        "actions=output:9" in text
    )
    tagged = "\n".join(openflow.render_flows(small_fold(core_vlan=77)))
    assert "in_port=9,dl_vlan=77,dl_dst=02:cc:00:00:00:0a,actions=output:3301" in tagged
    assert "table=0,priority=200,cookie=0x8,in_port=3302,dl_vlan=77,actions=goto_table:3" in tagged


def test_core_side_neighbour_discovery():
    """The router's NS for a group's core IPv6 address reaches the group's instance only;
    the instance's multicast NS/NA leave only from its core MAC and core IPv6 address.
    A group without a core IPv6 address (gB) gets no ND flow."""
    flows = openflow.render_flows(small_fold())
    text = "\n".join(flows)
    assert (
        "table=0,priority=300,cookie=0x7,in_port=9,vlan_tci=0x0000/0x1000,icmp6,icmp_type=135,"
        "nd_target=2001:db8:64::a,actions=output:3301" in text
    )
    for icmp_type in (135, 136):
        assert (
            f"table=3,priority=300,cookie=0x7,in_port=3301,dl_src=02:cc:00:00:00:0a,"
            f"dl_dst=33:33:00:00:00:00/ff:ff:00:00:00:00,icmp6,ipv6_src=2001:db8:64::a,icmp_type={icmp_type},"
            "actions=output:9" in text
        )
    nd = [f for f in flows if "icmp6" in f]
    assert len(nd) == 3 and all("cookie=0x7," in f for f in nd)
    tagged = "\n".join(openflow.render_flows(small_fold(core_vlan=77)))
    assert "in_port=9,dl_vlan=77,icmp6,icmp_type=135,nd_target=2001:db8:64::a,actions=output:3301" in tagged


def test_no_table_0_flow_of_a_vf_matches_a_mac():
    """Table 0 looks QinQ frames of a VF up by port and S-tag only: a flow there that
    matched a MAC of that VF would make Open vSwitch cache one megaflow per subscriber MAC
    for every access-side frame of the VF, so each new session's first frames would miss
    the cache (and overtake its discovery frames, docs/switch-fold.md)."""
    for core_vlan in (None, 77):
        fold = small_fold(core_vlan)
        vfs = {t.vf_port for t in fold.targets}
        for f in openflow.render_flows(fold):
            if f.startswith("table=0,") and any(f"in_port={vf}," in f for vf in vfs):
                assert "dl_src" not in f and "dl_dst" not in f and "arp" not in f and "icmp6" not in f, f


def test_overlapping_model_is_refused():
    fold = small_fold()
    fold.steers.append(Steer("gC", fold.access_ports[0], 12, 14, None, None, fold.targets[1], "02:bb:00:00:00:0c"))
    with pytest.raises(RenderError, match="overlap on olt1"):
        openflow.render(fold)


def test_networkd_membership_and_fdb():
    files = networkd.render(small_fold())
    assert "VLANFiltering=yes" in files["10-swbridge.netdev"]
    srv = files["20-port33.network"]
    assert "VLAN=10-12" in srv and "VLAN=20" in srv
    assert "MACAddress=02:bb:00:00:00:0a\nVLANId=11" in srv
    assert "PVID=4094" in srv and "EgressUntagged=4094" in srv  # untagged core
    assert "MACAddress=02:cc:00:00:00:0b\nVLANId=4094" in srv
    wan = files["20-port9.network"]
    assert "MACAddress=02:ee:00:00:00:01\nVLANId=4094" in wan
    assert "VLAN=10" not in wan
    assert "TPID 0x88a8" in files["20-port2.network"]


def test_networkd_tagged_core_and_shared_s_tag():
    files = networkd.render(small_fold(core_vlan=77))
    assert "VLAN=77" in files["20-port9.network"] and "PVID" not in files["20-port9.network"]
    fold = small_fold()
    fold.steers.append(Steer("gC", fold.access_ports[0], 20, 20, None, None, fold.targets[1], "02:bb:00:00:00:0c"))
    with pytest.raises(RenderError, match="S-tag 20 is used on"):
        networkd.render(fold)


def test_golden():
    fold = small_fold()
    got = {"flows.of13": openflow.render(fold)}
    got.update({f"networkd/{k}": v for k, v in networkd.render(fold).items()})
    if os.environ.get("BNGPOD_UPDATE_GOLDEN"):
        for name, text in got.items():
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / name).write_text(text)
    want = {str(p.relative_to(GOLDEN)): p.read_text() for p in GOLDEN.rglob("*") if p.is_file()}
    assert got == want
