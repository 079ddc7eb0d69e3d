"""The emulated pod: the pod file built out of network namespaces, veths and an Open
vSwitch bridge on one Linux host (docs/emulated-pod.md).

Namespaces (all named bngpod-*):
  bngpod-sw            the whitebox: ovsdb-server + ovs-vswitchd (userspace datapath);
                       every switch-side veth end lives here, so the host's own
                       namespace is never touched
  bngpod-acc-<port>    subscriber side of an access port: sub0
  bngpod-dp-<name>     a DP instance: data0 (its VF, an OVS port of its own) and
                       mgmt0 (its kernel management interface, control address)
  bngpod-mgmt          control plane and RADIUS: bridge mgmtbr joining every mgmt0
  bngpod-core          the upstream router: up0 on the uplink, routes to each pool via
                       its line group's core address, srv0 towards bngpod-inet
  bngpod-inet          a host on the core side (a server subscribers can reach)

Besides the network, `up` starts (each recorded in the state file, each waited for):
  FreeRADIUS           in bngpod-mgmt on every RADIUS server address of the pod file
                       (private config under <run>/radius/<name>, users from
                       <run>/generated/radius/users.json, docs/emulated-pod.md)
  bng-cp               in bngpod-mgmt on the control-plane address, with the generated
                       cp.yaml; --state <run>/cp/state, --ctl <run>/cp.sock,
                       --metrics <cp address>:9464; ready once every instance is associated
  servers              in bngpod-inet: UDP/TCP echo on port 7, HTTP on port 80
                       (`python -m bngpod.servers`)

Each DP instance's bng-dp runs inside its namespace on data0 (net_af_packet) with
its generated dp/<name>.ini, idling with short sleeps so several share two cores; it
uses hugepages when enough are free and --no-huge otherwise.

Everything created is recorded in a state file before it is created, so `down` removes
it all even after a crash half-way through `up`."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import generate, radius, servers, users, validate
from . import model as m
from .rawsock import in_netns

NS_PREFIX = "bngpod-"
SWITCH_NS = "bngpod-sw"
MGMT_NS = "bngpod-mgmt"
CORE_NS = "bngpod-core"
INET_NS = "bngpod-inet"
BRIDGE = "bpsw"
LINK_MTU = 1600
INET_SUBNET = "198.51.100.0/24"
INET_ROUTER = "198.51.100.1"
INET_HOST = "198.51.100.10"
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
REPO = Path(__file__).resolve().parents[2]
BNG_DP = REPO / "server-dp" / "build" / "bng-dp"
DPDK_RUNTIME = Path("/var/run/dpdk")
DP_MEMORY_MB = 512  # per instance: mbufs, route table (64 MiB), HQoS and tables of up to 16K sessions
DP_SESSIONS = 4096  # least session capacity of an emulated instance (HQoS about 50 MiB)
DP_MAX_SESSIONS = 1 << 20  # bng-dp's own limit is checked by bng-dp
DP_SESSION_HEADROOM = 64  # capacity above the subscribers an instance serves (re-dials in flight)
DP_IDLE_SLEEP_US = 100
GLUE = REPO / "accel-ppp-glue"
BNG_CP = Path(os.environ.get("BNG_CP", GLUE / "build" / "bng-cp"))
BNGCPCTL = Path(os.environ.get("BNGCPCTL", GLUE / "build" / "bngcpctl"))
CP_METRICS_PORT = 9464
READY_TIMEOUT = 30.0
# bng-cp flags `bngpod up` passes on (short accounting and keepalive timers for tests):
# name -> (flag, check of the value, what the value must be)
CP_OPTIONS = {
    "interim": ("--interim", "duration", "a duration of at least 1s, e.g. 5s"),
    "lcp_echo_interval": ("--lcp-echo-interval", "duration", "a duration of 1s..65535s, e.g. 2s"),
    "lcp_echo_failures": ("--lcp-echo-failures", "count", "a number 1..255"),
}


class EmuError(Exception):
    pass


def run_dir() -> Path:
    return Path(os.environ.get("BNGPOD_RUN_DIR", "/run/bngpod"))


def state_path() -> Path:
    return run_dir() / "state.json"


def access_ns(port: m.SwitchPort) -> str:
    return f"{NS_PREFIX}acc-{port.name}"


def dp_ns(inst: m.Instance) -> str:
    return f"{NS_PREFIX}dp-{inst.name}"


def sh(*args: str, ns: str | None = None, check=True, env=None, capture=True) -> subprocess.CompletedProcess:
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


def ovs_env() -> dict:
    rundir = str(run_dir() / "ovs")
    env = dict(os.environ)
    env.update(OVS_RUNDIR=rundir, OVS_DBDIR=rundir, OVS_LOGDIR=rundir, OVS_SYSCONFDIR=rundir)
    return env


def vsctl(*args: str, check=True) -> subprocess.CompletedProcess:
    db = f"unix:{run_dir() / 'ovs' / 'db.sock'}"
    return sh("ovs-vsctl", f"--db={db}", "--timeout=20", *args, env=ovs_env(), check=check)


def ofctl(*args: str, check=True) -> subprocess.CompletedProcess:
    return sh("ovs-ofctl", "-O", "OpenFlow13", *args, env=ovs_env(), check=check)


def _netns_add(state: State, name: str) -> None:
    state.add_ns(name)
    sh("ip", "netns", "add", name)
    # No kernel IPv6 on pod links: its neighbour discovery and MLD would put frames
    # on the wire that no part of the pod sent (subscriber IPv6 is done in userspace).
    for key in ("all", "default"):
        sh("sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1", ns=name)
    sh("ip", "link", "set", "lo", "up", ns=name)


def _veth(a_ns: str, a: str, b_ns: str, b: str, mtu: int = LINK_MTU, b_mac: str | None = None) -> None:
    sh("ip", "link", "add", a, "netns", a_ns, "type", "veth", "peer", "name", b, "netns", b_ns)
    for ns, ifname in ((a_ns, a), (b_ns, b)):
        sh("ip", "link", "set", ifname, "mtu", str(mtu), ns=ns)
    if b_mac:
        sh("ip", "link", "set", b, "address", b_mac, ns=b_ns)
    for ns, ifname in ((a_ns, a), (b_ns, b)):
        sh("ip", "link", "set", ifname, "up", ns=ns)
    # Userspace datapaths and raw sockets see no checksum offload: have the kernel
    # fill in checksums (needed for TCP through OVS's userspace datapath).
    if b_ns != SWITCH_NS:
        sh("ethtool", "-K", b, "tx", "off", ns=b_ns, check=False)


def _daemon_pid(pidfile: Path, timeout=10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return int(pidfile.read_text().strip())
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    raise EmuError(f"{pidfile} did not appear")


def _start_ovs(state: State, pod: m.Pod) -> None:
    ovs = run_dir() / "ovs"
    ovs.mkdir(parents=True, exist_ok=True)
    env = ovs_env()
    sh("ovsdb-tool", "create", str(ovs / "conf.db"), str(OVS_SCHEMA))
    for daemon, args in (
        (
            "ovsdb-server",
            [str(ovs / "conf.db"), f"--remote=punix:{ovs / 'db.sock'}", "--no-chdir"],
        ),
        ("ovs-vswitchd", [f"unix:{ovs / 'db.sock'}", "--no-chdir"]),
    ):
        pidfile = ovs / f"{daemon}.pid"
        sh(
            daemon,
            *args,
            f"--pidfile={pidfile}",
            f"--log-file={ovs / (daemon + '.log')}",
            f"--unixctl={ovs / (daemon + '.ctl')}",
            "--detach",
            ns=SWITCH_NS,
            env=env,
        )
        state.add_pid(daemon, _daemon_pid(pidfile), daemon)
        if daemon == "ovsdb-server":
            vsctl("--no-wait", "init")
            # Two tags parsed, so a flow may pop the S-tag and match the C-tag.
            vsctl("--no-wait", "set", "Open_vSwitch", ".", "other_config:vlan-limit=2")
    vsctl(
        "add-br",
        BRIDGE,
        "--",
        "set",
        "bridge",
        BRIDGE,
        "datapath_type=netdev",
        "protocols=OpenFlow13",
        "fail_mode=secure",
        f"other-config:datapath-id={pod.dpid}",
    )


def _ovs_port(ifname: str, ofport: int) -> None:
    vsctl("add-port", BRIDGE, ifname, "--", "set", "interface", ifname, f"ofport_request={ofport}")


def dp_file_prefix(inst: m.Instance) -> str:
    return f"{NS_PREFIX}{inst.name}"


def _free_hugepages_mb() -> int:
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


def dp_capacity(subscribers: int) -> int:
    """Session capacity of an instance that serves this many subscribers: at least
    DP_SESSIONS, else the subscribers and some headroom, in whole 1024s."""
    need = subscribers + DP_SESSION_HEADROOM
    return max(DP_SESSIONS, -(-need // 1024) * 1024)


def dp_memory_mb(sessions: int) -> int:
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


def dp_command(inst: m.Instance, config: Path, hugepages: bool, sessions: int = DP_SESSIONS) -> list[str]:
    """The bng-dp command line of one instance (run inside its namespace)."""
    ncpu = os.cpu_count() or 1
    worker = inst.cores[0]
    main = 0 if worker != 0 else 1
    # Logical lcore ids as the pod file says, mapped onto CPUs this host has.
    lcores = f"{main}@{main % ncpu},{worker}@{worker % ncpu}"
    if hugepages:
        mem = ["--in-memory", "--socket-mem", str(dp_memory_mb(sessions))]
    else:
        mem = ["--no-huge", "-m", str(dp_memory_mb(sessions)), "--no-shconf"]
    return [
        str(BNG_DP), "--lcores", lcores, "--main-lcore", str(main), *mem, "--no-pci",
        f"--file-prefix={dp_file_prefix(inst)}", "--log-level=notice",
        "--vdev", "net_af_packet0,iface=data0,framecnt=4096",
        "--", "--config", str(config), "--idle-sleep-us", str(DP_IDLE_SLEEP_US),
        "--sessions", str(sessions),
    ]  # fmt: skip


def _start_dps(state: State, pod: m.Pod, gen: Path, capacity: dict[str, int]) -> None:
    if not BNG_DP.exists():
        raise EmuError(f"{BNG_DP} is not built; run `make build` (or `bngpod up --no-dp`)")
    huge = _free_hugepages_mb() >= sum(dp_memory_mb(capacity[i.name]) for i in pod.instances)
    state.data["dp_hugepages"] = huge  # a restarted instance runs as it did (restart_dp)
    state.data["dp_capacity"] = capacity
    state.save()
    logs = run_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    procs = []
    for inst in pod.instances:
        cmd = dp_command(inst, gen / "dp" / f"{inst.name}.ini", huge, capacity[inst.name])
        log = open(logs / f"{inst.name}.log", "wb")  # noqa: SIM115 - handed to the child
        proc = subprocess.Popen(["ip", "netns", "exec", dp_ns(inst), *cmd], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        state.add_pid(f"bng-dp {inst.name}", proc.pid, "bng-dp")
        procs.append((inst, proc))
    for inst, proc in procs:
        _wait_dp(inst, proc, logs / f"{inst.name}.log")


def _wait_dp(inst: m.Instance, proc: subprocess.Popen, log: Path, timeout: float = 30.0, offset: int = 0) -> None:
    """Until bng-dp says it is up (in log after offset); its own error when it exits instead."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")[offset:] if log.exists() else ""
        if " up: port " in text:
            return
        if proc.poll() is not None:
            last = [ln for ln in text.splitlines() if ln.startswith("bng-dp:")] or text.splitlines()[-3:]
            raise EmuError(f"bng-dp {inst.name} exited ({proc.returncode}): " + " / ".join(last))
        time.sleep(0.05)
    raise EmuError(f"bng-dp {inst.name} did not come up within {timeout:.0f} s (see {log})")


