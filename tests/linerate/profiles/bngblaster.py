"""BNG Blaster (rtbrick/bngblaster) JSON configuration: PPPoE over QinQ access interfaces with
the pod's line ranges, PAP with the pod's users, a network interface behind the core router,
and bidirectional IPv4 session streams (`bngblaster -C FILE -I`).

From users.json: one access entry per line of a line group on each access port: its S-tag range as the outer
VLAN range and its C-tag range (or the C-tags its subscribers use when the line takes any) as
the inner one; `qinq` where the port's TPID is 0x88a8. BNG Blaster iterates the outer VLAN
first (`iterate-vlan-outer`), as bngpod gives out line slots (docs/emulated-pod.md), and the
user name `<group>-{i1}` counts sessions of the entry from the entry's first user. From a
session export (`--sessions`): one access entry per session, on its line, as its user."""

from __future__ import annotations

from .common import IMIX, MIX_DOWN_SHARE, MIX_DOWN_SIZE, MIX_UP_SIZE, PROBE_PPS, PROBE_SIZE, CoreSide

IPV4_UDP = 28  # the `length` of a BNG Blaster stream is layer 3: IPv4 + UDP + payload
ACCESS_L2 = 14 + 8 + 8 + 4  # Ethernet, two tags, PPPoE + PPP, FCS


def l3_length(access_size: int) -> int:
    """The layer-3 length of a stream whose access frame (with FCS) is access_size."""
    return max(76, access_size - ACCESS_L2)  # BNG Blaster's minimum is 76


def user_index(u: dict) -> int:
    return int(u["user"].rsplit("-", 1)[1])


def rows(users: list[dict]) -> list[list[dict]]:
    """Users cut into runs that one access entry can dial: same group, port and C-tag, S-tags
    and user numbers both going up by one. bngpod's users fill every S-tag of a line with one
    C-tag before the next C-tag, so a run is usually a whole line's S-tag range."""
    out: list[list[dict]] = []
    for u in users:
        last = out[-1][-1] if out else None
        if (
            last is not None
            and (u["line_group"], u["port"], u["ctag"]) == (last["line_group"], last["port"], last["ctag"])
            and u["stag"] == last["stag"] + 1
            and user_index(u) == user_index(last) + 1
        ):
            out[-1].append(u)
        else:
            out.append([u])
    return out


def session_access(sessions, users: list[dict], interface_access: str) -> list[dict]:
    """One access entry per exported session: its own line (S-tag, C-tag, TPID) and its own user
    (PPPoE: PAP with the user's password from users.json; IPoE: DHCP on the line)."""
    passwords = {u["user"]: u["password"] for u in users}
    out = []
    for s in sessions:
        a = {
            "interface": interface_access,
            "type": s.kind,
            "outer-vlan": s.stag,
            "inner-vlan": s.ctag,
            "qinq": s.tpid == 0x88A8,
            "stream-group-id": 1,
        }
        if s.kind == "pppoe":
            if s.user not in passwords:
                raise ValueError(f"session of {s.user!r} on {s.port} {s.stag}/{s.ctag}: no such user in users.json")
            a.update({"authentication-protocol": "PAP", "username": s.user, "password": passwords[s.user]})
        else:
            a.update({"dhcp": True, "ipv4": True, "ipv6": False})
        out.append(a)
    return out


def render(pod, users: list[dict], core_side: CoreSide, interface_access="eth1", interface_network="eth2",
           size: int | str = 512, pps_per_session: float = 10.0, probe: bool = True,
           sessions=None) -> dict:  # fmt: skip
    """users: users.json of the generated directory (user, password, line_group, port, stag,
    ctag): the subscribers BNG Blaster dials, or, with sessions (a session export,
    common.load_sessions), exactly the exported sessions' lines and users, one access entry
    each. Sessions = len(users) or len(sessions)."""
    ports = {p.name: p for p in pod.ports_with_role("access")}
    access = session_access(sessions, users, interface_access) if sessions is not None else []
    for row in rows(users) if sessions is None else []:
        u0 = row[0]
        access.append(
            {
                "interface": interface_access,
                "type": "pppoe",
                "outer-vlan-min": u0["stag"],
                "outer-vlan-max": row[-1]["stag"],
                "inner-vlan-min": u0["ctag"],
                "inner-vlan-max": u0["ctag"],
                "qinq": ports[u0["port"]].tpid == 0x88A8,
                "authentication-protocol": "PAP",
                "username": f"{u0['line_group']}-{{i1}}",
                "password": f"pw-{u0['line_group']}-{{i1}}",
                "i1-start": user_index(u0),
                "i1-step": 1,
                "stream-group-id": 1,
            }
        )
    count = len(users) if sessions is None else len(sessions)
    sizes = IMIX if size == "imix" else ((int(size), 1),)
    weight = sum(w for _, w in sizes)
    streams = [
        {
            "name": f"bngpod-{sz}",
            "stream-group-id": 1,
            "type": "ipv4",
            "direction": "both",
            "length": l3_length(sz),
            "pps": round(pps_per_session * w / weight, 3),
            "network-interface": interface_network,
        }
        for sz, w in sizes
    ]
    if probe:
        streams.append(
            {
                "name": "bngpod-voip-probe",
                "stream-group-id": 1,
                "type": "ipv4",
                "direction": "both",
                "length": l3_length(PROBE_SIZE),
                "priority": 46 << 2,
                "pps": round(PROBE_PPS / max(1, count), 3),
                "network-interface": interface_network,
            }
        )
    network = {
        "interface": interface_network,
        "address": f"{core_side.address}/{core_side.prefixlen}",
        "gateway": core_side.gateway,
    }
    if core_side.gateway_mac:
        network["gateway-mac"] = core_side.gateway_mac
    return {
        "_comment": f"bngpod pod {pod.name}: {count} sessions over QinQ"
        + (
            ""
            if sessions is None
            else " (the lines and users of a session export; the BNG gives session ids and "
            "addresses anew when BNG Blaster dials, and BNG Blaster picks its own MACs)"
        )
        + ", generated by "
        f"tests/linerate/profiles (docs/linerate.md). The 89/11 mix: downstream {MIX_DOWN_SIZE} B, "
        f"upstream {MIX_UP_SIZE} B, {MIX_DOWN_SHARE:.0%} of layer-1 bandwidth downstream.",
        "interfaces": {"network": [network], "access": access},
        "sessions": {"count": count, "iterate-vlan-outer": True, "start-rate": 400, "max-outstanding": 800},
        "ppp": {"authentication": {"protocol": "PAP"}, "lcp": {"keepalive-interval": 30}},
        "streams": streams,
    }
