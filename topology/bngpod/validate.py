"""Read a pod file and check it: structure by JSON Schema, then meaning.

Every problem is reported with its location in the file (`line_groups[1].lines[0].stag`)
and all problems are reported at once, so an operator fixes a file in one pass.
The pod file is input from outside: nothing here trusts it."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml

from . import model as m
from .schema import POD_SCHEMA

MAX_FILE_BYTES = 4 << 20
BROADCAST = ipaddress.IPv4Address("255.255.255.255")
_SI = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


class PodError(Exception):
    """The pod file cannot be used; .errors holds every problem found."""

    def __init__(self, errors: list[str], source: str = ""):
        self.errors = errors
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{len(errors)} error(s)\n" + "\n".join(errors))


@dataclass
class Result:
    pod: m.Pod | None
    errors: list[str]
    warnings: list[str]


class _NoAliasLoader(yaml.SafeLoader):
    """Aliases can make a small document expand into a huge graph: refuse them."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                "while reading the pod file", None, "YAML aliases are not supported", event.start_mark
            )
        return super().compose_node(parent, index)


def parse_rate(value) -> int:
    """bit/s from an integer or a string such as '100M' or '2.5G' (decimal SI)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a rate")
    if isinstance(value, int):
        return value
    match = re.fullmatch(r"(-?[0-9]+(?:\.[0-9]+)?)([kKMGT]?)", str(value))
    if not match:
        raise ValueError(f"{value!r} is not a rate")
    number, unit = match.groups()
    whole, _, frac = number.partition(".")
    scale = _SI[unit]
    sign = -1 if whole.startswith("-") else 1
    bits = abs(int(whole)) * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
    return sign * bits


def parse_tags(value) -> m.TagRange:
    if isinstance(value, int) and not isinstance(value, bool):
        lo = hi = value
    else:
        text = str(value)
        lo_s, _, hi_s = text.partition("-")
        lo, hi = int(lo_s), int(hi_s or lo_s)
    if not (m.VLAN_MIN <= lo <= m.VLAN_MAX and m.VLAN_MIN <= hi <= m.VLAN_MAX):
        raise ValueError(f"{value} is outside the VLAN ids {m.VLAN_MIN}-{m.VLAN_MAX}")
    if lo > hi:
        raise ValueError(f"{value} is an empty range (start above end)")
    return m.TagRange(lo, hi)


def _json_path(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _schema_errors(doc) -> list[str]:
    validator = jsonschema.Draft202012Validator(POD_SCHEMA, format_checker=jsonschema.FormatChecker())
    errors = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
        message = err.message
        if err.validator == "additionalProperties":
            message = message.replace("Additional properties are not allowed", "unknown field(s)")
        elif err.validator == "oneOf" or (
            err.validator in ("type", "minimum", "maximum") and "description" in err.schema
        ):
            message = (
                f"{err.instance!r} is not valid here ({err.schema.get('description', 'see docs/configuration.md')})"
            )
        errors.append(f"{_json_path(err.absolute_path)}: {message}")
    return errors


def load_document(path: str | Path):
    data = Path(path).read_bytes()
    if len(data) > MAX_FILE_BYTES:
        raise PodError([f"file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}"], str(path))
    return parse_document(data, str(path))


def parse_document(data: bytes | str, source: str = ""):
    try:
        doc = yaml.load(data, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise PodError([f"{where}not valid YAML: {problem}"], source) from None
    except (RecursionError, UnicodeDecodeError, ValueError) as exc:
        raise PodError([f"not valid YAML: {exc.__class__.__name__}"], source) from None
    if not isinstance(doc, dict):
        raise PodError(["(top level): the pod file must be a mapping"], source)
    return doc


def check(doc: dict, source: str = "") -> Result:
    errors = _schema_errors(doc)
    if errors:
        return Result(None, errors, [])
    checker = _Checker(doc, source)
    pod = checker.run()
    if checker.errors:
        return Result(None, checker.errors, checker.warnings)
    return Result(pod, [], checker.warnings)


def load(path: str | Path) -> m.Pod:
    """The checked pod of a file, or PodError listing every problem."""
    result = check(load_document(path), str(path))
    if result.errors:
        raise PodError(result.errors, str(path))
    return result.pod


class _Checker:
    def __init__(self, doc: dict, source: str):
        self.doc = doc
        self.source = source
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.macs: dict[str, str] = {}  # mac -> where first seen

    def err(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}")

    # -- small parsers that report instead of raising ---------------------------------

    def rate(self, where: str, value, required=True) -> int | None:
        if value is None:
            if required:
                self.err(where, "a rate is required")
            return None
        try:
            bits = parse_rate(value)
        except ValueError as exc:
            self.err(where, str(exc))
            return None
        if bits <= 0:
            self.err(where, f"rate {value} must be greater than 0")
            return None
        return bits

    def dscp(self, where: str, value) -> int | None:
        """A DSCP 0..63 (None when absent). The schema has checked the range; YAML's
        1.0 passes it as an integer but would reach the DP configuration as "1.0"."""
        if value is None:
            return None
        if isinstance(value, float):
            self.err(where, f"DSCP {value} must be a whole number 0..63 (or no dscp to keep the subscriber's marking)")
            return None
        return value

    def tags(self, where: str, value) -> m.TagRange | None:
        try:
            return parse_tags(value)
        except ValueError as exc:
            self.err(where, str(exc))
            return None

    def network(self, where: str, text: str) -> ipaddress.IPv4Network | None:
        try:
            return ipaddress.IPv4Network(text, strict=True)
        except ValueError as exc:
            try:
                loose = ipaddress.IPv4Network(text, strict=False)
            except ValueError:
                self.err(where, f"{text!r} is not an IPv4 prefix ({exc})")
            else:
                self.err(where, f"{text} has host bits set; did you mean {loose.with_prefixlen}?")
            return None

    def network6(self, where: str, text: str) -> ipaddress.IPv6Network | None:
        try:
            net = ipaddress.IPv6Network(text, strict=True)
        except ValueError as exc:
            try:
                loose = ipaddress.IPv6Network(text, strict=False)
            except ValueError:
                self.err(where, f"{text!r} is not an IPv6 prefix ({exc})")
            else:
                self.err(where, f"{text} has host bits set; did you mean {loose.with_prefixlen}?")
            return None
        for martian in m.MARTIANS6:
            if net.overlaps(martian):
                self.err(where, f"{net} overlaps {martian}, which is never forwarded")
                return None
        return net

    def address6(self, where: str, text: str) -> ipaddress.IPv6Address | None:
        """A global (forwardable) IPv6 address; the schema has checked the syntax."""
        addr = ipaddress.IPv6Address(text)  # the schema's ipv6 format refuses zone indexes
        for martian in m.MARTIANS6:
            if addr in martian:
                self.err(where, f"{addr} is inside {martian}; a global unicast address is required")
                return None
        return addr

    def host6_in(self, net, addr, where: str, net_where: str) -> bool:
        if net is None or addr is None:
            return False
        if addr not in net:
            self.err(where, f"{addr} is outside {net_where} {net}")
            return False
        if addr == net.network_address:
            self.err(where, f"{addr} is the subnet-router anycast address of {net} (RFC 4291)")
            return False
        return True

    def mac(self, where: str, text: str) -> str:
        mac = text.lower()
        first = int(mac[:2], 16)
        if first & 1:
            self.err(where, f"{mac} is a multicast MAC; a unicast address is required")
        elif mac == "00:00:00:00:00:00":
            self.err(where, "the all-zero MAC is not an address")
        if mac in self.macs:
            self.err(where, f"MAC {mac} is already used by {self.macs[mac]}")
        else:
            self.macs[mac] = where
        return mac

    def unique_names(self, where: str, items: list[dict], key="name") -> dict[str, int]:
        seen: dict = {}
        for i, item in enumerate(items):
            name = item[key]
            if name in seen:
                self.err(f"{where}[{i}].{key}", f"duplicate {key} {name!r} (also {where}[{seen[name]}])")
            else:
                seen[name] = i
        return seen

    # -- the checks, section by section -----------------------------------------------

    def run(self) -> m.Pod:
        d = self.doc
        ports = self.switch_ports(d["switch"])
        servers, vfs = self.servers(d["servers"], ports)
        core = self.core(d["core"], ports)
        management = self.network("management.subnet", d["management"]["subnet"])
        cp = self.control_plane(d["control_plane"], management)
        radius = self.radius(d["radius"])
        pools = self.pools(d["pools"], core, management)
        ipv6_pools = self.ipv6_pools(d.get("ipv6_pools", []), core)
        ipv6_ra = self.ipv6_ra(d.get("ipv6_ra", {}))
        profiles = self.qos_profiles(d["qos_profiles"])
        groups = self.line_groups(d["line_groups"], ports, pools, profiles, core)
        self.ipv6_binding(d["line_groups"], groups, ipv6_pools, core)
        instances = self.instances(d["instances"], servers, vfs, groups, management, cp)
        core.routes = self.routes(d["core"].get("routes", []), core, pools)
        acl = self.acl(d.get("acl", []))
        control_policing = self.control_policing(d.get("control_policing", {}))
        kafka_port = self.seba(d.get("seba", {}))
        qos_share = self.qos_share(d.get("qos_share", {}), cp, instances)
        self.line_overlaps(groups)
        self.stag_ports_per_instance(instances)
        self.dp_limits(instances, profiles)
        for i, group in enumerate(groups):
            if group is not None and group.instance is None:
                self.warn(f"line_groups[{i}]", f"line group {group.name!r} is served by no instance")
        dpid = d["switch"]["dpid"].lower().removeprefix("of:")
        return m.Pod(
            name=d["pod"],
            switch_name=d["switch"]["name"],
            dpid=dpid,
            ports=list(ports.values()),
            servers=servers,
            core=core,
            management=management,
            control_plane=cp,
            radius=radius,
            pools=list(pools.values()),
            qos_profiles=list(profiles.values()),
            groups=[g for g in groups if g is not None],
            instances=instances,
            acl=acl,
            ipv6_pools=list(ipv6_pools.values()),
            ipv6_ra=ipv6_ra,
            control_policing=control_policing,
            qos_share=qos_share,
            source=self.source,
            kafka_port=kafka_port,
            seba="seba" in d,
        )

    def switch_ports(self, switch: dict) -> dict[str, m.SwitchPort]:
        items = switch["ports"]
        self.unique_names("switch.ports", items)
        self.unique_names("switch.ports", items, key="number")
        ports: dict[str, m.SwitchPort] = {}
        for i, p in enumerate(items):
            where = f"switch.ports[{i}]"
            if "tpid" in p and p["role"] != "access":
                self.err(f"{where}.tpid", f"only access ports have a TPID ({p['name']} is a {p['role']} port)")
            tpid = p.get("tpid", m.TPID_8021Q)
            tpid = int(tpid, 16) if isinstance(tpid, str) else tpid
            rate = self.rate(f"{where}.rate", p.get("rate"), required=p["role"] != "uplink")
            ports.setdefault(p["name"], m.SwitchPort(p["name"], p["number"], p["role"], tpid, rate))
        if not any(p.role == "uplink" for p in ports.values()):
            self.err("switch.ports", "no port has role uplink: the pod needs a core uplink")
        if not any(p.role == "access" for p in ports.values()):
            self.err("switch.ports", "no port has role access")
        return ports

    def port_ref(self, where: str, name: str, ports: dict, role: str) -> m.SwitchPort | None:
        port = ports.get(name)
        if port is None:
            self.err(where, f"unknown switch port {name!r}")
        elif port.role != role:
            self.err(where, f"port {name!r} has role {port.role}, not {role}")
            return None
        return port

    def servers(self, items: list[dict], ports: dict):
        self.unique_names("servers", items)
        servers: list[m.Server] = []
        vfs: dict[tuple[str, str, int], m.Vf] = {}
        used_switch_ports: dict[str, str] = {}
        for i, s in enumerate(items):
            self.unique_names(f"servers[{i}].ports", s["ports"])
            server_ports = []
            for j, sp in enumerate(s["ports"]):
                where = f"servers[{i}].ports[{j}]"
                switch_port = self.port_ref(f"{where}.switch_port", sp["switch_port"], ports, "server")
                if switch_port is not None:
                    if switch_port.name in used_switch_ports:
                        self.err(
                            f"{where}.switch_port",
                            f"switch port {switch_port.name} is already cabled to "
                            f"{used_switch_ports[switch_port.name]}",
                        )
                    used_switch_ports.setdefault(switch_port.name, where)
                self.unique_names(f"{where}.vfs", sp["vfs"], key="vf")
                port_vfs = []
                shares = len(sp["vfs"])
                for k, v in enumerate(sp["vfs"]):
                    vwhere = f"{where}.vfs[{k}]"
                    mac = self.mac(f"{vwhere}.mac", v["mac"])
                    if "rate" in v:
                        rate = self.rate(f"{vwhere}.rate", v["rate"])
                    elif switch_port is not None and switch_port.rate:
                        rate = switch_port.rate // shares
                    else:
                        rate = None
                    if switch_port is None or rate is None:
                        continue
                    vf = m.Vf(v["vf"], mac, rate, s["name"], sp["name"], switch_port)
                    port_vfs.append(vf)
                    vfs.setdefault((s["name"], sp["name"], v["vf"]), vf)
                if switch_port is not None and switch_port.rate:
                    total = sum(vf.rate for vf in port_vfs)
                    if total > switch_port.rate:
                        self.err(
                            f"{where}.vfs",
                            f"VF rates add up to {total} bit/s, above the port's {switch_port.rate} bit/s",
                        )
                if switch_port is not None:
                    server_ports.append(m.ServerPort(sp["name"], switch_port, port_vfs))
            servers.append(m.Server(s["name"], server_ports))
        return servers, vfs

    def core(self, c: dict, ports: dict) -> m.Core:
        uplink = self.port_ref("core.uplink", c["uplink"], ports, "uplink")
        subnet = self.network("core.subnet", c["subnet"])
        router = ipaddress.IPv4Address(c["router"]["address"])
        self.host_in(subnet, router, "core.router.address", "core.subnet")
        mac = self.mac("core.router.mac", c["router"]["mac"])
        subnet6 = router6 = None
        if "subnet6" in c:
            subnet6 = self.network6("core.subnet6", c["subnet6"])
            if subnet6 is not None and subnet6.prefixlen > m.SUBNET6_MAX_LENGTH:
                self.err("core.subnet6", f"{subnet6} is too small for the router and the line groups (at most /126)")
                subnet6 = None
            elif subnet6 is not None and subnet6.prefixlen < m.SUBNET6_MIN_LENGTH:
                self.err("core.subnet6", f"{subnet6} is larger than a core link takes (/48 or longer)")
                subnet6 = None
        if "address6" in c["router"]:
            router6 = self.address6("core.router.address6", c["router"]["address6"])
            if "subnet6" not in c:
                self.err("core.router.address6", "core.subnet6 is needed when any address6 is given")
            self.host6_in(subnet6, router6, "core.router.address6", "core.subnet6")
        elif "subnet6" in c:
            self.err("core.router", "address6 is required with core.subnet6 (the IPv6 default route of every DP)")
        return m.Core(uplink, subnet, router, mac, c.get("vlan"), subnet6=subnet6, router_address6=router6)

    def host_in(self, net, addr, where: str, net_where: str) -> bool:
        if net is None:
            return False
        if addr not in net:
            self.err(where, f"{addr} is outside {net_where} {net}")
            return False
        if net.prefixlen < 31 and addr in (net.network_address, net.broadcast_address):
            self.err(where, f"{addr} is the network or broadcast address of {net}")
            return False
        return True

    def unique_host(self, net, addr, where: str, net_where: str, seen: dict) -> None:
        """addr must be a host of net and not in seen (address -> where it was used)."""
        if not self.host_in(net, addr, where, net_where):
            return
        if addr in seen:
            self.err(where, f"{addr} is already used by {seen[addr]}")
        else:
            seen[addr] = where

    def seba(self, s: dict) -> int | None:
        """seba.kafka: the port of the pod's Kafka broker (its KRaft controller on the next
        port), both TCP on the control plane's address; None without a broker."""
        port = s.get("kafka_port")
        if not s.get("kafka"):
            if port is not None:
                self.err("seba.kafka_port", "needs seba.kafka: true")
            return None
        port = m.DEFAULT_KAFKA_PORT if port is None else port
        # TCP ports the emulated pod uses on that address (controller.py, launch/cp.py)
        taken = {8181: "the controller's REST API", 8182: "the SEBA controller's lab side", 9464: "bng-cp's metrics"}
        for p in (port, port + 1):
            if p > 65535:
                self.err("seba.kafka_port", f"{port}: the broker's controller listens on {port + 1}, above 65535")
            elif p in taken:
                self.err("seba.kafka_port", f"{port}: {p} is {taken[p]}'s (the broker takes {port} and {port + 1})")
        return port

    def control_plane(self, c: dict, management) -> m.ControlPlane:
        address = ipaddress.IPv4Address(c["address"])
        self.host_in(management, address, "control_plane.address", "management.subnet")
        pfcp = c.get("pfcp_port", m.DEFAULT_PFCP_PORT)
        vxlan = c.get("vxlan_port", m.DEFAULT_VXLAN_PORT)
        if pfcp == vxlan:
            self.err("control_plane.vxlan_port", "PFCP and VXLAN need different UDP ports")
        return m.ControlPlane(
            address,
            pfcp,
            vxlan,
            heartbeat_ms=c.get("heartbeat_ms"),
            heartbeat_timeout_ms=c.get("heartbeat_timeout_ms"),
            heartbeat_tries=c.get("heartbeat_tries"),
        )

    def radius(self, r: dict) -> m.Radius:
        self.unique_names("radius.servers", r["servers"])
        servers = []
        for s in r["servers"]:
            auth, acct = s.get("auth_port", 1812), s.get("acct_port", 1813)
            servers.append(m.RadiusServer(s["name"], ipaddress.IPv4Address(s["address"]), s["secret"], auth, acct))
        return m.Radius(
            r["nas_identifier"],
            r.get("coa_port", m.DEFAULT_COA_PORT),
            r.get("timeout_ms", 3000),
            r.get("retries", 3),
            servers,
            r.get("ipv6_octets_attribute", m.IPV6_OCTETS_ATTRIBUTES[0]),
        )

    def pools(self, items: list[dict], core: m.Core, management) -> dict[str, m.Pool]:
        self.unique_names("pools", items)
        pools: dict[str, m.Pool] = {}
        placed: list[tuple[ipaddress.IPv4Network, str]] = []
        for net, where in ((core.subnet, "core.subnet"), (management, "management.subnet")):
            if net is not None:
                placed.append((net, where))
        for i, p in enumerate(items):
            where = f"pools[{i}].prefix"
            net = self.network(where, p["prefix"])
            if net is None:
                continue
            if net.prefixlen > 30:
                self.err(where, f"{net} is too small for a subscriber pool (at most /30)")
            for martian in m.MARTIANS:
                if net.subnet_of(martian):
                    self.err(where, f"{net} is inside {martian}, which is never forwarded")
            for other, other_where in placed:
                if net.overlaps(other):
                    self.err(where, f"{net} overlaps {other_where} ({other})")
            placed.append((net, f"pools[{i}]"))
            dns = [ipaddress.IPv4Address(a) for a in p.get("dns", [])]
            gateway = None
            if "gateway" in p:
                gateway = ipaddress.IPv4Address(p["gateway"])
                if not self.host_in(net, gateway, f"pools[{i}].gateway", f"pools[{i}].prefix"):
                    gateway = None
            pools.setdefault(p["name"], m.Pool(p["name"], net, dns, gateway=gateway))
        return pools

    def ipv6_ra(self, r: dict) -> m.Ipv6Ra:
        interval = r.get("interval", m.RA_DEFAULT_INTERVAL)
        lifetime = r.get("router_lifetime", m.RA_DEFAULT_LIFETIME)
        if lifetime != 0 and lifetime < interval:
            self.err(
                "ipv6_ra.router_lifetime",
                f"{lifetime} s is below the interval ({interval} s); RFC 4861: 0 or from the interval up to "
                f"{m.RA_MAX_LIFETIME} s",
            )
        return m.Ipv6Ra(interval, lifetime)

    def ipv6_pools(self, items: list[dict], core: m.Core) -> dict[str, m.Ipv6Pool]:
        """IPv6 pools: lengths, and no prefix overlapping another or the core subnet."""
        self.unique_names("ipv6_pools", items)
        pools: dict[str, m.Ipv6Pool] = {}
        placed: list[tuple[ipaddress.IPv6Network, str]] = []
        if core.subnet6 is not None:
            placed.append((core.subnet6, "core.subnet6"))
        for i, p in enumerate(items):
            where = f"ipv6_pools[{i}]"
            wan = self.network6(f"{where}.wan_prefix", p["wan_prefix"])
            if wan is not None and not m.WAN_MIN_LENGTH <= wan.prefixlen <= m.WAN_MAX_LENGTH:
                self.err(
                    f"{where}.wan_prefix",
                    f"{wan}: a WAN pool is /{m.WAN_MIN_LENGTH}../{m.WAN_MAX_LENGTH} (each session a /64 of it)",
                )
                wan = None
            pd = self.network6(f"{where}.delegated_prefix", p["delegated_prefix"])
            if pd is not None and pd.prefixlen < m.DP_POOL6_MIN_LENGTH:
                self.err(f"{where}.delegated_prefix", f"{pd} is larger than a DP takes as one pool (/32 or longer)")
                pd = None
            length = p["delegated_length"]
            if pd is not None and length < pd.prefixlen:
                self.err(
                    f"{where}.delegated_length",
                    f"/{length} is shorter than the pool {pd} itself; it must be /{pd.prefixlen} or longer",
                )
                pd = None
            for net, key in ((wan, "wan_prefix"), (pd, "delegated_prefix")):
                if net is None:
                    continue
                for other, other_where in placed:
                    if net.overlaps(other):
                        self.err(f"{where}.{key}", f"{net} overlaps {other_where} ({other})")
                placed.append((net, f"{where}.{key}"))
            dns = []
            for j, text in enumerate(p.get("dns", [])):
                addr = self.address6(f"{where}.dns[{j}]", text)
                if addr is not None:
                    dns.append(addr)
            if wan is not None and pd is not None and len(dns) == len(p.get("dns", [])):
                pools.setdefault(p["name"], m.Ipv6Pool(p["name"], wan, pd, length, p.get("ia_na", False), dns))
        lengths = {m.WAN_ASSIGNED_LENGTH} | {p["delegated_length"] for p in items}
        if items and len(lengths) > m.DP_MAX_PREFIX_LENGTHS6:
            self.err(
                "ipv6_pools",
                f"{len(lengths)} assigned prefix lengths ({', '.join(f'/{n}' for n in sorted(lengths))}); "
                f"a DP instance takes at most {m.DP_MAX_PREFIX_LENGTHS6} (the /64s and the delegated lengths)",
            )
        return pools

    def ipv6_binding(self, items: list[dict], groups, ipv6_pools: dict[str, m.Ipv6Pool], core: m.Core) -> None:
        """Each line group's core IPv6 address and IPv6 pools; a pool serves one group."""
        owner: dict[str, str] = {}
        known = {p["name"] for p in self.doc.get("ipv6_pools", [])}
        addresses: dict[ipaddress.IPv6Address, str] = {}
        if core.router_address6 is not None:
            addresses[core.router_address6] = "core.router.address6"
        for i, g in enumerate(items):
            where = f"line_groups[{i}]"
            address6 = None
            if "address6" in g["core"]:
                awhere = f"{where}.core.address6"
                address6 = self.address6(awhere, g["core"]["address6"])
                if "subnet6" not in self.doc["core"]:
                    self.err(awhere, "core.subnet6 is needed when any address6 is given")
                elif self.host6_in(core.subnet6, address6, awhere, "core.subnet6"):
                    if address6 in addresses:
                        self.err(awhere, f"{address6} is already used by {addresses[address6]}")
                    else:
                        addresses[address6] = awhere
            bound = []
            names = g.get("ipv6_pools", [])
            for j, name in enumerate(names):
                pwhere = f"{where}.ipv6_pools[{j}]"
                if name not in known:
                    self.err(pwhere, f"unknown IPv6 pool {name!r}")
                    continue
                if name in owner:
                    self.err(pwhere, f"IPv6 pool {name!r} is already bound to {owner[name]}")
                    continue
                owner[name] = f"{where} ({g['name']})"
                if name in ipv6_pools:
                    ipv6_pools[name].group = g["name"]
                    bound.append(ipv6_pools[name])
            if names and "address6" not in g["core"]:
                self.err(
                    f"{where}.core",
                    "address6 is required with ipv6_pools (the next hop of the group's IPv6 prefixes)",
                )
            if 2 * len(names) > m.DP_MAX_GROUP_PREFIXES6:
                self.err(
                    f"{where}.ipv6_pools",
                    f"{len(names)} IPv6 pools; a line group takes at most {m.DP_MAX_GROUP_PREFIXES6 // 2} "
                    f"(bng-dp's {m.DP_MAX_GROUP_PREFIXES6} prefixes6 pairs)",
                )
            group = groups[i] if i < len(groups) else None
            if group is not None:
                group.core_address6 = address6
                group.ipv6_pools = bound
                if bound and group.ipoe is not None and group.ipoe.mode == "relay":
                    whom = "its PPPoE subscribers only" if group.allows_pppoe else "none of its subscribers"
                    self.warn(
                        f"{where}.ipv6_pools",
                        f"IPoE in relay mode: bng-cp relays DHCPv4 only and drops DHCPv6, so these pools serve {whom}",
                    )
        for i, p in enumerate(self.doc.get("ipv6_pools", [])):
            if p["name"] not in owner and p["name"] in ipv6_pools:
                self.warn(f"ipv6_pools[{i}]", f"IPv6 pool {p['name']!r} is bound to no line group")

    def qos_profiles(self, items: list[dict]) -> dict[str, m.QosProfile]:
        self.unique_names("qos_profiles", items)
        profiles = {}
        for i, q in enumerate(items):
            where = f"qos_profiles[{i}]"
            down = self.rate(f"{where}.downstream.rate", q["downstream"]["rate"])
            pir = self.rate(f"{where}.upstream.pir", q["upstream"]["pir"])
            cir = self.rate(f"{where}.upstream.cir", q["upstream"].get("cir", q["upstream"]["pir"]))
            if pir and cir and cir > pir:
                self.err(f"{where}.upstream.cir", f"CIR {cir} is above PIR {pir}")
            up_dscp = self.dscp(f"{where}.upstream.dscp", q["upstream"].get("dscp"))
            guaranteed = None
            if "guaranteed" in q["downstream"]:
                guaranteed = self.rate(f"{where}.downstream.guaranteed", q["downstream"]["guaranteed"])
                if guaranteed and down and guaranteed > down:
                    self.err(
                        f"{where}.downstream.guaranteed",
                        f"guaranteed rate {guaranteed} is above the profile's downstream rate {down}",
                    )
            classes = []
            tcs: dict[int, int] = {}
            dscps: dict[int, str] = {}
            for j, c in enumerate(q.get("classes", [])):
                cwhere = f"{where}.classes[{j}]"
                if c["tc"] in tcs:
                    self.err(f"{cwhere}.tc", f"traffic class {c['tc']} is already {where}.classes[{tcs[c['tc']]}]")
                tcs.setdefault(c["tc"], j)
                for d in c.get("dscp", []):
                    if d in dscps:
                        self.err(f"{cwhere}.dscp", f"DSCP {d} is already mapped by {dscps[d]}")
                    dscps.setdefault(d, cwhere)
                if c.get("weights") and c["tc"] != m.BEST_EFFORT_TC:
                    self.err(f"{cwhere}.weights", f"only the best-effort class (tc {m.BEST_EFFORT_TC}) has WRR weights")
                rate = self.rate(f"{cwhere}.rate", c["rate"]) if "rate" in c else down
                if rate and down and rate > down:
                    self.err(f"{cwhere}.rate", f"class rate {rate} is above the profile's downstream rate {down}")
                classes.append(
                    m.TrafficClass(c["tc"], c["name"], sorted(c.get("dscp", [])), rate or 0, c.get("weights", []))
                )
            if down and pir and cir:
                profiles.setdefault(
                    q["name"],
                    m.QosProfile(
                        q["name"], down, pir, cir, sorted(classes, key=lambda c: c.tc), up_dscp, guaranteed or None
                    ),
                )
        return profiles

    def line_groups(self, items, ports, pools, profiles, core: m.Core) -> list[m.LineGroup | None]:
        self.unique_names("line_groups", items)
        groups: list[m.LineGroup | None] = []
        pool_owner: dict[str, str] = {}
        core_addresses: dict[ipaddress.IPv4Address, str] = {core.router_address: "core.router.address"}
        for i, g in enumerate(items):
            where = f"line_groups[{i}]"
            ac_mac = self.mac(f"{where}.ac_mac", g["ac_mac"])
            core_mac = self.mac(f"{where}.core.mac", g["core"]["mac"])
            address = ipaddress.IPv4Address(g["core"]["address"])
            self.unique_host(core.subnet, address, f"{where}.core.address", "core.subnet", core_addresses)
            group_pools = []
            for j, name in enumerate(g["pools"]):
                pwhere = f"{where}.pools[{j}]"
                pool = pools.get(name)
                if pool is None:
                    if name not in {p["name"] for p in self.doc["pools"]}:
                        self.err(pwhere, f"unknown pool {name!r}")
                    continue
                if name in pool_owner:
                    self.err(pwhere, f"pool {name!r} is already bound to {pool_owner[name]}")
                    continue
                pool_owner[name] = f"{where} ({g['name']})"
                pool.group = g["name"]
                group_pools.append(pool)
            profile = profiles.get(g["qos_profile"])
            if profile is None and g["qos_profile"] not in {q["name"] for q in self.doc["qos_profiles"]}:
                self.err(f"{where}.qos_profile", f"unknown QoS profile {g['qos_profile']!r}")
            lines = []
            for j, line in enumerate(g["lines"]):
                lwhere = f"{where}.lines[{j}]"
                port = self.port_ref(f"{lwhere}.port", line["port"], ports, "access")
                stag = self.tags(f"{lwhere}.stag", line["stag"])
                ctag = self.tags(f"{lwhere}.ctag", line["ctag"]) if "ctag" in line else None
                if port is not None and stag is not None and ("ctag" not in line or ctag is not None):
                    lines.append(m.Line(g["name"], port, stag, ctag))
                else:
                    lines.append(None)
            session_types, ipoe = self.session_types(where, g, group_pools, pools)
            if profile is None or None in lines or session_types is None:
                groups.append(None)
                continue
            groups.append(
                m.LineGroup(
                    g["name"],
                    ac_mac,
                    address,
                    core_mac,
                    group_pools,
                    profile,
                    lines,
                    session_types=session_types,
                    ipoe=ipoe,
                )
            )
        for i, p in enumerate(self.doc["pools"]):
            if p["name"] not in pool_owner and p["name"] in pools:
                self.warn(f"pools[{i}]", f"pool {p['name']!r} is bound to no line group")
        return groups

    def session_types(self, where: str, g: dict, group_pools: list[m.Pool], pools: dict[str, m.Pool]):
        """A group's session types (file order) and its IPoE settings; (None, None) when
        they are wrong. IPoE needs a gateway in every pool of the group (the DP answers
        ARP for it, the CP names it router and server identifier)."""
        types = tuple(g.get("session_types", ["pppoe"]))
        given = g.get("ipoe")
        if "ipoe" not in types:
            if given is not None:
                self.err(f"{where}.ipoe", "an ipoe block needs ipoe in session_types")
                return None, None
            return types, None
        ok = True
        given = given or {}
        for pool in group_pools:
            if pool.gateway is None:
                index = next(k for k, p in enumerate(self.doc["pools"]) if p["name"] == pool.name)
                if "gateway" not in self.doc["pools"][index]:
                    self.err(
                        f"pools[{index}]",
                        f"pool {pool.name!r} of {where} ({g['name']}, session_types with ipoe) needs a gateway",
                    )
                ok = False
        if len(g["pools"]) > m.DP_MAX_IPOE_GATEWAYS:
            self.err(
                f"{where}.pools",
                f"{len(g['pools'])} pools with IPoE; a line group takes at most {m.DP_MAX_IPOE_GATEWAYS} gateways",
            )
            ok = False
        whole = {
            key: self.whole(f"{where}.ipoe.{key}", given[key], what)
            for key, what in (("lease_time", "seconds"), ("renew_time", "seconds"), ("max_macs", "sessions"))
            if key in given
        }
        if None in whole.values():
            return None, None
        lease = whole.get("lease_time", m.IPOE_LEASE_DEFAULT)
        renew = whole.get("renew_time", min(m.IPOE_RENEW_DEFAULT, lease // 2))
        if renew > lease // 2:
            self.err(
                f"{where}.ipoe.renew_time",
                f"{renew} s is above half the lease time ({lease} s / 2 = {lease // 2} s); "
                f"T1 is {m.IPOE_RENEW_MIN}..lease_time/2",
            )
            ok = False
        mode = given.get("mode", m.IPOE_MODES[0])
        relay = None
        if mode == "relay":
            r = given.get("relay")
            if r is None:
                self.err(f"{where}.ipoe", "mode relay needs a relay block (the DHCP servers)")
                return None, None
            servers = tuple(ipaddress.IPv4Address(a) for a in r["servers"])
            for k, server in enumerate(servers):
                swhere = f"{where}.ipoe.relay.servers[{k}]"
                for pool in pools.values():
                    if server in pool.prefix:
                        self.err(swhere, f"{server} is inside pool {pool.name} ({pool.prefix}), a subscriber address")
                        ok = False
                if server.is_multicast or server.is_unspecified or server.is_loopback or server == BROADCAST:
                    self.err(swhere, f"{server} is not a unicast address of a DHCP server")
                    ok = False
            relay = m.IpoeRelay(servers, r.get("option82", m.IPOE_OPTION82[0]))
        elif "relay" in given:
            self.err(f"{where}.ipoe.relay", f"a relay block needs mode: relay (mode is {mode})")
            ok = False
        arp_ping = None
        if "arp_ping" in given:
            iv = self.whole(f"{where}.ipoe.arp_ping.interval", given["arp_ping"]["interval"], "seconds")
            n = self.whole(f"{where}.ipoe.arp_ping.count", given["arp_ping"]["count"], "pings")
            if iv is None or n is None:
                return None, None
            arp_ping = (iv, n)
        if not ok:
            return None, None
        ipoe = m.Ipoe(
            mode=mode,
            lease_time=lease,
            renew_time=renew,
            max_macs=whole.get("max_macs", 1),
            username=given.get("username", m.IPOE_USERNAMES[0]),
            password=given.get("password", m.IPOE_DEFAULT_PASSWORD),
            proxy_arp=given.get("proxy_arp", True),
            relay=relay,
            arp_ping=arp_ping,
        )
        return types, ipoe

    def routes(self, items: list[dict], core: m.Core, pools: dict[str, m.Pool]) -> list[m.Route]:
        """Static routes on the core side. A route inside what the DP routes by itself
        (martians, the connected core subnet, the pools) would take that traffic away."""
        if len(items) > m.DP_MAX_ROUTES:
            self.err("core.routes", f"{len(items)} routes; a DP instance takes at most {m.DP_MAX_ROUTES}")
        group_cores = {}
        for i, g in enumerate(self.doc["line_groups"]):
            group_cores.setdefault(ipaddress.IPv4Address(g["core"]["address"]), f"line_groups[{i}].core.address")
        routes: list[m.Route] = []
        seen: dict[ipaddress.IPv4Network, str] = {}
        for i, r in enumerate(items):
            where = f"core.routes[{i}]"
            drop = r.get("drop", False)
            if "via" in r and drop:
                self.err(where, "a route has either via or drop: true, not both")
                continue
            if "via" not in r and not drop:
                self.err(where, "via is required (or drop: true for a blackhole route)")
                continue
            net = self.network(f"{where}.prefix", r["prefix"])
            if net is None:
                continue
            if net.prefixlen == 0:
                self.err(f"{where}.prefix", "the default route is core.router; a static route must be more specific")
                continue
            inside = [f"{n}, which is never forwarded" for n in m.MARTIANS if net.subnet_of(n)]
            if core.subnet is not None and net.subnet_of(core.subnet):
                inside.append(f"core.subnet ({core.subnet}), which is connected")
            inside += [
                f"pool {p.name} ({p.prefix}); pools are routed by their line group"
                for p in pools.values()
                if net.subnet_of(p.prefix)
            ]
            for what in inside:
                self.err(f"{where}.prefix", f"{net} is inside {what}")
            if net in seen:
                self.err(f"{where}.prefix", f"{net} is already routed by {seen[net]}")
            seen.setdefault(net, where)
            via = None
            if not drop:
                via = ipaddress.IPv4Address(r["via"])
                if self.host_in(core.subnet, via, f"{where}.via", "core.subnet") and via in group_cores:
                    self.err(f"{where}.via", f"{via} is {group_cores[via]}, an address of a DP instance")
            routes.append(m.Route(net, via))
        return routes

    def l4_ports(self, where: str, value) -> m.PortRange | None:
        if isinstance(value, int):
            lo = hi = value
        else:
            lo_s, _, hi_s = str(value).partition("-")
            lo, hi = int(lo_s), int(hi_s or lo_s)
        if not (1 <= lo <= 65535 and 1 <= hi <= 65535):
            self.err(where, f"{value} is outside the ports 1-65535")
            return None
        if lo > hi:
            self.err(where, f"{value} is an empty range (start above end)")
            return None
        return m.PortRange(lo, hi)

    def acl(self, items: list[dict]) -> list[m.AclRule]:
        """The operator ACL, the same in every DP instance."""
        if len(items) > m.DP_MAX_ACL_RULES:
            self.err("acl", f"{len(items)} rules; a DP instance takes at most {m.DP_MAX_ACL_RULES}")
        rules: list[m.AclRule] = []
        for i, r in enumerate(items):
            where = f"acl[{i}]"
            name = r.get("protocol", "any")
            source, destination = self.acl_prefixes(where, r)
            protocol = None if name == "any" else m.IP_PROTOCOLS.get(name, name)
            if name == "icmp" and source is not None and source.version == 6:
                protocol = m.ICMPV6
            ports = {}
            ok = source is not None and destination is not None
            for key in ("source_ports", "destination_ports"):
                if key not in r:
                    ports[key] = None
                    continue
                if protocol not in (m.IP_PROTOCOLS["tcp"], m.IP_PROTOCOLS["udp"]):
                    self.err(f"{where}.{key}", f"ports need protocol tcp or udp, not {name}")
                    ok = False
                ports[key] = self.l4_ports(f"{where}.{key}", r[key])
                ok = ok and ports[key] is not None
            if ok:
                rules.append(
                    m.AclRule(
                        r["action"],
                        r.get("direction", "both"),
                        protocol,
                        source,
                        destination,
                        ports["source_ports"],
                        ports["destination_ports"],
                    )
                )
        return rules

    def acl_prefixes(self, where: str, r: dict):
        """A rule's source and destination, of one family: the given prefixes say which
        (IPv4 when neither is given); a missing one is that family's whole space."""
        texts = [r.get(k) for k in ("source", "destination")]
        family = 6 if any(t is not None and ":" in t for t in texts) else 4
        if all(t is not None for t in texts) and (":" in texts[0]) != (":" in texts[1]):
            self.err(
                where,
                f"source {texts[0]} and destination {texts[1]} are of different families; a rule is IPv4 or IPv6",
            )
            return None, None
        out = []
        for key, text in zip(("source", "destination"), texts, strict=True):
            if text is None:
                out.append(ipaddress.ip_network("::/0" if family == 6 else "0.0.0.0/0"))
            elif family == 6:
                out.append(self.acl_network6(f"{where}.{key}", text))
            else:
                out.append(self.network(f"{where}.{key}", text))
        return out[0], out[1]

    def acl_network6(self, where: str, text: str) -> ipaddress.IPv6Network | None:
        """An IPv6 prefix of an ACL rule: any prefix, link-local and multicast included."""
        try:
            return ipaddress.IPv6Network(text, strict=True)
        except ValueError as exc:
            try:
                loose = ipaddress.IPv6Network(text, strict=False)
            except ValueError:
                self.err(where, f"{text!r} is not an IPv6 prefix ({exc})")
            else:
                self.err(where, f"{text} has host bits set; did you mean {loose.with_prefixlen}?")
            return None

    def whole(self, where: str, value, what: str) -> int | None:
        """An integer the schema has range-checked. YAML's 400.0 passes it as an integer but
        would reach the DP configuration as "400.0"."""
        if isinstance(value, float):
            self.err(where, f"{value} must be a whole number of {what}")
            return None
        return value

    def control_policing(self, c: dict) -> dict[str, m.PuntClass]:
        """bng-dp's punt policer, class by class: what the file gives, bng-dp's defaults
        for the rest."""
        classes: dict[str, m.PuntClass] = {}
        for name in m.PUNT_CLASSES:
            default, given, where = m.PUNT_DEFAULTS[name], c.get(name, {}), f"control_policing.{name}"
            buckets = {}
            for key in ("per_client", "per_line"):
                bucket = given.get(key)
                buckets[key] = getattr(default, key)
                if bucket is not None:
                    rate = self.whole(f"{where}.{key}.rate", bucket["rate"], "frames per second")
                    burst = self.whole(f"{where}.{key}.burst", bucket["burst"], "frames")
                    if rate is not None and burst is not None:
                        buckets[key] = m.PuntBucket(rate, burst)
            ring = self.whole(f"{where}.ring_percent", given.get("ring_percent", default.ring_percent), "percent")
            classes[name] = m.PuntClass(buckets["per_client"], buckets["per_line"], ring or default.ring_percent)
        high, mid, low = (classes[n].ring_percent for n in m.PUNT_CLASSES)
        if not high >= mid >= low:
            self.warn(
                "control_policing",
                f"ring_percent high {high}, mid {mid}, low {low}: a backlog in bng-dp's control thread "
                "would refuse a higher class before a lower one",
            )
        return classes

    def qos_share(self, q: dict, cp: m.ControlPlane, instances: list[m.Instance]) -> m.QosShare:
        """Sharing port rates between instances: each access port's between the instances
        that shape it, each server port's between the instances whose VFs sit on it. The
        UDP port of the reports (bound on each instance's control address, beside PFCP and
        VXLAN), at most 16 instances a group and 8 groups an instance (bng-dp's limits)."""
        share = m.QosShare(
            enabled=q.get("enabled", True),
            interval_ms=q.get("interval_ms", 10),
            silent_intervals=q.get("silent_intervals", 3),
            port=q.get("port", m.QOS_SHARE_DEFAULT_PORT),
            server_ports=q.get("server_ports", True),
        )
        if not share.enabled:
            return share
        if share.port in (cp.pfcp_port, cp.vxlan_port):
            self.err("qos_share.port", f"UDP port {share.port} is the PFCP or VXLAN port of every instance")
        groups = [("access port", name, insts) for name, insts in sorted(m.share_groups(instances).items())]
        if share.server_ports:
            groups += [("server port", n, insts) for n, insts in sorted(m.server_share_groups(instances).items())]
        for what, name, insts in groups:
            if what == "access port":
                rate = next(p.rate for p in insts[0].access_ports if p.name == name)
            else:
                rate = insts[0].vf.switch_port.rate
            if rate is not None and rate < m.QOS_SHARE_MIN_RATE:
                self.err("qos_share", f"{what} {name!r}: bng-dp shares rates of {m.QOS_SHARE_MIN_RATE} bit/s up")
            if len(insts) > m.QOS_SHARE_MAX_PEERS:
                self.err(
                    "qos_share",
                    f"{what} {name!r} is shared by {len(insts)} instances; bng-dp shares a port "
                    f"between at most {m.QOS_SHARE_MAX_PEERS} (or set qos_share.enabled: false)",
                )
        for inst in instances:
            mine = [name for _what, name, insts in groups if inst in insts]
            if len(mine) > m.QOS_SHARE_MAX_GROUPS:
                self.err(
                    "qos_share",
                    f"instance {inst.name!r} shares {len(mine)} ports with other instances "
                    f"({', '.join(mine)}); bng-dp takes part in at most {m.QOS_SHARE_MAX_GROUPS} "
                    "sharing groups (or set qos_share.enabled: false)",
                )
        return share

    def line_overlaps(self, groups: list[m.LineGroup | None]) -> None:
        """Two lines may share an access port and S-tags only with disjoint C-tags."""
        seen: list[tuple[str, m.Line]] = []
        for i, group in enumerate(groups):
            if group is None:
                continue
            for j, line in enumerate(group.lines):
                where = f"line_groups[{i}].lines[{j}]"
                for other_where, other in seen:
                    if other.port is not line.port or not line.stag.overlaps(other.stag):
                        continue
                    if line.ctag is None and other.ctag is None:
                        self.err(
                            f"{where}.stag",
                            f"{line.stag} overlaps {other_where} ({other.stag}) on port {line.port.name}",
                        )
                    elif line.ctags.overlaps(other.ctags):
                        self.err(
                            f"{where}.ctag",
                            f"S-tag {line.stag} C-tag {line.ctags} overlaps {other_where} "
                            f"(S-tag {other.stag} C-tag {other.ctags}) on port {line.port.name}",
                        )
                seen.append((where, line))

    def instances(self, items, servers, vfs, groups, management, cp: m.ControlPlane) -> list[m.Instance]:
        self.unique_names("instances", items)
        self.unique_names("instances", items, key="id")
        by_name = {s.name: s for s in servers}
        group_by_name = {g.name: g for g in groups if g is not None}
        known_groups = {g["name"] for g in self.doc["line_groups"]}
        vf_users: dict[tuple, str] = {}
        group_users: dict[str, str] = {}
        controls: dict[ipaddress.IPv4Address, str] = {cp.address: "control_plane.address"}
        instances = []
        for i, d in enumerate(items):
            where = f"instances[{i}]"
            server = by_name.get(d["server"])
            vf = None
            if server is None:
                if d["server"] not in {s["name"] for s in self.doc["servers"]}:
                    self.err(f"{where}.server", f"unknown server {d['server']!r}")
            elif not any(p.name == d["port"] for p in server.ports):
                self.err(f"{where}.port", f"server {server.name} has no port {d['port']!r}")
            else:
                key = (server.name, d["port"], d["vf"])
                vf = vfs.get(key)
                if vf is None:
                    self.err(f"{where}.vf", f"{server.name}/{d['port']} has no VF {d['vf']}")
                elif key in vf_users:
                    self.err(
                        f"{where}.vf", f"VF {d['vf']} of {server.name}/{d['port']} is already used by {vf_users[key]}"
                    )
                    vf = None
                else:
                    vf_users[key] = f"{where} ({d['name']})"
            control = ipaddress.IPv4Address(d["control"])
            self.unique_host(management, control, f"{where}.control", "management.subnet", controls)
            served = []
            for j, name in enumerate(d["line_groups"]):
                gwhere = f"{where}.line_groups[{j}]"
                if name not in known_groups:
                    self.err(gwhere, f"unknown line group {name!r}")
                    continue
                if name in group_users:
                    self.err(gwhere, f"line group {name!r} is already served by {group_users[name]}")
                    continue
                group_users[name] = f"{where} ({d['name']})"
                if name in group_by_name:
                    served.append(group_by_name[name])
            if server is None or vf is None:
                continue
            instance = m.Instance(d["id"], d["name"], server, vf, d["cores"], control, served)
            for group in served:
                group.instance = instance
            instances.append(instance)
        return instances

    def stag_ports_per_instance(self, instances: list[m.Instance]) -> None:
        """The S-tag alone must tell an instance which access port a frame came from."""
        index = {d["name"]: i for i, d in enumerate(self.doc["instances"])}
        for instance in instances:
            where = f"instances[{index[instance.name]}]"
            seen: list[m.Line] = []
            for line in instance.lines:
                for other in seen:
                    if other.port is not line.port and line.stag.overlaps(other.stag):
                        lo = max(line.stag.lo, other.stag.lo)
                        self.err(
                            where,
                            f"instance {instance.name} would serve S-tag {lo} on two access ports "
                            f"({other.port.name} via {other.group}, {line.port.name} via {line.group}); "
                            "an instance tells access ports apart by S-tag",
                        )
                seen.append(line)

    def dp_limits(self, instances: list[m.Instance], profiles: dict[str, m.QosProfile]) -> None:
        """What one bng-dp configuration can hold: refuse a pod it could not load."""
        index = {d["name"]: i for i, d in enumerate(self.doc["instances"])}
        for inst in instances:
            where = f"instances[{index[inst.name]}]"
            for what, count, limit in (
                ("access ports", len(inst.access_ports), m.DP_MAX_ACCESS_PORTS),
                ("line groups", len(inst.groups), m.DP_MAX_LINE_GROUPS),
                ("lines", len(inst.lines), m.DP_MAX_LINES),
                ("worker cores", len(inst.cores), m.DP_MAX_WORKER_CORES),
            ):
                if count > limit:
                    self.err(where, f"instance {inst.name} has {count} {what}; one DP instance takes at most {limit}")
        if len(profiles) > m.DP_MAX_QOS_PROFILES:
            self.err("qos_profiles", f"{len(profiles)} profiles; a DP instance takes at most {m.DP_MAX_QOS_PROFILES}")
        for i, q in enumerate(self.doc["qos_profiles"]):
            profile = profiles.get(q["name"])
            if profile is None:
                continue
            for inst in instances:
                if profile.down_rate > inst.vf.rate:
                    self.err(
                        f"qos_profiles[{i}].downstream.rate",
                        f"{profile.down_rate} bit/s is above the port rate of instance {inst.name} ({inst.vf.rate})",
                    )
            text = " ".join(f"{d}:{tc}" for d, tc in sorted(profile.dscp_map().items()))
            if len(text) > m.DP_MAX_VALUE_LEN:
                self.err(
                    f"qos_profiles[{i}].classes",
                    f"{len(profile.dscp_map())} DSCPs mapped outside best effort do not fit a DP configuration "
                    f"line; map fewer (unmapped DSCPs go to best effort)",
                )
        for i, g in enumerate(self.doc["line_groups"]):
            if len(g["pools"]) > m.DP_MAX_GROUP_PREFIXES:
                self.err(
                    f"line_groups[{i}].pools",
                    f"{len(g['pools'])} pools; a line group takes at most {m.DP_MAX_GROUP_PREFIXES}",
                )
