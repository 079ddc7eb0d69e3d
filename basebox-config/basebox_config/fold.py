"""The static fold: which switch port each subscriber line and each core-side MAC is
steered to. One model, two renderings (networkd for baseboxd, OpenFlow 1.3 for the
emulated switch). The model knows nothing of the pod file; topology/ builds it."""

from __future__ import annotations

from dataclasses import dataclass, field

VLAN_MIN, VLAN_MAX = 1, 4094


class RenderError(Exception):
    """The fold cannot be expressed in the requested rendering."""


@dataclass(frozen=True)
class Port:
    name: str
    number: int


@dataclass(frozen=True)
class AccessPort(Port):
    tpid: int = 0x8100


@dataclass(frozen=True)
class Target:
    """A DP instance as the switch sees it: its VF (its own port in the emulated
    switch) behind a server port of the whitebox."""

    instance_id: int
    instance: str
    vf_port: int  # OpenFlow port of the VF in the emulated switch
    server_port: Port  # whitebox port the server's NIC is cabled to
    vf_mac: str


@dataclass(frozen=True)
class Steer:
    """Frames of (access port, S-tag range, C-tag range) belong to target."""

    group: str
    access: AccessPort
    stag_lo: int
    stag_hi: int
    ctag_lo: int | None  # None: every C-tag of these S-tags
    ctag_hi: int | None
    target: Target
    ac_mac: str

    @property
    def stags(self) -> range:
        return range(self.stag_lo, self.stag_hi + 1)

    @property
    def whole_stag(self) -> bool:
        return self.ctag_lo is None


@dataclass(frozen=True)
class CoreGroup:
    group: str
    core_mac: str
    core_address: str
    target: Target
    core_address6: str | None = None  # the group's core IPv6 address; None: no IPv6 on the core side


@dataclass
class Fold:
    pod: str
    switch: str
    dpid: str
    uplink: Port
    router_mac: str
    router_address: str
    core_vlan: int | None
    access_ports: list[AccessPort]
    targets: list[Target]
    steers: list[Steer] = field(default_factory=list)
    core_groups: list[CoreGroup] = field(default_factory=list)

    def check(self) -> None:
        """Invariants the renderers rely on (the pod validator guarantees them for
        pod files; a hand-made model is checked here)."""
        for i, a in enumerate(self.steers):
            for b in self.steers[i + 1 :]:
                if a.access != b.access or a.stag_hi < b.stag_lo or b.stag_hi < a.stag_lo:
                    continue
                if a.whole_stag or b.whole_stag or not (a.ctag_hi < b.ctag_lo or b.ctag_hi < a.ctag_lo):
                    raise RenderError(f"lines of {a.group} and {b.group} overlap on {a.access.name}")
