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
