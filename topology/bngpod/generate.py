"""Every component's configuration from one checked pod (docs/config-formats.md).

Output is deterministic (same pod file, same bytes) so golden-file tests can hold it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from . import accel
from . import model as m

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "basebox-config"))
from basebox_config import fold as bf  # noqa: E402
from basebox_config import networkd, openflow  # noqa: E402


def _ini(sections: list[tuple[str, list[tuple[str, object]]]], header: list[str]) -> str:
    out = [f"; {line}" for line in header]
    for name, keys in sections:
        out.append("")
        out.append(f"[{name}]")
        width = max(len(k) for k, _ in keys)
        out.extend(f"{k:<{width}} = {v}" for k, v in keys)
    return "\n".join(out) + "\n"


def _pairs(mapping: dict[int, int]) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(mapping.items()))


def _acl_keys(rule: m.AclRule) -> list[tuple[str, object]]:
    names = {number: name for name, number in m.IP_PROTOCOLS.items()}
    protocol = "any" if rule.protocol is None else names.get(rule.protocol, rule.protocol)
    return [
        ("family", rule.family),
        ("action", rule.action),
        ("direction", rule.direction),
        ("protocol", protocol),
        ("source", rule.source),
        ("destination", rule.destination),
        ("source_ports", rule.source_ports or "any"),
        ("destination_ports", rule.destination_ports or "any"),
    ]


def _prefixes6(group: m.LineGroup) -> str:
    """pool:assigned-length pairs (each WAN pool :64, each PD pool :delegated_length)."""
    return " ".join(f"{net}:{length}" for pool in group.ipv6_pools for net, length in pool.dp_prefixes) or "none"


def _ipoe_gateways(group: m.LineGroup) -> str:
    """gateway/pool-prefix-length per pool of a group allowing IPoE; none otherwise."""
    if not group.allows_ipoe:
        return "none"
    return " ".join(f"{p.gateway}/{p.prefix.prefixlen}" for p in group.pools) or "none"


def _ipoe_cp(ipoe: m.Ipoe) -> dict:
    out = {
        "mode": ipoe.mode,
        "lease_time": ipoe.lease_time,
        "renew_time": ipoe.renew_time,
        "max_macs": ipoe.max_macs,
        "username": ipoe.username,
        "password": ipoe.password,
        "proxy_arp": ipoe.proxy_arp,
    }
    if ipoe.relay is not None:
        out["relay"] = {"servers": [str(a) for a in ipoe.relay.servers], "option82": ipoe.relay.option82}
    if ipoe.arp_ping is not None:
        out["arp_ping"] = {"interval": ipoe.arp_ping[0], "count": ipoe.arp_ping[1]}
    return out


def _punt_keys(policing: dict[str, m.PuntClass]) -> list[tuple[str, object]]:
    """[punt]: every key written, the defaults included, so the file says what the DP does."""
    keys: list[tuple[str, object]] = []
    for name in m.PUNT_CLASSES:
        c = policing[name]
        keys += [
            (f"{name}_client_rate", c.per_client.rate),
            (f"{name}_client_burst", c.per_client.burst),
            (f"{name}_line_rate", c.per_line.rate),
            (f"{name}_line_burst", c.per_line.burst),
            (f"{name}_ring_percent", c.ring_percent),
        ]
    return keys


def dp_config(pod: m.Pod, inst: m.Instance) -> str:
    """The DP instance's INI (rte_cfgfile).

    Every instance knows the whole pod: all access ports, line groups and lines. The groups
    the pod file places on this instance are served (`standby = no`); the others are
    standby, known so that the instance can adopt them at run time (PFCP Association
    Update with the bngpod Line Group IE, docs/dp/pfcp.md) when ONOS moves them."""
    ports = sorted(pod.ports_with_role("access"), key=lambda p: p.number)
    groups = pod.groups
    own = {g.name for g in inst.groups}
    lines = [line for g in groups for line in g.lines]
    sections = [
        (
            "instance",
            [
                ("id", inst.id),
                ("name", inst.name),
                ("pod", pod.name),
                ("data_mac", inst.vf.mac),
                ("worker_cores", " ".join(map(str, inst.cores))),
                ("port_rate", pod.port_rate(inst)),
                ("control_address", inst.control),
                ("control_prefix_len", pod.management.prefixlen),
                ("cp_address", pod.control_plane.address),
                ("pfcp_port", pod.control_plane.pfcp_port),
                ("vxlan_port", pod.control_plane.vxlan_port),
                ("access_ports", len(ports)),
                ("line_groups", len(groups)),
                ("lines", len(lines)),
                ("qos_profiles", len(pod.qos_profiles)),
                ("acl_rules", len(pod.acl)),
                ("routes", len(pod.core.routes)),
            ],
        ),
        (
            "core",
            [
                ("subnet", pod.core.subnet),
                ("router_address", pod.core.router_address),
                ("vlan", pod.core.vlan or 0),
                ("subnet6", pod.core.subnet6 or "none"),
                ("router_address6", pod.core.router_address6 or "none"),
            ],
        ),
        ("punt", _punt_keys(pod.control_policing)),
    ]
    for i, p in enumerate(ports):
        sections.append((f"access_port.{i}", [("name", p.name), ("tpid", f"{p.tpid:#06x}"), ("rate", p.rate)]))
    for i, g in enumerate(groups):
        sections.append(
            (
                f"line_group.{i}",
                [
                    ("name", g.name),
                    ("ac_mac", g.ac_mac),
                    ("core_address", g.core_address),
                    ("core_mac", g.core_mac),
                    ("prefixes", " ".join(str(p.prefix) for p in g.pools)),
                    ("qos_profile", g.qos_profile.name),
                    ("standby", "no" if g.name in own else "yes"),
                    ("core_address6", g.core_address6 or "none"),
                    ("prefixes6", _prefixes6(g)),
                    ("session_types", " ".join(g.session_types)),
                    ("ipoe_gateways", _ipoe_gateways(g)),
                    ("ipoe_proxy_arp", "no" if g.ipoe is not None and not g.ipoe.proxy_arp else "yes"),
                ],
            )
        )
    for i, line in enumerate(lines):
        ctag = f"{line.ctag.lo}-{line.ctag.hi}" if line.ctag else "any"
        sections.append(
            (
                f"line.{i}",
                [
                    ("group", line.group),
                    ("access_port", line.port.name),
                    ("stag", f"{line.stag.lo}-{line.stag.hi}"),
                    ("ctag", ctag),
                ],
            )
        )
    for i, q in enumerate(pod.qos_profiles):
        tc_rates = {c.tc: c.rate for c in q.classes if c.rate != q.down_rate}
        sections.append(
            (
                f"qos_profile.{i}",
                [
                    ("name", q.name),
                    ("down_rate", q.down_rate),
                    ("up_pir", q.up_pir),
                    ("up_cir", q.up_cir),
                    ("up_dscp", "keep" if q.up_dscp is None else q.up_dscp),
                    ("default_tc", m.BEST_EFFORT_TC),
                    ("dscp_map", _pairs(q.dscp_map())),
                    ("tc_rates", _pairs(tc_rates)),
                    ("be_weights", " ".join(map(str, q.be_weights()))),
                ],
            )
        )
    for i, rule in enumerate(pod.acl):
        sections.append((f"acl.{i}", _acl_keys(rule)))
    for i, route in enumerate(pod.core.routes):
        sections.append((f"route.{i}", [("prefix", route.prefix), ("via", route.via or "drop")]))
    header = [
        f"bngpod DP instance configuration for instance {inst.id} ({inst.name}) of pod {pod.name}.",
        "Generated by `bngpod generate` from the pod file; do not edit. Format: docs/config-formats.md",
    ]
    return _ini(sections, header)


def _tags(r: m.TagRange | None):
    return None if r is None else {"min": r.lo, "max": r.hi}


def _classes(q: m.QosProfile) -> list[dict]:
    return [
        {"tc": c.tc, "name": c.name, "dscp": list(c.dscp), "rate": c.rate, "weights": list(c.weights)}
        for c in q.classes
    ]


class _PlainDumper(yaml.SafeDumper):
    """No anchors or aliases: readers (and our own pod-file loader) refuse them."""

    def ignore_aliases(self, data):
        return True


def cp_config(pod: m.Pod) -> str:
    """The control plane's YAML."""
    ipv6 = pod.core.subnet6 is not None
    doc = {
        "pod": pod.name,
        "control_plane": {
            "address": str(pod.control_plane.address),
            "pfcp_port": pod.control_plane.pfcp_port,
            "vxlan_port": pod.control_plane.vxlan_port,
            **{
                key: value
                for key in ("heartbeat_ms", "heartbeat_timeout_ms", "heartbeat_tries")
                if (value := getattr(pod.control_plane, key)) is not None
            },
        },
        "management": {"subnet": str(pod.management)},
        "radius": {
            "nas_identifier": pod.radius.nas_identifier,
            "coa_port": pod.radius.coa_port,
            "timeout_ms": pod.radius.timeout_ms,
            "retries": pod.radius.retries,
            "servers": [
                {
                    "name": s.name,
                    "address": str(s.address),
                    "auth_port": s.auth_port,
                    "acct_port": s.acct_port,
                    "secret": s.secret,
                }
                for s in pod.radius.servers
            ],
            "ipv6_octets_attribute": pod.radius.ipv6_octets_attribute,
        },
        "access_ports": [{"name": p.name, "tpid": p.tpid, "rate": p.rate} for p in pod.ports_with_role("access")],
        "pools": [
            {
                "name": p.name,
                "prefix": str(p.prefix),
                **({"gateway": str(p.gateway)} if p.gateway is not None else {}),
                "dns": [str(d) for d in p.dns],
                "line_group": p.group,
            }
            for p in pod.pools
        ],
        **({"core6": {"subnet": str(pod.core.subnet6), "router": str(pod.core.router_address6)}} if ipv6 else {}),
        "ipv6_ra": {"interval": pod.ipv6_ra.interval, "router_lifetime": pod.ipv6_ra.router_lifetime},
        **(
            {
                "ipv6_pools": [
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
            }
            if pod.ipv6_pools
            else {}
        ),
        "qos_profiles": [
            {
                "name": q.name,
                "down_rate": q.down_rate,
                "up_pir": q.up_pir,
                "up_cir": q.up_cir,
                "up_dscp": q.up_dscp,
                "classes": _classes(q),
            }
            for q in pod.qos_profiles
        ],
        "line_groups": [
            {
                "name": g.name,
                "ac_mac": g.ac_mac,
                "core_address": str(g.core_address),
                "core_mac": g.core_mac,
                "pools": [p.name for p in g.pools],
                "qos_profile": g.qos_profile.name,
                "instance": g.instance.id if g.instance else None,
                **({"core_address6": str(g.core_address6)} if g.core_address6 else {}),
                **({"ipv6_pools": [p.name for p in g.ipv6_pools]} if g.ipv6_pools else {}),
                **({"session_types": list(g.session_types)} if g.session_types != ("pppoe",) else {}),
                **({"ipoe": _ipoe_cp(g.ipoe)} if g.ipoe is not None else {}),
            }
            for g in pod.groups
        ],
        "instances": [
            {
                "id": i.id,
                "name": i.name,
                "control_address": str(i.control),
                "data_mac": i.vf.mac,
                "line_groups": [g.name for g in i.groups],
                "lines": [
                    {"group": ln.group, "access_port": ln.port.name, "stag": _tags(ln.stag), "ctag": _tags(ln.ctag)}
                    for ln in i.lines
                ],
            }
            for i in pod.instances
        ],
    }
    head = f"# bngpod control-plane configuration for pod {pod.name}. Generated; do not edit.\n"
    return head + yaml.dump(doc, Dumper=_PlainDumper, sort_keys=False, default_flow_style=None, width=120)


def onos_netcfg(pod: m.Pod, emulated: bool = False) -> str:
    """ONOS network configuration JSON for onos-app. emulated: each instance reached through
    its own switch port, the emulated pod's numbering of VFs (server port number * 100 + VF)."""
    cfg = {
        "name": pod.name,
        "deviceId": pod.device_id,
        "ports": [
            {"name": p.name, "number": p.number, "role": p.role, "tpid": p.tpid, "rate": p.rate}
            if p.role == "access"
            else {"name": p.name, "number": p.number, "role": p.role, **({"rate": p.rate} if p.rate else {})}
            for p in pod.ports
        ],
        "servers": [
            {
                "name": s.name,
                "ports": [
                    {
                        "name": sp.name,
                        "switchPort": sp.switch_port.name,
                        "vfs": [{"vf": v.vf, "mac": v.mac, "rate": v.rate} for v in sp.vfs],
                    }
                    for sp in s.ports
                ],
            }
            for s in pod.servers
        ],
        "core": {
            "uplink": pod.core.uplink.name,
            "subnet": str(pod.core.subnet),
            "routerAddress": str(pod.core.router_address),
            "routerMac": pod.core.router_mac,
            "vlan": pod.core.vlan or 0,
            **(
                {"subnet6": str(pod.core.subnet6), "routerAddress6": str(pod.core.router_address6)}
                if pod.core.subnet6
                else {}
            ),
        },
        "controlPlane": {
            "address": str(pod.control_plane.address),
            "pfcpPort": pod.control_plane.pfcp_port,
            "vxlanPort": pod.control_plane.vxlan_port,
        },
        "pools": [{"name": p.name, "prefix": str(p.prefix), "dns": [str(d) for d in p.dns]} for p in pod.pools],
        "qosProfiles": [
            {
                "name": q.name,
                "downRate": q.down_rate,
                "upPir": q.up_pir,
                "upCir": q.up_cir,
                "upDscp": q.up_dscp,
                "classes": _classes(q),
                # placement by contracted rates (docs/onos/operations.md); absent: downRate / 20
                **({"downGuaranteed": q.down_guaranteed} if q.down_guaranteed else {}),
            }
            for q in pod.qos_profiles
        ],
        "lineGroups": [
            {
                "name": g.name,
                "acMac": g.ac_mac,
                "coreAddress": str(g.core_address),
                "coreMac": g.core_mac,
                **({"coreAddress6": str(g.core_address6)} if g.core_address6 else {}),
                "pools": [p.name for p in g.pools],
                "qosProfile": g.qos_profile.name,
                "lines": [{"port": ln.port.name, "stag": _tags(ln.stag), "ctag": _tags(ln.ctag)} for ln in g.lines],
            }
            for g in pod.groups
        ],
        "instances": [
            {
                "id": i.id,
                "name": i.name,
                "server": i.server.name,
                "port": i.vf.port,
                "vf": i.vf.vf,
                "mac": i.vf.mac,
                "cores": list(i.cores),
                "controlAddress": str(i.control),
                "lineGroups": [g.name for g in i.groups],
                **({"switchPort": i.vf.emu_ofport} if emulated else {}),
            }
            for i in pod.instances
        ],
    }
    doc = {
        "devices": {pod.device_id: {"basic": {"name": pod.switch_name}}},
        "apps": {"org.bngpod.app": {"pod": cfg}},
    }
    return json.dumps(doc, indent=2) + "\n"


def fold_model(pod: m.Pod) -> bf.Fold:
    """The pod's initial placement as basebox-config's fold model."""
    targets = {
        i.name: bf.Target(
            i.id,
            i.name,
            i.vf.emu_ofport,
            bf.Port(i.vf.switch_port.name, i.vf.switch_port.number),
            i.vf.mac,
        )
        for i in pod.instances
    }
    fold = bf.Fold(
        pod=pod.name,
        switch=pod.switch_name,
        dpid=pod.dpid,
        uplink=bf.Port(pod.core.uplink.name, pod.core.uplink.number),
        router_mac=pod.core.router_mac,
        router_address=str(pod.core.router_address),
        core_vlan=pod.core.vlan,
        access_ports=[bf.AccessPort(p.name, p.number, p.tpid) for p in pod.ports_with_role("access")],
        targets=sorted(targets.values(), key=lambda t: t.instance_id),
    )
    access = {a.name: a for a in fold.access_ports}
    for g in pod.groups:
        if g.instance is None:
            continue
        target = targets[g.instance.name]
        for ln in g.lines:
            clo, chi = (ln.ctag.lo, ln.ctag.hi) if ln.ctag else (None, None)
            fold.steers.append(
                bf.Steer(g.name, access[ln.port.name], ln.stag.lo, ln.stag.hi, clo, chi, target, g.ac_mac)
            )
        address6 = str(g.core_address6) if g.core_address6 is not None else None
        fold.core_groups.append(bf.CoreGroup(g.name, g.core_mac, str(g.core_address), target, address6))
    return fold


def qos_share_configs(pod: m.Pod) -> dict[str, str]:
    """bng-dp --qos-share files (docs/dp/hqos.md, "Sharing an access port across instances"
    and "Sharing a server port"): instance name -> its file, for every instance that shares
    a port's rate with others. One [qos_share.PORT] section per group it is in: each access
    port it shapes with other instances (pod.share_groups(); share_id: the access port's
    index), then the server port its VF shares with other instances' VFs
    (pod.server_share_groups(); share_id: the server port's index by number). The peers of
    a group are its instances by id, the same list in every file, each at its control
    address and qos_share.port. Static shares: the access port's rate divided equally; the
    VF rates for a server port (what an instance runs while it hears no one)."""
    access = {p.name: i for i, p in enumerate(sorted(pod.ports_with_role("access"), key=lambda p: p.number))}
    server = {p.name: i for i, p in enumerate(sorted(pod.ports_with_role("server"), key=lambda p: p.number))}
    q = pod.qos_share
    sections: dict[str, list] = {}
    others: dict[str, list[str]] = {}
    by_access, by_server = pod.share_groups(), pod.server_share_groups()
    groups = [("access", n, by_access[n]) for n in sorted(by_access, key=access.__getitem__)]
    groups += [("server", n, by_server[n]) for n in sorted(by_server, key=server.__getitem__)]
    for kind, name, insts in groups:
        port = pod.port(name)
        if kind == "access":
            what = [("access_port", access[name]), ("share_id", access[name])]
            static = [port.rate // len(insts)] * len(insts)
        else:
            what = [("server_port", "on"), ("share_id", server[name])]
            static = [i.vf.rate for i in insts]
        peers = " ".join(f"{i.control}:{q.port}" for i in insts)
        for self_index, inst in enumerate(insts):
            keys = [
                *what,
                ("port_rate", port.rate),
                ("self", self_index),
                ("peers", peers),
                ("static_shares", " ".join(map(str, static))),
                ("interval_ms", q.interval_ms),
                ("silent_intervals", q.silent_intervals),
            ]
            sections.setdefault(inst.name, []).append((f"qos_share.{name}", keys))
            others.setdefault(inst.name, []).append(
                f"{kind} port {name} with {', '.join(i.name for i in insts if i is not inst)}"
            )
    files = {}
    for inst in sorted(pod.instances, key=lambda i: i.id):
        if inst.name not in sections:
            continue
        header = [
            f"bng-dp --qos-share file of instance {inst.id} ({inst.name}) of pod {pod.name}: the rates it shares:",
            *(f"  {o}" for o in others[inst.name]),
            "Generated by `bngpod generate` from the pod file; do not edit. Format: docs/dp/hqos.md",
        ]
        files[inst.name] = _ini(sections[inst.name], header)
    return files


def generate_all(pod: m.Pod, out: Path) -> list[Path]:
    """Write every component's configuration under out; returns the files written.
    The baseboxd rendering is skipped (with a note file) when the fold cannot be
    expressed as bridge VLANs; the OpenFlow rendering always exists."""
    files: dict[str, str] = {}
    for inst in pod.instances:
        files[f"dp/{inst.name}.ini"] = dp_config(pod, inst)
    for name, text in qos_share_configs(pod).items():
        files[f"qos_share/{name}.ini"] = text
    files["cp.yaml"] = cp_config(pod)
    files["onos-netcfg.json"] = onos_netcfg(pod)
    files.update(accel.files(pod))  # accel-ppp as the control plane instead (docs/cp/accel-ppp.md)
    fold = fold_model(pod)
    files["basebox/flows.of13"] = openflow.render(fold)
    try:
        for name, text in networkd.render(fold).items():
            files[f"basebox/networkd/{name}"] = text
    except bf.RenderError as exc:
        files["basebox/networkd/NOT-RENDERED.txt"] = f"baseboxd files not rendered: {exc}\n"
    written = []
    for rel, text in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written
