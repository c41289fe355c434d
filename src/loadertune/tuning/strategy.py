"""The adaptive search: a pure function of the results so far -> the next config, or a stop.

Phases, each derived again from the results on every call (no hidden state):

1. **climb** num_workers (`climb.py`): the probe picks the first rung, the trials' measured
   CPU, throughput and memory decide how far it goes and where it backs off.
2. **refine** around the best: fewer workers when they might tie it, and between the best and
   a clearly slower (or failed) neighbour when the peak may lie in between.
3. **prefetch**: a deeper prefetch_factor at the best worker count.
4. **pin**: pin_memory, only where an accelerator exists.
5. **re-measure**: contenders the noise leaves undecided are measured again in turn
   (A B B A), so a drift of the host's speed cancels, and their trials pool.

persistent_workers needs no trial: its value is the epoch-start cost the trials measured.
"""

from __future__ import annotations

from collections.abc import Sequence

from loadertune.config import LoaderConfig
from loadertune.trial.compare import (
    MAX_TIE,
    beats,
    fastest,
    margin,
    merge,
    noise,
    pick,
    preference,
    rate,
    saturated,
    ties,
)
from loadertune.trial.results import TrialResult
from loadertune.tuning.climb import climb, cpu_stop, saturated_why
from loadertune.tuning.space import Decision, Space, memory_fit, over_budget, worker_results

__all__ = ["Decision", "Space", "next_config", "saturated_why"]

CPU_SATURATED = 0.9     # the trial's processes used this share of the usable CPUs
MAX_REMEASURES = 2      # one pair measured again in turn
MIN_SAVING = 0.2        # a refine for fewer processes must save this share of the best's


