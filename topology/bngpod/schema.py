"""JSON Schema of the pod file: the structure. Meaning (references, overlaps,
address plans) is checked afterwards by bngpod.validate."""

from . import model as m

# 31 characters: bng-dp keeps names in 32-byte fields
NAME = {"type": "string", "pattern": r"^[A-Za-z][A-Za-z0-9_-]{0,30}$"}
MAC = {"type": "string", "pattern": r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$"}
IPV4 = {"type": "string", "format": "ipv4"}
CIDR = {"type": "string", "pattern": r"^[0-9.]+/[0-9]{1,2}$"}
IPV6 = {"type": "string", "format": "ipv6"}
CIDR6 = {"type": "string", "pattern": r"^[0-9A-Fa-f:]+/[0-9]{1,3}$"}
# an ACL rule's prefix: its family follows from the text
CIDR_ANY = {"type": "string", "pattern": r"^([0-9.]+/[0-9]{1,2}|[0-9A-Fa-f:]+/[0-9]{1,3})$"}
# bit/s as an integer, or a decimal number with an SI suffix: 512k, 100M, 2.5G, 1T.
RATE = {
    "oneOf": [
        {"type": "integer"},
        {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?[kKMGT]?$"},
    ]
}
# a single tag (300) or an inclusive range ("100-199")
TAGS = {
    "oneOf": [
        {"type": "integer"},
        {"type": "string", "pattern": r"^[0-9]{1,4}(-[0-9]{1,4})?$"},
    ]
}
TPID = {"enum": ["0x8100", "0x88a8", "0x88A8", 0x8100, 0x88A8]}
PORT_NUMBER = {"type": "integer", "minimum": 1, "maximum": 65535}
NAME_LIST = {"type": "array", "items": NAME}
# TCP/UDP ports of an ACL rule: one port (25) or an inclusive range ("1024-65535")
L4_PORTS = {
    "description": "a port 1..65535 or a range such as 1024-65535",
    "oneOf": [
        {"type": "integer"},
        {"type": "string", "pattern": r"^[0-9]{1,5}(-[0-9]{1,5})?$"},
    ],
}
IP_PROTOCOL = {
    "description": "any, tcp, udp, icmp or an IP protocol number 0..255",
    "oneOf": [
        {"enum": ["any", "tcp", "udp", "icmp"]},
        {"type": "integer", "minimum": 0, "maximum": 255},
    ],
}


def _obj(required, props):
    return {
        "type": "object",
        "required": list(required),
        "additionalProperties": False,
        "properties": props,
    }


SWITCH_PORT = _obj(
    ["name", "number", "role"],
    {
        "name": NAME,
        "number": PORT_NUMBER,
        "role": {"enum": ["access", "uplink", "server"]},
        "tpid": TPID,
        "rate": RATE,
    },
)

VF = _obj(["vf", "mac"], {"vf": {"type": "integer", "minimum": 0, "maximum": 99}, "mac": MAC, "rate": RATE})

SERVER = _obj(
    ["name", "ports"],
    {
        "name": NAME,
        "ports": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                ["name", "switch_port", "vfs"],
                {
                    "name": NAME,
                    "switch_port": NAME,
                    "vfs": {"type": "array", "minItems": 1, "items": VF},
                },
            ),
        },
    },
)

LINE = _obj(["port", "stag"], {"port": NAME, "stag": TAGS, "ctag": TAGS})

DSCP = {"description": "a DSCP, an integer 0..63", "type": "integer", "minimum": 0, "maximum": 63}
# The DSCP the DP writes into every upstream packet of the profile's subscribers.
UP_DSCP = {**DSCP, "description": "a DSCP 0..63, or no dscp to keep the subscriber's marking"}

TRAFFIC_CLASS = _obj(
    ["tc", "name"],
    {
        "tc": {"type": "integer", "minimum": 0, "maximum": 12},
        "name": NAME,
        "dscp": {"type": "array", "items": DSCP},
        "rate": RATE,
        "weights": {
            "type": "array",
            "minItems": 4,
            "maxItems": 4,
            "items": {"type": "integer", "minimum": 1, "maximum": 255},
        },
    },
)

QOS_PROFILE = _obj(
    ["name", "downstream", "upstream"],
    {
        "name": NAME,
        "downstream": _obj(["rate"], {"rate": RATE, "guaranteed": RATE}),
        "upstream": _obj(["pir"], {"pir": RATE, "cir": RATE, "dscp": UP_DSCP}),
        "classes": {"type": "array", "items": TRAFFIC_CLASS},
    },
)

# One operator ACL rule; rules are matched in file order, the first match decides.
ACL_RULE = _obj(
    ["action"],
    {
        "action": {"enum": ["permit", "deny"]},
        "direction": {"enum": ["up", "down", "both"]},
        "protocol": IP_PROTOCOL,
        "source": CIDR_ANY,
        "destination": CIDR_ANY,
        "source_ports": L4_PORTS,
        "destination_ports": L4_PORTS,
    },
)

