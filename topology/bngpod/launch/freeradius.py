"""FreeRADIUS in bngpod-mgmt on every RADIUS server address of the pod file that lies in
the management subnet (private configuration under <run>/radius/<server>, bngpod.radius),
with the generated users file radius/users. Ready once its authentication and accounting
ports are bound."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .. import model as m
from .. import radius
from .. import supervisor as sv
from ..network import MGMT_NS


def served(pod: m.Pod) -> list[m.RadiusServer]:
    """The pod's RADIUS servers the emulated pod runs: those in the management subnet."""
    return [s for s in pod.radius.servers if s.address in pod.management]


def work_dir(server: m.RadiusServer) -> Path:
    return sv.run_dir() / "radius" / server.name


def start(state: sv.State, pod: m.Pod, users_file: Path) -> None:
    """One FreeRADIUS per served server, each waited for."""
    servers = served(pod)
    if not servers:
        raise sv.EmuError("no RADIUS server of the pod file lies in the management subnet: nothing to run it on")
    text = users_file.read_text()
    for s in servers:
        server = radius.FreeRadius(
            work_dir(s),
            address=str(s.address),
            auth_port=s.auth_port,
            acct_port=s.acct_port,
            secret=s.secret,
            nas_addresses=[str(pod.control_plane.address)],
            users_text=text,
            netns=MGMT_NS,
        )
        name = f"freeradius {s.name}"
        try:
            server.configure()
        except radius.RadiusError as exc:
            raise sv.EmuError(f"{name}: {exc}") from None
        started = _spawn(state, name, server)
        sv.wait_ready(
            f"FreeRADIUS {s.name} on {s.address}:{s.auth_port}",
            started,
            server.log,
            lambda server=server, started=started: server.bound(started.pid) or "ports not bound",
        )


def _spawn(state: sv.State, name: str, server: radius.FreeRadius) -> subprocess.Popen:
    cmd = [radius.FREERADIUS, "-f", "-d", str(server.raddb), "-n", "radiusd", "-l", str(server.log)]
    return sv.spawn(state, name, MGMT_NS, cmd, server.dir / "stdout.log", radius.FREERADIUS)
