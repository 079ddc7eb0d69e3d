"""Subscribers of the emulated pod: generated from the pod file, or given.

For every line group, N users named `<group>-<i>` (i from 1) with password `pw-<group>-<i>`,
each on its own line slot (access port, S-tag, C-tag): slots are taken in order across the
group's lines, S-tags first: the first C-tag of every S-tag of every line, then the second
C-tag of each, and so on (a line without a C-tag range takes C-tags from 1). The list is
written as users.json ([{"user", "password", "line_group", "port", "stag", "ctag", "tpid"}];
tpid: the access port's outer TPID, "0x8100" or "0x88a8") for the subscriber emulator and the
tests, and as a FreeRADIUS users file whose Access-Accept
carries the group's QoS profile as Filter-Id (docs/cp/radius.md).

IPoE (issue 19): in a group that allows only IPoE every subscriber is an IPoE one, in a
group that allows both every second one (the 2nd, 4th, ...). An IPoE entry has two more
keys, "kind": "ipoe" and "mac" (its client MAC, 02:49:GG:NN:NN:NN: GG the group's index in
the pod, NN its number), its "user" is the RADIUS User-Name bng-cp sends for it with
`username: mac` (the MAC, lower case with colons; with circuit_id/remote_id the <group>-<i>
name stays) and its "password" the group's ipoe.password."""

from __future__ import annotations

import json
from pathlib import Path

from . import model as m
from .radius import users_file

DEFAULT_PER_GROUP = 64
MAX_PER_GROUP = 100_000
USER_KEYS = ("user", "password", "line_group", "port", "stag", "ctag", "tpid")
IPOE_KEYS = ("kind", "mac")  # IPoE entries only
IPOE_MAC_PREFIX = (0x02, 0x49)  # locally administered, unicast; 0x49 = "I"
TPIDS = (m.TPID_8021Q, m.TPID_8021AD)


class UsersError(ValueError):
    pass


def _slots(group: m.LineGroup):
    """(port, stag, ctag) of the group's lines in dialling order."""
    depth = max((ln.ctags.hi - ln.ctags.lo + 1 for ln in group.lines), default=0)
    for k in range(depth):
        for line in group.lines:
            ctag = line.ctags.lo + k
            if ctag > line.ctags.hi:
                continue
            for stag in range(line.stag.lo, line.stag.hi + 1):
                yield line.port, stag, ctag


def generate(pod: m.Pod, per_group: int = DEFAULT_PER_GROUP) -> list[dict]:
    if not 0 <= per_group <= MAX_PER_GROUP:
        raise UsersError(f"subscribers per line group must be 0..{MAX_PER_GROUP}, not {per_group}")
    out = []
    for gi, group in enumerate(pod.groups):
        slots = _slots(group)
        for i in range(1, per_group + 1):
            slot = next(slots, None)
            if slot is None:
                raise UsersError(f"line group {group.name} has only {i - 1} line slots for {per_group} subscribers")
            port, stag, ctag = slot
            entry = {
                "user": f"{group.name}-{i}",
                "password": f"pw-{group.name}-{i}",
                "line_group": group.name,
                "port": port.name,
                "stag": stag,
                "ctag": ctag,
                "tpid": tpid_text(port.tpid),
            }
            if is_ipoe_slot(group, i):
                mac = ipoe_mac(gi, i)
                entry.update(kind="ipoe", mac=mac, password=group.ipoe.password)
                if group.ipoe.username == "mac":
                    entry["user"] = mac
            out.append(entry)
    return out


def is_ipoe_slot(group: m.LineGroup, i: int) -> bool:
    """Whether the group's i-th subscriber (from 1) is an IPoE one."""
    if not group.allows_ipoe:
        return False
    return not group.allows_pppoe or i % 2 == 0


def ipoe_mac(group_index: int, i: int) -> str:
    return ":".join(
        f"{b:02x}" for b in (*IPOE_MAC_PREFIX, group_index & 0xFF, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF)
    )


