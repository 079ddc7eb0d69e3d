"""make bench-move: how long a line-group move takes, from ONOS's new placement to the
sessions acknowledged by the adopting bng-dp and traffic passing there.

The arrangement is tests/cp/test_move_with_dp.py's at scale, built from the shared test
harness (tests/harness): the real bng-dp (lab pod's dp1.ini, lg2 standby, its pool widened
to a /18 for 10K sessions) in the namespaces of harness/rig.py; in the rig's CP namespace
bng-cp (local users file, no RADIUS), the fake ONOS (harness/fakeonos.py) and bng-cpload
playing instance dp2 (10.200.0.12) with N CPEs on lg2's lines (access2, 802.1ad S-tags
200-249). When all N are up, the placement moves lg2
to dp1 and the script measures, from the moment bng-cp first fetched the new version:

  adopted_ms     bng-dp serves lg2 (its telemetry, polled every 10 ms)
  acked_ms       bng-dp acknowledged the last session: dp2 (bng-cpload) gets the first
                 Session Deletion, which bng-cp sends only after every re-establishment
                 on the new instance was answered
  installed_ms   bng-dp's session count reached N (telemetry, polled)
  traffic_ms     downstream packets (sent every 20 ms to a sample of 16 subscribers'
                 addresses) came out of bng-dp in their PPPoE sessions: the last of the sample
  released_ms    dp2 got the release (Association Update), the end of the move

One JSON line per size on stdout; run as root under `flock /tmp/bngpod-netns.lock`."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "topology")]

import yaml  # noqa: E402
from harness import fakeonos, wiredp  # noqa: E402
from harness.fakeonos import FakeOnos  # noqa: E402
from harness.frames import IP, ROUTER_MAC, UDP, Ether, Raw  # noqa: E402
from harness.rig import NS_CP, DpRig, cleanup_stale  # noqa: E402
from harness.wiredp import LAB, WireDp, lab_cp_doc, stop  # noqa: E402

from bngpod.rawsock import in_netns  # noqa: E402

DP2 = "10.200.0.12"
LG2_CORE_MAC = "02:cc:00:00:00:02"
LG2_POOL = "100.96.0.0/18"  # 16382 addresses instead of lab's /22
SAMPLE = 16


def log(msg: str) -> None:
    print(f"bench-move: {msg}", file=sys.stderr, flush=True)


def write_configs(work: Path, n: int, onos_url: str) -> Path:
    ini = (LAB / "dp" / "dp1.ini").read_text().replace("prefixes     = 100.80.4.0/22", f"prefixes     = {LG2_POOL}")
    (work / "dp1.ini").write_text(ini)
    doc = lab_cp_doc({1, 2})
    for p in doc["pools"]:
        if p["line_group"] == "lg2":
            p["prefix"] = LG2_POOL
    doc["onos"] = {"url": onos_url, "username": fakeonos.CP_USER, "password": fakeonos.CP_PASSWORD, "cp_name": "cp-bench",
                   "poll_interval": "1s", "timeout": "2s"}  # fmt: skip
    (work / "cp.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (work / "users").write_text("".join(f'user{i}  Cleartext-Password := "pw{i}"\n' for i in range(1, n + 1)))
    return work / "dp1.ini"


def ctl_sessions(bngcpctl: Path, sock: Path) -> list[dict]:
    out = subprocess.run([str(bngcpctl), "--socket", str(sock), "sessions", "-o", "json"],
                         capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    return json.loads(out.stdout)


class Prober:
    """Downstream packets to a sample of addresses; when each first leaves bng-dp in PPPoE."""

    def __init__(self, wire: WireDp, addrs: list[str]):
        self.wire, self.addrs = wire, addrs
        self.seen: dict[str, float] = {}
        self.stop = threading.Event()
        self.frames = {
            a: bytes(Ether(src=ROUTER_MAC, dst=LG2_CORE_MAC) / IP(src="198.51.100.7", dst=a) / UDP(sport=53, dport=4000)
                     / Raw(b"p" * 16))
            for a in addrs
        }  # fmt: skip
        self.threads = [
            threading.Thread(target=self._send, daemon=True),
            threading.Thread(target=self._recv, daemon=True),
        ]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(2)

    def _send(self) -> None:
        while not self.stop.is_set():
            for a, f in self.frames.items():
                if a not in self.seen:
                    self.wire.send_core(f)
            time.sleep(0.02)

    def _recv(self) -> None:
        while not self.stop.is_set():
            try:
                f = self.wire.core.get(timeout=0.1)
            except Exception:  # noqa: BLE001 (queue.Empty)
                continue
            p = Ether(f)
            if f[12:14] in (b"\x81\x00", b"\x88\xa8") and IP in p and p[IP].dst in self.frames:
                self.seen.setdefault(p[IP].dst, time.time())


def wait(pred, timeout: float, what: str):
    return wiredp.wait(pred, timeout, what, interval=0.01)


def run_size(n: int, window: int, bngcp: Path, bngcpctl: Path, cpload: Path, work: Path) -> dict:
    work.mkdir()
    rig = wire = onos = cp = load = prober = None
    try:
        # the rig first (it removes stale namespaces), then what lives in its CP namespace
        ini = write_configs(work, n, "http://127.0.0.1:1/onos/bngpod")  # rewritten below with ONOS's port
        rig = DpRig(ini, extra_args=("--sessions", str(max(4096, n + 64)))).start()
        rig.add_cp_alias(DP2)
        with in_netns(NS_CP):
            onos = FakeOnos("127.0.0.1")
        onos.start()
        onos.place(1, {"lg1": 1, "lg2": 2})
        write_configs(work, n, onos.url)
        wire = WireDp(rig)
        load_out = open(work / "load.json", "wb")  # noqa: SIM115 (the child keeps it)
        load = subprocess.Popen(
            ["ip", "netns", "exec", NS_CP, str(cpload), "-cp", rig.CP_ADDR, "-dp", f"2={DP2}/200-249/1-4000",
             "-tpid", "0x88a8", "-sessions", str(n), "-window", str(window), "-auth", "pap", "-timeout", "120s",
             "-hold", "-v"],
            stdout=load_out, stderr=open(work / "load.err", "wb"),  # noqa: SIM115
        )  # fmt: skip
        time.sleep(0.2)
        cp = subprocess.Popen(
            ["ip", "netns", "exec", NS_CP, str(bngcp), "--config", str(work / "cp.yaml"), "--state", str(work / "state"),
             "--users", str(work / "users"), "--ctl", str(work / "cp.sock"), "--auth", "pap",
             "--lcp-echo-interval", "60s", "--lcp-echo-failures", "5", "--interim", "3600s",
             "--log-format", "json", "--log-level", "info"],
            stdout=open(work / "cp.log", "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
        )  # fmt: skip
        wait(lambda: (work / "load.json").read_text().strip() or load.poll() is not None, 300, "the sessions dialled")
        dial = json.loads((work / "load.json").read_text().splitlines()[0])
        if dial.get("completed") != n:
            raise RuntimeError(f"dialled {dial}")
        log(f"{n} sessions up through dp2 ({dial['sessions_per_second']}/s); moving lg2 to bng-dp")
        sess = ctl_sessions(bngcpctl, work / "cp.sock")
        addrs = random.Random(n).sample([s["ipv4"] for s in sess], min(SAMPLE, len(sess)))
        base = rig.telemetry("/bng/sessions")["count"]
        prober = Prober(wire, addrs)
        prober.start()
        time.sleep(0.2)
        t_set = time.time()
        onos.place(2, {"lg1": 1, "lg2": 1})
        t_adopt = wait(
            lambda: rig.telemetry("/bng/line_groups")["groups"]["lg2"] == "served" and time.time(), 30, "lg2 served"
        )
        t_inst = wait(
            lambda: rig.telemetry("/bng/sessions")["count"] >= base + n and time.time(), 300, f"{n} sessions on bng-dp"
        )
        wait(lambda: len(prober.seen) == len(addrs), 30, "traffic on the sample")
        wait(lambda: '"line group moved"' in (work / "cp.log").read_text(), 300, "bng-cp's move done")
        time.sleep(0.3)  # the release follows the log line closely
        load.send_signal(signal.SIGTERM)
        load.wait(30)
        lines = (work / "load.json").read_text().splitlines()
        ev = next(e for e in json.loads(lines[-1])["node_events"] if e["instance"] == 2)
        moved = next(json.loads(x) for x in (work / "cp.log").read_text().splitlines() if '"line group moved"' in x)
        t_vis = onos.served[2]

        def ms(t: float) -> float:
            return round((t - t_vis) * 1000, 1)

        return {
            "sessions": n,
            "visible_after_set_ms": round((t_vis - t_set) * 1000, 1),
            "adopted_ms": ms(t_adopt),
            "acked_ms": ms(ev["first_deletion_ns"] / 1e9),
            "installed_ms": ms(t_inst),
            "traffic_ms": ms(max(prober.seen.values())),
            "traffic_sample": len(prober.seen),
            "released_ms": ms(ev["assoc_updates_ns"][-1] / 1e9) if ev["assoc_updates_ns"] else None,
            "deleted_at_old": ev["deletions"],
            "cp_move_s": round(moved["seconds"], 3),
            "dial_sessions_per_second": dial["sessions_per_second"],
        }
    finally:
        if prober is not None:
            prober.close()
        for p in (load, cp):
            stop(p, 15)
        if wire is not None:
            wire.close()
        if onos is not None:
            onos.close()
        if rig is not None:
            rig.close()
        cleanup_stale()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=os.environ.get("BENCH_MOVE_SIZES", "1000 10000"))
    ap.add_argument("--window", type=int, default=int(os.environ.get("BENCH_MOVE_WINDOW", "1000")))
    ap.add_argument("--bng-cp", type=Path, required=True)
    ap.add_argument("--bngcpctl", type=Path, required=True)
    ap.add_argument("--cpload", type=Path, required=True)
    ap.add_argument("--keep", action="store_true", default=os.environ.get("BENCH_MOVE_KEEP") == "1")
    a = ap.parse_args()
    if os.geteuid() != 0:
        log("needs root (network namespaces)")
        return 2
    top = Path(tempfile.mkdtemp(prefix="bench-move."))
    rc = 0
    try:
        for n in (int(x) for x in a.sizes.split()):
            try:
                print(json.dumps(run_size(n, a.window, a.bng_cp, a.bngcpctl, a.cpload, top / str(n))), flush=True)
            except Exception as e:  # noqa: BLE001 (one size's failure is reported, the next runs)
                rc = 1
                print(json.dumps({"sessions": n, "error": str(e)}), flush=True)
                for f in ("cp.log", "load.err"):
                    p = top / str(n) / f
                    if p.exists():
                        log(f"{n}: {f} (tail):\n" + p.read_text(errors="replace")[-2000:])
    finally:
        if a.keep:
            log(f"kept {top}")
        else:
            shutil.rmtree(top, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