def dp_pid(name: str) -> int | None:
    """The pid of instance name's bng-dp when it is running."""
    state = State.load()
    entry = state and state.data.get("pids", {}).get(f"bng-dp {name}")
    if not entry or not _alive(entry["pid"], entry["exe"]):
        return None
    return entry["pid"]


def restart_dp(name: str) -> int:
    """Start instance name's bng-dp again exactly as `up` did (after a crash or kill: a
    running one is stopped first), record its new pid and wait until it is up. The CP
    re-associates and re-pushes the instance's sessions. Returns the new pid."""
    state = State.load()
    if state is None or not state.data.get("source"):
        raise EmuError("no pod is up")
    pod = validate.load(state.data["source"])
    inst = next((i for i in pod.instances if i.name == name), None)
    if inst is None:
        raise EmuError(f"no instance {name} in pod {pod.name}")
    key = f"bng-dp {name}"
    entry = state.data.get("pids", {}).get(key)
    if entry:
        _stop_pid(entry["pid"], entry["exe"])
    # A killed bng-dp leaves its DPDK runtime directory (and telemetry socket) behind.
    shutil.rmtree(DPDK_RUNTIME / dp_file_prefix(inst), ignore_errors=True)
    gen = run_dir() / "generated"
    huge = state.data.get("dp_hugepages", False)
    log = run_dir() / "logs" / f"{inst.name}.log"
    offset = len(log.read_text(errors="replace")) if log.exists() else 0
    sessions = state.data.get("dp_capacity", {}).get(inst.name, DP_SESSIONS)
    cmd = dp_command(inst, gen / "dp" / f"{inst.name}.ini", huge, sessions)
    out = open(log, "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(["ip", "netns", "exec", dp_ns(inst), *cmd], stdout=out, stderr=subprocess.STDOUT)
    finally:
        out.close()
    state.add_pid(key, proc.pid, "bng-dp")
    _wait_dp(inst, proc, log, offset=offset)
    return proc.pid


def up(
    pod: m.Pod,
    source: str,
    dp: bool = True,
    cp: bool = True,
    users_file: str | None = None,
    subscribers: int = users.DEFAULT_PER_GROUP,
    dp_sessions: int | None = None,
    cp_options: dict[str, str] | None = None,
) -> State:
    """Build the pod, start a bng-dp per instance unless dp is False, FreeRADIUS and bng-cp
    unless cp is False, and the inet servers. On any failure everything created so far is
    removed. Each bng-dp's session capacity is dp_sessions, or follows the subscribers its
    line groups have (dp_capacity). cp_options (keys of CP_OPTIONS) are bng-cp flags."""
    if State.load() is not None:
        raise EmuError("a pod is already up (see `bngpod status`); run `bngpod down` first")
    if pod.core.vlan:
        # The core router's tagged side would need a kernel VLAN device, which this
        # kind of host lacks (docs/emulated-pod.md).
        raise EmuError("core.vlan is not supported by the emulated pod yet: remove it to emulate this pod")
    for tool in ("ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl", "ethtool"):
        if shutil.which(tool) is None:
            raise EmuError(f"{tool} is not installed; run `make setup`")
    if cp and not radius.installed():
        raise EmuError(f"{radius.FREERADIUS} is not installed; run `make setup` (or `bngpod up --no-cp`)")
    if users_file is not None and not Path(users_file).is_file():
        raise EmuError(f"users file {users_file} does not exist")
    if not 0 <= subscribers <= users.MAX_PER_GROUP:
        raise EmuError(f"--subscribers must be 0..{users.MAX_PER_GROUP}")
    if dp_sessions is not None and not 1 <= dp_sessions <= DP_MAX_SESSIONS:
        raise EmuError(f"--dp-sessions must be 1..{DP_MAX_SESSIONS}")
    given = None
    if users_file is not None and users_file.endswith(".json"):
        try:
            given = users.load_json(Path(users_file), pod)
        except users.UsersError as exc:
            raise EmuError(str(exc)) from None
    served = instance_subscribers(pod, subscribers if cp else 0, given)
    capacity = {n: dp_sessions or dp_capacity(k) for n, k in served.items()}
    cp_flags = cp_option_flags(cp_options or {})
    state = State()
    state.data.update(pod=pod.name, source=str(Path(source).resolve()))
    state.save()
    try:
        _build(state, pod, dp, capacity)
        _start_servers(state)
        if cp:
            _write_users(state, pod, users_file, subscribers)
            _start_radius(state, pod)
            _start_cp(state, pod, cp_flags, wait_associated=dp)
        state.data["ready"] = True
        state.save()
    except BaseException:
        down(quiet=True)
        raise
    return state


def _build(state: State, pod: m.Pod, dp: bool, capacity: dict[str, int]) -> None:
    gen = run_dir() / "generated"
    generate.generate_all(pod, gen)

    _netns_add(state, SWITCH_NS)
    _start_ovs(state, pod)

    for port in pod.ports_with_role("access"):
        ns = access_ns(port)
        _netns_add(state, ns)
        _veth(SWITCH_NS, f"a{port.number}", ns, "sub0")
        _ovs_port(f"a{port.number}", port.number)

    _netns_add(state, MGMT_NS)
    sh("ip", "link", "add", "mgmtbr", "type", "bridge", ns=MGMT_NS)
    sh("ip", "link", "set", "mgmtbr", "up", ns=MGMT_NS)
    mgmt_len = pod.management.prefixlen
    mgmt_addrs = {pod.control_plane.address} | {s.address for s in pod.radius.servers if s.address in pod.management}
    for addr in sorted(mgmt_addrs):
        sh("ip", "addr", "add", f"{addr}/{mgmt_len}", "dev", "mgmtbr", ns=MGMT_NS)

    for inst in pod.instances:
        ns = dp_ns(inst)
        _netns_add(state, ns)
        _veth(SWITCH_NS, f"v{inst.vf.emu_ofport}", ns, "data0", b_mac=inst.vf.mac)
        _ovs_port(f"v{inst.vf.emu_ofport}", inst.vf.emu_ofport)
        _veth(MGMT_NS, f"m{inst.id}", ns, "mgmt0", mtu=1500)
        sh("ip", "link", "set", f"m{inst.id}", "master", "mgmtbr", ns=MGMT_NS)
        sh("ip", "addr", "add", f"{inst.control}/{mgmt_len}", "dev", "mgmt0", ns=ns)

    _netns_add(state, CORE_NS)
    _netns_add(state, INET_NS)
    up_port = pod.core.uplink
    _veth(SWITCH_NS, f"u{up_port.number}", CORE_NS, "up0", b_mac=pod.core.router_mac)
    _ovs_port(f"u{up_port.number}", up_port.number)
    sh("ip", "addr", "add", f"{pod.core.router_address}/{pod.core.subnet.prefixlen}", "dev", "up0", ns=CORE_NS)
    _veth(CORE_NS, "srv0", INET_NS, "eth0", mtu=1500)
    net = INET_SUBNET.split("/")[1]
    sh("ip", "addr", "add", f"{INET_ROUTER}/{net}", "dev", "srv0", ns=CORE_NS)
    sh("ip", "addr", "add", f"{INET_HOST}/{net}", "dev", "eth0", ns=INET_NS)
    sh("ip", "route", "add", "default", "via", INET_ROUTER, ns=INET_NS)
    sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=CORE_NS)
    for group in pod.groups:
        for pool in group.pools:
            sh("ip", "route", "add", str(pool.prefix), "via", str(group.core_address), ns=CORE_NS)
    # Static routes: bngpod-core also plays each other next hop (a second address on up0,
    # behind the router MAC the fold forwards to the uplink) and delivers the prefix to
    # bngpod-inet, which holds its first address.
    for via in sorted({r.via for r in pod.core.routes if r.via is not None} - {pod.core.router_address}):
        sh("ip", "addr", "add", f"{via}/{pod.core.subnet.prefixlen}", "dev", "up0", ns=CORE_NS)
    for route in pod.core.routes:
        if route.via is not None and not route.prefix.overlaps(ipaddress.IPv4Network(INET_SUBNET)):
            first = next(iter(route.prefix.hosts()), route.prefix.network_address)
            sh("ip", "addr", "add", f"{first}/32", "dev", "eth0", ns=INET_NS)
            sh("ip", "route", "add", str(route.prefix), "via", INET_HOST, ns=CORE_NS)

    ofctl("replace-flows", BRIDGE, str(gen / "basebox" / "flows.of13"))
    if dp:
        _start_dps(state, pod, gen, capacity)


