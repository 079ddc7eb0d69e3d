"""The pod as the rest of bngpod sees it: typed, resolved and checked.

Built only from a pod file that passed the schema and the semantic checks
(bngpod.validate); every reference here points at a real object."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

VLAN_MIN, VLAN_MAX = 1, 4094
TPID_8021Q, TPID_8021AD = 0x8100, 0x88A8
TRAFFIC_CLASSES = 13
BEST_EFFORT_TC = 12
DEFAULT_PFCP_PORT = 8805
DEFAULT_VXLAN_PORT = 4789
DEFAULT_COA_PORT = 3799
DEFAULT_KAFKA_PORT = 9092  # seba.kafka (docs/configuration.md)

# What one bng-dp instance's configuration can hold (server-dp/src/dp_config.h), and the
# longest value DPDK's rte_cfgfile reads without truncating it.
DP_MAX_ACCESS_PORTS = 64
DP_MAX_LINE_GROUPS = 256
DP_MAX_LINES = 1024
DP_MAX_QOS_PROFILES = 256
DP_MAX_GROUP_PREFIXES = 16
DP_MAX_WORKER_CORES = 64
DP_MAX_ACL_RULES = 1024
DP_MAX_ROUTES = 256
DP_MAX_VALUE_LEN = 255

IP_PROTOCOLS = {"icmp": 1, "tcp": 6, "udp": 17}
ICMPV6 = 58  # "icmp" in an IPv6 ACL rule
# Destinations bng-dp never forwards (dp_config.h DP_MARTIANS): "this network", loopback,
# multicast, class E (with the limited broadcast).
MARTIANS = tuple(ipaddress.IPv4Network(n) for n in ("0.0.0.0/8", "127.0.0.0/8", "224.0.0.0/4", "240.0.0.0/4"))

# IPv6 prefixes that are never a subscriber pool or a core subnet (bng-dp's loader refuses
# them too): the unspecified/loopback/IPv4-mapped block ::/8, link-local, the deprecated
# site-local, multicast.
MARTIANS6 = tuple(ipaddress.IPv6Network(n) for n in ("::/8", "fe80::/10", "fec0::/10", "ff00::/8"))

# Router Advertisements (RFC 4861 6.2.1): the defaults bng-cp uses without ipv6_ra.
RA_DEFAULT_INTERVAL = 200
RA_DEFAULT_LIFETIME = 1800
RA_MAX_LIFETIME = 9000
# An IPv6 pool: its WAN prefix gives each session a /64.
WAN_ASSIGNED_LENGTH = 64
WAN_MIN_LENGTH, WAN_MAX_LENGTH = 32, 63
# bng-dp's [line_group.N] prefixes6: at most this many pool:length pairs (two per pool).
DP_MAX_GROUP_PREFIXES6 = 8
# bng-dp keeps one exact-match table per assigned prefix length (64 and each delegated
# length) of the whole pod; a pool:length pair's pool is /32../64.
DP_MAX_PREFIX_LENGTHS6 = 8
DP_POOL6_MIN_LENGTH = 32
# bng-dp's [core] subnet6: /48../127 (the validator keeps room for router and groups: /126)
SUBNET6_MIN_LENGTH, SUBNET6_MAX_LENGTH = 48, 126
# Where bng-cp reports the per-family octets in RADIUS accounting: erx = the
# Juniper/ERX IPv6 octet attributes (the default), none = not at all.
IPV6_OCTETS_ATTRIBUTES = ("erx", "none")


@dataclass(frozen=True, order=True)
class TagRange:
    lo: int
    hi: int

    def overlaps(self, other: TagRange) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    def __contains__(self, tag: int) -> bool:
        return self.lo <= tag <= self.hi

    def __iter__(self):
        return iter(range(self.lo, self.hi + 1))

    def __str__(self) -> str:
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


ANY_CTAG = TagRange(VLAN_MIN, VLAN_MAX)


@dataclass(frozen=True)
class PortRange:
    lo: int
    hi: int

    def __str__(self) -> str:
        return f"{self.lo}-{self.hi}"


@dataclass
class SwitchPort:
    name: str
    number: int
    role: str  # access | uplink | server
    tpid: int
    rate: int | None


@dataclass
class Vf:
    vf: int
    mac: str
    rate: int
    server: str
    port: str
    switch_port: SwitchPort

    @property
    def emu_ofport(self) -> int:
        """OpenFlow port of this VF in the emulated switch, where each VF is its own
        OVS port: the server port's number times 100 plus the VF number."""
        return self.switch_port.number * 100 + self.vf


