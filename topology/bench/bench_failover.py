"""make bench-failover: failover of a whole emulated pod with a standby (docs/benchmarks.md,
"Failover through the whole emulated pod").

Each point runs on a fresh pod: topology/examples/failover-bench.yaml (the failover pod,
lg1 with room for 16K subscribers) in controller mode (`bngpod up --controller`: the ONOS
app's own code steers the switch, bng-cp long-polls its placement), N subscribers of lg1,
all on dp1. Two bng-subemu on access1 dial them: a sample (the first SAMPLE) sending a UDP
echo every 50 ms, the rest one every 5 s; once every session's traffic flows and none is
dialling, and after WINDOW seconds of steady traffic, dp1 is killed with SIGKILL and not
restarted. bng-cp moves the sessions in no particular order (its session maps'), so the
sample is a random draw of the move's order. Then, on one wall clock:

- detect_ms: the kill to bng-cp's health report reaching the app (PFCP heartbeats lost:
  the pod file's control_plane.heartbeat_*, 250 ms x 3 tries of 250 ms);
- steer_ms: that report to the switch re-steered (the controller's push of the new
  placement's flow-mods, done);
- replace_ms: that report to bng-cp having re-established lg1's sessions on the standby
  (its "line group moved" log line);
- traffic_gap_ms p50/p99: per sampled session, the longest time between two echoes
  (bng-subemu's max_rx_gap_ms: the outage, plus up to one 50 ms interval);
- back_after_detect_ms p50/p99: per sampled session, the report to its first echo after
  the outage; the target is < 1,000 ms at 10K.

Also: sessions bng-cp holds on the standby, sessions up at the emulators; the WINDOW
seconds after the kill against the WINDOW seconds before it (sessions dialled again,
sessions the emulators dropped by reason, the sample's echo loss): a failover is invisible
to the subscriber, so after should look like before (the emulated pod at 10K sessions loses
some echoes and sessions of its own: veths, OVS's userspace datapath and six daemons on two
cores); CPU per part during the failover. One JSON line per point on stdout, progress on
stderr. Needs root and the netns lock (bench_failover.sh takes it)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import signal
import sys
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "topology"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pod import Emulators, cpu_by_part, pct, pod_pids  # noqa: E402

from bngpod import emu, users, validate  # noqa: E402

POD = REPO / "topology" / "examples" / "failover-bench.yaml"
GROUP = "lg1"
SAMPLE = 200
SAMPLE_RATE = 20.0  # echoes per second per sampled session (50 ms)
BULK_RATE = 0.2  # the rest: one every 5 s (the pod's capacity goes to the sample's 4,000/s)
WINDOW = 10.0  # seconds watched after the kill, and as long before it for the pod's own churn
TARGET_MS = 1000.0


def log(msg: str) -> None:
    print(f"bench-failover: {msg}", file=sys.stderr, flush=True)


def lg1_users(pod, n: int, path: Path) -> Path:
    """users.json with n subscribers of lg1 (the others dial nothing)."""
    only = dataclasses.replace(pod, groups=[g for g in pod.groups if g.name == GROUP])
    path.write_text(json.dumps(users.generate(only, n)))
    return path


def wall(emulator_stats: dict, ms_since_start: float) -> float:
    """An emulator's ms-since-its-start as a wall clock time."""
    return emulator_stats["start_unix"] + ms_since_start / 1000


def rfc3339(text: str) -> float:
    """Seconds since the epoch of an RFC 3339 time with any number of fraction digits (Go
    writes nanoseconds; Python reads microseconds)."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", text)
    if m is None:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.fromisoformat(m.group(1) + zone).timestamp() + float("0." + (m.group(2) or "0"))


def cp_log_times(msg: str, group: str) -> list[float]:
    """Wall clock times of bng-cp's JSON log lines with this message for the group."""
    out = []
    for line in (emu.run_dir() / "logs" / "bng-cp.log").read_text(errors="replace").splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("msg") == msg and e.get("line_group") == group:
            out.append(rfc3339(e["time"]))
    return out


