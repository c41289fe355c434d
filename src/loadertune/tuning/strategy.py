"""The adaptive search: a pure function of the results so far -> the next config, or a stop.

Phases, each derived again from the results on every call (no hidden state):

1. **climb** num_workers coarse-to-fine: 0, 1, 2, 4 … up to the usable CPUs for a CPU-bound
   dataset; for a latency-bound one (the probe saw items wait) 4 × the CPUs, then ×4 steps up
   to a latency cap (num_workers=0 is not measured: the probe already shows it is slow).
   Climbing stops at a plateau (the last step gained less than the noise), when even linear
   scaling from the last step could not beat the best, when the consumer is saturated (the
   step, not the loader, is the bottleneck), at a failure, at the memory budget or the cap.
2. **refine** around the best: fewer workers when they might tie it, and between the best and
   a clearly slower neighbour when the peak may lie in between.
3. **prefetch**: a deeper prefetch_factor at the best worker count.
4. **pin**: pin_memory, only where an accelerator exists.
5. **re-measure** a cheaper contender the noise leaves undecided (trials of one config pool).

persistent_workers needs no trial: its value is the epoch-start cost the trials measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.compare import (
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
    step_share,
    ties,
)
from loadertune.config import LoaderConfig
from loadertune.results import TrialResult
from loadertune.tuning.budget import Limits, MemoryModel, memory_model
from loadertune.units import format_bytes

LATENCY_STEP = 4
HANDOVER_SAFETY = 0.8  # w0 must beat the hand-over bound by this much to skip the workers
MAX_REFINES = 2
PREFETCH_OPTIONS = (4,)


@dataclass(frozen=True)
class Space:
    """What the strategy searches over and the facts it needs beyond the results."""

    batch_size: int
    limits: Limits
    latency_bound: bool = False
    accelerator: bool = False
    start_method: str | None = None      # multiprocessing_context to recommend (None: default)
    worker_start_method: str = "fork"    # the start method workers actually use
    main_estimate: int = 0               # bytes the main process holds before any trial
    item_wall_s: float | None = None     # probe: wall seconds one item takes in-process
    handover_s: float | None = None      # least seconds main needs to receive a worker's batch
    dataset_len: int | None = None
    prefetch_options: tuple[int, ...] = PREFETCH_OPTIONS
    max_refines: int = MAX_REFINES

    @property
    def cap(self) -> int:
        return self.limits.worker_cap(self.latency_bound)

    def config(self, workers: int, prefetch: int | None = None,
               pin: bool = False) -> LoaderConfig:
        if workers == 0:
            return LoaderConfig(num_workers=0, batch_size=self.batch_size, pin_memory=pin)
        return LoaderConfig(num_workers=workers, batch_size=self.batch_size,
                            prefetch_factor=prefetch, pin_memory=pin, persistent_workers=True,
                            multiprocessing_context=self.start_method)

    def rungs(self) -> list[int]:
        """The coarse num_workers ladder, ascending, ending at the cap."""
        cap = self.cap
        if self.latency_bound:
            k, rungs = min(LATENCY_STEP * max(self.limits.cpu_workers, 1), cap), []
            while k < cap:
                rungs.append(k)
                k *= LATENCY_STEP
        else:
            k, rungs = 1, [0]
            while k < cap:
                rungs.append(k)
                k *= 2
        return [*rungs, cap]

    def memory(self, results: Sequence[TrialResult]) -> MemoryModel:
        return memory_model(results, self.worker_start_method, self.main_estimate,
                            self.dataset_len)


@dataclass(frozen=True)
class Decision:
    """The next config to measure (None: the search is over) and why."""

    config: LoaderConfig | None
    phase: str
    why: str


def worker_results(space: Space, results: Sequence[TrialResult]) -> dict[int, TrialResult]:
    """The climb's results by num_workers: default prefetch, no pinning."""
    out: dict[int, TrialResult] = {}
    for r in results:
        c = r.config
        if c == space.config(c.num_workers):
            out[c.num_workers] = r
    return out


def _fits(space: Space, results: Sequence[TrialResult], workers: int) -> str | None:
    """Why ``workers`` must not be started (memory budget), or None when it may."""
    model = space.memory(results)
    if workers > 0 and model.predict(workers) > space.limits.memory_budget:
        return model.explain(workers)
    return None


def _failed_wall(measured: dict[int, TrialResult]) -> TrialResult | None:
    failed = [r for r in measured.values() if not r.ok]
    return min(failed, key=lambda r: r.config.num_workers) if failed else None


