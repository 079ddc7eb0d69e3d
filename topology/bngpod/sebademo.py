"""The demo's SEBA side (`bngpod demo --seba`, `make demo SEBA=1`; docs/seba.md, "What you
will see"): the dialled subscribers provisioned as SEBA provisions them, and what an OSS reads
of them on Kafka.

Provisioning goes to the controller's lab side (SebaPodController: its SADIS server, its olt
app stand-in and org.bngpod.seba's netcfg; launch/controller.py seba_lab_many), once the
controller and the broker run and before bng-cp starts, in one batch over one connection:

- a UNI per dialled subscriber, named as BBSim names them: each access port is an OLT (device
  `of:00000a0a0a0a0a0a`, `...0b`, ... in the order of the pod file's access ports), the
  subscriber's S-tag a PON port of it (its index among the S-tags dialled on that port), its
  C-tag an ONU (numbered from 1 per PON port); ONU serial `BBSM00<olt><pon><onu>` (hex bytes),
  UNI name `<serial>-1`, UNI port number `pon << 12 | onu << 4` (VOLTHA's openolt numbering,
  UNI index 0);
- per QoS profile of the dialled groups two bandwidth profiles in BBSim's IETF format,
  `<profile>-down` and `<profile>-up`: `pir` the profile's peak (downstream rate, upstream
  PIR), `cir` its guaranteed rate (downstream `guaranteed` or 0, upstream CIR), in kbit/s;
  `pbs`/`cbs` 20 ms of them in kbit;
- per UNI its SADIS entry in BBSim's format: `circuitId` and `nasPortId` the UNI name,
  `remoteId` the ONU serial, one service `hsia` with the subscriber's S-tag and C-tag as
  `ponSTag`/`ponCTag`, technology profile 64, PPPoE required, its group's profiles;
- org.bngpod.seba's netcfg: every OLT cabled to its access port, `statsPeriod` 5 s, `holdDown`
  10 s and the `kafka` section naming the pod's broker;
- the olt app's UNI_ADDED for every UNI.

Then it waits until org.bngpod.seba maps every UNI onto its line, and (after bng-cp started)
until bng-cp's copy of the subscribers table holds them all, so every PADR finds its identity.

The OSS side: KafkaTail (voltha-adapters/kafka-tail, a real Kafka consumer) in bngpod-mgmt reads
bng.pppoe and bng.stats from the pod's broker into a JSON-lines file that SebaView reads on each
refresh, never waiting for it."""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

from . import controller as files
from . import model as m
from .launch import controller as ctl
from .launch import cp as cp_launch
from .launch import kafka

TOPICS = ("bng.pppoe", "bng.stats")
STATS_PERIOD = 5  # s, org.bngpod.seba's statsPeriod
HOLD_DOWN = 10  # s, its holdDown (the demo posts no UNI_REMOVED: its subscribers hang up)
TECH_PROFILE = 64  # BBSim's technology profile
SERVICE = "hsia"
BURST_S = 0.02  # a bandwidth profile's bursts: 20 ms of its rates
MAP_TIMEOUT = 60.0  # for org.bngpod.seba to map every UNI
PULL_TIMEOUT = 45.0  # for bng-cp's copy of the table (it pulls at start and every 30 s)
LATEST = 6  # bng.pppoe records on the dashboard
# bng.pppoe's event types in the order a session goes through them (others follow)
EVENT_ORDER = ("SESSION_INIT", "AUTH_SUCCESS", "AUTH_FAILURE", "SESSION_CONFIRMATION", "IPCP_CONF_ACK",
               "SESSION_TERMINATION")  # fmt: skip


class SebaError(Exception):
    pass


def check(pod: m.Pod, path: str) -> None:
    """What --seba needs: a pod file with `seba: {kafka: true}`, the controller with
    org.bngpod.seba and the consumer built."""
    if not pod.seba or pod.kafka_port is None:
        raise SebaError(
            f"--seba: pod {pod.name} ({path}) has no `seba: {{kafka: true}}` section (org.bngpod.seba in the "
            "controller mode and a Kafka broker in the pod); try topology/examples/seba.yaml"
        )
    why = ctl.missing(pod) or kafka.missing() or kafka.tail_missing()
    if why:
        raise SebaError(f"--seba: {why}")


