"""make bench-seba: the session setup rate through the whole emulated pod in controller mode
with org.bngpod.seba off and on (docs/benchmarks.md, "Reporting to ONOS: events on and off").

Every point runs on a fresh pod (`bngpod up --controller`, topology/examples/bench.yaml by
default, N/groups subscribers per line group), the modes interleaved (A, B, C, A, B, C, ...
ROUNDS times), so that the machine's load drifts over all modes alike:

- off: the pod file as it is (no `seba` section): the controller is onos-app's PodController
  and bng-cp reports its sessions to org.bngpod.app only (`POST /sessions/events`; its pulls
  of the SEBA subscribers table and teardowns are answered 404);
- seba: the same pod file with `seba: {}`: the controller is SebaPodController
  (org.bngpod.seba's SebaManager, PppoeEventProvider and BngStatsProvider beside
  org.bngpod.app). Before the measured window, through the controller's lab side, one
  request at a time: BBSim's MEF bandwidth profiles User_Bandwidth1 (up) and User_Bandwidth2
  (down), one SADIS entry per dialled subscriber (UNI `BBSM<k:08d>-1`, its line's S- and
  C-tag as ponSTag/ponCTag, identities from the UNI name), the netcfg cabling one OLT
  (`of:<0xa0 + port number>`) to each access port, and one UNI_ADDED per UNI; then the Java
  app's table holds every line and bng-cp has pulled it (bngcp_onos_subscribers = N). In the
  window bng-cp looks every line up, puts SADIS's identity into its RADIUS requests and posts
  SESSION_INIT and AUTH_SUCCESS to /onos/bngpod-seba/pppoe-events; the providers turn those
  and the session reports into bng-api events (no listener: SEBA's kafka-onos is absent);
- seba+kafka: as seba, with `seba: {kafka: true}` (`bngpod up` starts the pod's Kafka broker)
  and the netcfg's `kafka` section: org.bngpod.seba's KafkaOssPublisher (which SebaPodController
  starts on that section) publishes bng.pppoe and bng.stats to that broker; afterwards a real
  Kafka consumer (KafkaCount.java) counts what reached each topic.

Per point, bench_pod.bench_setup: one bng-subemu per access port dials all N at once
(1,000 in flight per emulator), one UDP echo a second per session; `sessions_per_second` =
sessions whose first echo came back / (last first echo - first PADI); `ipcp_sessions_per_second`
= the same to IPCP up; PADI-to-IPCP p50/p99; CPU per part (controller, bng-cp, bng-dp, OVS,
FreeRADIUS, the broker, the emulators) per session. Checks, once all are up: every session in
org.bngpod.app (`GET /sessions`); in the seba modes bng-cp's PPPoE events as the Java app
answered them (posted, unmapped) and FreeRADIUS's Accounting-Start records carrying SADIS's
NAS-Port-Id; with kafka, the records in bng.pppoe (by eventType) and bng.stats. One JSON line
per point, then one summary line per mode (medians and spreads) and the load averages. Needs
root and the netns lock (bench_seba.sh takes it)."""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "topology"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pod import bench_setup, wait_cp_empty  # noqa: E402

from bngpod import clients, emu, radius, validate  # noqa: E402
from bngpod import controller as ctlfiles  # noqa: E402
from bngpod.launch import controller as ctl  # noqa: E402
from bngpod.launch import kafka  # noqa: E402
from bngpod.rawsock import in_netns  # noqa: E402

POD = REPO / "topology" / "examples" / "bench.yaml"
MODES = ("off", "seba", "seba+kafka")
BANDWIDTH = REPO / "voltha-adapters" / "seba" / "src" / "test" / "resources" / "sadis" / "bp-mef"
UP_PROFILE, DOWN_PROFILE = "User_Bandwidth1", "User_Bandwidth2"  # BBSim's MEF profiles
KAFKA_COUNT = Path(__file__).resolve().parent / "KafkaCount.java"
TOPICS = ("bng.pppoe", "bng.stats")
SEBA_PATH = "/onos/bngpod-seba"


def log(msg: str) -> None:
    print(f"bench-seba: {msg}", file=sys.stderr, flush=True)


