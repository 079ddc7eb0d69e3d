"""`bngpod demo`: the pod at work. Brings the pod up (unless it is up already), shows how
the switch folds each subscriber line into its DP instance (the fold probe), dials about
a hundred PPPoE subscribers with bng-subemu in every access namespace, sends them light
UDP echo traffic and a downstream load above their profile to a few of them, and shows a
refreshing dashboard: sessions per instance, the control plane's setup rate, rate per
subscriber, HQoS drops per instance and the switch's port counters. In a pod with IPv6
pools one more subscriber dials dual stack (bng-subemu --dual-stack, dualstack.py) and
the dashboard shows its prefixes and its traffic per family. With --ipoe (`make demo
IPOE=1`, topology/examples/ipoe.yaml) the subscribers users.json marks as IPoE in line
groups where bng-cp is the DHCP server are dialled too, by a second bng-subemu per access
port with --ipoe (DHCP DORA), and the dashboard counts both kinds; without --ipoe only the
PPPoE subscribers are dialled. With --ipoe in a pod whose IPoE group has IPv6 pools (ipoe.yaml
lg1) one more subscriber dials IPoE dual stack (bng-subemu --ipoe --dual-stack: DHCPv4, RA,
DHCPv6 IA_NA + IA_PD), shown beside the PPPoE dual-stack one.

With --seba (`make demo SEBA=1`, topology/examples/seba.yaml: a pod file with `seba: {kafka:
true}`) the pod runs in controller mode with org.bngpod.seba and a Kafka broker; before bng-cp
starts, the dialled subscribers are provisioned as SEBA provisions them (SADIS entries and
bandwidth profiles in BBSim's format, the OLT cabling and Kafka netcfg, a UNI_ADDED per UNI:
sebademo.py), and the dashboard gains a SEBA panel: bng.pppoe's events and bng.stats's latest
record per session, as a real Kafka consumer (KafkaTail) reads them from the pod's broker.

On a terminal it runs until Ctrl-C or `q`; otherwise (CI: `make demo < /dev/null`) for
--duration seconds, printing the dashboard a few times, and exits 0 only when every
subscriber came up, every instance holds sessions and traffic flowed both ways (with --seba
also: bng.pppoe carried a SESSION_CONFIRMATION for every dialled UNI and bng.stats a record,
and after the hang-up a SESSION_TERMINATION for each). Either way the emulators hang up (PADT)
and the pod is torn down, leaving nothing."""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import binaries, clients, emu, probe, sebademo, users, validate
from . import model as m
from .launch import kafka

SUB_MAC = bytes.fromhex("025b00000001")
PADI = bytes.fromhex("1109000000040101000000")  # PPPoE discovery: PADI, Service-Name ""
ECHO_TARGET = f"{emu.INET_HOST}:7"
DIAL_TIMEOUT = 60.0  # for every subscriber to come up before the downstream load starts
HEADLESS_DURATION = 60.0
SEBA_INTERIM = "5s"  # --seba: bng-cp's interims, so bng.stats's counters move while one watches
SEBA_TERMINATION_WAIT = 30.0  # --seba: for bng.pppoe's SESSION_TERMINATIONs after the hang-up


class DemoError(Exception):
    pass


# -- the fold probe (the first screen) ---------------------------------------------------------------
def padi(tpid: int, stag: int, ctag: int) -> bytes:
    frame = b"\xff" * 6 + SUB_MAC + struct.pack("!HHHHH", tpid, stag, 0x8100, ctag, 0x8863) + PADI
    return frame.ljust(60, b"\0")  # Ethernet minimum without FCS


def _probe_lines(pod, edges) -> list[tuple[str, ...]]:
    rows = []
    for group in pod.groups:
        for line in group.lines:
            for stag in sorted({line.stag.lo, line.stag.hi}):
                ctag = line.ctags.lo
                got = probe.send_and_collect(edges, line.port.name, padi(line.port.tpid, stag, ctag))
                want = group.instance.name if group.instance else "-"
                seen = ",".join(sorted(got)) or "dropped"
                rows.append(
                    (line.port.name, str(stag), str(ctag), group.name, want, seen, "ok" if seen == want else "WRONG")
                )
    for port in pod.ports_with_role("access"):
        used = {t for g in pod.groups for ln in g.lines if ln.port is port for t in ln.stag}
        spare = next(t for t in range(1, 4095) if t not in used)
        got = probe.send_and_collect(edges, port.name, padi(port.tpid, spare, 1))
        seen = ",".join(sorted(got)) or "dropped"
        rows.append((port.name, str(spare), "1", "(nobody)", "dropped", seen, "ok" if seen == "dropped" else "WRONG"))
    return rows


def fold_probe(pod) -> bool:
    with probe.edges(pod, emu) as edges:
        print("The fold: a PPPoE PADI from each end of every line, and from an S-tag nobody serves")
        rows = _probe_lines(pod, edges)
    print(table(("access", "S-tag", "C-tag", "group", "expected", "arrived at", ""), rows))
    wrong = [r for r in rows if r[-1] != "ok"]
    print(f"\n{len(rows) - len(wrong)} of {len(rows)} probes went where the pod file says\n")
    return not wrong


def table(header: tuple[str, ...], rows: list[tuple[str, ...]], indent: str = "") -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = indent + "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*r).rstrip() for r in [header, *rows])


# -- data sources -------------------------------------------------------------------------------------


_PORT_STATS = re.compile(
    r"port\s+(\S+):\s*rx pkts=(\d+), bytes=(\d+), drop=(\d+).*?tx pkts=(\d+), bytes=(\d+), drop=(\d+)", re.S
)


