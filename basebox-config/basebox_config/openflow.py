"""The fold as an OpenFlow 1.3 flow table for the emulated switch (Open vSwitch,
userspace datapath), in ovs-ofctl's flow syntax, loaded with
`ovs-ofctl -O OpenFlow13 replace-flows BRIDGE FILE`.

Layout (docs/switch-fold.md explains why):
  table 0  classify by in_port: access S-tag -> VF; VF S-tag -> access port;
           core side by MAC (and ARP target address, Neighbor Solicitation target)
           -> VF or uplink; else drop.
  table 1  access S-tags shared by several lines (split by C-tag): outer tag popped,
           match the C-tag, re-push the S-tag, output to the VF.
  table 2  the same for frames from a VF back to the access port.
  table 3  a VF's core-side frames (untagged, or on the core VLAN): by source MAC and
           ARP sender address (IPv6: ND from its core IPv6 address to a multicast MAC)
           to the uplink. Kept out of table 0 so that looking a
           QinQ frame up never consults MAC addresses: Open vSwitch's megaflow for a
           VF's access-side frames then covers a whole S-tag (or line), not one
           subscriber MAC, and a new session's frames find it cached (docs/switch-fold.md).
OpenFlow matches no ranges: each S-tag of a range gets its own entry (as on an OF-DPA
VLAN table). C-tag ranges become VID/mask blocks, since a split S-tag would otherwise
need up to 4094 entries.
Cookies: the instance id on its flows, 0 on the drop rules, so
`ovs-ofctl dump-flows BR cookie=N/-1` lists one instance's steering."""

from __future__ import annotations

from .fold import Fold, Target

TABLE_CLASSIFY, TABLE_ACCESS_CTAG, TABLE_VF_CTAG, TABLE_VF_CORE = 0, 1, 2, 3
PRIO_ARP, PRIO_STEER, PRIO_DROP = 300, 200, 0
PRIO_ND = PRIO_ARP  # neighbour discovery is IPv6's ARP: above the MAC steers it overlaps
VID_PRESENT = 0x1000
ND_SOLICIT, ND_ADVERT = 135, 136
IPV6_MULTICAST_MAC = "33:33:00:00:00:00/ff:ff:00:00:00:00"


def vid_blocks(lo: int, hi: int) -> list[tuple[int, int]]:
    """Cover [lo, hi] exactly with (value, mask) blocks over the 12 VID bits."""
    blocks = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << 12
        while size > hi - lo + 1:
            size >>= 1
        blocks.append((lo, 0xFFF & ~(size - 1)))
        lo += size
    return blocks


def _flow(table: int, prio: int, cookie: int, match: str, actions: str) -> str:
    match = f",{match}" if match else ""
    return f"table={table},priority={prio},cookie={cookie:#x}{match},actions={actions}"


def _core_vlan_match(fold: Fold) -> str:
    return f"dl_vlan={fold.core_vlan}" if fold.core_vlan else "vlan_tci=0x0000/0x1000"


def render_flows(fold: Fold) -> list[str]:
    fold.check()
    flows: list[str] = []

    for steer in fold.steers:
        t = steer.target
        for tag in steer.stags:
            if steer.whole_stag:
                flows.append(
                    _flow(
                        0,
                        PRIO_STEER,
                        t.instance_id,
                        f"in_port={steer.access.number},dl_vlan={tag}",
                        f"output:{t.vf_port}",
                    )
                )
                flows.append(
                    _flow(
                        0,
                        PRIO_STEER,
                        t.instance_id,
                        f"in_port={t.vf_port},dl_vlan={tag}",
                        f"output:{steer.access.number}",
                    )
                )
                continue
            for value, mask in vid_blocks(steer.ctag_lo, steer.ctag_hi):
                ctag = f"vlan_tci={VID_PRESENT | value:#06x}/{VID_PRESENT | mask:#06x}"
                restore = f"push_vlan:{steer.access.tpid:#06x},mod_vlan_vid:{tag}"
                flows.append(
                    _flow(
                        TABLE_ACCESS_CTAG,
                        PRIO_STEER,
                        t.instance_id,
                        f"in_port={steer.access.number},metadata={tag},{ctag}",
                        f"{restore},output:{t.vf_port}",
                    )
                )
                flows.append(
                    _flow(
                        TABLE_VF_CTAG,
                        PRIO_STEER,
                        t.instance_id,
                        f"in_port={t.vf_port},metadata={tag},{ctag}",
                        f"{restore},output:{steer.access.number}",
                    )
                )

    # Shared S-tags: pop the S-tag to expose the C-tag, remember the S-tag in metadata.
    split_steers = [s for s in fold.steers if not s.whole_stag]
    for table, in_ports in (
        (TABLE_ACCESS_CTAG, {(s.access.number, tag) for s in split_steers for tag in s.stags}),
        (TABLE_VF_CTAG, {(s.target.vf_port, tag) for s in split_steers for tag in s.stags}),
    ):
        for in_port, tag in sorted(in_ports):
            flows.append(
                _flow(
                    0,
                    PRIO_STEER,
                    0,
                    f"in_port={in_port},dl_vlan={tag}",
                    f"pop_vlan,write_metadata:{tag},goto_table:{table}",
                )
            )

    flows.extend(_core_flows(fold))
    for table in (TABLE_CLASSIFY, TABLE_ACCESS_CTAG, TABLE_VF_CTAG, TABLE_VF_CORE):
        flows.append(_flow(table, PRIO_DROP, 0, "", "drop"))
    return flows