# A static route on the core side: via a next hop in the core subnet, or drop.
ROUTE = _obj(["prefix"], {"prefix": CIDR, "via": IPV4, "drop": {"type": "boolean"}})

# bng-dp's punt policer (control frames to the CP), server-dp/src/dp_config.h [punt].
PUNT_RATE = {
    "description": f"frames per second, an integer 1..{m.PUNT_MAX_RATE}",
    "type": "integer",
    "minimum": 1,
    "maximum": m.PUNT_MAX_RATE,
}
PUNT_BURST = {
    "description": f"frames, an integer 1..{m.PUNT_MAX_BURST}",
    "type": "integer",
    "minimum": 1,
    "maximum": m.PUNT_MAX_BURST,
}
PUNT_BUCKET = _obj(["rate", "burst"], {"rate": PUNT_RATE, "burst": PUNT_BURST})
RING_PERCENT = {
    "description": "a share of the punt ring in percent, an integer 1..100",
    "type": "integer",
    "minimum": 1,
    "maximum": 100,
}
PUNT_CLASS = _obj([], {"per_client": PUNT_BUCKET, "per_line": PUNT_BUCKET, "ring_percent": RING_PERCENT})
CONTROL_POLICING = _obj([], {name: PUNT_CLASS for name in m.PUNT_CLASSES})

# Sharing an access port's rate between the instances that shape it (bng-dp --qos-share).
QOS_SHARE = _obj(
    [],
    {
        "enabled": {"type": "boolean"},
        "interval_ms": {"type": "integer", "minimum": 1, "maximum": 1000},
        "silent_intervals": {"type": "integer", "minimum": 2, "maximum": 100},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        "server_ports": {"type": "boolean"},
    },
)

# Router Advertisements (RFC 4861 6.2.1 bounds; the lifetime's lower bound, the interval,
# is checked by bngpod.validate).
IPV6_RA = _obj(
    [],
    {
        "interval": {
            "description": "seconds between unsolicited RAs, an integer 4..1800",
            "type": "integer",
            "minimum": 4,
            "maximum": 1800,
        },
        "router_lifetime": {
            "description": "seconds, 0 or an integer from the interval up to 9000",
            "type": "integer",
            "minimum": 0,
            "maximum": 9000,
        },
    },
)

# A dual-stack pool: each session a /64 of wan_prefix (SLAAC) and one delegated_length
# prefix of delegated_prefix (DHCPv6 IA_PD).
IPV6_POOL = _obj(
    ["name", "wan_prefix", "delegated_prefix", "delegated_length"],
    {
        "name": NAME,
        "wan_prefix": CIDR6,
        "delegated_prefix": CIDR6,
        "delegated_length": {
            "description": "the length of each delegated prefix, an integer 40..64",
            "type": "integer",
            "minimum": 40,
            "maximum": 64,
        },
        "ia_na": {"type": "boolean"},
        "dns": {"type": "array", "maxItems": 2, "items": IPV6},
    },
)

# IPoE of a line group (docs/configuration.md); renew_time's upper bound (lease_time / 2)
# and the relay block's presence are checked by bngpod.validate.
IPOE = _obj(
    [],
    {
        "mode": {"enum": list(m.IPOE_MODES)},
        "lease_time": {
            "description": f"seconds, an integer {m.IPOE_LEASE_MIN}..{m.IPOE_LEASE_MAX}",
            "type": "integer",
            "minimum": m.IPOE_LEASE_MIN,
            "maximum": m.IPOE_LEASE_MAX,
        },
        "renew_time": {
            "description": f"seconds (T1), an integer from {m.IPOE_RENEW_MIN} up to half the lease time",
            "type": "integer",
            "minimum": m.IPOE_RENEW_MIN,
            "maximum": m.IPOE_LEASE_MAX // 2,
        },
        "max_macs": {
            "description": f"sessions per line, an integer 1..{m.IPOE_MAX_MACS_MAX}",
            "type": "integer",
            "minimum": 1,
            "maximum": m.IPOE_MAX_MACS_MAX,
        },
        "username": {"enum": list(m.IPOE_USERNAMES)},
        "password": {"type": "string", "minLength": 1, "maxLength": 128},
        "proxy_arp": {"type": "boolean"},
        "arp_ping": _obj(
            ["interval", "count"],
            {
                "interval": {
                    "description": f"idle seconds before a ping, 1..{m.IPOE_ARP_PING_INTERVAL_MAX}",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": m.IPOE_ARP_PING_INTERVAL_MAX,
                },
                "count": {
                    "description": f"unanswered pings before the session ends, 1..{m.IPOE_ARP_PING_COUNT_MAX}",
                    "type": "integer",
                    "minimum": 1,
                    "maximum": m.IPOE_ARP_PING_COUNT_MAX,
                },
            },
        ),
        "relay": _obj(
            ["servers"],
            {
                "servers": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": m.IPOE_MAX_RELAY_SERVERS,
                    "uniqueItems": True,
                    "items": IPV4,
                },
                "option82": {"enum": list(m.IPOE_OPTION82)},
            },
        ),
    },
)