@dataclass(frozen=True)
class Uni:
    """A dialled subscriber's UNI, as the olt app and SADIS know it."""

    user: str
    group: str
    port: str  # the access port its OLT is cabled to
    stag: int
    ctag: int
    olt: str  # the OLT's device id
    number: int  # the UNI's port number on the OLT
    serial: str  # the ONU's serial number

    @property
    def name(self) -> str:
        return f"{self.serial}-1"

    @property
    def key(self) -> tuple[str, str]:
        """(deviceId, portNumber) as SEBA's events carry the UNI."""
        return self.olt, str(self.number)


def olt_device(index: int) -> str:
    return f"of:00000a0a0a0a0a{0x0A + index:02x}"


def unis(pod: m.Pod, chosen: list[dict]) -> list[Uni]:
    """The UNIs of the subscribers chosen (users.json entries), in their order."""
    access = [p.name for p in pod.ports_with_role("access")]
    pons: dict[str, list[int]] = {}
    onus: Counter = Counter()
    out = []
    for u in chosen:
        olt = access.index(u["port"])
        stags = pons.setdefault(u["port"], [])
        if u["stag"] not in stags:
            stags.append(u["stag"])
        pon = stags.index(u["stag"])
        onus[(olt, pon)] += 1
        onu = onus[(olt, pon)]
        if pon > 0xFF or onu > 0xFF:
            raise SebaError(f"{u['user']}: more than 255 PON ports on {u['port']} or ONUs on S-tag {u['stag']}")
        out.append(Uni(
            u["user"], u["line_group"], u["port"], u["stag"], u["ctag"], olt_device(olt), pon << 12 | onu << 4,
            f"BBSM00{olt:02X}{pon:02X}{onu:02X}",
        ))  # fmt: skip
    return out


def bandwidth_profiles(q: m.QosProfile) -> list[dict]:
    """The QoS profile's rates as SADIS bandwidth profiles in BBSim's IETF format (kbit/s, kbit)."""

    def doc(name: str, peak: int, guaranteed: int) -> dict:
        pir, cir = peak // 1000, min(guaranteed, peak) // 1000
        return {"id": name, "cir": cir, "cbs": int(cir * BURST_S), "pir": pir, "pbs": max(1, int(pir * BURST_S))}

    return [doc(f"{q.name}-down", q.down_rate, q.down_guaranteed or 0), doc(f"{q.name}-up", q.up_pir, q.up_cir)]


def subscriber(u: Uni, profile: str) -> dict:
    """The UNI's SADIS entry in BBSim's format."""
    return {
        "id": u.name, "nasPortId": u.name, "circuitId": u.name, "remoteId": u.serial,
        "uniTagList": [{
            "ponCTag": u.ctag, "ponSTag": u.stag, "technologyProfileId": TECH_PROFILE,
            "upstreamBandwidthProfile": f"{profile}-up", "downstreamBandwidthProfile": f"{profile}-down",
            "isPppoeRequired": True, "serviceName": SERVICE,
        }],
    }  # fmt: skip


def netcfg(pod: m.Pod) -> dict:
    """org.bngpod.seba's config: each access port an OLT's NNI, and the pod's broker."""
    access = pod.ports_with_role("access")
    return {
        "olts": [{"deviceId": olt_device(i), "accessPort": p.name} for i, p in enumerate(access)],
        "statsPeriod": STATS_PERIOD,
        "holdDown": HOLD_DOWN,
        "kafka": {"bootstrapServers": kafka.bootstrap(pod)},
    }


