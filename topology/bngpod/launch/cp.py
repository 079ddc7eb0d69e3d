"""bng-cp in bngpod-mgmt on the control-plane address, with the generated cp.yaml; --state
<run>/cp/state, --ctl <run>/cp.sock, --metrics <cp address>:9464. Ready once every
instance is associated (its management API, GET /v1/instances)."""

from __future__ import annotations

import signal
from pathlib import Path

from .. import binaries, clients
from .. import model as m
from .. import supervisor as sv
from ..network import MGMT_NS
from ..rawsock import in_netns

CP_METRICS_PORT = 9464
# bng-cp flags `bngpod up` passes on (short accounting and keepalive timers for tests):
# name -> (flag, check of the value, what the value must be)
CP_OPTIONS = {
    "interim": ("--interim", "duration", "a duration of at least 1s, e.g. 5s"),
    "lcp_echo_interval": ("--lcp-echo-interval", "duration", "a duration of 1s..65535s, e.g. 2s"),
    "lcp_echo_failures": ("--lcp-echo-failures", "count", "a number 1..255"),
}
STOP_TIMEOUT = 10.0


def socket_path() -> Path:
    """bng-cp's management API (bngcpctl --socket)."""
    return sv.run_dir() / "cp.sock"


def api(path: str, timeout: float = 3.0):
    """GET path of the running bng-cp's management API (its JSON). EmuError when bng-cp
    answers with an error, OSError when it cannot be reached."""
    try:
        return clients.unix_get(socket_path(), path, timeout)
    except OSError as exc:
        if "HTTP" in str(exc):
            raise sv.EmuError(f"bng-cp {path}: {exc}") from None
        raise


def metrics(pod: m.Pod, timeout: float = 3.0) -> dict[str, float]:
    """bng-cp's Prometheus metrics ('name{labels}' -> value), scraped in bngpod-mgmt."""
    with in_netns(MGMT_NS):
        return clients.scrape(str(pod.control_plane.address), CP_METRICS_PORT, timeout=timeout)


def _duration_s(text: str) -> float | None:
    """Seconds of a Go-style duration made of one number and a unit (500ms, 5s, 2m)."""
    for unit, scale in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * scale
            except ValueError:
                return None
    return None


def option_flags(options: dict[str, str]) -> list[str]:
    """bng-cp flags for the CP_OPTIONS given; a clear error for anything else."""
    flags = []
    for name, value in options.items():
        if name not in CP_OPTIONS:
            raise sv.EmuError(f"unknown bng-cp option {name!r} (known: {', '.join(sorted(CP_OPTIONS))})")
        flag, kind, want = CP_OPTIONS[name]
        value = str(value).strip()
        if kind == "duration":
            secs = _duration_s(value)
            ok = secs is not None and secs >= 1 and (name != "lcp_echo_interval" or secs <= 65535)
        else:
            ok = value.isdigit() and 1 <= int(value) <= 255
        if not ok:
            raise sv.EmuError(f"{flag} {value!r}: must be {want}")
        flags += [flag, value]
    return flags


def command(pod: m.Pod, config: Path, flags: list[str]) -> list[str]:
    return [
        str(binaries.BNG_CP),
        "--config", str(config),
        "--state", str(sv.run_dir() / "cp" / "state"),
        "--ctl", str(socket_path()),
        "--metrics", f"{pod.control_plane.address}:{CP_METRICS_PORT}",
        "--log-format", "json",
        *flags,
    ]  # fmt: skip


def start(
    state: sv.State, pod: m.Pod, generated: Path, flags: list[str], wait_associated: bool, config: str = "cp.yaml"
) -> None:
    """bng-cp with generated/<config> (cp.yaml; controller/cp.yaml with the controller); waits
    until every instance is associated (when wait_associated)."""
    try:
        binaries.require(binaries.BNG_CP, binaries.BNGCPCTL)
    except binaries.MissingBinary as exc:
        raise sv.EmuError(f"{exc}; or start the pod with --no-cp") from None
    (sv.run_dir() / "cp" / "state").mkdir(parents=True, exist_ok=True)
    cmd = command(pod, generated / config, flags)
    want = [i.id for i in pod.instances] if wait_associated else []
    # Recorded so that start_again() runs it again exactly so (a CP restart).
    state.data["cp"] = {"cmd": cmd, "instances": want}
    state.save()
    _run(state, cmd, want)


def _run(state: sv.State, cmd: list[str], want: list[int]) -> None:
    log = sv.logs_dir() / "bng-cp.log"
    proc = sv.spawn(state, "bng-cp", MGMT_NS, cmd, log, Path(cmd[0]).name)

    def associated() -> bool | str:
        try:
            views = api("/v1/instances")
        except (OSError, sv.EmuError, ValueError) as exc:
            return f"management API: {exc}"
        up = {v["id"] for v in views if v.get("state") == "associated"}
        missing = sorted(set(want) - up)
        return not missing or "instances not associated: " + ", ".join(map(str, missing))

    sv.wait_ready("bng-cp", proc, log, associated)


def _running_state() -> sv.State:
    state = sv.State.load()
    if state is None or not state.data.get("ready"):
        raise sv.EmuError("no pod is up (bngpod up)")
    if "cp" not in state.data:
        raise sv.EmuError("this pod runs no bng-cp (it was started with --no-cp)")
    return state


def pid() -> int | None:
    """The pid of the running bng-cp, None when it is stopped."""
    return _running_state().pid("bng-cp")


def stop(sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> None:
    """Stop bng-cp with sig (SIGTERM: a clean stop that keeps the sessions in the store and
    the DPs; SIGKILL: a crash) and wait until it is gone."""
    state = _running_state()
    p = state.pid("bng-cp")
    if p is None:
        raise sv.EmuError("bng-cp is not running")
    sv.stop_signal(p, state.data["pids"]["bng-cp"]["exe"], sig, timeout, "bng-cp")


def start_again() -> int:
    """Start bng-cp again exactly as `up` did (recording its new pid in the state file) and
    wait until every instance is associated; its pid."""
    state = _running_state()
    if state.pid("bng-cp") is not None:
        raise sv.EmuError("bng-cp is already running")
    _run(state, state.data["cp"]["cmd"], state.data["cp"]["instances"])
    return state.data["pids"]["bng-cp"]["pid"]
