"""Noise-aware comparison of measured configs (pure functions).

A config is preferred only when its gain exceeds the measurement noise of both results; among
results that tie with the fastest, the one with the fewest workers (then the least prefetch)
wins, because it costs less memory and fewer processes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from loadertune.trial.results import TrialResult

MIN_NOISE = 0.03   # the least relative noise assumed, however tight the repeats looked
MAX_NOISE = 0.15   # beyond this a trial re-measures itself; clamp so one bad trial can't win ties
MAX_TIE = 0.05     # never trade more than 5 % of throughput for fewer workers
SATURATED = 0.93   # the step fills this share of the loop: the loader keeps it fed
MIN_GAIN = 0.05    # a change beyond the knobs (a cache, a thread cap) must gain at least this


def rate(r: TrialResult) -> float:
    """Samples/s of a result, 0 for a failed one."""
    if not r.ok:
        return 0.0
    return r.samples_per_s or 0.0


def noise(r: TrialResult) -> float:
    """Relative noise of a result: its repeats' spread, clamped to a sane range."""
    return min(max(r.spread or 0.0, MIN_NOISE), MAX_NOISE)


def margin(a: TrialResult, b: TrialResult) -> float:
    return max(noise(a), noise(b))


def beats(a: TrialResult, b: TrialResult) -> bool:
    """``a`` is faster than ``b`` by more than the noise of either."""
    return a.ok and (not b.ok or rate(a) > rate(b) * (1 + margin(a, b)))


def ties(a: TrialResult, top: TrialResult) -> bool:
    """``a`` is within the tie tolerance of ``top`` (the fastest)."""
    return a.ok and rate(a) >= rate(top) * (1 - min(margin(a, top), MAX_TIE))


@dataclass(frozen=True)
class Gain:
    """What a second measurement of the same config under a change gained over the first."""

    value: float | None  # other / base - 1; None when either has no rate
    noise: float         # the gain needed to call it faster

    @property
    def faster(self) -> bool:
        return self.value is not None and self.value > self.noise


def measured_gain(base: TrialResult, other: TrialResult) -> Gain:
    """``other``'s gain over ``base`` and the noise it must beat: the larger relative spread
    of the two (unclamped: a change advised to a user must clear the widest noise seen), at
    least `MIN_GAIN`."""
    noise_ = max(MIN_GAIN, base.spread or 0.0, other.spread or 0.0)
    if rate(base) <= 0 or rate(other) <= 0:
        return Gain(None, noise_)
    return Gain(rate(other) / rate(base) - 1, noise_)


def preference(r: TrialResult) -> tuple[int, int, bool, float]:
    """Cheaper first: fewer workers, less prefetch, no pinning; then faster."""
    c = r.config
    return (c.num_workers, c.effective_prefetch, c.pin_memory, -rate(r))


def fastest(results: Iterable[TrialResult]) -> TrialResult | None:
    ok = [r for r in results if r.ok]
    return max(ok, key=rate) if ok else None


def pick(results: Sequence[TrialResult]) -> TrialResult | None:
    """The cheapest result that ties with the fastest one."""
    top = fastest(results)
    if top is None:
        return None
    return min((r for r in results if ties(r, top)), key=preference)


def step_share(r: TrialResult) -> float | None:
    """Share of the training loop spent in the step (1.0: never waiting for data)."""
    if not r.ok or r.step_s is None or not r.batches_per_s:
        return None
    return min(r.step_s * r.batches_per_s, 1.0)


def saturated(r: TrialResult) -> bool:
    """The consumer, not the loader, limits this result: the step almost never waits."""
    share = step_share(r)
    return share is not None and share >= SATURATED


def merge(results: Sequence[TrialResult]) -> list[TrialResult]:
    """One result per config: a config measured twice pools its repeats.

    The pooled median is more reliable than either trial's, so its noise is the pooled
    spread shrunk by the square root of the number of trials.
    """
    groups: dict[object, list[TrialResult]] = {}
    for r in results:
        groups.setdefault(r.config, []).append(r)
    merged: list[TrialResult] = []
    for group in groups.values():
        ok = [r for r in group if r.ok]
        if len(ok) < 2:
            merged.append(ok[0] if ok else group[-1])
            continue
        pooled = [x for r in ok for x in (r.repeats or [rate(r)])]
        med = statistics.median(pooled)
        spread = (max(pooled) - min(pooled)) / med if med > 0 else 0.0
        heaviest = max(ok, key=lambda r: r.memory.total)
        merged.append(replace(ok[0], samples_per_s=med, repeats=pooled,
                              spread=spread / math.sqrt(len(ok)), remeasured=True,
                              memory=heaviest.memory,
                              wall_s=sum(r.wall_s for r in group)))
    return merged
