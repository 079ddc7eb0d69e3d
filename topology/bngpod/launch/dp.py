"""bng-dp, one per DP instance, inside its namespace on data0 (net_af_packet) with the
generated dp/<instance>.ini, idling with short sleeps so several share two cores. It uses
hugepages when enough are free for all instances and --no-huge otherwise; its session
capacity follows the subscribers of its line groups. An instance that shares an access
port's rate with others (the generated qos_share/<instance>.ini, docs/configuration.md
qos_share) runs with --qos-share on that file."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from .. import binaries, clients
from .. import model as m
from .. import supervisor as sv
from ..network import dp_ns

DP_MEMORY_MB = 512  # per instance: mbufs, route table (64 MiB), HQoS and tables of up to 16K sessions
DP_SESSIONS = 4096  # least session capacity of an emulated instance (HQoS about 50 MiB)
DP_MAX_SESSIONS = 1 << 20  # bng-dp's own limit is checked by bng-dp
DP_SESSION_HEADROOM = 64  # capacity above the subscribers an instance serves (re-dials in flight)
DP_IDLE_SLEEP_US = 100
START_TIMEOUT = 30.0


def file_prefix(inst: m.Instance) -> str:
    """The instance's DPDK --file-prefix: its runtime directory under /var/run/dpdk."""
    return f"{sv.NS_PREFIX}{inst.name}"


def telemetry_socket(inst: m.Instance) -> Path:
    return clients.telemetry_socket(file_prefix(inst))


def telemetry(inst: m.Instance, *commands: str, timeout: float = 5.0) -> list:
    """Commands on the instance's DPDK telemetry socket; their values in order."""
    return clients.telemetry(telemetry_socket(inst), *commands, timeout=timeout)


def free_hugepages_mb() -> int:
    info = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info[key] = value.split()
    except OSError:
        return 0
    try:
        return int(info["HugePages_Free"][0]) * int(info["Hugepagesize"][0]) // 1024
    except (KeyError, IndexError, ValueError):
        return 0