def _spawn(state: State, name: str, ns: str, cmd: list[str], log: Path, exe: str) -> subprocess.Popen:
    """Start cmd in ns with its output in log, recorded in the state under name."""
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *cmd], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
    finally:
        out.close()
    state.add_pid(name, proc.pid, exe)
    return proc


def _log_tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " / ".join(text[-lines:])


def _wait(what: str, proc: subprocess.Popen | None, log: Path, ready, timeout: float = READY_TIMEOUT) -> None:
    """Until ready() is true; a clear error naming the part and its log when it exits or
    the time is up. ready() may return a string: the reason it is not ready yet."""
    deadline = time.monotonic() + timeout
    why = "not ready"
    while True:
        if proc is not None and proc.poll() is not None:
            raise EmuError(f"{what} exited ({proc.returncode}) (see {log}): {_log_tail(log)}")
        got = ready()
        if got is True:
            return
        why = got or why
        if time.monotonic() > deadline:
            raise EmuError(f"{what} not ready within {timeout:.0f} s: {why} (see {log})")
        time.sleep(0.2)


# -- subscribers and RADIUS ----------------------------------------------------------------------
def users_dir() -> Path:
    return run_dir() / "generated" / "radius"


def _write_users(state: State, pod: m.Pod, given: str | None, per_group: int) -> None:
    out = users_dir()
    try:
        if given is None:
            entries = users.generate(pod, per_group)
        elif given.endswith(".json"):
            entries = users.load_json(Path(given), pod)
        else:  # a FreeRADIUS users file, used as it is: who dials where is not known
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(given, out / "users")
            state.data["users"] = {"source": str(Path(given).resolve()), "count": None}
            state.save()
            return
    except users.UsersError as exc:
        raise EmuError(str(exc)) from None
    users.write(out, pod, entries)
    state.data["users"] = {"source": given and str(Path(given).resolve()), "count": len(entries)}
    state.save()


