"""What every profile is made from: the pod file (line groups, their lines, AC MACs, pools,
QoS profiles, access ports and their TPIDs, the core subnet and router) and a session export
(one object per established PPPoE session: port, stag, ctag, pppoe_id, mac, ac_mac, address,
and user / line_group where known; bng-subemu's `/v1/sessions` gives exactly these)."""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from pathlib import Path

SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
IMIX = ((64, 7), (594, 4), (1518, 1))
MIX_DOWN_SHARE, MIX_DOWN_SIZE, MIX_UP_SIZE = 0.89, 504, 128
PROBE_SIZE, PROBE_PPS = 178, 1000
DSCP_EF = 46
# the lab tester's core-side address: the first free address of the core subnet from the top
UDP_PORT = 9


@dataclass(frozen=True)
class ExportedSession:
    port: str
    stag: int
    ctag: int
    tpid: int
    pppoe_id: int
    mac: str
    ac_mac: str
    address: str
    line_group: str
    user: str | None = None


def load_sessions(pod, path: Path) -> list[ExportedSession]:
    """The export, checked against the pod: a session on a line no group of the pod has, with
    another AC MAC than its group's, or an address outside its group's pools is refused."""
    raw = json.loads(Path(path).read_text())
    if not isinstance(raw, list):
        raise ValueError(f"{path}: a JSON list of sessions expected")
    ports = {p.name: p for p in pod.ports_with_role("access")}
    out = []
    for i, s in enumerate(raw):
        where = f"{path}: session {i}"
        try:
            port = ports[s["port"]]
            stag, ctag, sid = int(s["stag"]), int(s["ctag"]), int(s["pppoe_id"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e!r}") from None
        group = group_of_line(pod, port.name, stag, ctag)
        if group is None:
            raise ValueError(f"{where}: no line group serves {port.name} S-tag {stag} C-tag {ctag}")
        if s.get("line_group") not in (None, group.name):
            raise ValueError(f"{where}: line_group {s['line_group']} but the line is {group.name}'s")
        if s["ac_mac"].lower() != group.ac_mac.lower():
            raise ValueError(f"{where}: AC MAC {s['ac_mac']} is not {group.name}'s {group.ac_mac}")
        addr = ipaddress.IPv4Address(s["address"])
        if not any(addr in p.prefix for p in group.pools):
            raise ValueError(f"{where}: {addr} is in no pool of {group.name}")
        if not 1 <= sid <= 0xFFFE:
            raise ValueError(f"{where}: PPPoE session id {sid}")
        tpid = port.tpid  # the port's downstream TPID; bng-dp takes 0x8100 and 0x88a8 upstream
        out.append(
            ExportedSession(
                port.name,
                stag,
                ctag,
                tpid,
                sid,
                s["mac"].lower(),
                group.ac_mac.lower(),
                str(addr),
                group.name,
                s.get("user"),
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