def capacity(subscribers: int) -> int:
    """Session capacity of an instance that serves this many subscribers: at least
    DP_SESSIONS, else the subscribers and some headroom, in whole 1024s."""
    need = subscribers + DP_SESSION_HEADROOM
    return max(DP_SESSIONS, -(-need // 1024) * 1024)


def memory_mb(sessions: int) -> int:
    """DPDK memory of an instance: DP_MEMORY_MB holds 16K sessions (bench-move runs 10K in
    it); another 256 MiB per 16K above that (HQoS and session tables grow linearly)."""
    return DP_MEMORY_MB + 256 * max(0, -(-(sessions - 16384) // 16384))


def instance_subscribers(pod: m.Pod, per_group: int, given: list[dict] | None) -> dict[str, int]:
    """Subscribers each instance serves: per_group for each of its line groups, or the given
    users counted by their line group."""
    per = {g.name: per_group for g in pod.groups}
    if given is not None:
        per = {g.name: 0 for g in pod.groups}
        for u in given:
            if u.get("line_group") in per:
                per[u["line_group"]] += 1
    return {i.name: sum(per.get(g.name, 0) for g in i.groups) for i in pod.instances}


def qos_share_file(generated: Path, name: str) -> Path | None:
    """The instance's generated --qos-share file, None when it shares no port's rate."""
    path = generated / "qos_share" / f"{name}.ini"
    return path if path.is_file() else None


def command(
    inst: m.Instance, config: Path, hugepages: bool, sessions: int = DP_SESSIONS, qos_share: Path | None = None
) -> list[str]:
    """The bng-dp command line of one instance (run inside its namespace)."""
    ncpu = os.cpu_count() or 1
    worker = inst.cores[0]
    main = 0 if worker != 0 else 1
    # Logical lcore ids as the pod file says, mapped onto CPUs this host has.
    lcores = f"{main}@{main % ncpu},{worker}@{worker % ncpu}"
    if hugepages:
        mem = ["--in-memory", "--socket-mem", str(memory_mb(sessions))]
    else:
        mem = ["--no-huge", "-m", str(memory_mb(sessions)), "--no-shconf"]
    share = ["--qos-share", str(qos_share)] if qos_share is not None else []
    return [
        str(binaries.BNG_DP), "--lcores", lcores, "--main-lcore", str(main), *mem, "--no-pci",
        f"--file-prefix={file_prefix(inst)}", "--log-level=notice",
        "--vdev", "net_af_packet0,iface=data0,framecnt=4096",
        "--", "--config", str(config), "--idle-sleep-us", str(DP_IDLE_SLEEP_US),
        "--sessions", str(sessions), *share,
    ]  # fmt: skip


def _log(inst: m.Instance) -> Path:
    return sv.logs_dir() / f"{inst.name}.log"


def _spawn(state: sv.State, inst: m.Instance, generated: Path, hugepages: bool, sessions: int) -> subprocess.Popen:
    config = generated / "dp" / f"{inst.name}.ini"
    cmd = command(inst, config, hugepages, sessions, qos_share_file(generated, inst.name))
    return sv.spawn(state, f"bng-dp {inst.name}", dp_ns(inst), cmd, _log(inst), binaries.BNG_DP.name)


def start_all(state: sv.State, pod: m.Pod, generated: Path, sessions: dict[str, int]) -> None:
    """A bng-dp per instance with its session capacity; waits until every one is up."""
    try:
        binaries.require(binaries.BNG_DP)
    except binaries.MissingBinary as exc:
        raise sv.EmuError(f"{exc}; or start the pod with --no-dp") from None
    huge = free_hugepages_mb() >= sum(memory_mb(sessions[i.name]) for i in pod.instances)
    # Per instance, so that a restarted instance runs as it did (restart).
    state.data["dp_hugepages"] = {i.name: huge for i in pod.instances}
    state.data["dp_capacity"] = sessions
    state.save()
    procs = [(inst, _spawn(state, inst, generated, huge, sessions[inst.name])) for inst in pod.instances]
    for inst, proc in procs:
        log = _log(inst)
        try:
            _wait_up(inst, proc, log)
        except sv.EmuError as exc:
            if not huge or "Cannot allocate memory" not in str(exc):
                raise
            # Another DPDK process on the host took hugepages that were free a moment
            # ago: this instance runs on 4 KiB pages instead (slower, but it runs).
            print(f"bngpod: {inst.name}: hugepages taken meanwhile, starting it with --no-huge")
            state.data["dp_hugepages"][inst.name] = False
            state.save()
            shutil.rmtree(sv.DPDK_RUNTIME / file_prefix(inst), ignore_errors=True)
            offset = len(log.read_text(errors="replace")) if log.exists() else 0
            _wait_up(inst, _spawn(state, inst, generated, False, sessions[inst.name]), log, offset=offset)


def _wait_up(inst: m.Instance, proc: subprocess.Popen, log: Path, offset: int = 0) -> None:
    """Until bng-dp says it is up (in log after offset); its own error when it exits instead."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")[offset:] if log.exists() else ""
        if " up: port " in text:
            return
        if proc.poll() is not None:
            last = [ln for ln in text.splitlines() if ln.startswith("bng-dp:")] or text.splitlines()[-3:]
            raise sv.EmuError(f"bng-dp {inst.name} exited ({proc.returncode}): " + " / ".join(last))
        time.sleep(0.05)
    raise sv.EmuError(f"bng-dp {inst.name} did not come up within {START_TIMEOUT:.0f} s (see {log})")


def qos_share_status(generated: Path, names: list[str]) -> dict[str, dict]:
    """/bng/qos_share of each named instance that runs with a --qos-share file: its first
    sharing group (the rates in bit/s, whether its view of the peers is consistent, the
    peers' reports), the further groups under "more"; or {"error": ...} when its
    telemetry does not answer."""
    out: dict[str, dict] = {}
    for name in names:
        if qos_share_file(generated, name) is None:
            continue
        try:
            sock = clients.telemetry_socket(f"{sv.NS_PREFIX}{name}")
            out[name] = clients.telemetry(sock, "/bng/qos_share")[0]
            more = range(1, int(out[name].get("groups", 1)))
            out[name]["more"] = [clients.telemetry(sock, f"/bng/qos_share,{k}")[0] for k in more]
        except (OSError, ValueError, IndexError) as exc:
            out[name] = {"error": f"telemetry: {exc}"}
    return out


def restart(state: sv.State, inst: m.Instance, generated: Path) -> int:
    """Start the instance's bng-dp again exactly as start_all did (a running one is stopped
    first), record its new pid and wait until it is up; the new pid."""
    entry = state.data.get("pids", {}).get(f"bng-dp {inst.name}")
    if entry:
        sv.stop_pid(entry["pid"], entry["exe"])
    # A killed bng-dp leaves its DPDK runtime directory (and telemetry socket) behind.
    shutil.rmtree(sv.DPDK_RUNTIME / file_prefix(inst), ignore_errors=True)
    log = _log(inst)
    offset = len(log.read_text(errors="replace")) if log.exists() else 0
    sessions = state.data.get("dp_capacity", {}).get(inst.name, DP_SESSIONS)
    huge = state.data.get("dp_hugepages", {})
    huge = huge.get(inst.name, False) if isinstance(huge, dict) else bool(huge)
    proc = _spawn(state, inst, generated, huge, sessions)
    _wait_up(inst, proc, log, offset=offset)
    return proc.pid