POD_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "bngpod pod description",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "pod",
        "switch",
        "servers",
        "core",
        "management",
        "control_plane",
        "radius",
        "pools",
        "qos_profiles",
        "line_groups",
        "instances",
    ],
    "properties": {
        "pod": NAME,
        "switch": _obj(
            ["name", "dpid", "ports"],
            {
                "name": NAME,
                "dpid": {"type": "string", "pattern": r"^(of:)?[0-9A-Fa-f]{16}$"},
                "ports": {"type": "array", "minItems": 1, "items": SWITCH_PORT},
            },
        ),
        "servers": {"type": "array", "minItems": 1, "items": SERVER},
        "core": _obj(
            ["uplink", "subnet", "router"],
            {
                "uplink": NAME,
                "subnet": CIDR,
                "subnet6": CIDR6,
                "router": _obj(["address", "mac"], {"address": IPV4, "mac": MAC, "address6": IPV6}),
                "vlan": {"type": "integer", "minimum": 1, "maximum": 4094},
                "routes": {"type": "array", "items": ROUTE},
            },
        ),
        "acl": {"type": "array", "items": ACL_RULE},
        "control_policing": CONTROL_POLICING,
        # bngpod inside a SEBA pod (docs/seba.md): a Kafka KRaft broker in bngpod-mgmt
        "seba": _obj([], {"kafka": {"type": "boolean"}, "kafka_port": PORT_NUMBER}),
        "management": _obj(["subnet"], {"subnet": CIDR}),
        "control_plane": _obj(
            ["address"],
            {
                "address": IPV4,
                "pfcp_port": PORT_NUMBER,
                "vxlan_port": PORT_NUMBER,
                # PFCP heartbeats to each DP instance (bng-cp's cp.yaml, docs/configuration.md)
                "heartbeat_ms": {"type": "integer", "minimum": 50, "maximum": 3600000},
                "heartbeat_timeout_ms": {"type": "integer", "minimum": 20, "maximum": 60000},
                "heartbeat_tries": {"type": "integer", "minimum": 1, "maximum": 10},
            },
        ),
        "radius": _obj(
            ["nas_identifier", "servers"],
            {
                "nas_identifier": {"type": "string", "minLength": 1, "maxLength": 253},
                "coa_port": PORT_NUMBER,
                "timeout_ms": {"type": "integer", "minimum": 100, "maximum": 60000},
                "retries": {"type": "integer", "minimum": 0, "maximum": 10},
                # where bng-cp puts the per-family octets in accounting (docs/configuration.md)
                "ipv6_octets_attribute": {"enum": list(m.IPV6_OCTETS_ATTRIBUTES)},
                "servers": {
                    "type": "array",
                    "minItems": 1,
                    "items": _obj(
                        ["name", "address", "secret"],
                        {
                            "name": NAME,
                            "address": IPV4,
                            "secret": {"type": "string", "minLength": 1, "maxLength": 128},
                            "auth_port": PORT_NUMBER,
                            "acct_port": PORT_NUMBER,
                        },
                    ),
                },
            },
        ),
        "pools": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                ["name", "prefix"],
                {
                    "name": NAME,
                    "prefix": CIDR,
                    "gateway": IPV4,
                    "dns": {"type": "array", "maxItems": 2, "items": IPV4},
                },
            ),
        },
        "ipv6_ra": IPV6_RA,
        "qos_share": QOS_SHARE,
        "ipv6_pools": {"type": "array", "items": IPV6_POOL},
        "qos_profiles": {"type": "array", "minItems": 1, "items": QOS_PROFILE},
        "line_groups": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                ["name", "ac_mac", "core", "pools", "qos_profile", "lines"],
                {
                    "name": NAME,
                    "ac_mac": MAC,
                    "core": _obj(["address", "mac"], {"address": IPV4, "mac": MAC, "address6": IPV6}),
                    "pools": {**NAME_LIST, "minItems": 1},
                    "ipv6_pools": NAME_LIST,
                    "qos_profile": NAME,
                    "lines": {"type": "array", "minItems": 1, "items": LINE},
                    "session_types": {
                        "type": "array",
                        "minItems": 1,
                        "uniqueItems": True,
                        "items": {"enum": list(m.SESSION_TYPES)},
                    },
                    "ipoe": IPOE,
                },
            ),
        },
        "instances": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                ["id", "name", "server", "port", "vf", "cores", "control", "line_groups"],
                {
                    "id": {"type": "integer", "minimum": 1, "maximum": 0xFFFFFF},
                    "name": NAME,
                    "server": NAME,
                    "port": NAME,
                    "vf": {"type": "integer", "minimum": 0, "maximum": 99},
                    "cores": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "integer", "minimum": 0, "maximum": 127},  # RTE_MAX_LCORE
                    },
                    "control": IPV4,
                    "line_groups": NAME_LIST,
                },
            ),
        },
    },
}
