"""RFC 2544 arithmetic: frame sizes on the wire, layer-1 rates, and the binary search for the
highest rate that a trial passes. No I/O: the harness hands in a function that runs a trial."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
IMIX = ((64, 7), (594, 4), (1518, 1))
# RFC 2544's preamble + start of frame delimiter (8) and inter-frame gap (12)
L1_OVERHEAD = 20
# what an upstream access frame needs: Ethernet 14 + two tags 8 + PPPoE 6 + PPP 2 + IPv4 20
# + UDP 8 + the generator's signature 16 + FCS 4
MIN_UPSTREAM = 78
# the core-side frame of a packet is shorter by the tags and the PPPoE header
ACCESS_EXTRA = 16
MIN_FRAME = 64
# the anchors' mix (TARGETS.md): layer-1 bandwidth shares and access frame sizes
MIX_DOWN_SHARE, MIX_DOWN_SIZE, MIX_UP_SIZE = 0.89, 504, 128


def access_size(direction: str, size: int) -> int:
    """The access-side frame (with FCS) the generator really sends or receives for `size`."""
    if direction == "up":
        return max(size, MIN_UPSTREAM)
    return max(size - ACCESS_EXTRA, MIN_FRAME) + ACCESS_EXTRA


def mean_access_size(direction: str, size: int | str) -> float:
    if size == "imix":
        return sum(access_size(direction, s) * w for s, w in IMIX) / sum(w for _, w in IMIX)
    return float(access_size(direction, int(size)))


def l1_bps(pps: float, frame: float) -> float:
    return pps * (frame + L1_OVERHEAD) * 8


def mix_rates(l1_total_bps: float) -> tuple[float, float]:
    """(downstream pps, upstream pps) of the 89/11 mix at a total layer-1 rate."""
    down = l1_total_bps * MIX_DOWN_SHARE / ((MIX_DOWN_SIZE + L1_OVERHEAD) * 8)
    up = l1_total_bps * (1 - MIX_DOWN_SHARE) / ((MIX_UP_SIZE + L1_OVERHEAD) * 8)
    return down, up


@dataclass
class TrialResult:
    rate: float
    tx: int
    rx: int
    lost: int

    @property
    def loss_ratio(self) -> float:
        return self.lost / self.tx if self.tx else 1.0


@dataclass
class SearchResult:
    rate: float  # the highest passing rate found (0: none passed)
    trials: list[TrialResult] = field(default_factory=list)
    at_ceiling: bool = False  # the upper bound itself passed


def binary_search(
    trial: Callable[[float], TrialResult],
    hi: float,
    lo: float = 0.0,
    loss_ratio: float = 0.0,
    resolution: float = 0.05,
    max_trials: int = 8,
    narrow: float = 1.5,
) -> SearchResult:
    """The highest rate in (lo, hi] whose trial loses at most loss_ratio of its frames (0: none),
    to within resolution x the bound (RFC 2544 section 26.1 asks for the rate without loss; the
    search is the usual bisection). The first trial is at hi; when it fails, the upper bound
    becomes `narrow` x the rate it forwarded (never above hi), so that a device far below
    the generator's ceiling is found in a few trials. A trial that sent nothing fails."""
    res = SearchResult(0.0)

    def passes(t: TrialResult) -> bool:
        return t.tx > 0 and (t.lost == 0 if loss_ratio == 0 else t.loss_ratio <= loss_ratio)

    t = trial(hi)
    res.trials.append(t)
    if passes(t):
        res.rate, res.at_ceiling = hi, True
        return res
    if narrow and t.tx and t.rx:
        hi = max(lo, min(hi, narrow * t.rate * t.rx / t.tx))
    if lo > 0:
        res.rate = lo  # known to pass (a stricter search found it)
    while len(res.trials) < max_trials and hi - lo > resolution * hi:
        mid = (lo + hi) / 2
        t = trial(mid)
        res.trials.append(t)
        if passes(t):
            lo = res.rate = mid
        else:
            hi = mid
    return res


# ---- MLRsearch (FD.io CSIT's multiple loss ratio search, PyPI MLRsearch) ----


@dataclass
class MlrGoal:
    """One goal's result: the conditional throughput at the relevant lower bound (0: none),
    the bounds MLRsearch ended with."""

    loss_ratio: float
    rate: float
    lower: float | None
    upper: float | None


@dataclass
class MlrResult:
    goals: list[MlrGoal]
    trials: list[TrialResult] = field(default_factory=list)


