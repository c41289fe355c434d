"""Short trial plans for tuning: windows sized to a target duration from what is known.

Bench measures every config the same way; the tuner can do with shorter windows because it
compares configs with their noise, and a noisy trial re-measures itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from loadertune.config import LoaderConfig
from loadertune.results import TrialResult
from loadertune.trial import TrialPlan
from loadertune.tuning.probe import ItemProbe

TARGET_WINDOW_S = 0.3
MIN_WINDOW = 3
MAX_WINDOW = 400
WINDOW_PER_WORKER = 2
DEFAULT_BATCHES_PER_S = 10.0


def predict_batches_per_s(config: LoaderConfig, results: Sequence[TrialResult],
                          probe: ItemProbe | None, cpus: int) -> float:
    """A rough guess of the batches/s ``config`` will reach, to size its windows."""
    ok = [r for r in results if r.ok and r.batches_per_s]
    k = config.num_workers
    same = [r for r in ok if r.config.num_workers == k]
    if same:
        return max(r.batches_per_s or 0.0 for r in same)
    below = [r for r in ok if 0 < r.config.num_workers < k]
    if below:
        near = max(below, key=lambda r: r.config.num_workers)
        return (near.batches_per_s or 0.0) * k / near.config.num_workers
    if probe is not None and probe.items and probe.wall_s > 0:
        one = 1.0 / (probe.wall_s * config.batch_size)
        return one * (max(k, 1) if probe.latency_bound else max(min(k, cpus), 1))
    if ok:
        return max(r.batches_per_s or 0.0 for r in ok)
    return DEFAULT_BATCHES_PER_S


def plan_for(config: LoaderConfig, results: Sequence[TrialResult], probe: ItemProbe | None,
             cpus: int, base: TrialPlan) -> TrialPlan:
    """``base`` with windows of about ``TARGET_WINDOW_S`` for ``config``."""
    bps = max(predict_batches_per_s(config, results, probe, cpus), 1e-3)
    window = min(max(math.ceil(TARGET_WINDOW_S * bps), MIN_WINDOW), MAX_WINDOW)
    long_windows = window / bps > 2 * TARGET_WINDOW_S
    return replace(base, batches=window, repeats=2 if long_windows else 3,
                   max_repeats=4 if long_windows else 5, window_per_worker=WINDOW_PER_WORKER)