def is_ipoe(u: dict) -> bool:
    return u.get("kind") == "ipoe"


def tpid_text(tpid: int) -> str:
    return f"{tpid:#06x}"


def parse_tpid(v) -> int | None:
    """A users.json tpid (a number or "0x88a8") as an int; None when it is neither TPID."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        try:
            v = int(v.strip(), 0)
        except ValueError:
            return None
    return v if isinstance(v, int) and v in TPIDS else None


def load_json(path: Path, pod: m.Pod) -> list[dict]:
    """A given users.json, checked against the pod (its groups and access ports)."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UsersError(f"{path}: {exc}") from None
    if not isinstance(doc, list):
        raise UsersError(f"{path}: expected a list of users")
    groups = {g.name for g in pod.groups}
    ports = {p.name: p for p in pod.ports_with_role("access")}
    seen = set()
    for n, u in enumerate(doc):
        where = f"{path}: user {n}"
        if not isinstance(u, dict) or not isinstance(u.get("user"), str) or not isinstance(u.get("password"), str):
            raise UsersError(f"{where}: needs string 'user' and 'password'")
        if not u["user"] or u["user"] in seen:
            raise UsersError(f"{where}: user name {u['user']!r} is empty or repeated")
        seen.add(u["user"])
        if u.get("line_group") is not None and u["line_group"] not in groups:
            raise UsersError(f"{where}: line group {u['line_group']!r} is not in the pod")
        if u.get("port") is not None and u["port"] not in ports:
            raise UsersError(f"{where}: access port {u['port']!r} is not in the pod")
        for key in ("stag", "ctag"):
            v = u.get(key)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 4094):
                raise UsersError(f"{where}: {key} must be 1..4094")
        if u.get("kind") not in (None, "pppoe", "ipoe"):
            raise UsersError(f"{where}: kind must be pppoe or ipoe")
        if is_ipoe(u):
            mac = u.get("mac")
            if not isinstance(mac, str) or not _unicast_mac(mac):
                raise UsersError(f"{where}: an ipoe subscriber needs its mac, a unicast MAC aa:bb:cc:dd:ee:ff")
        if u.get("tpid") is not None:
            tpid = parse_tpid(u["tpid"])
            if tpid is None:
                raise UsersError(f"{where}: tpid must be 0x8100 or 0x88a8")
            port = ports.get(u.get("port"))
            if port is not None and tpid != port.tpid:
                raise UsersError(f"{where}: tpid {tpid:#06x} is not access port {port.name}'s ({port.tpid:#06x})")
    return doc


def _unicast_mac(text: str) -> bool:
    parts = text.split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        return False
    try:
        octets = bytes(int(p, 16) for p in parts)
    except ValueError:
        return False
    return not octets[0] & 1 and octets != bytes(6)


def radius_text(pod: m.Pod, users: list[dict]) -> str:
    profiles = {g.name: g.qos_profile.name for g in pod.groups}
    entries = {}
    for u in users:
        reply = {"Filter-Id": profiles[u["line_group"]]} if u.get("line_group") in profiles else {}
        entries[u["user"]] = (u["password"], reply)
    return users_file(entries)


def write(out_dir: Path, pod: m.Pod, users: list[dict]) -> tuple[Path, Path]:
    """users.json and the FreeRADIUS users file `users` in out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    js = out_dir / "users.json"
    tpids = {p.name: p.tpid for p in pod.ports_with_role("access")}

    def entry(u: dict) -> dict:
        e = {k: u.get(k) for k in USER_KEYS}
        if is_ipoe(u):
            e.update({k: u.get(k) for k in IPOE_KEYS})
        # the access port's TPID, so that the emulator needs no --tpid
        tpid = parse_tpid(u.get("tpid")) or tpids.get(u.get("port"))
        e["tpid"] = tpid_text(tpid) if tpid else None
        return e

    js.write_text(json.dumps([entry(u) for u in users], indent=1) + "\n")
    txt = out_dir / "users"
    txt.write_text(radius_text(pod, users))
    return js, txt