def refine(space: Space, results: Sequence[TrialResult]) -> Decision | None:
    """Phase 2: a worker count between measured ones that may do better, or None."""
    measured = worker_results(space, results)
    rungs = set(space.rungs())
    if sum(1 for k in measured if k not in rungs) >= space.max_refines:
        return None
    fit = memory_fit(space, results)
    fitting = [r for r in measured.values() if fit.fits(r)]
    best, top = pick(fitting), fastest(fitting)
    if best is None or top is None:
        return None
    b = best.config.num_workers
    below = [k for k, r in measured.items() if k < b and r.ok]
    above = [k for k in measured if k > b]
    if not below and b >= 2 and b // 2 not in measured:
        return Decision(space.config(b // 2), "refine",
                        f"{b // 2} worker{'s' if b // 2 > 1 else ''} might keep up with {b} "
                        "using fewer processes")
    if below and b - max(below) >= 2:
        lo = measured[max(below)]
        mid = (lo.config.num_workers + b) // 2
        hope = _hope(measured, lo, mid)
        if (mid not in measured and b - mid >= MIN_SAVING * b
                and hope >= rate(top) * (1 - min(margin(lo, top), MAX_TIE))):
            return Decision(space.config(mid), "refine",
                            f"{mid} workers might keep up with {b} using fewer processes")
    if (above and min(above) - b >= 2 and not saturated(best)
            and (b < space.cpus or cpu_stop(space, best) is None)):
        hi = measured[min(above)]
        mid = (b + hi.config.num_workers) // 2
        if (mid not in measured and (not hi.ok or beats(best, hi))
                and (b > 0 or mid * one_worker_max(best) > rate(best) * (1 + noise(best)))
                and over_budget(space, results, mid) is None):
            return Decision(space.config(mid), "refine",
                            f"the peak may lie between {b} and {hi.config.num_workers} workers")
    return None


def _hope(measured: dict[int, TrialResult], lo: TrialResult, mid: int) -> float:
    """The most ``mid`` workers can deliver, extrapolating up from ``lo``: linear scaling, or
    the slope below ``lo`` where one is measured (throughput curves are concave)."""
    lo_k = lo.config.num_workers
    if lo_k == 0:
        return mid * one_worker_max(lo) * (1 + noise(lo))
    linear = rate(lo) * mid / lo_k
    lower = [r for k, r in measured.items() if k < lo_k and r.ok]
    if lower:
        lo2 = max(lower, key=lambda r: r.config.num_workers)
        slope = (rate(lo) - rate(lo2)) / (lo_k - lo2.config.num_workers)
        linear = min(linear, rate(lo) + max(slope, 0.0) * (mid - lo_k))
    return linear * (1 + noise(lo))


def one_worker_max(w0: TrialResult) -> float:
    """The most samples/s one worker can supply, measured by num_workers=0: the main process
    loaded each batch alone between steps, as a worker does without competing for the CPUs
    (and a worker also pickles what it loads)."""
    bps = w0.batches_per_s
    if not w0.ok or not bps:
        return float("inf")
    load_s = 1 / bps - (w0.step_s or 0.0)
    return w0.config.batch_size / load_s if load_s > 0 else float("inf")


def prefetch_futile(space: Space, r: TrialResult) -> str | None:
    """Why a deeper prefetch cannot raise ``r``'s throughput (measured), or None when it might.

    Prefetching hides uneven item times; it cannot make the step faster or add CPU time.
    """
    if saturated(r):
        return "the step is the bottleneck"
    cpus = space.cpus
    if r.cpu_percent is not None and r.cpu_percent >= CPU_SATURATED * 100 * cpus:
        return (f"the trial already used {r.cpu_percent:.0f}% CPU of {100 * cpus}% usable, "
                "so deeper prefetching has no CPU left to work with")
    return None


def tune_extras(space: Space, results: Sequence[TrialResult]) -> Decision | None:
    """Phases 3 and 4: prefetch_factor, then pin_memory (only with an accelerator)."""
    fit = memory_fit(space, results)
    best = pick([r for r in results if fit.fits(r)])
    if best is None:
        return None
    c = best.config
    measured = {r.config for r in results}
    tried = any(r.config.num_workers and r.config.effective_prefetch != 2 for r in results)
    if c.num_workers > 0 and not tried and prefetch_futile(space, best) is None:
        for pf in space.prefetch_options:
            candidate = c.with_(prefetch_factor=pf)
            if candidate.effective_prefetch != c.effective_prefetch and candidate not in measured:
                return Decision(candidate, "prefetch",
                                f"does a deeper prefetch (prefetch_factor={pf}) smooth "
                                f"the supply of {c.label()}?")
    if space.accelerator and not c.pin_memory:
        candidate = c.with_(pin_memory=True)
        if candidate not in measured:
            return Decision(candidate, "pin", "pinned memory speeds host-to-device copies; "
                            "measure what pinning costs the loader")
    return None


def undecided_rival(results: Sequence[TrialResult], best: TrialResult) -> TrialResult | None:
    """The most preferable result that the noise leaves undecided against ``best``: not
    clearly beaten by it, and tied with it only within a noise wider than the tie tolerance
    (the two may differ by more than `MAX_TIE` either way) or, when it is the cheaper one,
    not tied at all (``results`` merged, one per config). A costlier config measured slower
    than the pick beyond the tie is evidence for the pick: it is not measured again."""
    def undecided(r: TrialResult) -> bool:
        if ties(r, best):
            return margin(r, best) > MAX_TIE
        return preference(r) < preference(best)

    rivals = [r for r in results if r is not best and r.ok and not beats(best, r)
              and undecided(r)]
    return min(rivals, key=preference) if rivals else None


def remeasure(space: Space, trials: Sequence[TrialResult]) -> Decision | None:
    """Phase 5: measure an undecided pair again in turn (A B B A), or None.

    The pair is the pick and its undecided rival as the trials before the first repeat left
    them. After A and B were measured once each, B is measured again and then A: a drift of
    the host's speed during the four trials cancels, and the pooled medians decide.
    """
    counts: dict[LoaderConfig, int] = {}
    last: dict[LoaderConfig, int] = {}
    first_repeat = len(trials)
    for i, r in enumerate(trials):
        if r.config in counts and first_repeat == len(trials):
            first_repeat = i
        counts[r.config] = counts.get(r.config, 0) + 1
        last[r.config] = i
    if sum(n - 1 for n in counts.values()) >= MAX_REMEASURES:
        return None
    fit = memory_fit(space, trials)
    basis = [r for r in merge(trials[:first_repeat]) if fit.fits(r)]
    best = pick(basis)
    rival = undecided_rival(basis, best) if best is not None else None
    if best is None or rival is None:
        return None
    target = min((best.config, rival.config), key=lambda c: (counts[c], -last[c]))
    if counts[target] >= 2:
        return None
    return Decision(target, "re-measure",
                    f"{rival.config.label()} ({rate(rival):,.0f} samples/s) and "
                    f"{best.config.label()} ({rate(best):,.0f}) differ by less than their "
                    f"noise (±{100 * margin(rival, best):.0f}%): measuring them again in turn")


def next_config(space: Space, results: Sequence[TrialResult]) -> Decision:
    """The next config to measure, or a Decision with ``config=None`` and the reason."""
    trials = results
    again = remeasure(space, trials)
    if again is not None and len(merge(trials)) < len(trials):
        return again  # an A B B A re-measure under way finishes before anything else
    results = merge(trials)
    step = climb(space, results)
    if step.config is not None:
        return step
    for later in (refine(space, results), tune_extras(space, results),
                  remeasure(space, trials)):
        if later is not None:
            return later
    return Decision(None, "done", step.why)