def _core_flows(fold: Fold) -> list[str]:
    vlan = _core_vlan_match(fold)
    up = fold.uplink.number
    flows = []
    for g in fold.core_groups:
        t: Target = g.target
        flows += [
            _flow(
                0, PRIO_ARP, t.instance_id, f"in_port={up},{vlan},arp,arp_tpa={g.core_address}", f"output:{t.vf_port}"
            ),
            _flow(0, PRIO_STEER, t.instance_id, f"in_port={up},{vlan},dl_dst={g.core_mac}", f"output:{t.vf_port}"),
            _flow(
                TABLE_VF_CORE,
                PRIO_STEER,
                t.instance_id,
                f"in_port={t.vf_port},dl_src={g.core_mac},dl_dst={fold.router_mac}",
                f"output:{up}",
            ),
            _flow(
                TABLE_VF_CORE,
                PRIO_ARP,
                t.instance_id,
                f"in_port={t.vf_port},dl_src={g.core_mac},dl_dst=ff:ff:ff:ff:ff:ff,arp,arp_spa={g.core_address}",
                f"output:{up}",
            ),
        ]
    flows += _nd_flows(fold)
    for vf in sorted({g.target.vf_port: g.target.instance_id for g in fold.core_groups}.items()):
        flows.append(_flow(0, PRIO_STEER, vf[1], f"in_port={vf[0]},{vlan}", f"goto_table:{TABLE_VF_CORE}"))
    return flows


def _nd_flows(fold: Fold) -> list[str]:
    """IPv6 neighbour discovery of the groups that have a core IPv6 address, as the ARP
    flows do it for IPv4: the router's Neighbor Solicitation for the address (sent to its
    solicited-node multicast MAC, which no MAC steer takes) goes to the group's instance
    only; the instance's own multicast NS and NA leave only from its group's core MAC and
    core IPv6 address. Unicast ND either way follows the MAC steers."""
    vlan = _core_vlan_match(fold)
    up = fold.uplink.number
    flows = []
    for g in fold.core_groups:
        if g.core_address6 is None:
            continue
        t: Target = g.target
        flows.append(
            _flow(
                TABLE_CLASSIFY,
                PRIO_ND,
                t.instance_id,
                f"in_port={up},{vlan},icmp6,icmp_type={ND_SOLICIT},nd_target={g.core_address6}",
                f"output:{t.vf_port}",
            )
        )
        for icmp_type in (ND_SOLICIT, ND_ADVERT):
            flows.append(
                _flow(
                    TABLE_VF_CORE,
                    PRIO_ND,
                    t.instance_id,
                    f"in_port={t.vf_port},dl_src={g.core_mac},dl_dst={IPV6_MULTICAST_MAC},"
                    f"icmp6,ipv6_src={g.core_address6},icmp_type={icmp_type}",
                    f"output:{up}",
                )
            )
    return flows


def render(fold: Fold) -> str:
    """The flow file: a commented header, then one flow per line."""
    head = [
        f"# OpenFlow 1.3 static fold of pod {fold.pod}, switch {fold.switch} (dpid {fold.dpid})",
        "# Generated by basebox-config; do not edit. Load with:",
        "#   ovs-ofctl -O OpenFlow13 replace-flows BRIDGE FILE",
        f"# uplink: port {fold.uplink.number} ({fold.uplink.name}); core "
        + (f"VLAN {fold.core_vlan}" if fold.core_vlan else "untagged"),
    ]
    for a in fold.access_ports:
        head.append(f"# access port {a.number} ({a.name}), downstream TPID {a.tpid:#06x}")
    for t in fold.targets:
        head.append(f"# instance {t.instance_id} ({t.instance}): VF port {t.vf_port} behind {t.server_port.name}")
    return "\n".join(head + render_flows(fold)) + "\n"