def generated_users() -> list[dict]:
    """users.json of the running pod ([] when it has none)."""
    try:
        return json.loads((users_dir() / "users.json").read_text())
    except (OSError, ValueError):
        return []


def _radius_servers(pod: m.Pod) -> list[m.RadiusServer]:
    return [s for s in pod.radius.servers if s.address in pod.management]


def _start_radius(state: State, pod: m.Pod) -> None:
    served = _radius_servers(pod)
    if not served:
        raise EmuError("no RADIUS server of the pod file lies in the management subnet: nothing to run it on")
    text = (users_dir() / "users").read_text()
    probe = next(iter(generated_users()), None)
    for s in served:
        work = run_dir() / "radius" / s.name
        server = radius.FreeRadius(
            work,
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
            started = _spawn_radius(state, name, server)
        except radius.RadiusError as exc:
            raise EmuError(f"{name}: {exc}") from None

        def answers(s=s, started=started) -> bool | str:
            if probe is None:
                return radius._bound_udp(str(s.address), s.auth_port, started.pid) or "auth port not bound"
            try:
                with in_netns(MGMT_NS):
                    kind, _ = radius.access_request(
                        str(s.address), s.auth_port, s.secret, probe["user"], probe["password"],
                        source=str(pod.control_plane.address), timeout=0.5, retries=0,
                    )  # fmt: skip
            except (TimeoutError, OSError) as exc:
                return str(exc)
            return kind == "accept" or f"Access-Request for {probe['user']}: {kind}"

        _wait(f"FreeRADIUS {s.name} on {s.address}:{s.auth_port}", started, server.log, answers)


def _spawn_radius(state: State, name: str, server: radius.FreeRadius) -> subprocess.Popen:
    cmd = [radius.FREERADIUS, "-f", "-d", str(server.raddb), "-n", "radiusd", "-l", str(server.log)]
    return _spawn(state, name, MGMT_NS, cmd, server.dir / "stdout.log", radius.FREERADIUS)


# -- control plane ----------------------------------------------------------------------------------
def cp_socket() -> Path:
    return run_dir() / "cp.sock"


def _go() -> str | None:
    return shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)