def parse_modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if not modes or bad or len(set(modes)) != len(modes):
        raise ValueError(f"{text!r}: each of {', '.join(MODES)} at most once")
    return modes


def pod_doc(base: dict, mode: str) -> dict:
    """The pod file of a mode: the base as it is (off), with `seba: {}`, or with the broker."""
    if "seba" in base:
        raise ValueError("the base pod file has a seba section already; give one without")
    doc = copy.deepcopy(base)
    if mode == "seba":
        doc["seba"] = {}
    elif mode == "seba+kafka":
        doc["seba"] = {"kafka": True}
    elif mode != "off":
        raise ValueError(f"unknown mode {mode!r}")
    return doc


def olt_id(port) -> str:
    """The OLT cabled to an access port: of:<0xa0 + the port's number>."""
    return f"of:{0xA0 + port.number:016x}"


def netcfg(pod, kafka_on: bool) -> dict:
    """org.bngpod.seba's netcfg: one OLT per access port; the broker when kafka_on."""
    cfg: dict = {"olts": [{"deviceId": olt_id(p), "accessPort": p.name} for p in pod.ports_with_role("access")]}
    if kafka_on:
        cfg["kafka"] = {"bootstrapServers": kafka.bootstrap(pod)}
    return cfg


def sadis_entries(pod, users: list[dict]) -> list[tuple[str, dict, dict]]:
    """Per subscriber (k from 1): its UNI's name, its SADIS entry (BBSim's format) and the
    olt app's UNI_ADDED of it (ONU k, UNI 0: port 16k on its port's OLT)."""
    olts = {p.name: olt_id(p) for p in pod.ports_with_role("access")}
    out = []
    for k, u in enumerate(users, 1):
        serial = f"BBSM{k:08d}"
        uni = f"{serial}-1"
        service = {
            "ponCTag": u["ctag"], "ponSTag": u["stag"], "technologyProfileId": 64,
            "upstreamBandwidthProfile": UP_PROFILE, "downstreamBandwidthProfile": DOWN_PROFILE,
            "isPppoeRequired": True, "serviceName": "hsia",
        }  # fmt: skip
        doc = {"id": uni, "nasPortId": uni, "circuitId": uni, "remoteId": serial, "uniTagList": [service]}
        event = {"type": "UNI_ADDED", "deviceId": olts[u["port"]], "port": 16 * k, "name": uni}
        out.append((uni, doc, event))
    return out


def lab(pod, method: str, path: str, body) -> None:
    status, answer = ctl.seba_lab(pod, method, path, body)
    if status != 204:
        raise RuntimeError(f"the controller's lab side: {method} {path}: {status} {answer.strip()}")


def seba_get(pod, path: str):
    """GET /onos/bngpod-seba/PATH as bng-cp's user: (status, JSON)."""
    state = emu.State.load()
    password = ctlfiles.users(Path(state.data["controller"]["generated"]))[ctlfiles.CP_USER]
    with in_netns(emu.MGMT_NS):
        return clients.rest(str(pod.control_plane.address), ctlfiles.CONTROLLER_PORT, "GET", SEBA_PATH + path,
                            ctlfiles.CP_USER, password, None, 30.0)  # fmt: skip


def metric_sum(metrics: dict[str, float], name: str) -> dict[str, float]:
    """A counter's values by its `result` label."""
    out = {}
    for key, v in metrics.items():
        if key.startswith(name + "{"):
            label = key.split('result="', 1)[1].split('"', 1)[0] if 'result="' in key else key
            out[label] = out.get(label, 0) + v
    return out


def wait_for(what: str, check, timeout: float, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} within {timeout:g} s")
        time.sleep(every)