def resteer(events: list[dict], since_ms: float) -> dict | None:
    """The switch re-steered after a placement change at since_ms: the controller's pushes
    (not audits) from then on, one after the other with less than 100 ms between them (the
    steering thread hands its objectives over one at a time; the writer batches what comes
    within 3 ms). Their flow-mods and when the last one was done; None before any push."""
    pushes = sorted((e for e in events if e.get("event") == "push" and not e["audit"] and e["start"] >= since_ms - 5),
                    key=lambda e: e["start"])  # fmt: skip
    if not pushes:
        return None
    last = pushes[0]
    total = last["added"] + last["removed"]
    for e in pushes[1:]:
        if e["start"] - last["t"] > 100:
            break
        last = e
        total += e["added"] + e["removed"]
    return {"t": last["t"], "flow_mods": total}


def wait_flowing(emus: list[Emulators], n: int, timeout: float) -> int:
    """Until n sessions passed traffic and all n are up with none dialling (a session that
    dropped while the pod was loaded by the dialling has come back), or the timeout: how many
    are up and passed traffic then."""
    deadline = time.monotonic() + timeout
    while True:
        stats = [st for e in emus for st in e.stats() if st]
        counted = sum(st.get("traffic_up", 0) for st in stats)
        up = sum(st.get("up", 0) for st in stats)
        settled = not any(st.get("dialling") for st in stats)
        if (counted >= n and up == n and settled) or time.monotonic() > deadline:
            return min(counted, up)
        time.sleep(1)


@dataclasses.dataclass
class Churn:
    """The emulators' counters at one moment: sessions that came up (each re-dial counts),
    sessions dropped by reason, the sample's datagrams sent and echoes received."""

    t: float
    ups: int
    drops: dict[str, int]
    sample_tx: int
    sample_rx: int

    @staticmethod
    def now(emus: list[Emulators], sample: Emulators) -> Churn:
        stats = [st for e in emus for st in e.stats() if st]
        drops: dict[str, int] = {}
        for st in stats:
            for k, v in (st.get("drops") or {}).items():
                drops[k] = drops.get(k, 0) + v
        own = [st for st in sample.stats() if st]
        return Churn(time.time(), sum(st.get("up_events", 0) for st in stats), drops,
                     sum(st.get("tx_pkts", 0) for st in own), sum(st.get("rx_pkts", 0) for st in own))  # fmt: skip

    def since(self, before: Churn) -> dict:
        """What happened between before and this moment."""
        tx = self.sample_tx - before.sample_tx
        return {
            "seconds": round(self.t - before.t, 1),
            "redials": self.ups - before.ups,
            "drops": {k: v - before.drops.get(k, 0) for k, v in self.drops.items() if v > before.drops.get(k, 0)},
            # echoes in flight at either end can make it slightly negative
            "sample_loss": round(max(0.0, 1 - (self.sample_rx - before.sample_rx) / tx), 3) if tx else None,
        }


