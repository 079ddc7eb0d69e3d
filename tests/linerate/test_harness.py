"""The harness's measuring loop (rfc2544.measure and extras) offline: a simulated device that
forwards up to a capacity behind a queue, driven through the generator's trial interface and
its JSON documents, as bng-lrgen answers them. Checks that every RFC 2544 test is run and
reported: both searches, latency at the throughput rate and at fractions of it, back-to-back,
the loss curve."""

from __future__ import annotations

import json

import pytest

from . import rfc2544


class SimGen:
    """bng-lrgen's trial() against a device serving `capacity` frames/s per group after a
    `queue` of frames: what a trial offers above that is lost, short bursts fit the queue.
    Latency grows with the load's share of the capacity."""

    def __init__(self, capacity: float, queue: int):
        self.capacity, self.queue, self.calls = capacity, queue, []

    def trial(self, duration: float, drain_ms: int = 500, **groups) -> dict:
        self.calls.append(dict(groups, duration=duration))
        out = []
        for g in range(4):
            pps = groups.get(f"rate{g}", 0.0)
            tx = int(pps * duration)
            fits = int(self.capacity * duration) + self.queue
            rx = min(tx, fits)
            load = min(1.0, pps / self.capacity)
            lat = {"min": 2000, "avg": int(5000 + 20000 * load), "max": 90000, "p99": int(9000 + 30000 * load)}
            out.append({"group": g, "tx": tx, "rx": rx, "lost": tx - rx, "unexpected": 0,
                        "latency_ns": lat if rx else None})  # fmt: skip
        return {"duration_s": duration, "groups": out}


@pytest.fixture
def run(tmp_path):
    def go(*argv):
        a = rfc2544.options([*argv, "--out", str(tmp_path), "--attach", "memif"])
        gen = SimGen(30_000, queue=200)
        r = rfc2544.Runner(gen, a.trial_s, a.drain_ms)
        res = {k: [] for k in ("throughput", "throughput_mlr", "back_to_back", "loss_curve",
                               "latency_at_throughput", "latency")}  # fmt: skip
        cal = {d: {rfc2544.size_label(s): 100_000.0 for s in a.sizes} for d in ("up", "down")}
        rfc2544.measure(a, r, a.sizes, cal, res, lambda: 1000)
        return a, gen, res

    return go


def test_a_short_run_makes_every_result(run, capsys):
    a, gen, res = run("--sizes", "512", "--search", "both")
    assert not a.full and a.trial_s == 2.0 and a.b2b_repeats == 2
    docs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    tests = [d.get("test") for d in docs]
    # per direction: binary throughput, MLRsearch, latency at the rate, back-to-back, loss curve;
    # then the 89/11 mix and the probe at three loads
    one = ["throughput", "throughput_mlr", *["latency_at_throughput"] * 4, "back_to_back", "loss_curve"]
    assert tests == one + one + ["throughput"] + ["latency"] * 3
    assert all(d["conformant"] is False for d in docs)
    for t, m in zip(res["throughput"][:2], res["throughput_mlr"], strict=True):
        # the queue lets 2 s trials pass at capacity + 100 frames/s: both searches land there
        assert 0.9 * 30_100 <= t["ndr_pps"] <= 30_100 and 0.9 * 30_100 <= m["ndr_pps"] <= 30_100
        assert m["ndr_lower"] <= 30_100 < m["ndr_upper"]
    for b in res["back_to_back"]:
        # bursts at 100,000 frames/s into a 30,000 frames/s device with 200 frames of queue
        assert b["rate_pps"] == 100_000 and not b["at_ceiling"] and len(b["repeats"]) == 2
        assert 250 <= b["frames"] <= 300, b  # 200 / (1 - 0.3) = 285
    for c in res["loss_curve"]:
        fr = [p["fraction"] for p in c["points"]]
        assert fr == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
        assert c["points"][0]["loss_pct"] == pytest.approx(70 - 0.1, abs=0.01)
        assert [p["lost"] for p in c["points"][-2:]] == [0, 0]
    for x in res["latency_at_throughput"]:
        assert x["trials"] == 1 and x["trial_s"] == 2.0 and x["p99_us"] > x["avg_us"] > x["min_us"]
    # latency at 10%, 50%, 90% and 100% of each direction's zero-loss rate: the trials ran at
    # those rates, and the simulated device's latency grows with its load
    for d, t in zip(("up", "down"), res["throughput"][:2], strict=True):
        xs = [x for x in res["latency_at_throughput"] if x["direction"] == d]
        assert [x["fraction"] for x in xs] == [0.1, 0.5, 0.9, 1.0]
        assert all(abs(x["rate_pps"] - t["ndr_pps"] * x["fraction"]) <= 1 for x in xs), xs
        assert all(x["lost"] == 0 for x in xs)
        assert [x["avg_us"] for x in xs] == sorted({x["avg_us"] for x in xs}) and xs[0]["avg_us"] < xs[-1]["avg_us"]
        key = f"rate{rfc2544.G_UP if d == 'up' else rfc2544.G_DOWN}"
        rates = [c[key] for c in gen.calls if key in c and c["duration"] == a.rate_latency_s]
        assert all(any(abs(r - x["rate_pps"]) <= 1 for r in rates) for x in xs)


def test_conformant_settings_and_test_selection(run):
    a = rfc2544.options(["--conformant"])
    assert (a.trial_s, a.latency_trials, a.rate_latency_s, a.b2b_repeats, a.b2b_s, a.resolution) == (
        60.0, 20, 120.0, 50, 2.0, 0.01
    )  # fmt: skip
    assert a.sizes == [64, 128, 256, 512, 1024, 1280, 1518, "imix"] and a.search == "binary"
    _, gen, res = run("--sizes", "512", "--tests", "curve")
    assert res["throughput_mlr"] == res["back_to_back"] == res["latency_at_throughput"] == res["latency"] == []
    assert len(res["loss_curve"]) == 2
    with pytest.raises(SystemExit):
        rfc2544.options(["--tests", "b2b,bogus"])
    _, _, res = run("--sizes", "512", "--tests", "latency", "--latency-fractions", "1,0.25")
    assert [x["fraction"] for x in res["latency_at_throughput"]] == [0.25, 1.0, 0.25, 1.0]
    for bad in ("0", "1.5", "x", ","):
        with pytest.raises(SystemExit):
            rfc2544.options(["--latency-fractions", bad])


def test_a_session_export_needs_the_direct_attachments():
    ex = str(rfc2544.HERE / "testdata" / "cp-export.json")
    a = rfc2544.options(["--attach", "vhost", "--sessions", ex])
    assert a.sessions == ex and a.family == "4"
    for argv in (["--sessions", ex], ["--attach", "dp:dp1", "--sessions", ex], ["--attach", "memif", "--sessions",
                 ex, "--family", "both"]):  # fmt: skip
        with pytest.raises(SystemExit):
            rfc2544.options(argv)
