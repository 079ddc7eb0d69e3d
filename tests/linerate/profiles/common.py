"""What every profile is made from: the pod file (line groups, their lines, AC MACs, pools,
QoS profiles, access ports and their TPIDs, the core subnet and router) and a session export
(one object per established session: port, stag, ctag, pppoe_id, mac, ac_mac, address, and
user / line_group / kind / tpid / instance / IPv6 prefixes where known): `bngcpctl sessions
--export json|csv` writes it from bng-cp, bng-subemu's `/v1/sessions` gives the same keys."""

from __future__ import annotations

import csv
import io
import ipaddress
import json
import re
from dataclasses import dataclass
from pathlib import Path

SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
IMIX = ((64, 7), (594, 4), (1518, 1))
MIX_DOWN_SHARE, MIX_DOWN_SIZE, MIX_UP_SIZE = 0.89, 504, 128
PROBE_SIZE, PROBE_PPS = 178, 1000
DSCP_EF = 46
# the lab tester's core-side address: the first free address of the core subnet from the top
UDP_PORT = 9
MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")


@dataclass(frozen=True)
class ExportedSession:
    port: str
    stag: int
    ctag: int
    tpid: int
    pppoe_id: int  # 0: an IPoE session
    mac: str
    ac_mac: str
    address: str
    line_group: str
    user: str | None = None
    kind: str = "pppoe"
    instance: int | None = None
    ipv6_prefix: str | None = None
    delegated_prefix: str | None = None
    qos_profile: str | None = None


# bngcpctl sessions --export csv's columns (accel-ppp-glue/internal/api/export.go)
EXPORT_COLUMNS = (
    "id", "kind", "user", "instance", "line_group", "port", "tpid", "stag", "ctag", "pppoe_id", "mac", "ac_mac",
    "address", "ipv6_prefix", "delegated_prefix", "qos_profile", "rate_down", "rate_up",
)  # fmt: skip


def read_export(path: Path) -> list[dict]:
    """A session export as a list of dicts: JSON (`bngcpctl sessions --export json`, or
    bng-subemu's /v1/sessions) or CSV (`--export csv`, told by its header line)."""
    text = Path(path).read_text()
    if text.lstrip().startswith("["):
        raw = json.loads(text)
        if not all(isinstance(s, dict) for s in raw):
            raise ValueError(f"{path}: a JSON list of session objects expected")
        return raw
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != EXPORT_COLUMNS:
        raise ValueError(f"{path}: neither a JSON list nor a CSV export with the columns {','.join(EXPORT_COLUMNS)}")
    out = []
    for n, r in enumerate(rows[1:], start=2):
        if len(r) != len(EXPORT_COLUMNS):
            raise ValueError(f"{path}: line {n}: {len(r)} fields, want {len(EXPORT_COLUMNS)}")
        out.append(dict(zip(EXPORT_COLUMNS, r, strict=True)))
    return out


def load_sessions(pod, path: Path) -> list[ExportedSession]:
    """The export, checked against the pod: a session on a line no group of the pod has, with
    another AC MAC than its group's, another TPID than its port's, an address outside its
    group's pools, or a kind its group does not allow is refused. IPoE sessions (kind ipoe)
    carry no PPPoE session id."""
    raw = read_export(path)
    ports = {p.name: p for p in pod.ports_with_role("access")}
    out = []
    for i, s in enumerate(raw):
        where = f"{path}: session {i}"
        try:
            port = ports[s["port"]]
            stag, ctag, sid = int(s["stag"]), int(s["ctag"]), int(s["pppoe_id"])
            kind = s.get("kind") or "pppoe"
            mac = str(s["mac"]).lower()
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e!r}") from None
        group = group_of_line(pod, port.name, stag, ctag)
        if group is None:
            raise ValueError(f"{where}: no line group serves {port.name} S-tag {stag} C-tag {ctag}")
        if s.get("line_group") not in (None, "", group.name):
            raise ValueError(f"{where}: line_group {s['line_group']} but the line is {group.name}'s")
        if (s.get("ac_mac") or group.ac_mac).lower() != group.ac_mac.lower():
            raise ValueError(f"{where}: AC MAC {s['ac_mac']} is not {group.name}'s {group.ac_mac}")
        if not MAC.fullmatch(mac):
            raise ValueError(f"{where}: MAC {s['mac']!r}")
        tpid = port.tpid  # the port's downstream TPID; bng-dp takes 0x8100 and 0x88a8 upstream
        if int(s.get("tpid") or tpid) != tpid:
            raise ValueError(f"{where}: TPID {int(s['tpid']):#06x} but {port.name}'s is {tpid:#06x}")
        if kind not in group.session_types:
            raise ValueError(f"{where}: kind {kind!r}: {group.name} allows {', '.join(group.session_types)}")
        addr = ipaddress.IPv4Address(s["address"])
        if not any(addr in p.prefix for p in group.pools):
            raise ValueError(f"{where}: {addr} is in no pool of {group.name}")
        if kind == "pppoe" and not 1 <= sid <= 0xFFFE:
            raise ValueError(f"{where}: PPPoE session id {sid}")
        if kind == "ipoe" and sid != 0:
            raise ValueError(f"{where}: an IPoE session with PPPoE session id {sid}")
        v6 = {}
        for k in ("ipv6_prefix", "delegated_prefix"):
            if s.get(k):
                v6[k] = str(ipaddress.IPv6Network(s[k]))
        inst = s.get("instance")
        out.append(
            ExportedSession(
                port.name,
                stag,
                ctag,
                tpid,
                sid,
                mac,
                group.ac_mac.lower(),
                str(addr),
                group.name,
                s.get("user") or None,
                kind,
                int(inst) if inst not in (None, "") else None,
                qos_profile=s.get("qos_profile") or None,
                **v6,
            )  # fmt: skip
        )
    if not out:
        raise ValueError(f"{path}: no sessions")
    return out


def group_of_line(pod, port: str, stag: int, ctag: int):
    """The line group serving (port, S-tag, C-tag), as bng-dp's line map decides; None if none."""
    for g in pod.groups:
        for line in g.lines:
            if line.port.name == port and stag in line.stag and ctag in line.ctags:
                return g
    return None


@dataclass(frozen=True)
class CoreSide:
    """Where the tester's core-side port sits: behind the pod's core router, on a subnet the
    router has a route or interface for (the emulated pod: the inet host's 198.51.100.0/24 on
    the router's srv0), as an Internet host would. Its frames go to the router's MAC on that
    subnet; the router routes every pool to its line group's core address (pod file)."""

    address: str = "198.51.100.99"
    prefixlen: int = 24
    gateway: str = "198.51.100.1"
    gateway_mac: str | None = None  # None: resolved by ARP (TRex needs it given)
    tester_mac: str = "02:00:00:7e:57:01"


def pad(size: int, header_len: int) -> int:
    """Payload bytes that make a frame of `size` (with FCS) from a header of header_len."""
    return max(0, size - 4 - header_len)