@dataclass
class ServerPort:
    name: str
    switch_port: SwitchPort
    vfs: list[Vf]


@dataclass
class Server:
    name: str
    ports: list[ServerPort]


@dataclass
class Line:
    group: str
    port: SwitchPort
    stag: TagRange
    ctag: TagRange | None  # None: every C-tag

    @property
    def ctags(self) -> TagRange:
        return self.ctag or ANY_CTAG


@dataclass
class Pool:
    name: str
    prefix: ipaddress.IPv4Network
    dns: list[ipaddress.IPv4Address]
    group: str | None = None
    # IPoE: the subscribers' router, DHCP server identifier (None: a PPPoE-only pool)
    gateway: ipaddress.IPv4Address | None = None


@dataclass
class Ipv6Pool:
    """Each session of the pool's line group: a /64 of wan_prefix, announced by RA, and
    one delegated_length prefix of delegated_prefix by DHCPv6 IA_PD."""

    name: str
    wan_prefix: ipaddress.IPv6Network
    delegated_prefix: ipaddress.IPv6Network
    delegated_length: int
    ia_na: bool
    dns: list[ipaddress.IPv6Address]
    group: str | None = None

    @property
    def dp_prefixes(self) -> list[tuple[ipaddress.IPv6Network, int]]:
        """(pool, assigned length) pairs, as bng-dp's prefixes6 lists them."""
        return [(self.wan_prefix, WAN_ASSIGNED_LENGTH), (self.delegated_prefix, self.delegated_length)]


@dataclass(frozen=True)
class Ipv6Ra:
    interval: int = RA_DEFAULT_INTERVAL
    router_lifetime: int = RA_DEFAULT_LIFETIME


@dataclass
class TrafficClass:
    tc: int
    name: str
    dscp: list[int]
    rate: int
    weights: list[int]


@dataclass
class QosProfile:
    name: str
    down_rate: int
    up_pir: int
    up_cir: int
    classes: list[TrafficClass]
    up_dscp: int | None = None  # DSCP written into upstream packets; None keeps theirs
    down_guaranteed: int | None = None  # contracted per session, for placement; None: not stated

    def dscp_map(self) -> dict[int, int]:
        """DSCP -> class, for DSCPs outside the best-effort class."""
        return {d: c.tc for c in self.classes for d in c.dscp if c.tc != BEST_EFFORT_TC}

    def be_weights(self) -> list[int]:
        for c in self.classes:
            if c.tc == BEST_EFFORT_TC and c.weights:
                return c.weights
        return [1, 1, 1, 1]


# IPoE (docs/configuration.md, line_groups[].ipoe): session types, and the DHCP settings
SESSION_TYPES = ("pppoe", "ipoe")
IPOE_MODES = ("server", "relay")
IPOE_USERNAMES = ("mac", "circuit_id", "remote_id")
IPOE_OPTION82 = ("keep", "replace")
IPOE_LEASE_MIN, IPOE_LEASE_MAX, IPOE_LEASE_DEFAULT = 60, 604800, 3600
IPOE_RENEW_MIN, IPOE_RENEW_DEFAULT = 30, 300
IPOE_MAX_MACS_MAX = 64
IPOE_MAX_RELAY_SERVERS = 4
IPOE_ARP_PING_INTERVAL_MAX = 3600  # seconds
IPOE_ARP_PING_COUNT_MAX = 255
IPOE_DEFAULT_PASSWORD = "ipoe"  # noqa: S105 (the RADIUS User-Password default, not a secret)
# bng-dp's [line_group.N] ipoe_gateways: at most this many gateway/length pairs
DP_MAX_IPOE_GATEWAYS = 8


@dataclass(frozen=True)
class IpoeRelay:
    servers: tuple[ipaddress.IPv4Address, ...]
    option82: str = IPOE_OPTION82[0]


@dataclass(frozen=True)
class Ipoe:
    """A line group's IPoE settings; T2 is 7/8 of the lease."""

    mode: str = IPOE_MODES[0]
    lease_time: int = IPOE_LEASE_DEFAULT
    renew_time: int = IPOE_RENEW_DEFAULT
    max_macs: int = 1
    username: str = IPOE_USERNAMES[0]
    password: str = IPOE_DEFAULT_PASSWORD
    proxy_arp: bool = True
    relay: IpoeRelay | None = None
    # liveness: the DP ARP-pings a subscriber idle for interval s, dead after count
    # unanswered pings; None: off
    arp_ping: tuple[int, int] | None = None