def point(pod, n: int, work: Path) -> dict:
    sample = min(SAMPLE, n)
    users_file = lg1_users(pod, n, work / f"users-{n}.json")
    emu.down(quiet=True)
    t0 = time.monotonic()
    emu.up(pod, str(POD), users_file=str(users_file), controller=True)
    log(f"{n}: pod up in {time.monotonic() - t0:.1f} s")
    fast = Emulators(pod, users_file, SAMPLE_RATE, tag="-sample", count=sample)
    emus = [fast]
    if n > sample:
        emus.append(Emulators(pod, users_file, BULK_RATE, tag="-bulk", skip=sample))
    try:
        flowing = wait_flowing(emus, n, timeout=60 + n / 100)
        log(f"{n}: {flowing} sessions with traffic")
        if flowing < n:
            raise RuntimeError(f"only {flowing} of {n} sessions passed traffic before the kill")
        # steady traffic, for as long as the failover is watched after the kill: the pod's own
        # churn at this load (sessions dropped and re-dialled without a failover), to compare with
        steady0 = Churn.now(emus, fast)
        time.sleep(WINDOW)
        cpu0 = cpu_by_part(pod_pids())
        at_kill = Churn.now(emus, fast)
        dp1 = emu.dp_pid("dp1")
        t_kill = time.time()
        os.kill(dp1, signal.SIGKILL)
        log(f"{n}: dp1 ({dp1}) killed")

        deadline = time.monotonic() + 60
        report = moved = pushed = None
        while time.monotonic() < deadline:
            events = emu.controller_events()
            since = [e for e in events if e["t"] / 1000 >= t_kill]
            report = report or next((e for e in since if e.get("event") == "request"
                                     and e["path"].endswith("/instances/1/health")), None)  # fmt: skip
            changes = [e for e in since if e.get("event") == "placement" and e["type"] == "PLACEMENT_CHANGED"]
            moved = moved or next((e for e in changes if e["groups"].get(GROUP) == 5), None)
            if moved:
                pushed = resteer(events, moved["t"])
            done = cp_log_times("line group moved", GROUP)
            if report and moved and pushed and done and done[-1] >= t_kill:
                break
            time.sleep(0.1)
        if not (report and moved and pushed):
            raise RuntimeError(f"no failover seen: report {report}, placement {moved}, push {pushed}")
        t_report = report["t"] / 1000
        t_done = next(t for t in cp_log_times("line group moved", GROUP) if t >= t_kill)
        time.sleep(max(1.0, t_kill + WINDOW - time.time()))  # the sample's traffic runs on the standby
        after = Churn.now(emus, fast)
        pushed = resteer(emu.controller_events(), moved["t"])
        stats, sessions = zip(*fast.sessions(), strict=True)
        gaps, back = [], []
        for st, ss in zip(stats, sessions, strict=True):
            for s in ss:
                if s.get("max_rx_gap_ms") and s.get("max_rx_gap_end_ms") is not None:
                    gaps.append(s["max_rx_gap_ms"])
                    back.append((wall(st, s["max_rx_gap_end_ms"]) - t_report) * 1000)
        up_now = sum(st.get("up", 0) for e in emus for st in e.stats() if st)
        cpu1 = cpu_by_part(pod_pids())
        on_standby = next((v.get("sessions") for v in emu.cp_api("/v1/instances") if v["id"] == 5), None)
        return {
            "bench": "failover",
            "sessions": n,
            "sample": len(gaps),
            "detect_ms": round((t_report - t_kill) * 1000, 1),
            "steer_ms": round((pushed["t"] / 1000 - t_report) * 1000, 1),
            "steer_flow_mods": pushed["flow_mods"],
            "replace_ms": round((t_done - t_report) * 1000, 1),
            "traffic_gap_ms_p50": round(pct(gaps, 0.5), 1),
            "traffic_gap_ms_p99": round(pct(gaps, 0.99), 1),
            "back_after_detect_ms_p50": round(pct(back, 0.5), 1),
            "back_after_detect_ms_p99": round(pct(back, 0.99), 1),
            "back_target_ms": TARGET_MS,
            "kill_to_traffic_ms_p99": round((t_report - t_kill) * 1000 + pct(back, 0.99), 1),
            "standby_sessions": on_standby,
            "sessions_up_at_the_emulators": up_now,
            "after_the_kill": after.since(at_kill),
            "before_the_kill": at_kill.since(steady0),
            "cpu_s_failover": {k: round(cpu1.get(k, 0) - v, 2) for k, v in cpu0.items()},
        }
    finally:
        for e in emus:
            e.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="sessions of lg1 per point (default 1000,10000)")
    ap.add_argument("--keep", action="store_true", help="leave the last pod up at the end (bngpod down removes it)")
    args = ap.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        if not all(1 <= s <= 16000 for s in sizes):
            raise ValueError("each size must be 1..16000 (lg1's /18 pool)")
    except ValueError as e:
        print(f"bench-failover: --sizes: {e}", file=sys.stderr)
        return 64
    why = emu.controller_missing() or emu.binaries.missing(emu.binaries.BNG_SUBEMU)
    if why:
        print(f"bench-failover: {why}", file=sys.stderr)
        return 2
    pod = validate.load(POD)
    work = emu.run_dir().parent / "bngpod-bench-failover"
    work.mkdir(parents=True, exist_ok=True)
    failed = False
    try:
        for n in sizes:
            try:
                print(json.dumps(point(pod, n, work)), flush=True)
            except RuntimeError as e:
                log(f"{n}: FAILED: {e}")
                failed = True
    finally:
        if not args.keep:
            emu.down(quiet=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
