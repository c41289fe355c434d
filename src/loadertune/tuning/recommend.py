"""The recommendation at the end of a search: the cheapest config that ties with the fastest,
why the search stopped, and notes on each setting (pure, like the strategy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.compare import beats, merge, pick, rate, saturated
from loadertune.config import LoaderConfig
from loadertune.results import TrialResult
from loadertune.tuning.strategy import Space, climb, prefetch_futile, saturated_why


@dataclass(frozen=True)
class Recommendation:
    """The config to use, the result that supports it, and the reasons in words."""

    config: LoaderConfig
    result: TrialResult | None
    reason: str
    notes: tuple[str, ...]


def recommend(space: Space, results: Sequence[TrialResult]) -> Recommendation:
    """The cheapest config that ties with the fastest, and why the search stopped."""
    results = merge(results)
    why = climb(space, results).why
    best = pick(results)
    notes: list[str] = []
    if best is None:
        failed = next((r for r in results if r.failure is not None), None)
        detail = (f": {failed.config.label()} {failed.failure.kind}: {failed.failure.message}"
                  if failed is not None and failed.failure is not None else "")
        return Recommendation(space.config(0), None,
                              f"no config could be measured{detail} ({why}); num_workers=0 "
                              "is the safe default", ())
    if space.accelerator and not best.config.pin_memory:
        pinned = next((r for r in results if r.config == best.config.with_(pin_memory=True)),
                      None)
        if pinned is not None and pinned.ok and not beats(best, pinned):
            best = pinned
            notes.append("pin_memory=True: it costs the loader nothing measurable and lets "
                         "the step copy batches to the accelerator asynchronously")
    elif not space.accelerator:
        notes.append("pin_memory=False: no accelerator here, so pinning would only cost time")
    notes.extend(_extras_notes(space, results, best))
    return Recommendation(best.config, best, why, tuple(notes))


def _extras_notes(space: Space, results: Sequence[TrialResult],
                  best: TrialResult) -> list[str]:
    notes: list[str] = []
    c = best.config
    if c.num_workers == 0:
        return notes
    same = [r for r in results if r.config.num_workers == c.num_workers and r.ok
            and r.config.with_(prefetch_factor=None) == c.with_(prefetch_factor=None)]
    if len(same) > 1:
        others = ", ".join(f"{r.config.effective_prefetch}: {rate(r):,.0f}" for r in
                           sorted(same, key=lambda r: r.config.effective_prefetch))
        notes.append(f"prefetch_factor={c.effective_prefetch} (samples/s by prefetch_factor "
                     f"{others}; a deeper one must gain more than the noise)")
    else:
        futile = prefetch_futile(space, best)
        if futile is not None:
            notes.append(f"prefetch_factor={c.effective_prefetch} kept without a trial: "
                         f"{futile}")
    start = best.first_batch_s
    if start is not None:
        steady = 1 / best.batches_per_s if best.batches_per_s else 0.0
        cost = max(start - steady, 0.0)
        notes.append(f"persistent_workers=True: starting {c.num_workers} workers costs "
                     f"~{cost:.2f} s per epoch (measured time to first batch), paid once "
                     "instead of every epoch")
    if saturated(best):
        notes.append(saturated_why(best))
    return notes
