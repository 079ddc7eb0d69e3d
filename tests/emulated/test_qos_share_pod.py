"""Work-conserving sharing of an access port in the emulated pod (docs/configuration.md
qos_share, docs/dp/hqos.md "Sharing an access port across instances"): the lab pod with
access1 at 50 Mbit/s, shared by dp1 (lg1) and dp2 (lg2) with their generated
--qos-share files; one subscriber of each dials on access1, and only dp2's is loaded
downstream (80 Mbit/s from the inet host, its gold pipe allows 100). dp2's shaped rate must
rise well above its static half of the port, and the two instances together must never send
more than the port rate plus the subports' buckets; then dp1's subscriber is loaded too
(its silver pipe: 20 Mbit/s), and the two must still stay within the port (each at its
whole port rate, as without the exchange, they would send 70 Mbit/s). Measured with the DPs' own counters
(HQoS dequeued wire bytes, the unit the shaper counts) sampled about every 100 ms: coarse,
the host is shared. With `qos_share: {enabled: false}` (each instance at the whole port
rate) the second part fails: 247 KB above R x t in a ~100 ms window, where B = 69 KB.
Run: .venv/bin/python -m pytest -s tests/emulated/test_qos_share_pod.py (root; takes the
netns lock itself)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from harness import podenv

from bngpod import demo, emu

pytestmark = pytest.mark.pod

R = 50_000_000  # access1's rate in this test, bit/s
OFFERED = 80_000_000  # the load toward dp2's subscriber, bit/s of IPv4 packets
FRAME = 1534  # the largest access frame with FCS: a subport's bucket holds at least 2
N = 2
# The bound the exchange states: the subports' buckets, 10 ms of the rates, at least two
# frames each (docs/dp/hqos.md, "Changing rates").
B = R / 8 * 0.010 + N * 2 * FRAME
USERS = [
    {"user": "lg1-1", "password": "pw-lg1-1", "line_group": "lg1", "port": "access1", "stag": 100, "ctag": 1},
    {"user": "lg2-1", "password": "pw-lg2-1", "line_group": "lg2", "port": "access1", "stag": 150, "ctag": 1},
]


@pytest.fixture(scope="module")
def share_pod(pod_prereqs, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qos_share")
    doc = yaml.safe_load(podenv.LAB.read_text())
    for p in doc["switch"]["ports"]:
        if p["name"] == "access1":
            p["rate"] = R
    pod_file = tmp / "lab-share.yaml"
    pod_file.write_text(yaml.safe_dump(doc, sort_keys=False))
    users_file = tmp / "users.json"
    users_file.write_text(json.dumps(USERS))
    with podenv.pod_up(pod_file, users_file=str(users_file)) as pod:
        yield pod


def _sample(pod) -> tuple[float, float, int, int]:
    """(time before, time after, dp1's and dp2's dequeued wire bytes read in between)."""
    a = time.monotonic()
    d1, d2 = (emu.dp_telemetry(pod.instance(n), "/bng/hqos")[0]["deq_wire_bytes"] for n in ("dp1", "dp2"))
    return a, time.monotonic(), d1, d2


def _measure(pod, seconds: float) -> list[tuple[float, float, int, int]]:
    samples = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        samples.append(_sample(pod))
        time.sleep(0.1)
    return samples


def _rates(samples) -> tuple[float, float, float, float]:
    """(port use, dp1's, dp2's in bit/s over the whole measurement; the most bytes a ~100 ms
    window sent above R x (the longest the window can have been: from before its first
    read to after its second))."""
    (a0, b0, x0, y0), (a1, b1, x1, y1) = samples[0], samples[-1]
    t = (a1 + b1) / 2 - (a0 + b0) / 2
    pairs = zip(samples, samples[1:], strict=False)
    worst = max((x2 + y2 - x - y) - R / 8 * (b2 - a) for (a, _b, x, y), (_a, b2, x2, y2) in pairs)
    return (x1 + y1 - x0 - y0) * 8 / t, (x1 - x0) * 8 / t, (y1 - y0) * 8 / t, worst


def _loadgen(target: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(emu.REPO / "topology") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        ["ip", "netns", "exec", emu.INET_NS, sys.executable, "-m", "bngpod.loadgen", target],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip


def test_a_loaded_instance_takes_the_idle_ones_share_and_both_stay_within_the_port(share_pod):
    pod = share_pod
    state = emu.State.load()
    chosen = emu.generated_users()  # USERS, with their ports' TPIDs
    assert sorted(u["user"] for u in chosen) == ["lg1-1", "lg2-1"]
    emulators = demo.start_emulators(pod, state, chosen, 0)
    loads: list[subprocess.Popen] = []
    try:
        deadline = time.monotonic() + 60
        addr = {}
        while time.monotonic() < deadline and len(addr) < 2:
            for e in emulators:
                try:
                    for s in e.sessions():
                        if s.get("state") == "up" and s.get("address"):
                            addr[s["user"]] = s["address"]
                except (OSError, ValueError):
                    pass
            time.sleep(0.5)
        assert sorted(addr) == ["lg1-1", "lg2-1"], f"sessions up: {addr}"
        before = {n: emu.dp_telemetry(pod.instance(n), "/bng/qos_share")[0] for n in ("dp1", "dp2")}
        for n, q in before.items():
            assert q["port_rate_bps"] == R and q["static_bps"] == R // 2, (n, q)
            assert q["consistent"] == 1 and q["rx"] > 0 and q["rx_not_allowed"] == 0, (n, q)

        loads.append(_loadgen(f"{addr['lg2-1']}:{OFFERED}"))
        time.sleep(2.0)  # the exchange converges in a few 10 ms; the load generator starts slower
        one = _measure(pod, 4.0)
        during = {n: emu.dp_telemetry(pod.instance(n), "/bng/qos_share")[0] for n in ("dp1", "dp2")}
        # Then dp1's subscriber too (its silver pipe: 20 Mbit/s): without the exchange the
        # two would send 20 + 50; with it they must stay within R.
        loads.append(_loadgen(f"{addr['lg1-1']}:{OFFERED // 2}"))
        time.sleep(1.5)
        both = _measure(pod, 3.0)
    finally:
        for load in loads:
            if load.poll() is None:
                load.terminate()
                load.wait(10)
        demo.stop_emulators(emulators)

    use, _, _, worst = _rates(one)
    q1, q2 = during["dp1"], during["dp2"]
    use2, r1, r2, worst2 = _rates(both)
    print(
        f"\none loaded: port use {use / R:.3f} of R ({use / 1e6:.1f} Mbit/s, static share 0.5), worst ~100 ms "
        f"window {worst:.0f} B above R x t (B = {B:.0f}); dp2 applied {q2['applied_bps'] / 1e6:.1f} Mbit/s, "
        f"demand {q2['demand_bps'] / 1e6:.1f}; dp1 applied {q1['applied_bps'] / 1e6:.2f}\n"
        f"both loaded: port use {use2 / R:.3f} of R (dp1 {r1 / 1e6:.1f}, dp2 {r2 / 1e6:.1f} Mbit/s), worst "
        f"window {worst2:.0f} B above R x t; load average {os.getloadavg()[0]:.1f}"
    )
    assert q2["consistent"] == 1 and q1["consistent"] == 1, (q1, q2)
    assert q2["applied_bps"] >= 0.85 * R, f"dp2 applies {q2['applied_bps']} bit/s, static share {R // 2}"
    assert q1["applied_bps"] + q2["applied_bps"] <= R, (q1, q2)
    assert use >= 0.85 * R, f"port use {use / R:.3f} of R: the loaded instance stayed near its static share"
    assert worst <= B, f"a ~100 ms window sent {worst:.0f} bytes above R x t, beyond the buckets B = {B:.0f}"
    assert worst2 <= B, f"both loaded: a ~100 ms window sent {worst2:.0f} bytes above R x t (B = {B:.0f})"
    assert use2 >= 0.85 * R and r1 >= 0.25 * R, (use2, r1, r2)  # dp1 gets its 20 Mbit/s (0.4 R)

    # Each bng-dp runs with its generated file, and bngpod status shows every exchange.
    state = emu.State.load()
    for name in ("dp1", "dp2", "dp3", "dp4"):
        argv = Path(f"/proc/{state.data['pids'][f'bng-dp {name}']['pid']}/cmdline").read_bytes().split(b"\0")
        want = Path(state.data["generated"]) / "qos_share" / f"{name}.ini"
        assert argv[argv.index(b"--qos-share") + 1] == str(want).encode(), argv
    report = emu.status()
    assert sorted(report["qos_share"]) == ["dp1", "dp2", "dp3", "dp4"], report.get("qos_share")
    assert report["qos_share"]["dp3"]["port_rate_bps"] == 10_000_000_000
    out = subprocess.run([str(emu.REPO / "bngpod"), "status"], capture_output=True, text=True).stdout
    line = next((ln for ln in out.splitlines() if ln.strip().startswith("qos share dp1 ")), None)
    assert line is not None and "of 50.0 Mbit/s (static 25.0)" in line and "consistent view" in line, out