def climb(space: Space, results: Sequence[TrialResult]) -> Decision:
    """Phase 1: the next rung of the ladder, or why climbing is over."""
    measured = worker_results(space, results)
    best = pick(list(measured.values()))
    wall = _failed_wall(measured)
    for rung in space.rungs():
        if rung in measured:
            continue
        if wall is not None and rung > wall.config.num_workers:
            assert wall.failure is not None
            return Decision(None, "climb", f"{wall.config.label()} failed "
                            f"({wall.failure.kind}: {wall.failure.message}); "
                            "no larger worker count was tried")
        if best is not None and saturated(best):
            return Decision(None, "climb", saturated_why(best))
        stop = _plateau(measured, best, rung, space.handover_s)
        if stop is not None:
            return Decision(None, "climb", stop)
        reason = _fits(space, results, rung)
        if reason is not None:
            budget = f"{format_bytes(space.limits.memory_budget)} budget"
            if 0 not in measured and best is None:  # not even a baseline yet: measure w0
                return Decision(space.config(0), "climb", f"memory budget leaves no room for "
                                f"{rung} workers ({reason}, over the {budget}); measuring "
                                "num_workers=0 instead")
            return Decision(None, "climb", f"memory budget reached: {reason}, over the {budget}")
        return Decision(space.config(rung), "climb", _rung_why(space, rung, best))
    if wall is not None:
        assert wall.failure is not None
        return Decision(None, "climb", f"{wall.config.label()} failed ({wall.failure.kind}: "
                        f"{wall.failure.message})")
    if best is not None and saturated(best):
        return Decision(None, "climb", saturated_why(best))
    flat = _flat(measured)
    if flat is not None:
        return Decision(None, "climb", f"{flat}; {_cap_why(space)}")
    return Decision(None, "climb", _cap_why(space))


def _plateau(measured: dict[int, TrialResult], best: TrialResult | None, rung: int,
             handover_s: float | None = None) -> str | None:
    """Why the next rung is not worth measuring, or None."""
    ok = sorted((r for r in measured.values() if r.ok), key=lambda r: r.config.num_workers)
    if best is None or not ok:
        return None
    flat = _flat(measured)
    if flat is not None:
        return flat
    last = ok[-1]
    k = last.config.num_workers
    if (k == 0 and handover_s and last.batches_per_s
            and 1 / last.batches_per_s < HANDOVER_SAFETY * handover_s):
        return (f"workers cannot catch up: {last.config.label()} loads a batch every "
                f"{1e6 / last.batches_per_s:,.0f} µs, less than the {1e6 * handover_s:,.0f} µs "
                "the main process needs just to unpickle a batch from a worker (measured "
                "here), so no number of workers can deliver faster")
    if k >= 1:
        ceiling = rate(last) * rung / k * (1 + noise(last))
        if ceiling <= rate(best) * (1 + noise(best)):
            return (f"workers cannot catch up: {last.config.label()} gave {rate(last):,.0f} "
                    f"samples/s, so even perfect scaling to {rung} workers "
                    f"({ceiling:,.0f}) would not beat {best.config.label()} at "
                    f"{rate(best):,.0f} (moving batches between processes costs more than "
                    "loading them)")
    return None


def _flat(measured: dict[int, TrialResult]) -> str | None:
    """Why the largest worker count measured gained nothing over the smaller ones, or None."""
    ok = sorted((r for r in measured.values() if r.ok), key=lambda r: r.config.num_workers)
    if not ok:
        return None
    last = ok[-1]
    k = last.config.num_workers
    top = fastest(r for r in ok if r.config.num_workers < k)
    if k < 2 or top is None or beats(last, top):
        return None
    verb = "dropped" if beats(top, last) else "plateaued"
    return (f"throughput {verb}: {last.config.label()} gave {rate(last):,.0f} samples/s "
            f"vs {rate(top):,.0f} with {top.config.num_workers} workers "
            f"(noise ±{100 * margin(last, top):.0f}%)")


