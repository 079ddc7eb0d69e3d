"""Interleaved bench-cp runs (off, on, off, on, ...): bng-cp reporting its sessions to an ONOS
app (tests/harness/fakeonos.py, which checks every session as the app's codec does) or not.

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
res = {"on": [], "off": []}
for rnd in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
    for mode in ("off", "on"):
        env = dict(os.environ, BENCH_CP_SIZES=sys.argv[2] if len(sys.argv) > 2 else "2000")
        if mode == "on":
            env["BENCH_CP_ONOS"] = onos.url
        n0 = len(onos.events)
        out = subprocess.run(["accel-ppp-glue/bench/bench_cp.sh"], env=env, capture_output=True, text=True, cwd=REPO)
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        r = json.loads(line[-1]) if line else {"error": out.stderr[-800:]}
        load = os.getloadavg()[0]
        res[mode].append(r.get("sessions_per_second", 0))
        print(
            mode,
            rnd,
            r.get("sessions_per_second"),
            "p50",
            r.get("p50_ms"),
            "events",
            len(onos.events) - n0,
            f"load {load:.2f}",
            r.get("error", ""),
            flush=True,
        )
for mode, v in res.items():
    print(mode, "median", statistics.median(v), "min", min(v), "max", max(v), v)
onos.close()
