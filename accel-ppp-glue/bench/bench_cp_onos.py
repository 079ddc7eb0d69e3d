"""Interleaved bench-cp runs (off, on, seba, off, on, seba, ...): bng-cp reporting its sessions
to an ONOS app (tests/harness/fakeonos.py, which checks every session as the app's codec does)
or not; `seba`: as `on`, and the fake ONOS also plays the SEBA app, its subscribers table
mapping every line the loader dials, so bng-cp also posts SESSION_INIT and AUTH_SUCCESS of
every session (POST /pppoe-events) and looks each PADR's line up in the table.

    .venv/bin/python accel-ppp-glue/bench/bench_cp_onos.py [ROUNDS [SESSIONS]]
"""

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from harness.fakeonos import FakeOnos  # noqa: E402

onos = FakeOnos().start()
onos.place(2, {"lg1": 1, "lg2": 2})
sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 2000


def seba_table(n: int) -> list[dict]:
    """The lines bng-cpload dials for n sessions (loader.go: session i on DP i % 2, lines in
    order: access1 S-tags 100-149 and access2 200-249, C-tags 1-4000)."""
    out = []
    for port, stag0, count in (("access1", 100, (n + 1) // 2), ("access2", 200, n // 2)):
        for j in range(min(count, 50 * 4000)):
            stag, ctag = stag0 + j // 4000, 1 + j % 4000
            out.append(
                {
                    "accessPort": port,
                    "stag": stag,
                    "ctag": ctag,
                    "lineGroup": "lg1" if port == "access1" else "lg2",
                    "uni": {"deviceId": "of:00000000000000a1", "port": str(j + 1), "name": f"BBSM{j:08d}-1"},
                    "onuSerial": f"BBSM{j:08d}",
                    "serviceName": "hsia",
                    "circuitId": f"olt1 {stag}.{ctag}",
                    "remoteId": f"cpe-{stag}-{ctag}",
                    "nasPortId": f"BBSM{j:08d}-1",
                }
            )
    return out


table = seba_table(sessions)
res = {"on": [], "off": [], "seba": []}
for rnd in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
    for mode in ("off", "on", "seba"):
        env = dict(os.environ, BENCH_CP_SIZES=str(sessions))
        if mode != "off":
            env["BENCH_CP_ONOS"] = onos.url
        with onos.cond:
            onos.seba_subscribers = table if mode == "seba" else None
        n0, p0 = len(onos.events), len(onos.pppoe_events)
        out = subprocess.run(["accel-ppp-glue/bench/bench_cp.sh"], env=env, capture_output=True, text=True, cwd=REPO)
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        r = json.loads(line[-1]) if line else {"error": out.stderr[-800:]}
        load = os.getloadavg()[0]
        res[mode].append(r.get("sessions_per_second", 0))
        cpu = [ln.split("cpu_ms per session ", 1)[1] for ln in out.stderr.splitlines() if "cpu_ms per session" in ln]
        print(
            mode,
            rnd,
            r.get("sessions_per_second"),
            "p50",
            r.get("p50_ms"),
            "events",
            len(onos.events) - n0,
            "pppoe_events",
            len(onos.pppoe_events) - p0,
            f"load {load:.2f}",
            "cpu_ms/session:",
            cpu[-1] if cpu else "?",
            r.get("error", ""),
            flush=True,
        )
for mode, v in res.items():
    print(mode, "median", statistics.median(v), "min", min(v), "max", max(v), v)
onos.close()
