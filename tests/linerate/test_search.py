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