def requests(pod: m.Pod, us: list[Uni]) -> list[tuple[str, str, object]]:
    """The lab side's requests that provision us: profiles, SADIS entries, netcfg, UNI_ADDED."""
    profile_of = {g.name: g.qos_profile for g in pod.groups}
    used = {profile_of[u.group].name: profile_of[u.group] for u in us}
    out: list[tuple[str, str, object]] = []
    for q in used.values():
        out += [("PUT", f"/sadis/bandwidthprofiles/{bp['id']}", bp) for bp in bandwidth_profiles(q)]
    out += [("PUT", f"/sadis/subscribers/{u.name}", subscriber(u, profile_of[u.group].name)) for u in us]
    out.append(("POST", "/netcfg", netcfg(pod)))
    out += [
        ("POST", "/olt/events", {"type": "UNI_ADDED", "deviceId": u.olt, "port": u.number, "name": u.name}) for u in us
    ]
    return out


def mapped(pod: m.Pod) -> tuple[set[tuple[str, str]], list[str]]:
    """The UNIs org.bngpod.seba maps onto a line ((deviceId, port)) and its problems."""
    status, body = ctl.api(pod, "GET", "/subscribers", user=files.VIEWER_USER, app="/onos/bngpod-seba")
    if status != 200 or not isinstance(body, dict):
        raise SebaError(f"GET /onos/bngpod-seba/subscribers answered {status}: {body}")
    lines = body.get("subscribers") or []
    return {(str(x["uni"]["deviceId"]), str(x["uni"]["port"])) for x in lines}, list(body.get("problems") or [])


def provision(pod: m.Pod, us: list[Uni]) -> dict:
    """Provision us through the lab side and wait until org.bngpod.seba maps them all: what
    was done and how long it took."""
    reqs = requests(pod, us)
    started = time.monotonic()
    try:
        answers = ctl.seba_lab_many(pod, reqs)
    except OSError as exc:
        where = f"{pod.control_plane.address}:{ctl.SEBA_CONTROL_PORT}"
        raise SebaError(f"the controller's SEBA lab side ({where}): {exc}") from None
    refused = [f"{r[0]} {r[1]}: {a[0]} {a[1].strip()}" for r, a in zip(reqs, answers, strict=True) if a[0] != 204]
    if refused:
        raise SebaError(f"the SEBA lab side refused {len(refused)} of {len(reqs)} requests: {refused[0]}")
    sent = time.monotonic() - started
    want = {u.key for u in us}
    deadline = time.monotonic() + MAP_TIMEOUT
    while True:
        got, problems = mapped(pod)
        if want <= got:
            break
        if time.monotonic() > deadline:
            why = "; ".join(problems[:3]) or "no problem reported"
            have = len(want & got)
            raise SebaError(f"org.bngpod.seba mapped {have} of {len(want)} UNIs in {MAP_TIMEOUT:.0f} s: {why}")
        time.sleep(0.3)
    profiles = sum(1 for r in reqs if r[1].startswith("/sadis/bandwidthprofiles/"))
    return {"unis": len(us), "olts": len({u.olt for u in us}), "profiles": profiles, "requests": len(reqs),
            "sent_s": sent, "mapped_s": time.monotonic() - started}  # fmt: skip


def wait_cp_pull(pod: m.Pod, count: int) -> float:
    """Until bng-cp's copy of the subscribers table holds count lines: seconds waited."""
    started = time.monotonic()
    while True:
        try:
            have = cp_launch.metrics(pod, timeout=2).get("bngcp_onos_subscribers")
        except OSError:
            have = None
        if have is not None and have >= count:
            return time.monotonic() - started
        if time.monotonic() - started > PULL_TIMEOUT:
            raise SebaError(f"bng-cp's copy of the SEBA subscribers table holds {have} of {count} lines after "
                            f"{PULL_TIMEOUT:.0f} s (bngcp_onos_subscribers)")  # fmt: skip
        time.sleep(0.5)