def build_cp() -> None:
    """go build bng-cp and bngcpctl into accel-ppp-glue/build when missing (as tests/cp does)."""
    for name, out in (("bng-cp", BNG_CP), ("bngcpctl", BNGCPCTL)):
        if out.exists():
            continue
        go = _go()
        if go is None:
            raise EmuError(f"{out} is missing and go is not installed to build it (make setup)")
        proc = subprocess.run(
            [go, "build", "-o", str(out), f"./cmd/{name}"], cwd=GLUE, capture_output=True, text=True, timeout=900
        )
        if proc.returncode != 0:
            raise EmuError(f"go build ./cmd/{name} failed: {proc.stderr.strip()[-2000:]}")


def unix_get(sock: Path, url: str, timeout: float = 3.0):
    """GET url from an HTTP server on a unix socket (bng-cp's management API, bng-subemu's
    status API); its JSON. OSError when it cannot be reached or does not answer 200."""
    import http.client

    class _Conn(http.client.HTTPConnection):
        def connect(self):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(str(sock))
            self.sock = s

    conn = _Conn("localhost", timeout=timeout)
    try:
        conn.request("GET", url)
        r = conn.getresponse()
        body = r.read()
    finally:
        conn.close()
    if r.status != 200:
        raise OSError(f"{sock} {url}: HTTP {r.status}: {body[:200]!r}")
    return json.loads(body)


