"""Advice beyond the knobs, measured before it is said: cache the decoded samples.

The best config runs twice more on one sample of the dataset's items, spread over it: once
reading each item as the dataset does (opening and decoding it on every access), once from
a list of the same items decoded beforehand (`loadertune.trial.cache`). The cached trial's
processes hold the decoded sample (once when workers are forked and share it, once per
process when they are spawned and get a copy), so the two trials' memory (PSS of the whole
tree) tells what one decoded item costs, and so what the whole dataset would. Caching is
advised only when the cached trial is faster by more than the noise and the whole decoded
dataset fits what the memory budget leaves beside the best config's measured peak;
otherwise the advice says which of the two failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from loadertune.pipeline import LoadedDataset
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.compare import measured_gain, saturated
from loadertune.trial.results import TrialResult
from loadertune.units import format_bytes

MAX_SAMPLE = 2048   # items in the sample both trials read


@dataclass
class CacheAdvice:
    """The two trials of the best config on one sample of items, and what they say."""

    label: str
    sample: int           # items in the sample
    read_rate: float | None    # samples/s reading each item every time
    cached_rate: float | None  # samples/s from the decoded list
    gain: float | None
    noise: float
    item_bytes: int | None     # memory one decoded item took (measured)
    dataset_bytes: int | None  # ...times the dataset's length
    room: int                  # what the budget leaves beside the best config's peak
    advised: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def sample_length(loaded: LoadedDataset) -> int | None:
    """The length to sample a bare map-style dataset by; None for an iterable one or one
    whose loader brings its own parts (its sampler draws from the whole dataset)."""
    if loaded.parts is not None or loaded.iterable:
        return None
    return loaded.length()


def sample_indices(length: int, size: int) -> tuple[int, ...]:
    """``size`` indices spread evenly over ``length`` items (all of them when fewer)."""
    if length <= size:
        return tuple(range(length))
    return tuple(i * length // size for i in range(size))


def decide(read: TrialResult, cached: TrialResult, sample: int, length: int,
           room: int) -> CacheAdvice:
    """The advice from the two trials on ``sample`` items of ``length`` (see the module
    docstring); ``room``: what the memory budget leaves beside the best config's peak."""
    label = read.config.label()
    measured = measured_gain(read, cached)
    noise = measured.noise
    base = f"cache: {label} on {sample:,} items spread over the dataset"
    if measured.value is None:
        failed = read if not read.ok else cached
        why = failed.failure.message if failed.failure is not None else "no measurement"
        return CacheAdvice(label, sample, read.samples_per_s, cached.samples_per_s, None,
                           noise, None, None, room, False,
                           f"{base}: a trial failed ({why}), so no advice")
    gain = measured.value
    held = cached.memory.total - read.memory.total
    item = max(held, 0) // max(sample, 1)
    whole = item * length
    rates = (f"decoded beforehand {gain * 100:+.0f} % samples/s ({read.samples_per_s:,.0f} "
             f"→ {cached.samples_per_s:,.0f}, noise ±{noise * 100:.0f} %)")
    size = (f"the {length:,} decoded items take ~{format_bytes(whole)} "
            f"({format_bytes(item)} each, measured)")
    if not measured.faster:
        text = f"{base}: {rates}, within the noise: reading is not the bottleneck, no cache"
    elif whole > room:
        text = (f"{base}: {rates}, but {size}, more than the {format_bytes(room)} the memory "
                "budget leaves beside the loader: no cache advised (a cache of part of "
                "them, or a faster format on disk, would help)")
    else:
        text = (f"{base}: {rates}; {size}, within the {format_bytes(room)} the memory budget "
                "leaves: decode once and keep the samples in memory (a list or tensors built "
                "before the DataLoader starts its workers, which share it when forked)")
    return CacheAdvice(label, sample, read.samples_per_s, cached.samples_per_s, gain, noise,
                       item, whole, room, measured.faster and whole <= room, text)


def advise_cache(source: DatasetSource, best: TrialResult | None, plan: TrialPlan,
                 length: int | None, budget: int,
                 run: Callable[..., TrialResult] = run_trial) -> CacheAdvice | None:
    """Measure the best config reading a sample vs serving it decoded; None when there is
    nothing to measure: no best, no length (an iterable dataset), a sampler of the user's own
    (the sample would not be what it draws), or a best config the step already saturates."""
    if (best is None or not best.ok or not length or saturated(best)
            or source.parts is not None):
        return None
    c = best.config
    indices = sample_indices(length, min(MAX_SAMPLE, c.batch_size * plan.batches * 4))
    read = run(source, c, replace(plan, sample=indices))
    cached = run(source, c, replace(plan, sample=indices, cached=True))
    return decide(read, cached, len(indices), length, max(budget - best.memory.total, 0))
