"""Short trial plans for tuning: windows sized to a target duration from what is known.

Bench measures every config the same way; the tuner can do with shorter windows because it
compares configs with their noise, and a noisy trial re-measures itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from loadertune.config import LoaderConfig
from loadertune.trial import TrialPlan
from loadertune.trial.results import TrialResult
from loadertune.tuning.probe import ItemProbe

TARGET_WINDOW_S = 0.3
MIN_WINDOW = 3
MAX_WINDOW = 120
WINDOW_PER_WORKER = 1
ROUNDS_PER_WINDOW = 2
UNKNOWN_STEP_WINDOW = 10
DEFAULT_BATCHES_PER_S = 10.0
WORKER_MAX_BATCHES_PER_S = 400.0  # what workers deliver at best (inter-process hand-over)


def predict_batches_per_s(config: LoaderConfig, results: Sequence[TrialResult],
                          probe: ItemProbe | None, cpus: int,
                          step_s: float | None = None) -> float:
    """A rough guess of the batches/s ``config`` will reach, to size its windows; a step of
    ``step_s`` seconds per batch (or one measured in a trial) caps it."""
    steps = [r.step_s for r in results if r.step_s]
    step = step_s or (max(steps) if steps else None)
    guess = _predict(config, results, probe, cpus)
    return min(guess, 1.0 / step) if step else guess


def _predict(config: LoaderConfig, results: Sequence[TrialResult], probe: ItemProbe | None,
             cpus: int) -> float:
    ok = [r for r in results if r.ok and r.batches_per_s]
    k = config.num_workers
    same = [r for r in ok if r.config.num_workers == k]
    if same:
        return max(r.batches_per_s or 0.0 for r in same)
    below = [r for r in ok if 0 < r.config.num_workers < k]
    if below:
        near = max(below, key=lambda r: r.config.num_workers)
        return (near.batches_per_s or 0.0) * k / near.config.num_workers
    guess = DEFAULT_BATCHES_PER_S
    if probe is not None and probe.items and probe.wall_s > 0:
        one = 1.0 / (probe.wall_s * config.batch_size)
        guess = one * (max(k, 1) if probe.latency_bound else max(min(k, cpus), 1))
    elif ok:
        guess = max(r.batches_per_s or 0.0 for r in ok)
    return min(guess, WORKER_MAX_BATCHES_PER_S) if k > 0 else guess


def plan_for(config: LoaderConfig, results: Sequence[TrialResult], probe: ItemProbe | None,
             cpus: int, base: TrialPlan, user_step: bool = False) -> TrialPlan:
    """``base`` with windows of about ``TARGET_WINDOW_S`` for ``config``."""
    step_s = base.step_ms / 1000 if base.step_ms else None
    bps = max(predict_batches_per_s(config, results, probe, cpus, step_s), 1e-3)
    window = min(max(math.ceil(TARGET_WINDOW_S * bps), MIN_WINDOW), MAX_WINDOW)
    if user_step and not any(r.step_s for r in results):
        window = min(window, UNKNOWN_STEP_WINDOW)  # the step's cost is not known yet
    k = config.num_workers
    if k > 0:
        # Workers hand batches over in turn: a window of whole rounds (k batches each) spans
        # whole periods, so bursts of arrivals do not alias into the rates.
        window = k * max(math.ceil(window / k), ROUNDS_PER_WINDOW)
    long_windows = window / bps > 2 * TARGET_WINDOW_S
    return replace(base, batches=window, repeats=2 if long_windows else 3,
                   max_repeats=3 if long_windows else 4, window_per_worker=WINDOW_PER_WORKER)
