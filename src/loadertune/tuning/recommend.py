"""The recommendation at the end of a search: the cheapest config that ties with the fastest,
why the search stopped, and notes on each setting (pure, like the strategy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.config import LoaderConfig
from loadertune.trial.compare import beats, fastest, merge, pick, rate, saturated
from loadertune.trial.results import TrialResult
from loadertune.tuning.climb import climb, saturated_why
from loadertune.tuning.space import Space, memory_fit
from loadertune.tuning.strategy import prefetch_futile, undecided_rival
from loadertune.units import format_bytes


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
    fitting, dropped = _within_budget(space, results)
    best = pick(fitting)
    notes: list[str] = list(dropped)
    if best is None and dropped:
        return Recommendation(space.config(0), None,
                              f"every measured config was left out by the memory budget "
                              f"({why}); num_workers=0 is the safe default", tuple(dropped))
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
    if best.config.num_workers == 0:
        notes.insert(0, _zero_why(results, best))
    margin_note = versus(fitting, best)
    if margin_note is not None:
        notes.insert(0, margin_note)
    return Recommendation(best.config, best, why, tuple(notes))


def _zero_why(results: Sequence[TrialResult], w0: TrialResult) -> str:
    """Why num_workers=0 is the answer, in measured terms."""
    workers = sorted((r for r in results if r.config.num_workers),
                     key=lambda r: r.config.num_workers)
    ok = [r for r in workers if r.ok]
    if ok:
        return ("num_workers=0: measured faster than every worker count that fits ("
                + ", ".join(f"{r.config.label()}: {rate(r):,.0f}" for r in ok)
                + f" vs {rate(w0):,.0f} samples/s)")
    if workers:
        return ("num_workers=0: no worker count fits (measured: "
                + "; ".join(f"{r.config.label()} {r.status}" for r in workers) + ")")
    return "num_workers=0: no worker count was measured"


def _within_budget(space: Space, results: Sequence[TrialResult]
                   ) -> tuple[list[TrialResult], list[str]]:
    """The results whose measured peak plus the copy-on-read growth still projected stays in
    the memory budget, and a note for each one left out."""
    budget = space.limits.memory_budget
    keep: list[TrialResult] = []
    notes: list[str] = []
    fit = memory_fit(space, results)
    for r in results:
        if r.ok and not fit.fits(r):
            peak = fit.peak(r)
            notes.append(f"{r.config.label()} left out: its {format_bytes(r.memory.total)} "
                         f"peak grows to ~{format_bytes(peak)} once its workers have read the "
                         f"whole dataset (copy-on-read), over the {format_bytes(budget)} "
                         "memory budget")
        else:
            keep.append(r)
    return keep, notes


def versus(results: Sequence[TrialResult], best: TrialResult) -> str | None:
    """How clearly ``best`` wins: against the fastest other config, with the noise and the
    windows behind each number ("w2 beats w0 by 1.32× ± 0.08 over 6/6 windows")."""
    others = [r for r in results if r is not best and r.ok]
    rival = undecided_rival(results, best) or fastest(others)
    if rival is None or not rate(rival):
        return None
    ratio = rate(best) / rate(rival)
    pm = ratio * ((best.spread or 0.0) + (rival.spread or 0.0)) / 2
    windows = f"over {len(best.repeats)}/{len(rival.repeats)} windows"
    if ratio >= 1:
        return (f"{best.config.label()} beats {rival.config.label()} by {ratio:.2f}× "
                f"± {pm:.2f} {windows}")
    return (f"{best.config.label()} is within {100 * (1 - ratio):.0f}% (± {100 * pm:.0f}%) of "
            f"{rival.config.label()} {windows}, with fewer workers or less prefetch")


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
        notes.append(f"persistent_workers=True: starting {c.num_workers} "
                     f"worker{'s' if c.num_workers > 1 else ''} costs "
                     f"~{cost:.2f} s per epoch (measured time to first batch), paid once "
                     "instead of every epoch")
    if saturated(best):
        notes.append(saturated_why(best))
    return notes