def cp_api(path: str, timeout: float = 3.0):
    """GET path of the running bng-cp's management API (its JSON)."""
    try:
        return unix_get(cp_socket(), path, timeout)
    except OSError as exc:
        if "HTTP" in str(exc):
            raise EmuError(f"bng-cp {path}: {exc}") from None
        raise


def _duration_s(text: str) -> float | None:
    """Seconds of a Go-style duration made of one number and a unit (500ms, 5s, 2m)."""
    for unit, scale in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * scale
            except ValueError:
                return None
    return None


def cp_option_flags(options: dict[str, str]) -> list[str]:
    """bng-cp flags for the CP_OPTIONS given; a clear error for anything else."""
    flags = []
    for name, value in options.items():
        if name not in CP_OPTIONS:
            raise EmuError(f"unknown bng-cp option {name!r} (known: {', '.join(sorted(CP_OPTIONS))})")
        flag, kind, want = CP_OPTIONS[name]
        value = str(value).strip()
        if kind == "duration":
            secs = _duration_s(value)
            ok = secs is not None and secs >= 1 and (name != "lcp_echo_interval" or secs <= 65535)
        else:
            ok = value.isdigit() and 1 <= int(value) <= 255
        if not ok:
            raise EmuError(f"{flag} {value!r}: must be {want}")
        flags += [flag, value]
    return flags


