"""The tuning loop: ask the strategy, run the trial, record it, honour the time budget.

Every side effect of the search is here (trials run in child processes); the strategy only
reads the results.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.process import close_all
from loadertune.trial.results import TrialResult
from loadertune.tuning.plans import plan_for, predict_batches_per_s
from loadertune.tuning.probe import ItemProbe
from loadertune.tuning.strategy import Decision, Space, next_config

TRIAL_OVERHEAD_S = 1.8   # a fresh interpreter importing torch, before the first trial tells
MIN_TRIAL_TIMEOUT_S = 10.0

TuneStart = Callable[[int, LoaderConfig, Decision], None]
TuneDone = Callable[[int, TrialResult], None]
Batches = Callable[[int, int], None]


@dataclass
class Callbacks:
    on_start: TuneStart | None = None
    on_batches: Batches | None = None
    on_done: TuneDone | None = None


@dataclass
class SearchOutcome:
    trials: list[TrialResult] = field(default_factory=list)
    stopped_by: str = "search"   # search | budget | interrupted
    budget_note: str | None = None
    interrupt: BaseException | None = None


def predict_trial_s(config: LoaderConfig, plan: TrialPlan, trials: list[TrialResult],
                    probe: ItemProbe | None, cpus: int) -> float:
    """Seconds a trial of ``config`` under ``plan`` is expected to take."""
    step_s = plan.step_ms / 1000 if plan.step_ms else None
    bps = max(predict_batches_per_s(config, trials, probe, cpus, step_s), 1e-3)
    batches = plan.warmup_for(config) + plan.window_for(config) * plan.repeats
    overheads = [r.wall_s - r.batches / r.batches_per_s for r in trials
                 if r.ok and r.batches_per_s and r.wall_s]
    overhead = sorted(overheads)[len(overheads) // 2] if overheads else TRIAL_OVERHEAD_S
    return overhead + batches / bps


def search(source: DatasetSource, space: Space, base: TrialPlan, probe: ItemProbe | None,
           *, budget_s: float | None = None, started: float | None = None,
           callbacks: Callbacks | None = None) -> SearchOutcome:
    """Measure what the strategy asks for until it stops, the budget ends or Ctrl-C."""
    cb = callbacks or Callbacks()
    started = time.monotonic() if started is None else started
    out = SearchOutcome()
    cpus = space.limits.cpu_workers
    try:
        while True:
            decision = next_config(space, out.trials)
            if decision.config is None:
                return out
            plan = plan_for(decision.config, out.trials, probe, cpus, base,
                            user_step=source.step is not None)
            if budget_s is not None:
                left = budget_s - (time.monotonic() - started)
                need = predict_trial_s(decision.config, plan, out.trials, probe, cpus)
                if out.trials and need > left:
                    out.stopped_by = "budget"
                    out.budget_note = (f"the {budget_s:g} s budget ended: {max(left, 0):.1f} s "
                                       f"left, {decision.config.label()} would take "
                                       f"~{need:.1f} s ({decision.why})")
                    return out
                plan = replace(plan, timeout_s=min(plan.timeout_s,
                                                   max(left, MIN_TRIAL_TIMEOUT_S)))
            if cb.on_start is not None:
                cb.on_start(len(out.trials), decision.config, decision)
            result = run_trial(source, decision.config, plan, progress=cb.on_batches)
            out.trials.append(result)
            if cb.on_done is not None:
                cb.on_done(len(out.trials) - 1, result)
    except KeyboardInterrupt as err:
        close_all()  # a trial the interrupt caught between start and ownership
        out.stopped_by = "interrupted"
        out.interrupt = err
        return out