def load_seba(pod, users: list[dict], kafka_on: bool) -> dict:
    """SADIS, netcfg and UNI_ADDED through the lab side, until bng-cp holds every line."""
    t0 = time.monotonic()
    for bp in (UP_PROFILE, DOWN_PROFILE):
        lab(pod, "PUT", f"/sadis/bandwidthprofiles/{bp}", (BANDWIDTH / f"{bp}.json").read_bytes())
    entries = sadis_entries(pod, users)
    for uni, doc, _ in entries:
        lab(pod, "PUT", f"/sadis/subscribers/{uni}", json.dumps(doc))
    lab(pod, "POST", "/netcfg", netcfg(pod, kafka_on))
    for _, _, event in entries:
        lab(pod, "POST", "/olt/events", event)
    t_lab = time.monotonic() - t0
    n = len(entries)

    def mapped():
        status, body = seba_get(pod, "/subscribers")
        if status != 200:
            return None
        if body.get("problems"):
            raise RuntimeError(f"org.bngpod.seba: {body['problems'][:3]}")
        return len(body["subscribers"]) >= n

    # the controller's SADIS stand-in answers a look-up in tens of ms here (3 per UNI)
    wait_for(f"{n} lines in org.bngpod.seba's table", mapped, 60 + n / 4, every=2.0)
    t_app = time.monotonic() - t0
    # bng-cp pulls the table at its start and every 30 s
    wait_for(f"bng-cp's pull of {n} lines", lambda: emu.cp_metrics(pod).get("bngcp_onos_subscribers") == n, 45)
    log(f"  SEBA side loaded: {2 * n + 3} lab requests in {t_lab:.1f} s, the app's table {t_app:.1f} s, "
        f"bng-cp's pull {time.monotonic() - t0:.1f} s")  # fmt: skip
    return {"lab_requests": 2 * n + 3, "lab_s": round(t_lab, 1), "table_s": round(t_app, 1),
            "pulled_s": round(time.monotonic() - t0, 1)}  # fmt: skip


def radius_starts(pod) -> tuple[int, int]:
    """FreeRADIUS's Accounting-Start records: all, and those with a SADIS NAS-Port-Id."""
    path = emu.run_dir() / "radius" / pod.radius.servers[0].name / "detail"
    recs = radius.parse_detail(path.read_text(errors="replace")) if path.exists() else []
    starts = [r for r in recs if r.get("Acct-Status-Type") == "Start"]
    return len(starts), sum(1 for r in starts if str(r.get("NAS-Port-Id", "")).startswith("BBSM"))


def app_sessions(pod) -> int:
    status, body = emu.controller_api(pod, "GET", "/sessions?limit=1", user=ctlfiles.VIEWER_USER, timeout=30.0)
    return body.get("total", 0) if status == 200 else 0


def post_counts(since_ms: float) -> dict[str, int]:
    """The controller's POSTs since since_ms, by path."""
    out: dict[str, int] = {}
    for e in emu.controller_events():
        if e.get("event") == "request" and e.get("t", 0) >= since_ms:
            out[e["path"]] = out.get(e["path"], 0) + 1
    return out


def make_check(pod, n: int, mode: str, since_ms: float):
    """What bench_setup calls once all are up: every session in org.bngpod.app, and in the
    seba modes its PPPoE events answered by org.bngpod.seba and SADIS's identity in RADIUS."""

    def check() -> dict:
        t0 = time.monotonic()
        got: dict = {}
        try:
            got["app_sessions"] = wait_for("every session in org.bngpod.app", lambda: (lambda k: k if k >= n else 0)(
                app_sessions(pod)), 30)  # fmt: skip
        except RuntimeError:
            got["app_sessions"] = app_sessions(pod)
        got["app_all_reported_s"] = round(time.monotonic() - t0, 1)
        if mode != "off":

            def posted():
                r = metric_sum(emu.cp_metrics(pod), "bngcp_onos_pppoe_events_total")
                return r if r.get("posted", 0) >= 2 * n else None

            try:
                got["pppoe_events"] = wait_for("2 PPPoE events a session posted to org.bngpod.seba", posted, 15)
            except RuntimeError:
                got["pppoe_events"] = metric_sum(emu.cp_metrics(pod), "bngcp_onos_pppoe_events_total")
            try:
                starts = wait_for("an Accounting-Start a session", lambda: (lambda s: s if s[0] >= n else None)(
                    radius_starts(pod)), 15)  # fmt: skip
            except RuntimeError:
                starts = radius_starts(pod)
            got["radius_starts"], got["radius_starts_sadis_nas_port_id"] = starts
        else:
            got["radius_starts"], got["radius_starts_sadis_nas_port_id"] = radius_starts(pod)
        got["controller_posts"] = post_counts(since_ms)
        got["onos_events"] = metric_sum(emu.cp_metrics(pod), "bngcp_onos_events_total")
        got["seconds"] = round(time.monotonic() - t0, 1)
        return got

    return check


