"""The demo's dashboard computes each rate over the time between the two readings of its own
counters, not between the starts of the two samples: on a busy host one sample takes seconds
(a telemetry request per session), and the CI run where a 100M subscriber showed 66 Mbit/s
was that skew."""

from pathlib import Path

from bngpod import demo, validate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _sample(t: float, read_at: float, down_bytes: int, port_bytes: int) -> demo.Sample:
    s = demo.Sample(t)
    s.dp["dp1"] = {
        "stats": {"down_bytes": port_bytes},
        "hqos": {},
        "sessions": {7: {"ipv4": "100.64.0.7", "qos_profile": "gold", "hqos_rate_bps": 100_000_000,
                         "bytes_down": down_bytes, "bytes_up": 0, "drops_down": 0}},
    }  # fmt: skip
    s.at["dp:dp1"] = s.at["sessions:dp1"] = read_at
    return s


def test_rates_use_the_time_between_readings_of_the_same_counters(monkeypatch):
    pod = validate.load(EXAMPLES / "lab.yaml")
    monkeypatch.setattr(demo.emu, "cp_api", lambda *a, **k: [])
    ctx = {"started": 0.0, "emulators": [], "rate": 5.0, "load": [], "top": 3, "peak_setup": 0.0}
    # samples start 6.25 s apart; dp1's counters were read 2 s into the first one and 0.25 s
    # into the second: 4.5 s of traffic at 100 Mbit/s (the port: 120 Mbit/s)
    prev = _sample(10.0, 12.0, 1_000_000, 5_000_000)
    cur = _sample(16.25, 16.5, 1_000_000 + 100_000_000 // 8 * 9 // 2, 5_000_000 + 120_000_000 // 8 * 9 // 2)
    text = demo.render(pod, cur, prev, ctx)
    row = next(r.split() for r in text.splitlines() if r.strip().startswith("?") and "100.64.0.7" in r)
    assert row[4:6] == ["100M", "100.00"], row
    inst = next(r.split() for r in text.splitlines() if r.startswith("dp1 "))
    assert inst[4:6] == ["120.00", "100.00"], inst


def test_without_reading_times_the_samples_own_times_count():
    a, b = demo.Sample(1.0), demo.Sample(3.0)
    assert b.dt(a, "ports") == 2.0 and b.dt(None, "ports") == 0.0
    b.at["ports"] = 3.5
    assert b.dt(a, "ports") == 2.5