@dataclass
class LineGroup:
    name: str
    ac_mac: str
    core_address: ipaddress.IPv4Address
    core_mac: str
    pools: list[Pool]
    qos_profile: QosProfile
    lines: list[Line]
    instance: Instance | None = None
    core_address6: ipaddress.IPv6Address | None = None
    ipv6_pools: list[Ipv6Pool] = field(default_factory=list)
    session_types: tuple[str, ...] = ("pppoe",)
    ipoe: Ipoe | None = None  # set exactly when "ipoe" is in session_types

    @property
    def allows_ipoe(self) -> bool:
        return "ipoe" in self.session_types

    @property
    def allows_pppoe(self) -> bool:
        return "pppoe" in self.session_types


@dataclass
class Instance:
    id: int
    name: str
    server: Server
    vf: Vf
    cores: list[int]
    control: ipaddress.IPv4Address
    groups: list[LineGroup] = field(default_factory=list)

    @property
    def lines(self) -> list[Line]:
        return [line for g in self.groups for line in g.lines]

    @property
    def access_ports(self) -> list[SwitchPort]:
        seen: dict[str, SwitchPort] = {}
        for line in self.lines:
            seen.setdefault(line.port.name, line.port)
        return sorted(seen.values(), key=lambda p: p.number)


@dataclass
class Route:
    """A static route on the core side; via None = drop (blackhole)."""

    prefix: ipaddress.IPv4Network
    via: ipaddress.IPv4Address | None


@dataclass
class AclRule:
    """An operator ACL rule of every DP instance (the first matching rule decides)."""

    action: str  # permit | deny
    direction: str  # up (from subscribers) | down | both
    protocol: int | None  # None: any
    source: ipaddress.IPv4Network | ipaddress.IPv6Network
    destination: ipaddress.IPv4Network | ipaddress.IPv6Network
    source_ports: PortRange | None  # None: any (TCP and UDP only)
    destination_ports: PortRange | None

    @property
    def family(self) -> str:
        return "ipv6" if self.source.version == 6 else "ipv4"


@dataclass(frozen=True)
class PuntBucket:
    """A token bucket of bng-dp's punt policer: frames per second, and a burst of frames."""

    rate: int
    burst: int


@dataclass(frozen=True)
class PuntClass:
    """The policing of one class of control frames on their way to the CP."""

    per_client: PuntBucket  # each client: (S-tag, C-tag, source MAC)
    per_line: PuntBucket  # each line of a line group
    ring_percent: int  # admitted while bng-dp's punt ring is below this % full


# The classes, high to low priority (bng-dp's punt.h, and /bng/punt's <class>_<reason>
# counters): high = LCP, PAP, CHAP, IPCP, IPV6CP and PADT; mid = PADR; low = PADI and
# frames of unknown sessions.
PUNT_CLASSES = ("high", "mid", "low")
# bng-dp's defaults (server-dp/src/dp_config.h DP_PUNT_DEFAULTS; the golden files pin the
# two together through server-dp's test_app_punt).
PUNT_DEFAULTS = {
    "high": PuntClass(PuntBucket(100, 200), PuntBucket(5000, 10000), 100),
    "mid": PuntClass(PuntBucket(5, 10), PuntBucket(200, 400), 75),
    "low": PuntClass(PuntBucket(5, 10), PuntBucket(200, 400), 50),
}
# Upper bounds (dp_config.h DP_PUNT_MAX_RATE, DP_PUNT_MAX_BURST): far above what a DP's
# control thread forwards, so "no limit" in practice.
PUNT_MAX_RATE = 1_000_000
PUNT_MAX_BURST = 1_000_000


@dataclass
class Core:
    uplink: SwitchPort
    subnet: ipaddress.IPv4Network
    router_address: ipaddress.IPv4Address
    router_mac: str
    vlan: int | None
    routes: list[Route] = field(default_factory=list)
    subnet6: ipaddress.IPv6Network | None = None  # None: no IPv6 in the pod
    router_address6: ipaddress.IPv6Address | None = None


@dataclass
class RadiusServer:
    name: str
    address: ipaddress.IPv4Address
    secret: str
    auth_port: int
    acct_port: int


@dataclass
class Radius:
    nas_identifier: str
    coa_port: int
    timeout_ms: int
    retries: int
    servers: list[RadiusServer]
    ipv6_octets_attribute: str = IPV6_OCTETS_ATTRIBUTES[0]


@dataclass
class ControlPlane:
    address: ipaddress.IPv4Address
    pfcp_port: int
    vxlan_port: int
    # PFCP heartbeats: None leaves bng-cp's defaults (5000 ms, 3000 ms, 3 tries)
    heartbeat_ms: int | None = None
    heartbeat_timeout_ms: int | None = None
    heartbeat_tries: int | None = None


