"""Phase 1 of the search: climb num_workers until the trials show there is no more to gain.

The probe only chooses where the climb starts. From there the trials decide: the ladder
doubles up to the usable CPUs, and past them it goes on doubling only while the best trial
left a real share of the CPUs idle (items that wait on storage, a network or a lock leave
them idle). It stops when the largest count measured gained nothing over smaller ones, when
the training step is saturated, when the main process is, at the cap, or at a failure. A
memory failure is a wall to back off from: the largest count the measured per-worker memory
predicts to fit is measured next, bisecting below while it still fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from loadertune.trial.compare import (
    beats,
    fastest,
    margin,
    noise,
    pick,
    rate,
    saturated,
    step_share,
)
from loadertune.trial.results import TrialResult
from loadertune.tuning.budget import MemoryModel
from loadertune.tuning.space import (
    Decision,
    Space,
    memory_fit,
    over_budget,
    worker_results,
)
from loadertune.units import format_bytes

CPU_ROOM = 0.75         # past the CPUs, climb while the trial left over a quarter of them idle
WORKERS_BLOCKED = 0.25  # ...or while its workers were blocked (not running nor runnable) this
MAIN_BUSY = 0.9         # the main process used this share of a core: it limits the loader
HANDOVER_SAFETY = 0.8   # w0 must beat the hand-over bound by this much to skip the workers
NEAR_BUDGET = 0.1       # a count predicted within this share over the budget is measured
MEMORY_FAILURES = ("memory_limit",)
OOM_KINDS = ("crashed", "worker_killed")
SIGKILL = 9


def climb(space: Space, results: Sequence[TrialResult]) -> Decision:
    """The next rung of the ladder, a step back from a memory wall, or why climbing is over."""
    measured = worker_results(space, results)
    if not measured:
        first = space.first_rung()
        return _rung(space, results, measured, first,
                     "baseline" if first == 0 else f"first rung ({first} workers): "
                     "the probe saw items wait, so the climb starts past the CPUs")
    wall = _wall(space, results, measured)
    if wall is not None:
        return _back_off(space, results, measured, wall) or Decision(
            None, "climb", wall_why(space, results, measured, wall))
    best = pick(list(measured.values()))
    assert best is not None  # no wall: every climb result is ok
    top = max(measured.values(), key=lambda r: r.config.num_workers)
    stop = _stop(space, measured, best, top)
    if stop is not None:
        return Decision(None, "climb", stop)
    nxt = space.next_rung(top.config.num_workers)
    return _rung(space, results, measured, nxt,
                 f"{best.config.label()} is the best so far{_room_note(space, top)}; "
                 f"try {nxt} workers")


def _rung(space: Space, results: Sequence[TrialResult], measured: dict[int, TrialResult],
          k: int, why: str) -> Decision:
    """Measure ``k`` workers, or the most that fit the memory budget, or stop."""
    reason = over_budget(space, results, k)
    if reason is None:
        return Decision(space.config(k), "climb", why)
    budget = f"over the {format_bytes(space.limits.memory_budget)} budget"
    model = space.memory(results)
    fit = model.most_workers(space.limits.memory_budget, k - 1)
    below = [n for n, r in measured.items() if r.ok]
    if fit > max(below, default=-1) and fit not in measured:
        what = f"{fit} workers, the most predicted to fit" if fit else "num_workers=0"
        return Decision(space.config(fit), "climb",
                        f"memory budget leaves no room for {k} workers ({reason}, {budget}); "
                        f"measuring {what}")
    most = max([fit, *below])  # name the first count past the most that fit, not the rung
    if 0 < most < k - 1:
        reason = model.explain(most + 1)
    return Decision(None, "climb", f"memory budget reached: {reason}, {budget}")


def _wall(space: Space, results: Sequence[TrialResult],
          measured: dict[int, TrialResult]) -> TrialResult | None:
    """The fewest workers that failed, or that ran but grow past the memory budget with the
    copy-on-read growth still projected."""
    fit = memory_fit(space, results)
    over = [r for r in measured.values() if not fit.fits(r)]
    return min(over, key=lambda r: r.config.num_workers) if over else None


def _memory_wall(r: TrialResult) -> bool:
    return r.ok or memory_failure(r)


def memory_failure(r: TrialResult) -> bool:
    """The trial hit the memory budget, or the kernel's OOM killer (SIGKILL) struck."""
    f = r.failure
    if f is None:
        return False
    return f.kind in MEMORY_FAILURES or (f.kind in OOM_KINDS and f.signal == SIGKILL)


