"""The demo's dual-stack subscribers: one bng-subemu with --dual-stack dials IPv4 and IPv6
(IPv6CP, RS -> RA, DHCPv6 IA_PD, IA_NA when the RA's M flag is set) on an access line of
the emulated pod, then sends UDP echoes at RATE per second from its IPv4 address and, in
turn, from its SLAAC address and from ::1 of its delegated prefix, counting the answers.
With `make demo IPOE=1` and an IPoE group with IPv6 pools (topology/examples/ipoe.yaml lg1)
a second one dials IPoE dual stack (bng-subemu --ipoe --dual-stack: DHCPv4 DORA, RS -> RA,
DHCPv6 IA_NA + IA_PD over the same MAC) and sends the same echoes.

Each has its own emulator (the port emulators dial the others): it reads the demo's users.json
with this subscriber appended, so its MAC (02:5b + its index in that file for PPPoE, the
entry's own `mac` for IPoE) is none of theirs, and dials only it (--skip the port's others
of its kind, --count 1). What it got comes from its status API (GET /v1/sessions: the
addresses and prefixes) and its totals (GET /v1/stats: the datagrams per family)."""

from __future__ import annotations

import ipaddress
import json

from . import emu
from . import model as m
from .demo import ECHO_TARGET, Emulator, spawn_emulator, stop_emulators

RATE = 5.0  # datagrams per second and family
TARGET6 = f"[{emu.INET6_HOST}]:7"
FAMILIES = ("IPv4", "IPv6 WAN", "IPv6 LAN")  # from the IPv4 address, the SLAAC one, inside the PD


def pick(pod: m.Pod, users: list[dict], taken: set[str], ipoe: bool = False) -> dict | None:
    """A subscriber of a served line group with IPv6 pools that the port emulators do not dial:
    a PPPoE one, or (ipoe) an IPoE one of a group where bng-cp is the DHCP server."""
    groups = {
        g.name
        for g in pod.groups
        if g.ipv6_pools and g.instance is not None and (not ipoe or (g.ipoe is not None and g.ipoe.mode == "server"))
    }
    return next(
        (
            u
            for u in reversed(users)
            if u["line_group"] in groups and u["user"] not in taken and (u.get("kind") == "ipoe") == ipoe
        ),
        None,
    )


def echoes(stats: dict) -> dict[str, tuple[int, int]]:
    """(answered, sent) per family from bng-subemu's totals (one session: its own)."""
    v6 = stats.get("ipv6") or {}
    tx6, tx_pd, rx6, rx_pd = (int(v6.get(k, 0)) for k in ("tx_pkts", "tx_pd", "rx_pkts", "rx_pd"))
    return {
        "IPv4": (int(stats.get("rx_pkts", 0)), int(stats.get("tx_pkts", 0))),
        "IPv6 WAN": (rx6 - rx_pd, tx6 - tx_pd),
        "IPv6 LAN": (rx_pd, tx_pd),
    }