def kafka_records(pod) -> dict:
    """Records in bng.pppoe (by eventType) and bng.stats, read by a real Kafka consumer."""
    cp = kafka.CLASSPATH_FILE.read_text().strip()
    run = subprocess.run(
        ["ip", "netns", "exec", emu.MGMT_NS, "java", "-Xmx128m", "-cp", cp, str(KAFKA_COUNT), kafka.bootstrap(pod),
         *TOPICS],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    out = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            out[d["topic"]] = {"records": d["records"], "eventTypes": d["eventTypes"]}
    if run.returncode != 0 or len(out) != len(TOPICS):
        out["error"] = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1][:300]
    return out


def problems(res: dict, mode: str) -> list[str]:
    """What the checks found missing: a session not in org.bngpod.app, events not taken by
    org.bngpod.seba, RADIUS without SADIS's identity, nothing on Kafka."""
    c, n, out = res.get("checks") or {}, res["counted"], []
    if not res["complete"]:
        out.append(f"only {n} of {res['sessions']} sessions passed traffic")
    if c.get("app_sessions", 0) < n:
        out.append(f"{c.get('app_sessions')} of {n} sessions reached org.bngpod.app")
    if mode != "off":
        ev = c.get("pppoe_events") or {}
        if ev.get("posted", 0) < 2 * n or any(ev.get(k) for k in ("unmapped", "refused", "queue_full", "failed")):
            out.append(f"PPPoE events to org.bngpod.seba: {ev} for {n} sessions (2 each expected, all posted)")
        if c.get("radius_starts_sadis_nas_port_id", 0) < n:
            out.append(f"{c.get('radius_starts_sadis_nas_port_id')} of {n} Accounting-Starts with SADIS's NAS-Port-Id")
    if mode == "seba+kafka":
        k = c.get("kafka") or {}
        if "error" in k or not (k.get("bng.pppoe") or {}).get("records"):
            out.append(f"nothing read from bng.pppoe ({k}): does this controller load KafkaOssPublisher?")
    return out