# -- the OSS's view ----------------------------------------------------------------------------------------
class SebaView:
    """What KafkaTail printed so far: bng.pppoe's events (counts per eventType, the latest, per
    UNI in order) and bng.stats's latest record per session. poll() reads only what is new and
    never waits; lines that are not a record (or whose value is not a JSON object) are counted.
    Beside it, bng-cp's sessions (cp_sessions): whether each UNI's session carries its SADIS
    identity, which bng-cp puts into its RADIUS requests."""

    def __init__(self, out: Path, us: list[Uni]):
        self.out = out
        self.unis = {u.key: u for u in us}
        self.pos = 0
        self.rest = b""
        self.assigned = False
        self.pppoe = 0
        self.types: Counter = Counter()
        self.latest: deque = deque(maxlen=LATEST)
        self.events: dict[tuple[str, str], list[str]] = {}  # UNI -> eventTypes in order
        self.stats_records = 0
        self.stats: dict[tuple[str, str, str], dict] = {}  # (deviceId, port, session) -> latest record
        self.bad = 0
        self.identified: set[tuple[str, str]] = set()  # UNIs whose bng-cp session carries their SADIS identity
        self.unidentified: list[str] = []  # sessions up with another identity: why

    def poll(self) -> None:
        try:
            with open(self.out, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except OSError:
            return
        self.pos += len(data)
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()  # a line being written
        for line in lines:
            if line.strip():
                self._record(line)

    def _record(self, line: bytes) -> None:
        try:
            rec = json.loads(line)
        except ValueError:
            self.bad += 1
            return
        if isinstance(rec, dict) and "assigned" in rec:
            self.assigned = True
            return
        try:
            value = json.loads(rec["value"])
            topic = rec["topic"]
        except (TypeError, KeyError, ValueError):
            self.bad += 1
            return
        if not isinstance(value, dict):
            self.bad += 1
            return
        uni = (str(value.get("deviceId")), str(value.get("portNumber")))
        if topic == "bng.pppoe":
            kind = str(value.get("eventType"))
            self.pppoe += 1
            self.types[kind] += 1
            self.latest.append(value)
            self.events.setdefault(uni, []).append(kind)
        elif topic == "bng.stats":
            self.stats_records += 1
            self.stats[(*uni, str(value.get("pppoeSessionId")))] = value

    def cp_sessions(self, sessions: list[dict]) -> None:
        """bng-cp's sessions (GET /v1/sessions): which UNIs' sessions are established with Agent-Circuit-Id
        the UNI name and Agent-Remote-Id the ONU serial (SADIS's circuitId and remoteId)."""
        by_line = {(u.port, u.stag, u.ctag): u for u in self.unis.values()}
        wrong = []
        for s in sessions:
            u = by_line.get((s.get("access_port"), s.get("stag"), s.get("ctag")))
            if u is None or s.get("state") != "established":
                continue
            if (s.get("circuit_id"), s.get("remote_id")) == (u.name, u.serial):
                self.identified.add(u.key)
            else:
                wrong.append(f"{u.user}'s session has circuit id {s.get('circuit_id')!r}, remote id "
                             f"{s.get('remote_id')!r}, not SADIS's {u.name!r}, {u.serial!r}")  # fmt: skip
        self.unidentified = wrong

    def confirmed(self) -> set[tuple[str, str]]:
        return {k for k, kinds in self.events.items() if "SESSION_CONFIRMATION" in kinds}

    def terminated(self) -> set[tuple[str, str]]:
        """UNIs whose latest SESSION_CONFIRMATION was followed by a SESSION_TERMINATION."""
        out = set()
        for k, kinds in self.events.items():
            if "SESSION_CONFIRMATION" in kinds:
                last_up = len(kinds) - 1 - kinds[::-1].index("SESSION_CONFIRMATION")
                if "SESSION_TERMINATION" in kinds[last_up:]:
                    out.add(k)
        return out

    def with_stats(self) -> set[tuple[str, str]]:
        return {k[:2] for k in self.stats}

    def _name(self, device: str, port: str) -> str:
        u = self.unis.get((device, port))
        return u.name if u else f"{device}/{port}"

    def problems(self) -> list[str]:
        """Why the stream does not show every dialled session ([] when it does)."""
        why = []
        if self.bad:
            why.append(f"the Kafka consumer printed {self.bad} line(s) that are not a record with a JSON object")
        why += self.unidentified[:3]
        for what, have in (("bng-cp had no session with the SADIS identity", self.identified),
                           ("bng.pppoe carried no SESSION_CONFIRMATION", self.confirmed()),
                           ("bng.stats carried no record", self.with_stats())):  # fmt: skip
            missing = sorted(self.unis[k].name for k in self.unis.keys() - have)
            if missing:
                why.append(f"{what} for {len(missing)} of {len(self.unis)} UNIs ({', '.join(missing[:3])}, ...)")
        return why

    def panel(self, pod: m.Pod, summary: dict | None, top: int) -> list[str]:
        joining = "" if self.assigned else " (joining its group ...)"
        out = [f"SEBA: org.bngpod.seba publishes to Kafka at {kafka.bootstrap(pod)}; KafkaTail (a Kafka consumer in "
               f"bngpod-mgmt) reads {' and '.join(TOPICS)}{joining}"]  # fmt: skip
        if summary:
            out.append(
                f"  provisioned {summary['unis']} UNIs on {summary['olts']} OLTs (SADIS entries, {summary['profiles']} "
                f"bandwidth profiles, netcfg, UNI_ADDED: {summary['requests']} requests in {summary['sent_s']:.1f} s); "
                f"org.bngpod.seba mapped them in {summary['mapped_s']:.1f} s, bng-cp pulled them "
                f"{summary.get('pulled_s', 0):.1f} s later"
            )
        out.append(
            f"  bng-cp: {len(self.identified)} of {len(self.unis)} UNIs' sessions came up with their SADIS identity "
            "(Agent-Circuit-Id the UNI name, Agent-Remote-Id the ONU serial, as its RADIUS requests carry them)"
        )
        kinds = [k for k in EVENT_ORDER if k in self.types] + sorted(set(self.types) - set(EVENT_ORDER))
        counts = ", ".join(f"{k} {self.types[k]}" for k in kinds) or "none yet"
        up = len(self.confirmed() & self.unis.keys())
        out.append(
            f"  bng.pppoe: {self.pppoe} records ({counts}); SESSION_CONFIRMATION for {up} of {len(self.unis)} UNIs"
        )
        if self.latest:
            rows = [
                (str(e.get("timestamp", ""))[11:23], str(e.get("eventType")),
                 self._name(str(e.get("deviceId")), str(e.get("portNumber"))), str(e.get("macAddress")),
                 str(e.get("ipAddress")), str(e.get("sessionId")) or "-")
                for e in reversed(self.latest)
            ]  # fmt: skip
            out.append(_table(("time", "eventType", "UNI", "MAC", "IPv4", "session"), rows, "    "))
        sessions = sorted(self.stats.values(), key=lambda s: -_num(s.get("downTxBytes")))
        out.append(
            f"  bng.stats: {self.stats_records} records (every {STATS_PERIOD} s per session), {len(sessions)} sessions;"
            f" the latest of the top {min(top, len(sessions))} by downTxBytes:"
        )
        rows = [
            (self._name(str(s.get("deviceId")), str(s.get("portNumber"))), f"{s.get('sTag')}/{s.get('cTag')}",
             str(s.get("ipAddress")), str(s.get("pppoeSessionId")),
             f"{_num(s.get('upTxBytes'))}/{_num(s.get('upTxPackets'))}",
             f"{_num(s.get('downTxBytes'))}/{_num(s.get('downTxPackets'))}",
             f"{_num(s.get('upDropPackets'))}/{_num(s.get('downDropPackets'))}", str(_num(s.get("controlPackets"))),
             str(s.get("timestamp", ""))[11:19])
            for s in sessions[:top]
        ]  # fmt: skip
        if rows:
            header = ("UNI", "S/C-tag", "IPv4", "session", "up bytes/pkts", "down bytes/pkts", "drops up/down",
                      "control", "at")  # fmt: skip
            out.append(_table(header, rows, "    "))
        return out


def _num(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], indent: str) -> str:
    from .demo import table

    return table(header, rows, indent)