# Sharing an access port's rate between the instances that shape it (bng-dp --qos-share,
# docs/dp/hqos.md "Sharing an access port across instances"): the pod-wide settings.
QOS_SHARE_DEFAULT_PORT = 9100
QOS_SHARE_MAX_PEERS = 16  # share.h SHARE_MAX_PEERS
QOS_SHARE_MIN_RATE = 100_000  # share_conf.c: port_rate


@dataclass
class QosShare:
    enabled: bool = True
    interval_ms: int = 10
    silent_intervals: int = 3
    port: int = QOS_SHARE_DEFAULT_PORT
    server_ports: bool = True  # also share each server port between the VFs on it


QOS_SHARE_MAX_GROUPS = 8  # share.h SHARE_MAX_GROUPS: [qos_share] sections of one instance


def port_sharers(instances: list[Instance]) -> dict[str, list[Instance]]:
    """Access ports that two or more instances shape (their own line groups have lines on
    it): port name -> those instances by id."""
    by_port: dict[str, list[Instance]] = {}
    for inst in sorted(instances, key=lambda i: i.id):
        for p in inst.access_ports:
            by_port.setdefault(p.name, []).append(inst)
    return {name: insts for name, insts in by_port.items() if len(insts) >= 2}


def share_groups(instances: list[Instance]) -> dict[str, list[Instance]]:
    """Access port name -> the instances (by id) that share its rate: every port two or
    more instances shape. An instance takes part in one group per such port."""
    return port_sharers(instances)


def server_share_groups(instances: list[Instance]) -> dict[str, list[Instance]]:
    """Server (switch) port name -> the instances (by id) whose VFs sit on it, when they
    are two or more: they share the NIC port's rate through their port pacers."""
    by_port: dict[str, list[Instance]] = {}
    for inst in sorted(instances, key=lambda i: i.id):
        by_port.setdefault(inst.vf.switch_port.name, []).append(inst)
    return {name: insts for name, insts in by_port.items() if len(insts) >= 2}


@dataclass
class Pod:
    name: str
    switch_name: str
    dpid: str  # 16 lower-case hex digits
    ports: list[SwitchPort]
    servers: list[Server]
    core: Core
    management: ipaddress.IPv4Network
    control_plane: ControlPlane
    radius: Radius
    pools: list[Pool]
    qos_profiles: list[QosProfile]
    groups: list[LineGroup]
    instances: list[Instance]
    acl: list[AclRule] = field(default_factory=list)
    ipv6_pools: list[Ipv6Pool] = field(default_factory=list)
    ipv6_ra: Ipv6Ra = field(default_factory=Ipv6Ra)
    control_policing: dict[str, PuntClass] = field(default_factory=lambda: dict(PUNT_DEFAULTS))
    qos_share: QosShare = field(default_factory=QosShare)
    source: str = ""
    kafka_port: int | None = None  # seba.kafka: the pod's Kafka broker's port (None: no broker)
    seba: bool = False  # a `seba` section: the controller mode runs org.bngpod.seba too (docs/seba.md)

    @property
    def device_id(self) -> str:
        return "of:" + self.dpid

    def port(self, name: str) -> SwitchPort:
        return next(p for p in self.ports if p.name == name)

    def ports_with_role(self, role: str) -> list[SwitchPort]:
        return [p for p in self.ports if p.role == role]

    def group(self, name: str) -> LineGroup:
        return next(g for g in self.groups if g.name == name)

    def instance(self, key: int | str) -> Instance:
        return next(i for i in self.instances if key in (i.id, i.name))

    def share_groups(self) -> dict[str, list[Instance]]:
        """The instances that exchange reports for each access port (docs/configuration.md
        qos_share): empty when sharing is off."""
        return share_groups(self.instances) if self.qos_share.enabled else {}

    def server_share_groups(self) -> dict[str, list[Instance]]:
        """The instances that exchange reports for each server port their VFs share
        (docs/configuration.md qos_share): empty when sharing or server_ports is off."""
        q = self.qos_share
        return server_share_groups(self.instances) if q.enabled and q.server_ports else {}

    def port_rate(self, inst: Instance) -> int:
        """[instance] port_rate of bng-dp: the ceiling of its port pacer. Its VF's rate,
        or the whole server port's when it shares that port with other instances' VFs
        (the --qos-share server_port group then sets the pacer, from the VF's rate)."""
        for insts in self.server_share_groups().values():
            if inst in insts:
                return inst.vf.switch_port.rate or inst.vf.rate
        return inst.vf.rate
