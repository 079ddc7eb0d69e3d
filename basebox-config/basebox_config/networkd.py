"""The fold as systemd-networkd files for baseboxd on BISDN Linux.

baseboxd mirrors a Linux VLAN-aware bridge (`swbridge`) into the switch ASIC. The fold
becomes bridge VLAN membership: each access port is a member of its S-tags, each server
port of the S-tags its instances serve, and static FDB entries pin every AC MAC (per
S-tag) and every core MAC to the server port, the router MAC to the uplink, so nothing
depends on learning. The core side is one more VLAN: the pod's core VLAN, or an unused
VLAN id carried untagged (PVID) on the uplink and server ports.

A bridge VLAN is one broadcast domain across all its member ports, so an S-tag used on
two access ports would join two OLTs' subscribers: that is refused here."""

from __future__ import annotations

from collections import defaultdict

from .fold import VLAN_MAX, Fold, RenderError

BRIDGE = "swbridge"


def _port_ifname(number: int) -> str:
    return f"port{number}"


def _ranges(tags: set[int]) -> list[str]:
    out, run = [], []
    for tag in sorted(tags):
        if run and tag == run[-1] + 1:
            run.append(tag)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [tag]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return out


def core_vlan(fold: Fold) -> tuple[int, bool]:
    """(VLAN id of the core side inside the bridge, whether it is tagged on the wire)."""
    if fold.core_vlan:
        return fold.core_vlan, True
    used = {tag for s in fold.steers for tag in s.stags}
    for vid in range(VLAN_MAX, 0, -1):
        if vid not in used:
            return vid, False
    raise RenderError("every VLAN id is an S-tag: no VLAN is left for the untagged core side")


def render(fold: Fold) -> dict[str, str]:
    """File name -> content for /etc/systemd/network on the whitebox."""
    fold.check()
    owner: dict[int, str] = {}
    for steer in fold.steers:
        for tag in steer.stags:
            if owner.setdefault(tag, steer.access.name) != steer.access.name:
                raise RenderError(
                    f"S-tag {tag} is used on {owner[tag]} and {steer.access.name}: a bridge VLAN would "
                    "join their broadcast domains; give each access port its own S-tags for baseboxd"
                )
    cvid, tagged = core_vlan(fold)
    header = f"# bngpod pod {fold.pod}: static fold for baseboxd on {fold.switch}. Generated; do not edit.\n"

    vlans: dict[int, set[int]] = defaultdict(set)  # port number -> member VLANs (tagged)
    fdb: dict[int, list[tuple[str, int, str]]] = defaultdict(list)  # port -> (mac, vlan, why)
    names: dict[int, str] = {}
    for steer in fold.steers:
        server = steer.target.server_port
        names[steer.access.number] = steer.access.name
        names[server.number] = server.name
        vlans[steer.access.number].update(steer.stags)
        vlans[server.number].update(steer.stags)
        for tag in steer.stags:
            entry = (steer.ac_mac, tag, f"AC MAC of {steer.group}")
            if entry not in fdb[server.number]:
                fdb[server.number].append(entry)
    core_ports = {fold.uplink.number} | {g.target.server_port.number for g in fold.core_groups}
    names[fold.uplink.number] = fold.uplink.name
    for g in fold.core_groups:
        names[g.target.server_port.number] = g.target.server_port.name
        fdb[g.target.server_port.number].append((g.core_mac, cvid, f"core MAC of {g.group}"))
    fdb[fold.uplink.number].append((fold.router_mac, cvid, "core router"))

    files = {
        f"10-{BRIDGE}.netdev": header
        + f"[NetDev]\nName={BRIDGE}\nKind=bridge\n\n[Bridge]\nVLANFiltering=yes\nDefaultPVID=none\nSTP=no\n",
        f"10-{BRIDGE}.network": header + f"[Match]\nName={BRIDGE}\n\n[Network]\nLinkLocalAddressing=no\n",
    }
    tpids = {a.number: a.tpid for a in fold.access_ports}
    for number in sorted(set(vlans) | core_ports):
        ifname = _port_ifname(number)
        body = [header.rstrip("\n"), f"# switch port {names[number]}"]
        if tpids.get(number, 0x8100) != 0x8100:
            body.append(f"# the OLT on this port tags with TPID {tpids[number]:#06x}")
        body += ["[Match]", f"Name={ifname}", "", "[Network]", f"Bridge={BRIDGE}", "LinkLocalAddressing=no"]
        for vlan in _ranges(vlans.get(number, set())):
            body += ["", "[BridgeVLAN]", f"VLAN={vlan}"]
        if number in core_ports:
            body += ["", "[BridgeVLAN]", f"VLAN={cvid}"]
            if not tagged:
                body += ["PVID=" + str(cvid), "EgressUntagged=" + str(cvid)]
        for mac, vlan, why in fdb.get(number, []):
            body += ["", f"# {why}", "[BridgeFDB]", f"MACAddress={mac}", f"VLANId={vlan}"]
        files[f"20-{ifname}.network"] = "\n".join(body) + "\n"
    return files