def _cp_command(pod: m.Pod, flags: list[str]) -> list[str]:
    cpdir = run_dir() / "cp"
    return [
        str(BNG_CP),
        "--config", str(run_dir() / "generated" / "cp.yaml"),
        "--state", str(cpdir / "state"),
        "--ctl", str(cp_socket()),
        "--metrics", f"{pod.control_plane.address}:{CP_METRICS_PORT}",
        "--log-format", "json",
        *flags,
    ]  # fmt: skip


def _start_cp(state: State, pod: m.Pod, flags: list[str], wait_associated: bool) -> None:
    build_cp()
    (run_dir() / "cp" / "state").mkdir(parents=True, exist_ok=True)
    cmd = _cp_command(pod, flags)
    want = [i.id for i in pod.instances] if wait_associated else []
    # Recorded so that start_cp() runs it again exactly so (a CP restart).
    state.data["cp"] = {"cmd": cmd, "instances": want}
    state.save()
    _run_cp(state, cmd, want)


def _run_cp(state: State, cmd: list[str], want: list[int]) -> None:
    log = run_dir() / "logs" / "bng-cp.log"
    proc = _spawn(state, "bng-cp", MGMT_NS, cmd, log, "bng-cp")

    def associated() -> bool | str:
        try:
            views = cp_api("/v1/instances")
        except (OSError, EmuError, ValueError) as exc:
            return f"management API: {exc}"
        up = {v["id"] for v in views if v.get("state") == "associated"}
        missing = sorted(set(want) - up)
        return not missing or "instances not associated: " + ", ".join(map(str, missing))

    _wait("bng-cp", proc, log, associated)


