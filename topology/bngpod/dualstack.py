"""The demo's dual-stack subscriber: the independent scapy PPPoE client
(tests/harness/pppoe_client.py) dials IPv4 and IPv6 (IPv6CP, RS -> RA, DHCPv6 IA_PD) on
an access line of the emulated pod, then sends a UDP echo every --interval from its IPv4
address, from its SLAAC address and from a host inside its delegated prefix, and counts
the answers per family. bng-subemu dials IPv4 only: this one subscriber shows IPv6.

Runs in the demo's process: a raw socket on the access namespace's sub0 (next to
bng-subemu's, which ignores frames to other MACs) and two threads (receive, traffic)."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field

from . import emu
from . import model as m

sys.path.insert(0, str(emu.REPO / "tests"))
from harness import ipv6 as v6  # noqa: E402
from harness.pppoe_client import IPV4, PppoeClient  # noqa: E402
from harness.rawaccess import RawAccess  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

MAC = "02:5b:d5:00:00:01"
ECHO_PORT = 7
SPORT = 40066
FAMILIES = ("IPv4", "IPv6 WAN", "IPv6 LAN")  # from the IPv4 address, the SLAAC one, inside the PD


class _Line(RawAccess):
    """RawAccess that keeps nothing of the frames to other MACs (bng-subemu's subscribers
    share the access line)."""

    def on_frame(self, frame: bytes) -> None:
        client = self.clients.get(frame[0:6].hex(":"))
        if client is not None and frame[12:14] in (b"\x81\x00", b"\x88\xa8"):
            client.deliver(Ether(frame))


@dataclass
class Counts:
    sent: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAMILIES, 0))
    answered: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAMILIES, 0))


def pick(pod: m.Pod, users: list[dict], taken: set[str]) -> dict | None:
    """A subscriber of a served line group with IPv6 pools that bng-subemu does not dial."""
    groups = {g.name for g in pod.groups if g.ipv6_pools and g.instance is not None}
    return next((u for u in reversed(users) if u["line_group"] in groups and u["user"] not in taken), None)


class DualStackSubscriber:
    def __init__(self, pod: m.Pod, user: dict, interval: float = 0.2):
        self.pod, self.user, self.interval = pod, user, interval
        self.port = pod.port(user["port"])
        self.group = pod.group(user["line_group"])
        self.line: _Line | None = None
        self.client: PppoeClient | None = None
        self.result = None
        self.error = ""
        self.counts = Counts()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dual-stack", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def up(self) -> bool:
        return self.result is not None and self.result.ok and self.result.ipv6_ok

    def _run(self) -> None:
        try:
            self.line = _Line(self.port)
            self.client = PppoeClient(
                self.line, MAC, self.user["stag"], self.user["ctag"], user=self.user["user"],
                password=self.user["password"], auth="pap", outer_tpid=self.port.tpid, dual_stack=True,
            )  # fmt: skip
            res = self.client.dial(timeout=30)
            self.result = res
            if not res.ok:
                self.error = f"no IPv4: {res.reason}"
                return
            if not res.ipv6_ok:
                self.error = f"no IPv6: {res.ipv6_reason}"
            self._traffic()
        except Exception as exc:  # noqa: BLE001 (shown on the dashboard, never kills the demo)
            self.error = f"{type(exc).__name__}: {exc}"

    def _packets(self) -> dict[str, bytes]:
        res, c = self.result, self.client
        out = {"IPv4": bytes(IP(src=res.ipv4, dst=emu.INET_HOST) / UDP(sport=SPORT, dport=ECHO_PORT) / b"ds4")}
        if res.ipv6_ok:
            out["IPv6 WAN"] = v6.udp6(res.ipv6, emu.INET6_HOST, SPORT, ECHO_PORT, b"ds6 wan")
            out["IPv6 LAN"] = v6.udp6(c.delegated_host(0x42), emu.INET6_HOST, SPORT, ECHO_PORT, b"ds6 lan")
        return out

    def _traffic(self) -> None:
        c = self.client
        packets = self._packets()
        tags = {b"ds4": "IPv4", b"ds6 wan": "IPv6 WAN", b"ds6 lan": "IPv6 LAN"}
        while not self._stop.is_set():
            for family, pkt in packets.items():
                c.send(c.ppp_frame(IPV4 if family == "IPv4" else v6.IPV6_PPP, pkt))
                self.counts.sent[family] += 1
            t_next = time.monotonic() + self.interval
            while (left := t_next - time.monotonic()) > 0:
                try:
                    rx = c.q.get(timeout=left)
                except Exception:  # noqa: BLE001,S112 (queue.Empty)
                    continue
                if rx.proto in (IPV4, v6.IPV6_PPP):
                    for tag, family in tags.items():
                        if rx.payload.endswith(tag):
                            self.counts.answered[family] += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        try:
            if self.client is not None and self.result is not None and self.result.ok:
                self.client.terminate(timeout=3)
        finally:
            if self.line is not None:
                self.line.close()

    def describe(self) -> list[str]:
        """The dashboard's lines about this subscriber."""
        u = self.user
        head = f"dual-stack subscriber {u['user']} on {self.port.name} ({self.group.instance.name})"
        res = self.result
        if res is None:
            return [f"{head}: dialling ..." + (f" {self.error}" if self.error else "")]
        if not res.ok:
            return [f"{head}: {self.error}"]
        lines = [f"{head}: IPv4 {res.ipv4}"]
        if res.ipv6_ok:
            lines.append(
                f"  IPv6 {res.wan_prefix} (SLAAC {res.ipv6}), delegated prefix {res.delegated_prefix}"
                + (f", IA_NA {res.ia_na}" if res.ia_na else "")
                + f"; RA lifetime {res.ra.router_lifetime} s, DNS {', '.join(map(str, res.dns6)) or '-'}"
            )
        else:
            lines.append(f"  IPv6: {self.error}")
        lines.append(
            "  UDP echo answered/sent: "
            + ", ".join(f"{f} {self.counts.answered[f]}/{self.counts.sent[f]}" for f in FAMILIES if self.counts.sent[f])
        )
        return lines

    def problems(self) -> list[str]:
        """Why it does not show a working dual-stack session ([] when it does)."""
        if not self.up:
            return [f"the dual-stack subscriber {self.user['user']}: {self.error or 'not up'}"]
        return [
            f"the dual-stack subscriber: no {f} echo came back ({self.counts.sent[f]} sent)"
            for f in FAMILIES
            if self.counts.answered[f] == 0
        ]