def _back_off(space: Space, results: Sequence[TrialResult], measured: dict[int, TrialResult],
              wall: TrialResult) -> Decision | None:
    """Below a memory failure: the most workers the measured memory predicts to fit, or the
    midpoint when no worker count has been measured whole (a killed trial's memory is only a
    lower bound); None once the largest count that fits is known."""
    f = wall.config.num_workers
    ok_below = [n for n, r in measured.items() if r.ok and n < f]
    lo = max(ok_below, default=None)
    if not _memory_wall(wall):
        if lo is not None or f == 0 or 0 in measured:
            return None  # refining between the best and the failure is the refine phase's
        return Decision(space.config(0), "back off",
                        f"{wall.config.label()} failed ({_failure(wall)}); measuring "
                        "num_workers=0 to see whether any config works")
    budget = space.limits.memory_budget
    ok_model = space.memory([r for r in results if r.ok])
    fit = ok_model.most_workers(budget, f - 1) if ok_model.measured else f
    k = fit if fit < f else min(((lo or 0) + f) // 2, _upper_fit(space, results, f))
    if k in measured or (lo is not None and k <= lo):
        return _step_up(space, ok_model, measured, lo, f)
    how = (f"{ok_model.explain(k)}" if ok_model.measured and fit < f
           else "bisecting: no worker count below it measured yet")
    return Decision(space.config(k), "back off",
                    f"{_over(space, results, wall)}; trying {k} workers ({how})")


def _over(space: Space, results: Sequence[TrialResult], wall: TrialResult) -> str:
    if not wall.ok:
        return f"{wall.config.label()} hit the memory budget ({_failure(wall)})"
    return (f"{wall.config.label()} ran in {format_bytes(wall.memory.total)} but grows to "
            f"~{format_bytes(memory_fit(space, results).peak(wall))} once its workers have "
            f"read the whole dataset (copy-on-read), over the "
            f"{format_bytes(space.limits.memory_budget)} budget")


def _step_up(space: Space, model: MemoryModel, measured: dict[int, TrialResult],
             lo: int | None, f: int) -> Decision | None:
    """One worker more than the most measured to fit, when the model puts it barely over the
    budget: the model is fitted to the largest worker's own memory, which overstates what
    each of several costs, and a trial that does not fit is stopped at the budget anyway."""
    if lo is None or not model.measured:
        return None
    k = lo + 1
    budget = space.limits.memory_budget
    if k >= f or k in measured or model.predict(k) > budget * (
            1 + NEAR_BUDGET):
        return None
    return Decision(space.config(k), "back off",
                    f"{model.explain(k)}: within {NEAR_BUDGET:.0%} of the "
                    f"{format_bytes(budget)} budget, so measured rather than assumed")


def _failure(r: TrialResult) -> str:
    return f"{r.failure.kind}: {r.failure.message}" if r.failure else r.status


def _upper_fit(space: Space, results: Sequence[TrialResult], f: int) -> int:
    """The most workers that could fit: a stopped trial's largest worker had reached at least
    its USS, so no worker costs less (a lower bound on the cost, an upper bound on the count).
    """
    main = max((r.memory.main_pss or r.memory.main_rss for r in results if r.config.num_workers),
               default=space.main_estimate)
    grown = max((r.memory.per_worker or 0 for r in results if r.config.num_workers), default=0)
    if grown <= 0:
        return f
    return max(min((space.limits.memory_budget - main) // grown, f), 0)


def wall_why(space: Space, results: Sequence[TrialResult], measured: dict[int, TrialResult],
             wall: TrialResult) -> str:
    fail = f"{wall.config.label()} failed ({_failure(wall)})"
    if not _memory_wall(wall):
        return f"{fail}; no larger worker count was tried"
    if wall.ok:
        fail = _over(space, results, wall)
    fitting = [n for n, r in measured.items() if r.ok and n < wall.config.num_workers]
    if not fitting:
        return f"{fail}; no worker count fits the memory budget (measured)"
    most = max(fitting)
    return (f"{fail}; {most} worker{'s' if most > 1 else ''} is the most that fit the "
            f"{format_bytes(space.limits.memory_budget)} memory budget (measured)")


def _stop(space: Space, measured: dict[int, TrialResult], best: TrialResult,
          top: TrialResult) -> str | None:
    """Why climbing above ``top`` (the largest count measured) is not worth a trial."""
    k = top.config.num_workers
    if saturated(best):
        return saturated_why(best)
    if k >= space.cap:
        return cap_why(space, top)
    if k == 0:
        return _handover_stop(space, top)
    flat = flat_why(measured)
    if flat is not None:
        return flat
    main = top.cpu_percent_main
    if main is not None and main >= 100 * MAIN_BUSY:
        return (f"the main process is the bottleneck: it used {main:.0f}% of a core with "
                f"{top.config.label()} (receiving batches from the workers"
                f"{', and the step' if top.step_s else ''}), so more workers cannot deliver "
                "faster")
    if k >= space.cpus:
        cpu = cpu_stop(space, top)
        if cpu is not None:
            return cpu
    return _cannot_catch_up(space, top, best)


def _handover_stop(space: Space, w0: TrialResult) -> str | None:
    """w0 loads a batch faster than the main process can receive one from a worker."""
    bps, handover = w0.batches_per_s, space.handover_s
    if handover and bps and 1 / bps < HANDOVER_SAFETY * handover:
        return (f"workers cannot catch up: {w0.config.label()} loads a batch every "
                f"{1e6 / bps:,.0f} µs, less than the {1e6 * handover:,.0f} µs the main process "
                "needs just to unpickle a batch from a worker (measured here), so no number "
                "of workers can deliver faster")
    return None


def _cannot_catch_up(space: Space, top: TrialResult, best: TrialResult) -> str | None:
    """Even perfect scaling from ``top`` to the next rung, at the top of its noise, would not
    reach the best's measured rate (moving batches between processes costs more than loading
    them)."""
    k = top.config.num_workers
    nxt = space.next_rung(k)
    ceiling = rate(top) * nxt / k * (1 + noise(top))
    if top is best or ceiling > rate(best):
        return None
    return (f"workers cannot catch up: {top.config.label()} gave {rate(top):,.0f} samples/s, "
            f"so even perfect scaling to {nxt} workers ({ceiling:,.0f}) would not reach "
            f"{best.config.label()} at {rate(best):,.0f}")


def cpu_stop(space: Space, r: TrialResult) -> str | None:
    """Why more workers than ``r``'s would only compete for the CPUs, or None while they
    might not.

    Where the OS tells (Linux schedstat), the workers' own time decides: a worker blocked a
    real share of its time (on storage, a network, a lock) leaves a core free that another
    worker can use, while one that was running or waiting for a core would only compete (on a
    machine shared with other work too). Else the trial's CPU use against the usable CPUs;
    without either, the probe's hypothesis.
    """
    blocked = r.workers_blocked
    if blocked is not None and r.config.num_workers:
        if blocked >= WORKERS_BLOCKED:
            return None
        return (f"the CPUs are saturated: {r.config.label()}'s workers were running or "
                f"waiting for a core {100 * (1 - blocked):.0f}% of the time (blocked only "
                f"{100 * blocked:.0f}%), so more workers would only compete for the CPUs")
    usable = 100 * space.cpus
    if r.cpu_percent is None:
        if space.latency_bound:
            return None
        return (f"reached {r.config.num_workers} workers = the usable CPUs (no CPU "
                "measurement, and the probe found the items CPU-bound)")
    if r.cpu_percent >= CPU_ROOM * usable:
        return (f"the CPUs are saturated: {r.config.label()} used {r.cpu_percent:.0f}% of "
                f"the {usable}% usable CPU, so more workers would only compete for it")
    return None


def _room_note(space: Space, top: TrialResult) -> str:
    k, cpu = top.config.num_workers, top.cpu_percent
    if k < space.cpus:
        return ""
    if top.workers_blocked is not None:
        return (f", and with {k} workers they were blocked {100 * top.workers_blocked:.0f}% "
                "of the time (waiting on something other than a CPU)")
    if cpu is None:
        return ""
    return (f", and with {k} workers the CPUs sat {100 - cpu / space.cpus:.0f}% idle "
            f"({cpu:.0f}% of {100 * space.cpus}% used)")


def flat_why(measured: dict[int, TrialResult]) -> str | None:
    """Why the largest worker count measured gained nothing over smaller ones, or None."""
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


def saturated_why(r: TrialResult) -> str:
    share = step_share(r) or 0.0
    step = f"{(r.step_s or 0) * 1000:.1f} ms per batch"
    return (f"the consumer is saturated: the step ({step}) is the bottleneck, busy "
            f"{100 * share:.0f}% of the time with {r.config.label()}; more workers cannot "
            f"help, so the fewest that keep it fed win")


def cap_why(space: Space, top: TrialResult) -> str:
    cap = space.cap
    if space.limits.max_workers is not None and cap == space.limits.max_workers:
        return f"reached max_workers={cap}"
    return (f"reached the cap of {cap} workers ({space.cpus} CPUs × {cap // space.cpus}) with "
            "CPUs still idle; pass max_workers to search further")