def switch_ports() -> dict[str, tuple[int, ...]]:
    """Per OpenFlow port number: rx pkts, rx bytes, rx drops, tx pkts, tx bytes, tx drops."""
    text = emu.ofctl("dump-ports", emu.BRIDGE, check=False).stdout
    return {p: tuple(int(x) for x in rest) for p, *rest in _PORT_STATS.findall(text)}


# -- the emulators and the load -------------------------------------------------------------------
@dataclass
class Emulator:
    port: m.SwitchPort
    count: int
    proc: subprocess.Popen
    status: Path
    out: Path
    name: str = ""  # the port's name, or <port>-ipoe for the IPoE emulator of the port
    kind: str = "pppoe"

    @property
    def label(self) -> str:
        return self.name or self.port.name

    def stats(self) -> dict:
        return clients.unix_get(self.status, "/v1/stats", 2.0)

    def sessions(self) -> list[dict]:
        return clients.unix_get(self.status, "/v1/sessions", 2.0)

    def final(self) -> dict | None:
        """The emulator's last JSON line (the "final" one after it stopped)."""
        try:
            lines = self.out.read_text().splitlines()
        except OSError:
            return None
        for line in reversed(lines):
            try:
                return json.loads(line)
            except ValueError:
                continue
        return None


def pick_subscribers(pod: m.Pod, users: list[dict], total: int) -> list[dict]:
    """About total subscribers, spread evenly over the line groups (users.json order)."""
    per_group = math.ceil(total / max(1, len(pod.groups)))
    chosen, taken = [], {}
    for u in users:
        if taken.get(u["line_group"], 0) < per_group:
            taken[u["line_group"]] = taken.get(u["line_group"], 0) + 1
            chosen.append(u)
    return chosen


def spawn_emulator(
    port: m.SwitchPort, state: emu.State, name: str, users_file: Path, count: int, args: list[str]
) -> Emulator:
    """bng-subemu in port's access namespace on its sub0, dialling the subscribers of
    users_file on port (args: which of them, traffic, dual stack); its status socket, JSON
    lines and log are subemu-<name>.* in the demo's run directory."""
    work = users_file.parent
    status = work / f"subemu-{name}.sock"
    out = work / f"subemu-{name}.jsonl"
    cmd = [
        str(binaries.BNG_SUBEMU), "--iface", "sub0", "--subscribers", str(users_file), "--port", port.name,
        "--status", str(status), "--json-every", "1s",  # the TPID: users.json's
        "--strict",  # as common CPEs: session frames before their PADS are dropped
        *args,
    ]  # fmt: skip
    with open(out, "wb") as stdout, open(work / f"subemu-{name}.log", "wb") as stderr:
        # A session of its own: Ctrl-C reaches the demo, which stops the emulators in
        # order (PADT while the control plane still runs).
        proc = subprocess.Popen(
            ["ip", "netns", "exec", emu.access_ns(port), *cmd],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True,
        )  # fmt: skip
    state.add_pid(f"bng-subemu {name}", proc.pid, binaries.BNG_SUBEMU.name)
    return Emulator(port, count, proc, status, out, name=name, kind="ipoe" if "--ipoe" in args else "pppoe")


def start_emulators(pod: m.Pod, state: emu.State, chosen: list[dict], rate: float) -> list[Emulator]:
    """One bng-subemu per access port for its PPPoE subscribers (users.json), and one with
    --ipoe for its IPoE subscribers (users-ipoe.json)."""
    work = emu.run_dir() / "demo"
    work.mkdir(parents=True, exist_ok=True)
    pppoe = [u for u in chosen if not users.is_ipoe(u)]
    ipoe = [u for u in chosen if users.is_ipoe(u)]
    users_file = work / "users.json"
    users_file.write_text(json.dumps(pppoe, indent=1))
    ipoe_file = work / "users-ipoe.json"
    if ipoe:
        ipoe_file.write_text(json.dumps(ipoe, indent=1))
    emulators = []
    traffic = ["--rate", f"{rate:g}", "--target", ECHO_TARGET] if rate > 0 else []
    for port in pod.ports_with_role("access"):
        count = sum(1 for u in pppoe if u["port"] == port.name)
        if count:
            emulators.append(spawn_emulator(port, state, port.name, users_file, count, traffic))
        count = sum(1 for u in ipoe if u["port"] == port.name)
        if count:
            emulators.append(spawn_emulator(port, state, f"{port.name}-ipoe", ipoe_file, count, ["--ipoe", *traffic]))
    return emulators


def ipoe_subscribers(pod: m.Pod, all_users: list[dict]) -> list[dict]:
    """The IPoE subscribers the demo can dial: those of groups where bng-cp is the DHCP
    server (a relay group needs an outside DHCP server, which the demo does not run)."""
    served = {g.name for g in pod.groups if g.ipoe is not None and g.ipoe.mode == "server"}
    return [u for u in all_users if users.is_ipoe(u) and u.get("line_group") in served]


