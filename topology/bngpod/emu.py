"""The emulated pod (docs/emulated-pod.md): the pod file built out of network namespaces,
veths and an Open vSwitch bridge on one Linux host, with the real parts running in it.

`up` first writes the generated directory (gendir: every configuration and the
subscribers, exactly as `bngpod generate` writes it), then runs the pod from it:

  network              namespaces, veths, the switch and its flow table, the management
                       network, the core router and the inet host (network.py)
  bng-dp               one per instance, with dp/<instance>.ini (launch/dp.py)
  servers              the inet host's UDP/TCP echo and HTTP servers (launch/inet.py)
  Kafka                with `seba: {kafka: true}`: a KRaft broker in the management
                       namespace on the control plane's address (launch/kafka.py)
  FreeRADIUS           per RADIUS server in the management subnet, with radius/users
                       (launch/freeradius.py)
  controller           with --controller: the ONOS app's own components drive the switch
                       (which starts with an empty table) and serve its REST API
                       (launch/controller.py, from controller/ of the generated directory)
  bng-cp               with cp.yaml (controller/cp.yaml with the controller: its `onos:`
                       section points at it); ready once every instance is associated
                       (launch/cp.py)

`up_generated` runs the pod of a directory `bngpod generate` wrote before. Every part is
recorded in the state file before it is created and waited for (supervisor.py), so `down`
removes it all even after a crash half-way through `up`.

This module is the facade the CLI, the demo, the benchmarks and the tests use."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from . import binaries, gendir, network, radius, supervisor, users, validate
from . import controller as controller_files
from . import model as m
from .binaries import BNG_DP, BNGCPCTL, GLUE, REPO
from .launch import controller as controller_launch
from .launch import cp as cp_launch
from .launch import dp as dp_launch
from .launch import freeradius, inet, kafka
from .network import (
    BRIDGE,
    CORE_NS,
    INET6_HOST,
    INET6_SUBNET,
    INET_HOST,
    INET_NS,
    INET_ROUTER,
    INET_SUBNET,
    MGMT_NS,
    SWITCH_NS,
    access_ns,
    dp_ns,
    ofctl,
    vsctl,
)
from .supervisor import (
    DPDK_RUNTIME,
    NS_PREFIX,
    EmuError,
    State,
    alive,
    our_namespaces,
    run_dir,
    sh,
    state_path,
    stray_pids,
)

__all__ = [
    "BNG_DP", "BNGCPCTL", "BRIDGE", "CORE_NS", "CP_METRICS_PORT", "CP_OPTIONS", "DPDK_RUNTIME", "DP_MEMORY_MB",
    "DP_SESSIONS", "GLUE", "INET6_HOST", "INET6_SUBNET", "INET_HOST", "INET_NS", "INET_ROUTER", "INET_SUBNET",
    "MGMT_NS", "NS_PREFIX", "REPO",
    "SWITCH_NS", "EmuError", "binaries", "supervisor", "State", "access_ns", "alive", "controller_api",
    "controller_events", "controller_missing", "controller_seba_lab", "cp_api", "cp_metrics",
    "cp_option_flags", "cp_pid", "cp_socket", "down", "dp_capacity", "dp_command", "dp_file_prefix", "dp_memory_mb",
    "dp_ns", "dp_pid", "dp_telemetry", "generated_dir", "generated_users", "instance_subscribers", "ofctl",
    "our_namespaces", "restart_dp", "run_dir", "sh", "start_cp", "state_path", "status", "stop_cp", "stray_pids",
    "up", "up_generated", "users_dir", "vsctl",
]  # fmt: skip

# bng-dp sizing and telemetry
DP_MEMORY_MB = dp_launch.DP_MEMORY_MB
DP_SESSIONS = dp_launch.DP_SESSIONS
DP_MAX_SESSIONS = dp_launch.DP_MAX_SESSIONS
dp_capacity = dp_launch.capacity
dp_memory_mb = dp_launch.memory_mb
dp_command = dp_launch.command
dp_file_prefix = dp_launch.file_prefix
dp_telemetry = dp_launch.telemetry
instance_subscribers = dp_launch.instance_subscribers
# bng-cp
CP_METRICS_PORT = cp_launch.CP_METRICS_PORT
CP_OPTIONS = cp_launch.CP_OPTIONS
cp_option_flags = cp_launch.option_flags
cp_socket = cp_launch.socket_path
cp_api = cp_launch.api
cp_metrics = cp_launch.metrics
cp_pid = cp_launch.pid
start_cp = cp_launch.start_again
# the controller (--controller)
controller_api = controller_launch.api
controller_events = controller_launch.events
controller_missing = controller_launch.missing
controller_seba_lab = controller_launch.seba_lab


def stop_cp(sig: int = signal.SIGTERM, timeout: float = cp_launch.STOP_TIMEOUT) -> None:
    """Stop bng-cp with sig (SIGTERM: a clean stop; SIGKILL: a crash) and wait until it is gone."""
    cp_launch.stop(sig, timeout)


# -- the generated directory of the running pod ----------------------------------------------------
def generated_dir() -> Path:
    """Where the running pod's generated directory is (<run dir>/generated unless `up` was
    told another)."""
    try:
        state = State.load()
    except EmuError:
        state = None
    where = state and state.data.get("generated")
    return Path(where) if where else run_dir() / "generated"


def users_dir() -> Path:
    return generated_dir() / "radius"


def generated_users() -> list[dict]:
    """users.json of the running pod ([] when it has none)."""
    try:
        return gendir.subscribers(generated_dir()) or []
    except gendir.GenDirError:
        return []


# -- up ---------------------------------------------------------------------------------------------
def _can_run(
    pod: m.Pod,
    dp: bool,
    cp: bool,
    dp_sessions: int | None,
    cp_options: dict[str, str] | None,
    controller: bool = False,
) -> list[str]:
    """What up checks before it creates anything (its arguments, then the host); the bng-cp
    flags of cp_options."""
    if State.load() is not None:
        raise EmuError("a pod is already up (see `bngpod status`); run `bngpod down` first")
    if pod.core.vlan:
        # The core router's tagged side would need a kernel VLAN device, which this
        # kind of host lacks (docs/emulated-pod.md).
        raise EmuError("core.vlan is not supported by the emulated pod yet: remove it to emulate this pod")
    clash = [
        p.name
        for p in pod.ipv6_pools
        if INET6_SUBNET.overlaps(p.wan_prefix) or INET6_SUBNET.overlaps(p.delegated_prefix)
    ]
    if pod.core.subnet6 is not None and pod.core.subnet6.overlaps(INET6_SUBNET):
        clash.append("core.subnet6")
    if clash:
        raise EmuError(f"{', '.join(clash)} overlap the inet host's {INET6_SUBNET}: the emulated pod needs it apart")
    if dp_sessions is not None and not 1 <= dp_sessions <= DP_MAX_SESSIONS:
        raise EmuError(f"--dp-sessions must be 1..{DP_MAX_SESSIONS}")
    flags = cp_option_flags(cp_options or {})
    for tool in network.TOOLS:
        if shutil.which(tool) is None:
            raise EmuError(f"{tool} is not installed; run `make setup`")
    if cp and not radius.installed():
        raise EmuError(f"{radius.FREERADIUS} is not installed; run `make setup` (or `bngpod up --no-cp`)")
    for part, wanted, programs in (("dp", dp, (binaries.BNG_DP,)), ("cp", cp, (binaries.BNG_CP, binaries.BNGCPCTL))):
        why = binaries.missing(*programs) if wanted else None
        if why:
            raise EmuError(f"{why}; or start the pod with --no-{part}")
    why = binaries.missing(binaries.ACCESS_INGRESS)  # the switch's, needed by every pod
    if why:
        raise EmuError(why)
    why = controller_launch.missing(pod) if controller else None
    if why:
        raise EmuError(f"{why}; or start the pod without --controller")
    return flags


def up(
    pod: m.Pod,
    source: str,
    dp: bool = True,
    cp: bool = True,
    users_file: str | None = None,
    subscribers: int = users.DEFAULT_PER_GROUP,
    dp_sessions: int | None = None,
    cp_options: dict[str, str] | None = None,
    generated: str | Path | None = None,
    controller: bool = False,
    before_cp: Callable[[State], None] | None = None,
) -> State:
    """Generate pod (read from the file source) into `generated` (default <run
    dir>/generated) as `bngpod generate` does, with subscribers per line group or those of
    users_file, then run the pod from that directory as up_generated does. On any failure
    everything created so far is removed (a directory named by `generated` stays).
    controller: the switch driven by the ONOS app's own code instead of the static fold.
    before_cp: called once everything but FreeRADIUS and bng-cp runs (the controller, the
    broker), so what bng-cp reads at its start is there (the demo's SEBA provisioning)."""
    flags = _can_run(pod, dp, cp, dp_sessions, cp_options, controller)
    if users_file is not None and not Path(users_file).is_file():
        raise EmuError(f"users file {users_file} does not exist")
    if not 0 <= subscribers <= users.MAX_PER_GROUP:
        raise EmuError(f"--subscribers must be 0..{users.MAX_PER_GROUP}")
    if users_file is not None and users_file.endswith(".json"):
        try:
            users.load_json(Path(users_file), pod)  # refused before anything is built
        except users.UsersError as exc:
            raise EmuError(str(exc)) from None
    gen = Path(generated).resolve() if generated is not None else run_dir() / "generated"

    def write() -> None:
        try:
            gendir.write(pod, source, gen, subscribers, users_file)
        except (gendir.GenDirError, OSError) as exc:
            raise EmuError(f"generating into {gen}: {exc}") from None

    return _run(
        pod, Path(source).resolve(), gen, write, dp=dp, cp=cp, dp_sessions=dp_sessions, cp_flags=flags,
        controller=controller, before_cp=before_cp,
    )  # fmt: skip


def up_generated(
    directory: str | Path,
    dp: bool = True,
    cp: bool = True,
    dp_sessions: int | None = None,
    cp_options: dict[str, str] | None = None,
    controller: bool = False,
) -> State:
    """Run the pod of a directory `bngpod generate` wrote (gendir), as it is."""
    gen = Path(directory).resolve()
    try:
        pod = gendir.load(gen)
        gendir.check(gen, pod, with_controller=controller)
    except gendir.GenDirError as exc:
        raise EmuError(str(exc)) from None
    flags = _can_run(pod, dp, cp, dp_sessions, cp_options, controller)
    return _run(
        pod, gen / gendir.POD_FILE, gen, None, dp=dp, cp=cp, dp_sessions=dp_sessions, cp_flags=flags,
        controller=controller,
    )  # fmt: skip


def _run(
    pod: m.Pod,
    source: Path,
    gen: Path,
    write: Callable[[], None] | None,
    *,
    dp: bool,
    cp: bool,
    dp_sessions: int | None,
    cp_flags: list[str],
    controller: bool = False,
    before_cp: Callable[[State], None] | None = None,
) -> State:
    """Record the pod in a new state file, write the generated directory (when write is
    given), then build the network and start every part from gen."""
    state = State()
    state.data.update(pod=pod.name, source=str(source), generated=str(gen), controller_mode=controller)
    state.save()
    try:
        if write is not None:
            write()
        sessions = _dp_sessions(pod, gen, cp, dp_sessions, controller)
        network.wire(state, pod, None if controller else gen / "basebox" / "flows.of13")
        if dp:
            dp_launch.start_all(state, pod, gen, sessions)
        if controller:
            controller_launch.start(state, pod, gen)
        inet.start(state)
        if pod.kafka_port is not None:
            kafka.start(state, pod)
        if before_cp is not None:
            before_cp(state)
        if cp:
            _record_users(state, gen)
            freeradius.start(state, pod, gen / gendir.RADIUS_USERS)
            config = controller_files.CP_YAML if controller else "cp.yaml"
            cp_launch.start(state, pod, gen, cp_flags, wait_associated=dp, config=config)
        state.data["ready"] = True
        state.save()
    except BaseException:
        down(quiet=True)
        raise
    return state


def _dp_sessions(pod: m.Pod, gen: Path, cp: bool, dp_sessions: int | None, controller: bool = False) -> dict[str, int]:
    """Each bng-dp's session capacity: dp_sessions, or what the subscribers of its line
    groups need (counted in users.json; without one, the manifest's per-group number).
    Without a control plane only given subscribers count: nobody dials. With the controller
    any instance may come to serve any group (a failover, groups that share an S-tag placed
    together): each is sized for every subscriber of the pod."""
    try:
        subs = gendir.manifest(gen)["subscribers"]
        listed = gendir.subscribers(gen)
    except gendir.GenDirError as exc:
        raise EmuError(str(exc)) from None
    given = listed if cp or subs.get("given") else None
    served = instance_subscribers(pod, subs["per_group"] if cp else 0, given)
    if controller:
        everyone = sum(instance_subscribers(pod, subs["per_group"] if cp else 0, given).values())
        served = {name: everyone for name in served}
    return {name: dp_sessions or dp_capacity(n) for name, n in served.items()}


def _record_users(state: State, gen: Path) -> None:
    subs = gendir.manifest(gen)["subscribers"]
    state.data["users"] = {"source": subs.get("given"), "count": subs.get("count")}
    state.save()


# -- a running pod ------------------------------------------------------------------------------------
def _running_pod() -> tuple[State, m.Pod]:
    state = State.load()
    if state is None or not state.data.get("source"):
        raise EmuError("no pod is up")
    return state, validate.load(state.data["source"])


def dp_pid(name: str) -> int | None:
    """The pid of instance name's bng-dp when it is running."""
    state = State.load()
    return state.pid(f"bng-dp {name}") if state else None


def restart_dp(name: str) -> int:
    """Start instance name's bng-dp again exactly as `up` did (after a crash or kill: a
    running one is stopped first), record its new pid and wait until it is up. The CP
    re-associates and re-pushes the instance's sessions. Returns the new pid."""
    state, pod = _running_pod()
    inst = next((i for i in pod.instances if i.name == name), None)
    if inst is None:
        raise EmuError(f"no instance {name} in pod {pod.name}")
    return dp_launch.restart(state, inst, generated_dir())


def down(quiet=False) -> list[str]:
    """Remove everything bngpod created (supervisor.clean_up). Safe to run any number of times."""
    return supervisor.clean_up(quiet)


def status() -> dict:
    state = State.load()
    report = {"up": state is not None, "namespaces": our_namespaces(), "processes": {}, "ports": [], "flows": None}
    if state is None:
        return report
    report.update(
        pod=state.data.get("pod"),
        source=state.data.get("source"),
        generated=state.data.get("generated"),
        ready=state.data.get("ready", False),
    )
    report["processes"] = supervisor.processes(state)
    if state.data.get("users"):
        report["users"] = {"count": state.data["users"]["count"], "file": str(users_dir() / "users")}
    if "bng-cp" in report["processes"]:
        if report["processes"]["bng-cp"]["running"]:
            try:
                views = cp_api("/v1/instances")
                report["cp"] = {
                    "instances": [{k: v.get(k) for k in ("id", "name", "address", "state", "sessions")} for v in views]
                }
            except (OSError, EmuError, ValueError) as exc:
                report["cp"] = {"error": f"management API {cp_socket()}: {exc}"}
        else:
            report["cp"] = {"error": "bng-cp is not running"}
    if state.data.get("controller"):
        report["controller"] = {"url": state.data["controller"]["url"], "events": str(controller_launch.events_path())}
    generated = state.data.get("generated")
    procs = report["processes"]
    running = [n.removeprefix("bng-dp ") for n, p in procs.items() if n.startswith("bng-dp ") and p["running"]]
    if generated and running:
        shares = dp_launch.qos_share_status(Path(generated), running)
        if shares:
            report["qos_share"] = shares
    if report["processes"].get("ovs-vswitchd", {}).get("running"):
        report["ports"], report["flows"] = network.switch_report()
    return report
