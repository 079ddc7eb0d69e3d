"""The emulated pod's process supervisor and its state file.

Everything `bngpod up` creates is recorded in <run dir>/state.json before it is created
(network namespaces, processes by pid and program name), so that `clean_up()` removes it
all even after a crash half-way through `up` or with the state file lost: it stops the
recorded processes (each only while its pid still runs the program that was started),
then any process whose command line names the run directory, deletes every namespace
named bngpod-*, the DPDK runtime directories of the pod's DP instances and the run
directory.

A process is started in a namespace with `spawn` (stdout and stderr into its log, stdin
closed) and waited for with `wait_ready`, which names the process and its log when it
exits or is not ready in time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

NS_PREFIX = "bngpod-"
DPDK_RUNTIME = Path("/var/run/dpdk")
READY_TIMEOUT = 30.0


class EmuError(Exception):
    pass


def run_dir() -> Path:
    return Path(os.environ.get("BNGPOD_RUN_DIR", "/run/bngpod"))


def state_path() -> Path:
    return run_dir() / "state.json"


def logs_dir() -> Path:
    return run_dir() / "logs"


def sh(*args: str, ns: str | None = None, check=True, env=None, capture=True) -> subprocess.CompletedProcess:
    """Run a command (inside network namespace ns when given); EmuError with its stderr when
    it fails and check is set."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    proc = subprocess.run(cmd, capture_output=capture, text=True, env=env)
    if check and proc.returncode != 0:
        raise EmuError(f"{' '.join(cmd)} failed ({proc.returncode}): {(proc.stderr or '').strip()}")
    return proc


class State:
    """What bngpod created, saved after every change."""

    def __init__(self, data: dict | None = None):
        self.data = data or {"pod": None, "source": None, "namespaces": [], "pids": {}, "created": time.time()}

    @classmethod
    def load(cls) -> State | None:
        try:
            return cls(json.loads(state_path().read_text()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise EmuError(
                f"state file {state_path()} is unreadable ({exc}); `bngpod down` cleans up without it"
            ) from None

    def save(self) -> None:
        path = state_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=2))
        tmp.replace(path)

    def add_ns(self, name: str) -> None:
        if name not in self.data["namespaces"]:
            self.data["namespaces"].append(name)
            self.save()

    def add_pid(self, name: str, pid: int, exe: str) -> None:
        self.data["pids"][name] = {"pid": pid, "exe": exe}
        self.save()

    def pid(self, name: str) -> int | None:
        """The pid recorded under name while it still runs the program started, else None."""
        entry = self.data.get("pids", {}).get(name)
        return entry["pid"] if entry and alive(entry["pid"], entry["exe"]) else None


# -- processes ----------------------------------------------------------------------------------
def spawn(state: State, name: str, ns: str, cmd: list[str], log: Path, exe: str, env=None) -> subprocess.Popen:
    """Start cmd in ns with its output appended to log, recorded in the state under name;
    exe is the program name `alive` checks the pid against."""
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *cmd], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    finally:
        out.close()
    state.add_pid(name, proc.pid, exe)
    return proc


def log_tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " / ".join(text[-lines:])


def wait_ready(what: str, proc: subprocess.Popen | None, log: Path, ready, timeout: float = READY_TIMEOUT) -> None:
    """Until ready() is true; a clear error naming the part and its log when it exits or
    the time is up. ready() may return a string: the reason it is not ready yet."""
    deadline = time.monotonic() + timeout
    why = "not ready"
    while True:
        if proc is not None and proc.poll() is not None:
            raise EmuError(f"{what} exited ({proc.returncode}) (see {log}): {log_tail(log)}")
        got = ready()
        if got is True:
            return
        why = got or why
        if time.monotonic() > deadline:
            raise EmuError(f"{what} not ready within {timeout:.0f} s: {why} (see {log}): {log_tail(log)}")
        time.sleep(0.2)


def daemon_pid(pidfile: Path, timeout=10.0) -> int:
    """The pid a self-daemonizing program wrote into pidfile."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return int(pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    raise EmuError(f"{pidfile} did not appear")


def alive(pid: int, exe: str) -> bool:
    """Whether pid runs the program exe (a pid reused by another program is not ours)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return False
    return os.path.basename(cmdline) == exe


def stop_pid(pid: int, exe: str) -> None:
    """SIGTERM, and SIGKILL when it still runs 5 s later."""
    if not alive(pid, exe):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and alive(pid, exe):
        time.sleep(0.05)
    if alive(pid, exe):
        os.kill(pid, signal.SIGKILL)


def stop_signal(pid: int, exe: str, sig: int, timeout: float, what: str) -> None:
    """Send sig and wait until pid no longer runs exe."""
    os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while alive(pid, exe):
        if time.monotonic() > deadline:
            raise EmuError(f"{what} ({pid}) did not stop within {timeout:.0f} s after signal {sig}")
        time.sleep(0.05)


def stray_pids() -> list[tuple[int, str]]:
    """Processes started for the pod whose pids the state lost: they name our run dir."""
    marker = str(run_dir()).encode()
    own_root = os.stat("/")
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            root = os.stat(proc / "root")
        except OSError:
            continue
        if (root.st_dev, root.st_ino) != (own_root.st_dev, own_root.st_ino):
            continue  # another root (a chroot with a pod of its own): not ours
        if argv and any(marker in a for a in argv[1:]):
            found.append((int(proc.name), os.path.basename(argv[0].decode(errors="replace"))))
    return found


def our_namespaces() -> list[str]:
    proc = sh("ip", "netns", "list", check=False)
    return [line.split()[0] for line in proc.stdout.splitlines() if line.startswith(NS_PREFIX)]


def clean_up(quiet=False) -> list[str]:
    """Remove everything bngpod created; what was removed. Safe to run any number of times."""
    removed = []
    state = None
    try:
        state = State.load()
    except EmuError as exc:
        if not quiet:
            print(f"warning: {exc}")
    if state is not None:
        for name, entry in state.data.get("pids", {}).items():
            if alive(entry["pid"], entry["exe"]):
                stop_pid(entry["pid"], entry["exe"])
                removed.append(f"process {name} ({entry['pid']})")
    for pid, exe in stray_pids():
        stop_pid(pid, exe)
        removed.append(f"process {exe} ({pid})")
    names = list(state.data.get("namespaces", [])) if state else []
    names += [n for n in our_namespaces() if n not in names]
    for ns in reversed(names):
        if sh("ip", "netns", "del", ns, check=False).returncode == 0:
            removed.append(f"namespace {ns}")
    # A killed bng-dp leaves its DPDK runtime directory behind.
    for leftover in DPDK_RUNTIME.glob(f"{NS_PREFIX}*") if DPDK_RUNTIME.is_dir() else []:
        shutil.rmtree(leftover, ignore_errors=True)
        removed.append(f"DPDK runtime directory {leftover}")
    if run_dir().exists():
        shutil.rmtree(run_dir(), ignore_errors=True)
        removed.append(f"run directory {run_dir()}")
    return removed


def processes(state: State) -> dict[str, dict]:
    """Every recorded process: its pid and whether it runs."""
    return {
        name: {"pid": entry["pid"], "running": alive(entry["pid"], entry["exe"])}
        for name, entry in state.data.get("pids", {}).items()
    }