def subemu_has_ipoe() -> bool:
    """Whether this bng-subemu knows --ipoe (issue 19's control-plane work adds it)."""
    try:
        out = subprocess.run(
            [str(binaries.BNG_SUBEMU), "-h"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return re.search(r"^\s*-ipoe\b", out.stdout + out.stderr, re.MULTILINE) is not None


def stop_emulators(emulators: list[Emulator], timeout: float = 15.0) -> None:
    for e in emulators:
        if e.proc.poll() is None:
            e.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for e in emulators:
        try:
            e.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            e.proc.kill()
            e.proc.wait()


def start_load(pod: m.Pod, state: emu.State, emulators: list[Emulator], factor: float) -> list[tuple[str, str, int]]:
    """A UDP stream from the inet host to the first subscriber up of every line group, at
    factor times its profile's downstream rate: the shaper has to drop the excess."""
    targets, seen = [], set()
    profiles = {g.name: g.qos_profile for g in pod.groups}
    # the group of each subscriber (an IPoE one is named by its MAC)
    group_of = {u["user"]: u.get("line_group") for u in emu.generated_users()}
    for e in emulators:
        try:
            sessions = e.sessions()
        except (OSError, ValueError):
            continue
        by_user = {u: s for s in sessions if s.get("state") == "up" for u in [s["user"]]}
        for user, s in by_user.items():
            group = group_of.get(user) or user.rsplit("-", 1)[0]
            if group in profiles and group not in seen and s.get("address"):
                seen.add(group)
                targets.append((user, s["address"], int(profiles[group].down_rate * factor)))
    if not targets:
        return []
    log = emu.run_dir() / "demo" / "loadgen.jsonl"
    cmd = [sys.executable, "-m", "bngpod.loadgen", *(f"{a}:{bps}" for _, a, bps in targets)]
    env = dict(os.environ, PYTHONPATH=str(emu.REPO / "topology") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", emu.INET_NS, *cmd],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    state.add_pid("loadgen", proc.pid, os.path.basename(sys.executable))
    _LOAD.append(proc)
    return targets


# -- sampling and the dashboard ---------------------------------------------------------------------
@dataclass
class Sample:
    t: float
    cp: dict[int, int] = field(default_factory=dict)  # instance id -> sessions
    cp_error: str | None = None
    setups: float | None = None  # bngcp_session_setups_total
    emulators: dict[str, dict] = field(default_factory=dict)  # port -> /v1/stats
    users: dict[str, dict] = field(default_factory=dict)  # address -> emulator session
    dp: dict[str, dict] = field(default_factory=dict)  # instance -> {"stats", "hqos", "sessions": {id: {...}}}
    dp_errors: dict[str, str] = field(default_factory=dict)
    ports: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # When each counter source was read (monotonic, the middle of its request): on a busy
    # host one sample takes a second or more, so a rate over the samples' own t would be off
    # by that much. Keys: "setups", "ports", "dp:<instance>" (/bng/stats and /bng/hqos),
    # "sessions:<instance>" (the per-session counters).
    at: dict[str, float] = field(default_factory=dict)

    def dt(self, prev: Sample | None, key: str) -> float:
        """The time between prev's and this sample's reading of key (0: no previous one)."""
        if prev is None:
            return 0.0
        return self.at.get(key, self.t) - prev.at.get(key, prev.t)


def _timed(s: Sample, key: str, read, *args, **kwargs):
    """read(*args, **kwargs), noting in s.at when it was answered (the middle of the request)."""
    t0 = time.monotonic()
    try:
        return read(*args, **kwargs)
    finally:
        s.at[key] = (t0 + time.monotonic()) / 2


def sample(pod: m.Pod, emulators: list[Emulator]) -> Sample:
    s = Sample(time.monotonic())
    try:
        s.cp = {v["id"]: int(v.get("sessions") or 0) for v in emu.cp_api("/v1/instances", timeout=2)}
    except (OSError, emu.EmuError, ValueError) as exc:
        s.cp_error = str(exc)
    try:
        s.setups = _timed(s, "setups", emu.cp_metrics, pod, timeout=2).get("bngcp_session_setups_total")
    except OSError:  # the clients raise OSError for HTTP failures too
        pass
    for e in emulators:
        try:
            s.emulators[e.label] = e.stats()
            for sess in e.sessions():
                if sess.get("address"):
                    s.users[sess["address"]] = sess
        except (OSError, ValueError):
            pass
    for inst in pod.instances:
        try:
            stats, hqos, sessions = _timed(
                s, f"dp:{inst.name}", emu.dp_telemetry, inst, "/bng/stats", "/bng/hqos", "/bng/sessions", timeout=2
            )  # fmt: skip
            ids = (sessions or {}).get("ids") or []
            cmds = [f"/bng/sessions,{i}" for i in ids]
            per = _timed(s, f"sessions:{inst.name}", emu.dp_telemetry, inst, *cmds, timeout=2) if ids else []
            s.dp[inst.name] = {"stats": stats or {}, "hqos": hqos or {}, "sessions": dict(zip(ids, per, strict=True))}
        except (OSError, ValueError) as exc:
            s.dp_errors[inst.name] = str(exc)
    s.ports = _timed(s, "ports", switch_ports)
    return s


def _rate(now: float, before: float | None, dt: float) -> float:
    return max(0.0, (now - before) / dt) if before is not None and dt > 0 else 0.0


def _mbit(bits_per_s: float) -> str:
    return f"{bits_per_s / 1e6:.2f}"


def port_names(pod: m.Pod) -> dict[str, str]:
    names = {str(p.number): p.name for p in pod.ports if p.role in ("access", "uplink")}
    names.update({str(i.vf.emu_ofport): f"{i.name} VF" for i in pod.instances})
    return names


def render(pod: m.Pod, cur: Sample, prev: Sample | None, ctx: dict) -> str:
    out = []
    elapsed = cur.t - ctx["started"]
    up = sum(int(st.get("up", 0)) for st in cur.emulators.values())
    dialled = sum(e.count for e in ctx["emulators"])
    out.append(
        f"bngpod demo: pod {pod.name}, {elapsed:.0f} s; {dialled} subscribers on "
        f"{len(ctx['emulators'])} access ports, UDP echo {ctx['rate']:g} pps each to {ECHO_TARGET}"
    )
    if ctx["load"]:
        loads = ", ".join(f"{u} {bps / 1e6:g}M" for u, _, bps in ctx["load"])
        out.append(f"downstream load from {emu.INET_HOST} (UDP, above the profile): {loads}")
    out.append("")

    # Control plane: sessions and the setup rate.
    setups_rate = _rate(cur.setups or 0, prev.setups if prev else None, cur.dt(prev, "setups"))
    emu_rate = sum(float(st.get("setup_rate", 0)) for st in cur.emulators.values())
    ever = sum(int(st.get("ever_up", 0)) for st in cur.emulators.values())
    dialling = sum(int(st.get("dialling", 0)) for st in cur.emulators.values())
    failed = sum(int(st.get("failed", 0)) for st in cur.emulators.values())
    p50 = max((float(st.get("setup_ms_p50", 0)) for st in cur.emulators.values()), default=0.0)
    setups = "?" if cur.setups is None else f"{cur.setups:.0f}"
    out.append(
        f"control plane: {setups} sessions set up, {setups_rate:.1f}/s now (peak {ctx['peak_setup']:.1f}/s); "
        f"emulators: {up} up, {dialling} dialling, {failed} failed, {ever} ever up, "
        f"{emu_rate:.1f}/s, setup p50 {p50:.0f} ms"
    )
    by_kind = {}
    for e in ctx["emulators"]:
        up_k, total_k = by_kind.get(e.kind, (0, 0))
        by_kind[e.kind] = (up_k + int(cur.emulators.get(e.label, {}).get("up", 0)), total_k + e.count)
    if "ipoe" in by_kind:
        out.append("  by kind: " + ", ".join(f"{k.upper()} {u} of {t} up" for k, (u, t) in sorted(by_kind.items())))
    if cur.cp_error:
        out.append(f"  management API: {cur.cp_error}")
    out.append("")

    # Per instance: sessions (CP and DP), rates, HQoS drops.
    rows = []
    for inst in pod.instances:
        d = cur.dp.get(inst.name, {})
        p = prev.dp.get(inst.name, {}) if prev else {}
        st, pst = d.get("stats", {}), p.get("stats", {})
        hq, phq = d.get("hqos", {}), p.get("hqos", {})
        drops = int(hq.get("port_drop_pkts", 0)) + int(hq.get("enq_drops", 0))
        pdrops = int(phq.get("port_drop_pkts", 0)) + int(phq.get("enq_drops", 0)) if phq else None
        dt_st, dt_sess = cur.dt(prev, f"dp:{inst.name}"), cur.dt(prev, f"sessions:{inst.name}")
        sent = sum(int((x or {}).get("bytes_down", 0)) for x in d.get("sessions", {}).values())
        psent = sum(int((x or {}).get("bytes_down", 0)) for x in p.get("sessions", {}).values()) if p else None
        rows.append((
            inst.name,
            ",".join(g.name for g in inst.groups),
            str(cur.cp.get(inst.id, "?")),
            str(len(d.get("sessions", {}))) if d else "?",
            _mbit(8 * _rate(st.get("down_bytes", 0), pst.get("down_bytes") if pst else None, dt_st)),
            _mbit(8 * _rate(sent, psent, dt_sess)),
            _mbit(8 * _rate(st.get("up_bytes", 0), pst.get("up_bytes") if pst else None, dt_st)),
            f"{_rate(drops, pdrops, dt_st):.0f}",
            str(drops),
            cur.dp_errors.get(inst.name, ""),
        ))  # fmt: skip
    out.append(table(
        ("instance", "groups", "sessions CP", "DP", "down in Mbit/s", "shaped out", "up Mbit/s", "HQoS drops/s",
         "HQoS drops", ""),
        rows,
    ))  # fmt: skip
    out.append("")

    # Top subscribers by downstream rate, from bng-dp's per-session counters.
    subs = []
    for inst in pod.instances:
        d = cur.dp.get(inst.name, {})
        p = prev.dp.get(inst.name, {}).get("sessions", {}) if prev else {}
        dt = cur.dt(prev, f"sessions:{inst.name}")
        for sid, sess in d.get("sessions", {}).items():
            if not sess:
                continue
            ps = p.get(sid)
            same = ps and ps.get("ipv4") == sess.get("ipv4")
            down = 8 * _rate(sess.get("bytes_down", 0), ps.get("bytes_down") if same else None, dt)
            upr = 8 * _rate(sess.get("bytes_up", 0), ps.get("bytes_up") if same else None, dt)
            user = cur.users.get(sess.get("ipv4"), {})
            subs.append((down, upr, inst.name, sess, user))
    subs.sort(key=lambda x: (-x[0], -x[1]))
    top = ctx["top"]
    rows = [
        (
            user.get("user", "?"), name, sess.get("ipv4", "?"),
            f"{sess.get('qos_profile', '?')} {int(sess.get('hqos_rate_bps', 0)) / 1e6:g}M",
            _mbit(down), f"{upr / 1e3:.1f}", str(sess.get("drops_down", 0)),
            f"{user.get('rx_pkts', 0)}/{user.get('tx_pkts', 0)}",
        )
        for down, upr, name, sess, user in subs[:top]
    ]  # fmt: skip
    out.append(f"top {top} of {len(subs)} subscribers by downstream rate (bng-dp session counters):")
    out.append(table(
        ("user", "instance", "address", "profile", "down Mbit/s", "up kbit/s", "down drops", "echo rx/tx"), rows, "  "
    ))  # fmt: skip
    out.append("")

    for ds in ctx.get("ds") or []:
        out += dual_stack_lines(pod, ds, cur, prev)
        out.append("")

    seba = ctx.get("seba")
    if seba:
        out += seba["view"].panel(pod, seba["summary"], ctx["top"])
        out.append("")

    # The switch's ports.
    names = port_names(pod)
    dt = cur.dt(prev, "ports")
    rows = []
    for no, name in sorted(names.items(), key=lambda kv: int(kv[0])):
        c = cur.ports.get(no)
        if c is None:
            continue
        pc = prev.ports.get(no) if prev else None
        rows.append((
            f"{no} {name}",
            f"{_rate(c[0], pc[0] if pc else None, dt):.0f}", _mbit(8 * _rate(c[1], pc[1] if pc else None, dt)),
            f"{_rate(c[3], pc[3] if pc else None, dt):.0f}", _mbit(8 * _rate(c[4], pc[4] if pc else None, dt)),
            str(c[0]), str(c[3]),
        ))  # fmt: skip
    out.append("switch bpsw ports (rx: into the switch, tx: out of it):")
    header = ("port", "rx pkt/s", "rx Mbit/s", "tx pkt/s", "tx Mbit/s", "rx pkts", "tx pkts")
    out.append(table(header, rows, "  "))
    return "\n".join(out)


def dual_stack_lines(pod: m.Pod, ds, cur: Sample, prev: Sample | None) -> list[str]:
    """The dual-stack subscriber: what it got and its traffic per family, as its bng-subemu,
    bng-dp's session counters and bng-cp's session see it."""
    out = ds.describe()
    ipv4 = ds.ipv4
    if not ipv4:
        return out
    inst = ds.group.instance.name
    dt = cur.dt(prev, f"sessions:{inst}")
    sess = next((x for x in cur.dp.get(inst, {}).get("sessions", {}).values() if x and x.get("ipv4") == ipv4), None)
    if sess:
        before = {}
        if prev:
            for x in prev.dp.get(inst, {}).get("sessions", {}).values():
                if x and x.get("ipv4") == ipv4:
                    before = x
        rows = []
        for label, now, then in _family_counters(sess, before):
            rates = [8 * _rate(v, t, dt) for v, t in zip(now, then, strict=True)]
            rows.append((label, *(str(v) for v in now), *(_mbit(r) for r in rates)))
        if rows:
            out.append(f"  bng-dp {inst} session counters (its prefixes: {sess.get('ipv6_prefixes') or '-'}):")
            out.append(table(("", "bytes up", "bytes down", "up Mbit/s", "down Mbit/s"), rows, "    "))
    try:
        got = emu.cp_api("/v1/sessions", timeout=2)
        got = got.get("sessions", got) if isinstance(got, dict) else got
        cp = next((x for x in got if x.get("user") == ds.user["user"]), None)
    except (OSError, emu.EmuError, ValueError):
        cp = None
    if cp:
        out.append(
            f"  bng-cp: /64 {cp.get('ipv6_prefix', '-')}, delegated {cp.get('delegated_prefix', '-')}; IPv6 octets "
            f"up {cp.get('v6_up_octets', 0)} down {cp.get('v6_down_octets', 0)} (of {cp.get('up_octets', '?')} / "
            f"{cp.get('down_octets', '?')} in all, at the last usage report)"
        )
    return out


# bng-dp's session counters (/bng/sessions,ID): the totals, and the IPv6 share of them
TOTALS, IPV6_SHARE = ("bytes_up", "bytes_down"), ("bytes_up_v6", "bytes_down_v6")


def _family_counters(sess: dict, before: dict) -> list[tuple[str, list[int], list[int | None]]]:
    """(label, [up, down] now, [up, down] at the previous sample) for all, IPv4 and IPv6;
    IPv4 is the totals less the IPv6 share (only the totals when bng-dp has no share)."""

    def get(d: dict, keys) -> list[int] | None:
        return [int(d[k]) for k in keys] if all(k in d for k in keys) else None

    total, total0 = get(sess, TOTALS), get(before, TOTALS)
    if total is None:
        return []
    rows = [("all", total, total0 or [None, None])]
    v6, v60 = get(sess, IPV6_SHARE), get(before, IPV6_SHARE)
    if v6 is not None:
        v4 = [t - x for t, x in zip(total, v6, strict=True)]
        v40 = [t - x for t, x in zip(total0, v60, strict=True)] if total0 and v60 else [None, None]
        rows += [("IPv4", v4, v40), ("IPv6", v6, v60 or [None, None])]
    return rows


def verdict(
    pod: m.Pod, first: Sample | None, last: Sample, emulators: list[Emulator], load: list, ctx: dict | None = None
) -> list[str]:
    """Why the demo did not show a working pod ([] when it did)."""
    why = []
    for e in emulators:
        st = last.emulators.get(e.label)
        if st is None:
            why.append(f"bng-subemu {e.label} gave no status")
            continue
        if int(st.get("up", 0)) < e.count:
            reasons = ", ".join(f"{k} {v}" for k, v in (st.get("fail_reasons") or {}).items())
            because = f" ({reasons})" if reasons else ""
            why.append(f"{e.label}: {st.get('up', 0)} of {e.count} sessions up{because}")
        if int(st.get("rx_pkts", 0)) == 0:
            why.append(f"{e.label}: no UDP echo came back ({st.get('tx_pkts', 0)} sent)")
    served = {g.instance.name for g in pod.groups if g.instance is not None}
    for inst in pod.instances:
        if inst.name in served and last.cp.get(inst.id, 0) == 0:
            why.append(f"{inst.name}: the control plane holds no session on it")
    for ds in (ctx.get("ds") if ctx else None) or []:
        why += ds.problems()
    if ctx and ctx.get("seba"):
        ctx["seba"]["view"].poll()
        why += ctx["seba"]["view"].problems()
    if load and first is not None:
        for inst in pod.instances:
            a = first.dp.get(inst.name, {}).get("stats", {}).get("down_bytes", 0)
            b = last.dp.get(inst.name, {}).get("stats", {}).get("down_bytes", 0)
            if inst.name in served and b <= a:
                why.append(f"{inst.name}: no downstream bytes forwarded")
    return why


# -- the run --------------------------------------------------------------------------------------------
class _Stop(Exception):
    pass


def _on_term(signum, frame):
    raise _Stop()


class Keys:
    """The terminal in cbreak mode without signal keys: `q` and Ctrl-C are read as keys, so
    the demo (not every process of the pod at once) decides the order of the teardown."""

    def __init__(self, interactive: bool):
        self.fd = sys.stdin.fileno() if interactive else None
        self.saved = None
        if self.fd is not None:
            import termios

            self.saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)

    def wait(self, seconds: float) -> bool:
        """Sleep seconds; True when the user asked to stop."""
        if self.fd is None:
            time.sleep(seconds)
            return False
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if ready:
            key = os.read(self.fd, 16)
            return any(c in key for c in (b"q", b"Q", b"\x03", b"\x1b"))
        return False

    def restore(self) -> None:
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)
            self.saved = None


@dataclass
class Options:
    hold: bool | None = None
    duration: float | None = None
    subscribers: int = 100
    rate: float = 5.0
    load: float = 1.25
    fold: bool = True
    top: int = 10
    interval: float | None = None
    ipoe: bool = False  # dial the IPoE subscribers too (bng-subemu --ipoe)
    seba: bool = False  # controller mode with org.bngpod.seba, SEBA provisioning, the Kafka panel


def check_ipoe(pod: m.Pod, path: str) -> None:
    """--ipoe needs a pod with an IPoE group in server mode and a bng-subemu with --ipoe."""
    if not any(g.ipoe is not None and g.ipoe.mode == "server" for g in pod.groups):
        raise DemoError(
            f"--ipoe: pod {pod.name} ({path}) has no line group with ipoe in session_types and bng-cp as its "
            "DHCP server; try topology/examples/ipoe.yaml"
        )
    if not subemu_has_ipoe():
        raise DemoError(
            f"--ipoe: {binaries.BNG_SUBEMU} has no --ipoe option (IPoE subscriber emulation, issue 19's "
            "control-plane work): it cannot dial IPoE subscribers"
        )


def run(path: str, opts: Options | None = None, hold: bool | None = None) -> int:
    opts = opts or Options(hold=hold)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    hold = interactive if opts.hold is None else opts.hold
    duration = opts.duration if opts.duration is not None else (None if hold else HEADLESS_DURATION)
    if duration is not None and duration <= 0:
        print("bngpod demo: --duration must be positive", file=sys.stderr)
        return 2
    if not 1 <= opts.subscribers <= 4000:
        print("bngpod demo: --subscribers must be 1..4000", file=sys.stderr)
        return 2
    live = hold and interactive  # redraw in place; otherwise print the dashboard a few times
    interval = opts.interval or (2.0 if live else max(5.0, (duration or 60) / 4))
    try:
        pod = validate.load(path)
    except validate.PodError as exc:
        print(exc, file=sys.stderr)
        return 1

    old_term = signal.signal(signal.SIGTERM, _on_term)
    ours = False  # whether the demo brought the pod up (and so takes it down)
    emulators: list[Emulator] = []
    keys = None
    try:
        try:
            binaries.require(binaries.BNG_SUBEMU)
        except binaries.MissingBinary as exc:
            raise DemoError(str(exc)) from None
        if opts.ipoe:
            check_ipoe(pod, path)
        if opts.seba:
            sebademo.check(pod, path)
        state = emu.State.load()
        per_group = math.ceil(opts.subscribers / max(1, len(pod.groups)))
        if state is not None and (state.data.get("pod") != pod.name or not emu.generated_users()):
            raise DemoError(f"another pod ({state.data.get('pod')}) is up without users.json: run `bngpod down` first")
        if state is not None and opts.seba:
            raise DemoError("--seba brings its own pod up (controller mode; SEBA's provisioning comes before "
                            "bng-cp starts): run `bngpod down` first")  # fmt: skip
        seba: dict = {}
        if state is None:
            mode = " in controller mode (SEBA)" if opts.seba else ""
            print(f"bngpod demo: building pod {pod.name} from {path}{mode}")
            started = time.monotonic()
            ours = True
            # one more per group: the dual-stack subscriber is one the port emulators do not dial
            # (two with --ipoe: a PPPoE and an IPoE one; a group of both kinds alternates them)
            spare = (2 if opts.ipoe else 1) if pod.ipv6_pools else 0
            seba_up = {}
            if opts.seba:  # SEBA's provisioning once the controller runs, before bng-cp
                seba_up = {"controller": True, "cp_options": {"interim": SEBA_INTERIM},
                           "before_cp": lambda _state: seba.update(_seba_provision(pod, opts))}  # fmt: skip
            state = emu.up(pod, path, subscribers=max(per_group, 1) + spare, **seba_up)
            print(f"pod {pod.name} is up in {time.monotonic() - started:.1f} s\n")
        else:
            print(f"bngpod demo: pod {pod.name} is up already; using it (it stays up afterwards)\n")
        status = emu.status()
        for name, proc in status["processes"].items():
            print(f"  {name:<18} pid {proc['pid']}")
        print(f"  namespaces:        {' '.join(sorted(status['namespaces']))}\n")

        fold_ok = fold_probe(pod) if opts.fold else True

        chosen = choose(pod, opts)
        if opts.seba:
            seba.update(_seba_start(pod, state, seba))
        emulators = start_emulators(pod, state, chosen, opts.rate)
        kinds = ", ".join(f"{e.label} ({e.count} {e.kind})" for e in emulators)
        print(f"dialling {len(chosen)} subscribers: bng-subemu on {kinds}")
        ds = _dual_stack(pod, state, chosen, opts.ipoe)
        ctx = {"started": time.monotonic(), "emulators": emulators, "rate": opts.rate, "load": [], "top": opts.top}
        ctx["ds"] = ds
        ctx["peak_setup"] = 0.0
        ctx["seba"] = seba or None
        keys = Keys(live)
        if live:
            print("q or Ctrl-C: hang up, tear the pod down and quit\n")

        # Dial: until every subscriber is up (or the time is up), then the downstream load.
        deadline = time.monotonic() + DIAL_TIMEOUT
        if duration is not None:
            deadline = min(deadline, ctx["started"] + duration * 0.6)
        prev, first = None, None
        load_started = opts.load <= 0
        next_print = time.monotonic() + interval
        end = ctx["started"] + duration if duration is not None else None
        stop = False
        while not stop:
            for e in emulators:
                if e.proc.poll() is not None:
                    raise DemoError(f"bng-subemu {e.label} exited ({e.proc.returncode}): see {e.out.parent}")
            cur = sample(pod, emulators)
            if seba:
                _seba_sample(seba["view"])
            if first is None and load_started:
                first = cur
            all_up = sum(int(s.get("up", 0)) for s in cur.emulators.values()) >= len(chosen)
            if not load_started and (all_up or time.monotonic() > deadline):
                ctx["load"] = start_load(pod, state, emulators, opts.load)
                load_started = True
            if live and (prev is not None or not opts.fold):  # the fold's table stays one refresh
                # Home and clear: the dashboard may be taller than the terminal.
                text = render(pod, cur, prev, ctx)
                sys.stdout.write(f"\x1b[H\x1b[2J{text}\n\nq or Ctrl-C: hang up and tear down\n")
                sys.stdout.flush()
            elif time.monotonic() >= next_print or (end is not None and time.monotonic() >= end - 1):
                print(render(pod, cur, prev, ctx) + "\n", flush=True)
                next_print = time.monotonic() + interval
            if prev is not None and cur.setups is not None and prev.setups is not None:
                ctx["peak_setup"] = max(ctx["peak_setup"], _rate(cur.setups, prev.setups, cur.dt(prev, "setups")))
            prev = cur
            if end is not None and time.monotonic() >= end:
                break
            stop = keys.wait(min(2.0, interval))
        last = prev
        why = [] if fold_ok else ["the fold probe saw a frame arrive at the wrong place"]
        why += verdict(pod, first, last, emulators, ctx["load"], ctx)
        if stop:
            print("stopping (asked to)")
            why = []
        return _finish(emulators, why, seba, strict=not stop)
    except (KeyboardInterrupt, _Stop):
        print("\nstopping (signal)")
        return 0 if not emulators else _finish(emulators, [], seba, strict=False)
    except (emu.EmuError, DemoError, sebademo.SebaError) as exc:
        print(f"bngpod demo: {exc}", file=sys.stderr)
        return 2
    finally:
        if keys is not None:
            keys.restore()
        _teardown(emulators, ours)
        signal.signal(signal.SIGTERM, old_term)


def choose(pod: m.Pod, opts: Options) -> list[dict]:
    """The subscribers the demo dials (users.json entries)."""
    generated = emu.generated_users()
    dialable = [u for u in generated if not users.is_ipoe(u)]
    if opts.ipoe:
        dialable = [u for u in generated if not users.is_ipoe(u) or u in ipoe_subscribers(pod, generated)]
    chosen = pick_subscribers(pod, dialable, opts.subscribers)
    if not chosen:
        raise DemoError("users.json lists no subscriber to dial")
    return chosen


def _seba_provision(pod: m.Pod, opts: Options) -> dict:
    """--seba, once the controller and the broker run (before bng-cp): the subscribers the demo
    will dial provisioned as SEBA does it (sebademo.py)."""
    us = sebademo.unis(pod, choose(pod, opts))
    print(f"SEBA: provisioning {len(us)} UNIs through org.bngpod.seba's SADIS, olt app and netcfg ...")
    summary = sebademo.provision(pod, us)
    print(
        f"SEBA: {summary['requests']} requests in {summary['sent_s']:.1f} s; org.bngpod.seba mapped every UNI "
        f"onto its line in {summary['mapped_s']:.1f} s"
    )
    return {"unis": us, "summary": summary}


_TAIL: list[subprocess.Popen] = []  # the running Kafka consumer


def _seba_start(pod: m.Pod, state: emu.State, seba: dict) -> dict:
    """--seba, once bng-cp runs: wait for its copy of the subscribers table, start the Kafka consumer."""
    if not seba:
        raise DemoError("--seba: the SEBA provisioning did not run")
    us = seba["unis"]
    seba["summary"]["pulled_s"] = sebademo.wait_cp_pull(pod, len(us))
    print(f"SEBA: bng-cp's copy of the subscribers table holds the {len(us)} lines")
    out = emu.run_dir() / "demo" / "kafka-tail.jsonl"
    out.unlink(missing_ok=True)
    _TAIL.append(kafka.start_tail(state, pod, "kafka-tail", "bngpod-demo", list(sebademo.TOPICS), out))
    print(f"SEBA: KafkaTail reads {', '.join(sebademo.TOPICS)} from {kafka.bootstrap(pod)} into {out}\n")
    return {"view": sebademo.SebaView(out, us)}


def _seba_sample(view: sebademo.SebaView) -> None:
    view.poll()
    try:
        got = emu.cp_api("/v1/sessions", timeout=2)
    except (OSError, emu.EmuError, ValueError):
        return
    view.cp_sessions(got.get("sessions", got) if isinstance(got, dict) else got)


def stop_tail() -> None:
    _stop_all(_TAIL, grace=15)


def _seba_after_hangup(seba: dict) -> list[str]:
    """Until bng.pppoe carried a SESSION_TERMINATION after every SESSION_CONFIRMATION (at most
    SEBA_TERMINATION_WAIT): why not ([] when it did)."""
    view = seba["view"]
    deadline = time.monotonic() + SEBA_TERMINATION_WAIT
    while True:
        view.poll()
        up, ended = view.confirmed() & view.unis.keys(), view.terminated()
        if up <= ended or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    print(
        f"  bng.pppoe: SESSION_TERMINATION after the SESSION_CONFIRMATION of {len(up & ended)} of {len(up)} UNIs; "
        f"{view.pppoe} records in all ({', '.join(f'{k} {v}' for k, v in sorted(view.types.items()))}), "
        f"bng.stats {view.stats_records}"
    )
    missing = sorted(view.unis[k].name for k in up - ended)
    if not missing:
        return []
    return [f"bng.pppoe carried no SESSION_TERMINATION for {len(missing)} UNIs after the hang-up ({missing[0]}, ...)"]


_DUAL: list = []  # the running dual-stack subscriber


def _dual_stack(pod: m.Pod, state: emu.State, users: list[dict], ipoe: bool = False) -> list:
    """Start the dual-stack subscribers: a PPPoE one and, with ipoe, an IPoE one ([] in a pod
    without IPv6; one is left out when there is no spare user of its kind)."""
    if not pod.ipv6_pools:
        return []
    from . import dualstack

    started = []
    taken = {u["user"] for u in users}
    for kind in ("pppoe", "ipoe") if ipoe else ("pppoe",):
        user = dualstack.pick(pod, emu.generated_users(), taken, ipoe=kind == "ipoe")
        if user is None:
            print(f"no spare {kind} subscriber of a line group with IPv6: no {kind} dual-stack subscriber this time")
            continue
        ds = dualstack.DualStackSubscriber(pod, user)
        ds.start(state, users)
        _DUAL.append(ds)
        started.append(ds)
        flags = "--ipoe --dual-stack" if kind == "ipoe" else "--dual-stack"
        print(f"dialling {user['user']} dual stack (IPv4 + IPv6) with bng-subemu {flags} on {user['port']}")
    return started


def stop_dual_stack() -> None:
    while _DUAL:
        _DUAL.pop().stop()


def _finish(emulators: list[Emulator], why: list[str], seba: dict | None = None, strict: bool = True) -> int:
    """Hang up, report, and the verdict (exit code); with strict, a SEBA stream without the
    terminations fails it too."""
    print("hanging up: bng-subemu sends a PADT for every session ...")
    stop_dual_stack()
    stop_emulators(emulators)
    stop_load()
    for e in emulators:
        final = e.final() or {}
        print(
            f"  {e.label}: {final.get('ever_up', '?')} of {e.count} came up, "
            f"{final.get('tx_pkts', '?')} datagrams sent, {final.get('rx_pkts', '?')} echoed, "
            f"{final.get('lost', '?')} lost"
        )
    try:
        left = sum(int(v.get("sessions") or 0) for v in emu.cp_api("/v1/instances", timeout=2))
        deadline = time.monotonic() + 5
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = sum(int(v.get("sessions") or 0) for v in emu.cp_api("/v1/instances", timeout=2))
        print(f"  the control plane holds {left} session(s) after the hang-up")
    except (OSError, emu.EmuError, ValueError):
        pass
    if seba and "view" in seba:
        ended = _seba_after_hangup(seba)
        if strict:
            why = why + ended
    if why:
        print("bngpod demo: the pod did not work as shown:", file=sys.stderr)
        for reason in why:
            print(f"  - {reason}", file=sys.stderr)
        return 1
    return 0


_LOAD: list[subprocess.Popen] = []  # the running load generator


def _stop_all(procs: list[subprocess.Popen], grace: float) -> None:
    """SIGTERM each process of procs (emptied), SIGKILL after grace seconds."""
    while procs:
        proc = procs.pop()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stop_load() -> None:
    _stop_all(_LOAD, grace=5)


def _teardown(emulators: list[Emulator], ours: bool) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not stop the clean-up half-way
    try:
        stop_dual_stack()
        stop_emulators(emulators, timeout=5)
        stop_load()
        stop_tail()
        if not ours:
            return
        print("tearing the pod down ...")
        removed = emu.down(quiet=True)
        left = emu.our_namespaces()
        if left:
            print(f"could not remove {', '.join(left)}: run `bngpod down`", file=sys.stderr)
        else:
            print(f"removed {len(removed)} item(s); nothing of the pod is left")
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
