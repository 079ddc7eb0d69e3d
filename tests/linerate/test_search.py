"""The RFC 2544 search and frame arithmetic (search.py) against a simulated device."""

from __future__ import annotations

import pytest

from . import search


def device(capacity: float, lossy_above: float | None = None):
    """A device that forwards up to `capacity` frames/s and loses the rest (and, from
    lossy_above, one frame in 10^6)."""

    def trial(rate: float) -> search.TrialResult:
        tx = int(rate * 100)  # 100 s trials
        rx = min(tx, int(capacity * 100))
        if lossy_above is not None and rate > lossy_above and rx == tx:
            rx -= max(1, tx // 1_000_000)
        return search.TrialResult(rate, tx, rx, tx - rx)

    return trial


def test_zero_loss_search_finds_the_capacity_within_the_resolution():
    res = search.binary_search(device(20_000), 300_000, resolution=0.02, max_trials=12)
    assert 20_000 * 0.95 <= res.rate <= 20_000
    assert not res.at_ceiling
    # the first trial is at the upper bound, the second below what it forwarded x 1.5
    assert res.trials[0].rate == 300_000 and res.trials[1].rate <= 15_000 * 1.5 + 1


def test_a_device_faster_than_the_bound_passes_at_the_bound():
    res = search.binary_search(device(1e9), 300_000)
    assert res.rate == 300_000 and res.at_ceiling and len(res.trials) == 1


def test_the_loss_tolerant_search_starts_from_the_zero_loss_rate():
    trial = device(50_000, lossy_above=30_000)
    ndr = search.binary_search(trial, 100_000, resolution=0.01, max_trials=14)
    pdr = search.binary_search(trial, 100_000, lo=ndr.rate, loss_ratio=1e-5, resolution=0.01, max_trials=14)
    assert 29_000 <= ndr.rate <= 30_000 and 48_000 <= pdr.rate <= 50_000


def test_nothing_passes():
    res = search.binary_search(lambda r: search.TrialResult(r, 100, 0, 100), 1000, max_trials=4)
    assert res.rate == 0 and len(res.trials) == 4


def test_frame_sizes_and_layer_1():
    assert search.access_size("up", 64) == 78  # QinQ + PPPoE + IPv4 + UDP + signature
    assert search.access_size("up", 512) == 512
    assert search.access_size("down", 64) == 80  # a 64-byte core frame
    assert search.access_size("down", 1518) == 1518
    assert search.mean_access_size("up", "imix") == pytest.approx((7 * 78 + 4 * 594 + 1518) / 12)
    assert search.l1_bps(1_000_000, 64) == 672e6
    down, up = search.mix_rates(1e9)
    assert down * (504 + 20) * 8 == pytest.approx(0.89e9) and up * (128 + 20) * 8 == pytest.approx(0.11e9)


def timed_device(capacity: float, pdr_floor: float | None = None):
    """device() with the trial's duration: trial(rate, seconds). From pdr_floor on, one frame in
    10^6 is lost (so a 0.001% goal passes above it and a zero-loss one does not)."""

    def trial(rate: float, duration: float) -> search.TrialResult:
        trial.durations.append(duration)
        tx = int(rate * duration)
        rx = min(tx, int(capacity * duration))
        if pdr_floor is not None and rate > pdr_floor and rx == tx:
            rx -= max(1, tx // 1_000_000)
        return search.TrialResult(rate, tx, rx, tx - rx)

    trial.durations = []
    return trial


def test_mlrsearch_finds_both_goals_within_its_width():
    # 100 s trials: one frame in 10^6 above 30,000 frames/s is within 0.001%
    res = search.mlr_search(timed_device(50_000, pdr_floor=30_000), 1_000_000, 100, resolution=0.01, trial_s=100)
    ndr, pdr = res.goals
    assert ndr.loss_ratio == 0 and pdr.loss_ratio == 1e-5
    assert 30_000 * 0.98 <= ndr.rate <= 30_000, ndr
    assert 50_000 * 0.98 <= pdr.rate <= 50_000, pdr
    # the bounds bracket the device's real limits, at most one width apart
    assert ndr.lower <= 30_000 < ndr.upper <= ndr.lower * 1.0102
    assert pdr.lower <= 50_000 < pdr.upper
    assert all(t.tx > 0 for t in res.trials) and len(res.trials) < 40


def test_mlrsearch_with_shorter_first_trials_and_a_device_faster_than_the_bound():
    res = search.mlr_search(timed_device(1e9), 200_000, 100, resolution=0.05, trial_s=60, initial_trial_s=1)
    assert [g.rate for g in res.goals] == [pytest.approx(200_000)] * 2
    assert all(g.upper is None for g in res.goals)  # nothing failed: no upper bound
    dev = timed_device(20_000)
    res = search.mlr_search(dev, 200_000, 100, resolution=0.05, trial_s=60, initial_trial_s=1)
    assert 19_000 <= res.goals[0].rate <= 20_000
    assert dev.durations[0] == 1 and dev.durations[-1] == 60  # short trials first, 60 s ones decide


def test_mlrsearch_when_nothing_passes():
    res = search.mlr_search(lambda r, d: search.TrialResult(r, 0, 0, 0), 10_000, 100, trial_s=1)
    assert [g.rate for g in res.goals] == [0.0, 0.0]


def buffered_device(capacity: float, buffer: int, rate: float):
    """A device that serves `capacity` frames/s behind a queue of `buffer` frames, fed a burst
    of n frames at `rate`: the queue peaks at n (1 - capacity/rate)."""

    def burst(n: int) -> search.TrialResult:
        lost = max(0, int(n * (1 - capacity / rate)) - buffer)
        return search.TrialResult(rate, n, n - lost, lost)

    return burst


def test_back_to_back_finds_the_longest_burst():
    # 1,000 frames of queue drained at a quarter of the burst rate: 1,333 frames pass
    res = search.back_to_back(buffered_device(250_000, 1000, 1_000_000), 1_000_000, 100_000, repeats=3,
                              resolution=0.001, max_trials=30)  # fmt: skip
    assert len(res.repeats) == 3 and all(1333 - 100 <= r <= 1334 for r in res.repeats), res.repeats
    assert res.frames == pytest.approx(sum(res.repeats) / 3) and not res.at_ceiling
    # a device that keeps up: the longest burst tried passes at once
    res = search.back_to_back(buffered_device(2e6, 0, 1e6), 1e6, 50_000, repeats=2)
    assert res.at_ceiling and res.frames == 50_000 and len(res.trials) == 2


def test_loss_curve_steps_down_until_two_clean_trials():
    curve = search.loss_curve(device(55_000), 100_000)
    assert [f for f, _ in curve] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
    assert search.loss_percent(curve[0][1]) == pytest.approx(45.0)
    assert search.loss_percent(curve[4][1]) == pytest.approx(100 * 5 / 60)
    assert all(t.lost == 0 for _, t in curve[-2:]) and curve[-3][1].lost > 0
    # a device that never loses stops after two; one that always loses at the floor
    assert len(search.loss_curve(device(1e9), 100_000)) == 2
    assert len(search.loss_curve(device(1), 100_000, step=0.25, min_fraction=0.25)) == 4