class DualStackSubscriber:
    def __init__(self, pod: m.Pod, user: dict, rate: float = RATE):
        self.pod, self.user, self.rate = pod, user, rate
        self.ipoe = user.get("kind") == "ipoe"
        self.port = pod.port(user["port"])
        self.group = pod.group(user["line_group"])
        self.emulator: Emulator | None = None
        self.session: dict = {}  # the last GET /v1/sessions entry
        self.stats: dict = {}  # the last GET /v1/stats
        self.error = ""

    def start(self, state: emu.State, users: list[dict]) -> None:
        """Run its bng-subemu; users are the port emulators' (the demo's users.json)."""
        work = emu.run_dir() / "demo"
        work.mkdir(parents=True, exist_ok=True)
        kind = "ipoe" if self.ipoe else "pppoe"
        users_file = work / f"users-dualstack-{kind}.json"
        users_file.write_text(json.dumps([*users, self.user], indent=1))
        # bng-subemu dials the entries of its kind only: skip the port's others of that kind
        skip = sum(1 for u in users if u["port"] == self.user["port"] and (u.get("kind") == "ipoe") == self.ipoe)
        args = [
            *(["--ipoe"] if self.ipoe else []), "--dual-stack", "--skip", str(skip), "--count", "1",
            "--rate", f"{self.rate:g}", "--target", ECHO_TARGET, "--target6", TARGET6,
        ]  # fmt: skip
        name = f"dualstack-{'ipoe-' if self.ipoe else ''}{self.port.name}"
        self.emulator = spawn_emulator(self.port, state, name, users_file, 1, args)

    def refresh(self) -> None:
        """Ask its bng-subemu (the last answers stay when it does not answer)."""
        e = self.emulator
        if e is None:
            return
        if e.proc.poll() is not None:
            self.error = f"bng-subemu exited ({e.proc.returncode}): see {e.out.parent}"
            self.stats = e.final() or self.stats
            return
        try:
            self.stats = e.stats()
            sessions = e.sessions()
        except (OSError, ValueError) as exc:
            self.error = f"bng-subemu status: {exc}"
            return
        self.error = ""
        mine = [s for s in sessions if s.get("user") == self.user["user"]]
        self.session = mine[0] if mine else {}
        if not mine:
            self.error = f"bng-subemu does not dial {self.user['user']}"

    @property
    def kind_name(self) -> str:
        """How the dashboard names it: "dual-stack subscriber" (PPPoE, as before IPoE had
        IPv6) or "dual-stack IPoE subscriber"."""
        return "IPoE " if self.ipoe else ""

    @property
    def ipv4(self) -> str:
        return self.session.get("address", "") if self.session.get("state") == "up" else ""

    @property
    def up(self) -> bool:
        return bool(self.ipv4 and self.session.get("delegated_prefix"))

    def _v6_failure(self) -> str:
        failed = (self.stats.get("ipv6") or {}).get("failed") or {}
        return ", ".join(f"{k} {v}" for k, v in failed.items()) or "not bound yet"

    def stop(self) -> None:
        """Hang up (bng-subemu sends the Terminate-Request and the PADT) and wait for it."""
        if self.emulator is not None:
            self.refresh()
            stop_emulators([self.emulator])
            self.stats = self.emulator.final() or self.stats

    def describe(self) -> list[str]:
        """The dashboard's lines about this subscriber."""
        self.refresh()
        u, s = self.user, self.session
        head = f"dual-stack {self.kind_name}subscriber {u['user']} on {self.port.name} ({self.group.instance.name})"
        if not self.ipv4:
            why = s.get("last_error") or self.error
            return [f"{head}: {s.get('state', 'starting')} ..." + (f" {why}" if why else "")]
        lines = [f"{head}: IPv4 {self.ipv4}"]
        if self.up:
            slaac = s.get("ipv6_address", "")
            wan = ipaddress.IPv6Interface(f"{slaac}/64").network if slaac else "-"
            # bng-subemu --ipoe sends from its IA_NA address when it has one (else SLAAC)
            source = "IA_NA" if self.ipoe and slaac and slaac == s.get("ia_na_address") else "SLAAC"
            lines.append(
                f"  IPv6 {wan} ({source} {slaac or '-'}), delegated prefix {s['delegated_prefix']}"
                + (f", IA_NA {s['ia_na_address']}" if s.get("ia_na_address") else "")
            )
        else:
            lines.append(f"  IPv6: {self._v6_failure()}")
        counts = echoes(self.stats)
        lines.append(
            "  UDP echo answered/sent: "
            + ", ".join(f"{f} {counts[f][0]}/{counts[f][1]}" for f in FAMILIES if counts[f][1])
        )
        return lines

    def problems(self) -> list[str]:
        """Why it does not show a working dual-stack session ([] when it does)."""
        self.refresh()
        if not self.up:
            why = self.error or self.session.get("last_error") or (self._v6_failure() if self.ipv4 else "not up")
            return [f"the dual-stack {self.kind_name}subscriber {self.user['user']}: {why}"]
        counts = echoes(self.stats)
        return [
            f"the dual-stack {self.kind_name}subscriber: no {f} echo came back ({counts[f][1]} sent)"
            for f in FAMILIES
            if counts[f][0] == 0
        ]