def mlr_search(
    trial: Callable[[float, float], TrialResult],
    hi: float,
    lo: float,
    loss_ratios: tuple[float, ...] = (0.0, 1e-5),
    resolution: float = 0.05,
    trial_s: float = 2.0,
    initial_trial_s: float | None = None,
    search_s_max: float = 1200.0,
) -> MlrResult:
    """Every loss ratio's throughput in one MLRsearch run: trial(rate, duration) runs one trial.
    Conservative goals, as RFC 2544 asks: one final trial of trial_s decides (exceed ratio 0,
    duration sum = trial_s); shorter trials (initial_trial_s) only narrow the interval first.
    relative_width is the resolution. A goal whose lower bound is missing has rate 0."""
    from MLRsearch import AbstractMeasurer, Config, MeasurementResult, MultipleLossRatioSearch, SearchGoal

    out = MlrResult([])

    class Measurer(AbstractMeasurer):
        def measure(self, intended_duration: float, intended_load: float) -> MeasurementResult:
            t = trial(float(intended_load), float(intended_duration))
            out.trials.append(t)
            # a trial that sent nothing counts as all lost
            tx = max(t.tx, 1)
            return MeasurementResult(
                intended_duration=intended_duration,
                intended_load=intended_load,
                offered_count=tx,
                loss_count=min(tx, t.lost if t.tx else 1),
            )

    first = initial_trial_s or trial_s
    cfg = Config()
    cfg.goals = [
        SearchGoal(
            loss_ratio=lr,
            exceed_ratio=0.0,
            relative_width=resolution,
            initial_trial_duration=min(first, trial_s),
            final_trial_duration=trial_s,
            duration_sum=trial_s,
            preceding_targets=1 if first < trial_s else 0,
            fail_fast=False,
        )
        for lr in loss_ratios
    ]
    cfg.min_load, cfg.max_load = lo, hi
    cfg.search_duration_max = search_s_max
    cfg.warmup_duration = None
    res = MultipleLossRatioSearch(config=cfg).search(measurer=Measurer(), debug=lambda _msg: None)
    for goal, r in res.items():
        ct = r.conditional_throughput
        lower, upper = r.relevant_lower_bound, r.relevant_upper_bound
        out.goals.append(
            MlrGoal(
                goal.loss_ratio,
                float(ct) if ct is not None else 0.0,
                float(lower) if lower is not None else None,
                float(upper) if upper is not None else None,
            )
        )
    return out


# ---- back-to-back frames (RFC 2544 26.4) ----


@dataclass
class BackToBack:
    rate: float  # the rate of the bursts (the minimum inter-frame gap the generator reaches)
    frames: float  # mean over the repeats of the longest burst without loss
    repeats: list[int] = field(default_factory=list)  # each repeat's longest burst
    trials: list[TrialResult] = field(default_factory=list)
    at_ceiling: bool = False  # the longest burst tried passed: the device buffers at least that much


def back_to_back(
    burst: Callable[[int], TrialResult],
    rate: float,
    max_frames: int,
    min_frames: int = 1,
    repeats: int = 2,
    resolution: float = 0.05,
    max_trials: int = 12,
) -> BackToBack:
    """RFC 2544 26.4: the longest burst at the minimum legal gap (here: rate, the generator's
    ceiling) that the device forwards without loss; burst(n) sends n frames back to back. Each
    repeat bisects between min_frames and max_frames (to resolution of the bound); the result
    is the mean of the repeats (RFC 2544: at least 50 of them)."""
    res = BackToBack(rate, 0.0)
    for _ in range(repeats):
        t = burst(max_frames)
        res.trials.append(t)
        if t.tx > 0 and t.lost == 0:
            res.repeats.append(max_frames)
            res.at_ceiling = True
            continue
        lo, hi, best, n = min_frames, max_frames, 0, 1
        while n < max_trials and hi - lo > max(1, resolution * hi):
            mid = (lo + hi) // 2
            t = burst(mid)
            res.trials.append(t)
            n += 1
            if t.tx > 0 and t.lost == 0:
                lo = best = mid
            else:
                hi = mid
        res.repeats.append(best)
    res.frames = sum(res.repeats) / len(res.repeats) if res.repeats else 0.0
    return res


# ---- frame loss rate (RFC 2544 26.3) ----


def loss_curve(
    trial: Callable[[float], TrialResult], max_rate: float, step: float = 0.1, min_fraction: float = 0.1
) -> list[tuple[float, TrialResult]]:
    """RFC 2544 26.3: the loss rate at 100% of the maximum rate, then in steps of `step` (10%
    or finer) down until two successive trials lose nothing; [(fraction, trial), ...]."""
    out: list[tuple[float, TrialResult]] = []
    clean = 0
    k = 0
    while clean < 2:
        frac = round(1.0 - k * step, 6)
        if frac < min_fraction - 1e-9:
            break
        t = trial(max_rate * frac)
        out.append((frac, t))
        clean = clean + 1 if t.tx > 0 and t.lost == 0 else 0
        k += 1
    return out


def loss_percent(t: TrialResult) -> float:
    """RFC 2544 26.3's frame loss rate: (input - output) x 100 / input."""
    return 100.0 * t.lost / t.tx if t.tx else 100.0