def point(base: dict, mode: str, n: int, work: Path, concurrency: int, timeout: float) -> dict:
    source = work / f"bench-{mode.replace('+', '-')}.yaml"
    source.write_text(yaml.safe_dump(pod_doc(base, mode), sort_keys=False))
    pod = validate.load(source)
    groups = len(pod.groups)
    per_group = -(-n // groups)
    emu.down(quiet=True)
    t0 = time.monotonic()
    emu.up(pod, str(source), subscribers=per_group, controller=True)
    log(f"{mode}: pod up (controller mode) in {time.monotonic() - t0:.1f} s")
    try:
        all_users = json.loads((emu.users_dir() / "users.json").read_text())
        seba = load_seba(pod, all_users, mode == "seba+kafka") if mode != "off" else None
        total = per_group * groups
        load0 = os.getloadavg()
        since_ms = time.time() * 1000
        res = bench_setup(pod, all_users, total, 1.0, concurrency, timeout, check=make_check(pod, total, mode,
                                                                                             since_ms))  # fmt: skip
        load1 = os.getloadavg()
        if mode == "seba+kafka":
            res["checks"]["kafka"] = kafka_records(pod)
        res["problems"] = problems(res, mode)
        for p in res["problems"]:
            log(f"  {mode}: {p}")
        left = wait_cp_empty(30)
        if left:
            log(f"  bng-cp still holds {left} sessions 30 s after the stop")
        return {
            "bench": "seba-setup", "mode": mode, **{k: v for k, v in res.items() if k != "bench"},
            "seba_load": seba,
            # 1, 5 and 15 min before the window, 1 min after it
            "loadavg": [round(x, 2) for x in (*load0, load1[0])],
        }  # fmt: skip
    finally:
        emu.down(quiet=True)


def spread(values: list[float]) -> dict:
    v = [x for x in values if x is not None]
    if not v:
        return {"runs": []}
    med = statistics.median(v)
    return {"runs": v, "median": round(med, 1), "min": min(v), "max": max(v),
            "spread": round((max(v) - min(v)) / med, 3) if med else None}  # fmt: skip


def summary(results: list[dict], modes: list[str]) -> list[dict]:
    """One line per mode: medians and spreads over its points."""
    out = []
    for mode in modes:
        rs = [r for r in results if r["mode"] == mode]
        if not rs:
            continue
        parts = sorted({k for r in rs for k in (r.get("cpu_ms_per_session") or {})})
        cpu = {p: round(statistics.median([r["cpu_ms_per_session"].get(p, 0.0) for r in rs
                                          if r.get("cpu_ms_per_session")]), 3) for p in parts}  # fmt: skip
        out.append({
            "bench": "seba-summary", "mode": mode, "points": len(rs),
            "sessions": sorted({r["sessions"] for r in rs}),
            "complete": all(r["complete"] for r in rs),
            "sessions_per_second": spread([r["sessions_per_second"] for r in rs]),
            "ipcp_sessions_per_second": spread([r["ipcp_sessions_per_second"] for r in rs]),
            "padi_to_ipcp_ms_p50": spread([r["padi_to_ipcp_ms_p50"] for r in rs]),
            "padi_to_ipcp_ms_p99": spread([r["padi_to_ipcp_ms_p99"] for r in rs]),
            "cpu_ms_per_session_median": cpu,
            "loadavg_1min": [r["loadavg"][0] for r in rs],
        })  # fmt: skip
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pod", default=str(POD), help="the base pod file, without a seba section (default bench.yaml)")
    ap.add_argument("--sessions", type=int, default=1000, help="subscribers dialled per point (default 1000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of all modes, interleaved (default 3)")
    ap.add_argument("--modes", default=",".join(MODES), help="modes, in their order in a round (default: %(default)s)")
    ap.add_argument("--concurrency", type=int, default=1000, help="dials in flight per emulator")
    ap.add_argument("--timeout", type=float, default=120.0, help="time limit of one setup run (s)")
    a = ap.parse_args(argv)
    try:
        modes = parse_modes(a.modes)
        if a.sessions < 1 or a.rounds < 1:
            raise ValueError("--sessions and --rounds must be at least 1")
        base = yaml.safe_load(Path(a.pod).read_text())
        for mode in modes:
            pod_doc(base, mode)
    except (ValueError, OSError, yaml.YAMLError) as e:
        print(f"bench-seba: {e}", file=sys.stderr)
        return 64
    if os.geteuid() != 0:
        print("bench-seba: needs root", file=sys.stderr)
        return 2
    work = emu.run_dir().parent / "bngpod-bench-seba"
    work.mkdir(parents=True, exist_ok=True)
    for mode in modes:
        probe = work / "probe.yaml"
        probe.write_text(yaml.safe_dump(pod_doc(base, mode), sort_keys=False))
        pod = validate.load(probe)
        why = emu.controller_missing(pod) or emu.binaries.missing(emu.binaries.BNG_SUBEMU)
        if not why and pod.kafka_port:
            why = kafka.missing()
        if why:
            print(f"bench-seba: {mode}: {why}", file=sys.stderr)
            return 2
    if emu.State.load() is not None:
        print("bench-seba: a pod is already up; run `bngpod down` first", file=sys.stderr)
        return 2
    results, failed = [], False
    t0 = time.monotonic()
    try:
        for r in range(a.rounds):
            for mode in modes:
                log(f"round {r + 1}/{a.rounds}, {mode}: {a.sessions} sessions")
                try:
                    res = point(base, mode, a.sessions, work, a.concurrency, a.timeout)
                except (RuntimeError, emu.EmuError, OSError) as e:
                    log(f"{mode}: FAILED: {e}")
                    failed = True
                    continue
                res["round"] = r + 1
                failed = failed or bool(res["problems"])
                results.append(res)
                print(json.dumps(res), flush=True)
        for line in summary(results, modes):
            print(json.dumps(line), flush=True)
    finally:
        emu.down(quiet=True)
        log(f"{'failed' if failed else 'done'} in {time.monotonic() - t0:.1f} s, load average now "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