def refine(space: Space, results: Sequence[TrialResult]) -> Decision | None:
    """Phase 2: a worker count between measured ones that may do better, or None."""
    measured = worker_results(space, results)
    rungs = set(space.rungs())
    if sum(1 for k in measured if k not in rungs) >= space.max_refines:
        return None
    best = pick(list(measured.values()))
    top = fastest(measured.values())
    if best is None or top is None:
        return None
    b = best.config.num_workers
    below = [k for k, r in measured.items() if k < b and r.ok]
    above = [k for k in measured if k > b]
    if not below and b >= 2 and b // 2 not in measured:
        return Decision(space.config(b // 2), "refine",
                        f"{b // 2} workers might keep up with {b} using fewer processes")
    if below and b - max(below) >= 2:
        lo = measured[max(below)]
        mid = (lo.config.num_workers + b) // 2
        hope = _hope(measured, lo, mid)
        if mid not in measured and hope >= rate(top) * (1 - min(margin(lo, top), MAX_TIE)):
            return Decision(space.config(mid), "refine",
                            f"{mid} workers might keep up with {b} using fewer processes")
    if above and min(above) - b >= 2 and not saturated(best):
        hi = measured[min(above)]
        mid = (b + hi.config.num_workers) // 2
        if (mid not in measured and (not hi.ok or beats(best, hi))
                and _fits(space, results, mid) is None):
            return Decision(space.config(mid), "refine",
                            f"the peak may lie between {b} and {hi.config.num_workers} workers")
    return None


def _hope(measured: dict[int, TrialResult], lo: TrialResult, mid: int) -> float:
    """The most ``mid`` workers can deliver, extrapolating up from ``lo``: linear scaling, or
    the slope below ``lo`` where one is measured (throughput curves are concave)."""
    lo_k = lo.config.num_workers
    if lo_k == 0:
        return float("inf")
    linear = rate(lo) * mid / lo_k
    lower = [r for k, r in measured.items() if k < lo_k and r.ok]
    if lower:
        lo2 = max(lower, key=lambda r: r.config.num_workers)
        slope = (rate(lo) - rate(lo2)) / (lo_k - lo2.config.num_workers)
        linear = min(linear, rate(lo) + max(slope, 0.0) * (mid - lo_k))
    return linear * (1 + noise(lo))


CPU_SATURATED = 0.9     # the trial's processes used this share of the usable CPUs
LATENCY_EFFICIENT = 0.85  # workers deliver this share of what their item latency allows


def prefetch_futile(space: Space, r: TrialResult) -> str | None:
    """Why a deeper prefetch cannot raise ``r``'s throughput, or None when it might.

    Prefetching hides uneven item times; it cannot make the step faster, add CPU time, or
    make a worker load faster than one item per item latency.
    """
    if saturated(r):
        return "the step is the bottleneck"
    cpus = space.limits.cpu_workers
    if r.cpu_percent is not None and r.cpu_percent >= CPU_SATURATED * 100 * cpus:
        return (f"the trial already used {r.cpu_percent:.0f}% CPU of {100 * cpus}% usable, "
                "so deeper prefetching has no CPU left to work with")
    if space.latency_bound and space.item_wall_s and r.samples_per_s:
        ideal = r.config.num_workers / space.item_wall_s
        if r.samples_per_s >= LATENCY_EFFICIENT * ideal:
            return (f"{r.config.num_workers} workers already deliver {r.samples_per_s:,.0f} "
                    f"samples/s, {100 * r.samples_per_s / ideal:.0f}% of what their item "
                    f"latency allows ({ideal:,.0f}), so deeper prefetching cannot add more")
    return None


def tune_extras(space: Space, results: Sequence[TrialResult]) -> Decision | None:
    """Phases 3 and 4: prefetch_factor, then pin_memory (only with an accelerator)."""
    best = pick(results)
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


MAX_REMEASURES = 2


def remeasure(space: Space, trials: Sequence[TrialResult]) -> Decision | None:
    """Phase 5: measure again a close contender the noise leaves undecided, or None.

    A cheaper config slower than the pick by more than the tie tolerance but less than the
    noise might tie it; one more trial of each (pooled) settles it.
    """
    counts: dict[LoaderConfig, int] = {}
    for r in trials:
        counts[r.config] = counts.get(r.config, 0) + 1
    if sum(n - 1 for n in counts.values()) >= MAX_REMEASURES:
        return None
    results = merge(trials)
    best = pick(results)
    if best is None:
        return None
    for r in sorted(results, key=preference):
        if r is best or not r.ok or preference(r) >= preference(best):
            continue
        if ties(r, best) or beats(best, r):
            continue
        for target in (r, best):
            if counts.get(target.config, 0) < 2:
                return Decision(target.config, "re-measure",
                                f"{r.config.label()} ({rate(r):,.0f} samples/s) and "
                                f"{best.config.label()} ({rate(best):,.0f}) differ by less "
                                f"than their noise (±{100 * margin(r, best):.0f}%)")
    return None


def next_config(space: Space, results: Sequence[TrialResult]) -> Decision:
    """The next config to measure, or a Decision with ``config=None`` and the reason."""
    trials = results
    results = merge(trials)
    step = climb(space, results)
    if step.config is not None:
        return step
    for later in (refine(space, results), tune_extras(space, results),
                  remeasure(space, trials)):
        if later is not None:
            return later
    return Decision(None, "done", step.why)


def saturated_why(r: TrialResult) -> str:
    share = step_share(r) or 0.0
    step = f"{(r.step_s or 0) * 1000:.1f} ms per batch"
    return (f"the consumer is saturated: the step ({step}) is the bottleneck, busy "
            f"{100 * share:.0f}% of the time with {r.config.label()}; more workers cannot "
            f"help, so the fewest that keep it fed win")


def _rung_why(space: Space, rung: int, best: TrialResult | None) -> str:
    if best is None:
        return "baseline" if rung == 0 else f"first rung ({rung} workers)"
    return f"{best.config.label()} is the best so far; try {rung} workers"


def _cap_why(space: Space) -> str:
    cap = space.cap
    if space.limits.max_workers is not None and cap == space.limits.max_workers:
        return f"reached max_workers={cap}"
    if space.latency_bound:
        return (f"reached {cap} workers, the cap for a latency-bound dataset (more than the "
                f"{space.limits.cpu_workers} CPUs, since items mostly wait)")
    return (f"reached {cap} workers = the usable CPUs (the dataset is CPU-bound, more "
            "workers would only compete for cores)")