def _running_state() -> State:
    state = State.load()
    if state is None or not state.data.get("ready"):
        raise EmuError("no pod is up (bngpod up)")
    if "cp" not in state.data:
        raise EmuError("this pod runs no bng-cp (it was started with --no-cp)")
    return state


def cp_pid() -> int | None:
    """The pid of the running bng-cp, None when it is stopped."""
    entry = _running_state().data["pids"].get("bng-cp")
    return entry["pid"] if entry and _alive(entry["pid"], entry["exe"]) else None


def stop_cp(sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    """Stop bng-cp with sig (SIGTERM: a clean stop that keeps the sessions in the store and
    the DPs; SIGKILL: a crash) and wait until it is gone."""
    pid = cp_pid()
    if pid is None:
        raise EmuError("bng-cp is not running")
    os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while _alive(pid, "bng-cp"):
        if time.monotonic() > deadline:
            raise EmuError(f"bng-cp ({pid}) did not stop within {timeout:.0f} s after signal {sig}")
        time.sleep(0.05)


def start_cp() -> int:
    """Start bng-cp again exactly as `up` did (recording its new pid in the state file) and
    wait until every instance is associated; its pid."""
    state = _running_state()
    if cp_pid() is not None:
        raise EmuError("bng-cp is already running")
    _run_cp(state, state.data["cp"]["cmd"], state.data["cp"]["instances"])
    return state.data["pids"]["bng-cp"]["pid"]


# -- inet servers ----------------------------------------------------------------------------------
def _start_servers(state: State) -> None:
    log = run_dir() / "logs" / "servers.log"
    exe = os.path.basename(sys.executable)
    cmd = [sys.executable, "-m", "bngpod.servers", "serve", "--log", str(log)]
    env_path = str(REPO / "topology")
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "ab")  # noqa: SIM115 - handed to the child
    try:
        env = dict(os.environ, PYTHONPATH=env_path + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.Popen(
            ["ip", "netns", "exec", INET_NS, *cmd], stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env
        )
    finally:
        out.close()
    state.add_pid("servers", proc.pid, exe)

    def answer() -> bool | str:
        with in_netns(CORE_NS):
            failed = servers.check(INET_HOST, timeout=0.5)
        return not failed or "; ".join(failed)

    _wait(f"servers on {INET_HOST}", proc, log, answer)


def _alive(pid: int, exe: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return False
    return os.path.basename(cmdline) == exe


def _stop_pid(pid: int, exe: str) -> None:
    if not _alive(pid, exe):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid, exe):
        time.sleep(0.05)
    if _alive(pid, exe):
        os.kill(pid, signal.SIGKILL)


def _our_stray_pids() -> list[tuple[int, str]]:
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


def down(quiet=False) -> list[str]:
    """Remove everything bngpod created. Safe to run any number of times."""
    removed = []
    state = None
    try:
        state = State.load()
    except EmuError as exc:
        if not quiet:
            print(f"warning: {exc}")
    if state is not None:
        for name, entry in state.data.get("pids", {}).items():
            if _alive(entry["pid"], entry["exe"]):
                _stop_pid(entry["pid"], entry["exe"])
                removed.append(f"process {name} ({entry['pid']})")
    for pid, exe in _our_stray_pids():
        _stop_pid(pid, exe)
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


def status() -> dict:
    state = State.load()
    report = {"up": state is not None, "namespaces": our_namespaces(), "processes": {}, "ports": [], "flows": None}
    if state is None:
        return report
    report.update(pod=state.data.get("pod"), source=state.data.get("source"), ready=state.data.get("ready", False))
    for name, entry in state.data.get("pids", {}).items():
        report["processes"][name] = {"pid": entry["pid"], "running": _alive(entry["pid"], entry["exe"])}
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
    if report["processes"].get("ovs-vswitchd", {}).get("running"):
        ports = ofctl("dump-ports-desc", BRIDGE, check=False).stdout
        report["ports"] = [ln.strip() for ln in ports.splitlines() if "(" in ln and "addr" in ln]
        agg = ofctl("dump-aggregate", BRIDGE, check=False).stdout
        report["flows"] = agg.strip().splitlines()[-1].strip() if agg.strip() else None
    return report
