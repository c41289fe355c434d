"""One workload, side by side in one run: the exhaustive grid, the heuristics, the tuner."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cases import Case
from heuristics import Heuristic

import loadertune
from loadertune.bench import bench, source_for
from loadertune.bench.sweep import Grid, SweepResult
from loadertune.cli.progress import SweepProgress
from loadertune.config import LoaderConfig
from loadertune.machine import MachineInfo, default_memory_budget
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.results import TrialResult

TUNE_MISSING = "tune not available yet"
REMATCH_ORDER = ("tuned", "best", "best", "tuned")  # ABBA: a drift in the host's speed cancels


class BudgetExhausted(KeyboardInterrupt):
    """The run's time budget is spent; raised between trials so finished ones are kept."""


@dataclass
class Budget:
    """Wall-clock budget of the whole run (None: unlimited)."""

    seconds: float | None
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        if self.seconds is None:
            return float("inf")
        return self.seconds - (time.monotonic() - self.started)

    def check(self) -> None:
        if self.remaining() <= 0:
            raise BudgetExhausted()


@dataclass
class Measured:
    """A config's measurement; ``reused`` when it is the grid's trial of the same settings."""

    result: TrialResult
    reused: bool

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {"label": r.config.label(), "kwargs": r.config.to_kwargs(), "status": r.status,
                "samples_per_s": r.samples_per_s, "spread": r.spread,
                "peak_pss": peak_memory(r), "reused_grid_trial": self.reused,
                "failure": r.failure.message if r.failure else None}


@dataclass
class Rematch:
    """The tuned config and the grid's best measured again, alternately, when they differ.

    One pass measures each config once, minutes apart; a busy host can slow one of them for
    a while. Measuring the two in turn gives the quality ratio on equal terms.
    """

    tuned_rates: list[float] = field(default_factory=list)
    best_rates: list[float] = field(default_factory=list)
    failed: str | None = None

    def ratio(self) -> float | None:
        if self.failed or not self.tuned_rates or not self.best_rates:
            return None
        return statistics.median(self.tuned_rates) / statistics.median(self.best_rates)

    def to_dict(self) -> dict[str, Any]:
        return {"order": list(REMATCH_ORDER), "tuned_samples_per_s": self.tuned_rates,
                "best_samples_per_s": self.best_rates, "failed": self.failed,
                "ratio": self.ratio()}


@dataclass
class TuneOutcome:
    """What the tuner chose, what it cost, and our own measurement of its choice."""

    status: str  # ok | unavailable | failed | skipped
    note: str
    kwargs: dict[str, Any] | None = None
    tuning_s: float | None = None
    reported_s: float | None = None
    reason: str | None = None
    tuner_trials: int | None = None
    from_store: bool | None = None
    budget_s: float | None = None
    measured: Measured | None = None
    rematch: Rematch | None = None
    again: list[Repeat] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in ("status", "note", "kwargs", "tuning_s",
                                              "reported_s", "reason", "tuner_trials",
                                              "from_store", "budget_s")}
        data["measured"] = self.measured.to_dict() if self.measured else None
        data["rematch"] = self.rematch.to_dict() if self.rematch else None
        data["again"] = [a.to_dict() for a in self.again]
        return data


@dataclass
class Repeat:
    """The same tune run again: its pick, and (when it differs from the first run's) both
    picks measured in turn; ``ratio`` is this run's pick over the first run's."""

    label: str
    kwargs: dict[str, Any]
    tuning_s: float
    rematch: Rematch | None = None

    def ratio(self) -> float | None:
        if self.rematch is None:
            return 1.0
        return self.rematch.ratio()

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "kwargs": self.kwargs, "tuning_s": self.tuning_s,
                "rematch": self.rematch.to_dict() if self.rematch else None,
                "ratio_to_first_run": self.ratio()}


@dataclass
class WorkloadReport:
    case: Case
    quick: bool
    batch_size: int
    status: str = "ok"
    plan: TrialPlan | None = None
    sweep: SweepResult | None = None
    heuristics: list[tuple[Heuristic, Measured]] = field(default_factory=list)
    tuned: TuneOutcome = field(default_factory=lambda: TuneOutcome("skipped", "not run"))

    def grid_best(self) -> TrialResult | None:
        return self.sweep.best() if self.sweep is not None else None

    def ratio(self, result: TrialResult | None) -> float | None:
        """samples/s of ``result`` over the grid's best."""
        best = self.grid_best()
        if result is None or not result.ok or best is None or not best.samples_per_s:
            return None
        return (result.samples_per_s or 0.0) / best.samples_per_s

    def rematch_ratio(self) -> float | None:
        """tuned / grid best measured side by side; 1.0 when they are the same config."""
        measured, best = self.tuned.measured, self.grid_best()
        if measured is None or best is None or not measured.result.ok:
            return None
        if measured.result.config.to_kwargs() == best.config.to_kwargs():
            return 1.0
        return self.tuned.rematch.ratio() if self.tuned.rematch else None

    def cost_ratio(self) -> float | None:
        """Tuning seconds over the grid's seconds."""
        if self.tuned.tuning_s is None or self.sweep is None or not self.sweep.duration_s:
            return None
        return self.tuned.tuning_s / self.sweep.duration_s

    def to_dict(self) -> dict[str, Any]:
        best = self.grid_best()
        measured = self.tuned.measured
        return {
            "workload": self.case.name,
            "params": self.case.params(self.quick),
            "batch_size": self.batch_size,
            "status": self.status,
            "plan": self.plan.to_dict() if self.plan else None,
            "grid": None if self.sweep is None else {
                "seconds": self.sweep.duration_s,
                "interrupted": self.sweep.interrupted,
                "best": Measured(best, True).to_dict() if best else None,
                "fastest_samples_per_s": max((r.samples_per_s or 0.0 for r in self.sweep.ok()),
                                             default=None),
                "results": [r.to_dict() for r in self.sweep.results],
            },
            "heuristics": [{"key": h.key, "title": h.title, "rule": h.rule,
                            "num_workers": h.num_workers, **m.to_dict(),
                            "ratio_to_grid_best": self.ratio(m.result)}
                           for h, m in self.heuristics],
            "tuned": {**self.tuned.to_dict(),
                      "ratio_to_grid_best": self.ratio(measured.result) if measured else None,
                      "rematch_ratio_to_grid_best": self.rematch_ratio(),
                      "cost_ratio_to_grid": self.cost_ratio()},
        }


def peak_memory(result: TrialResult) -> int | None:
    """Peak total PSS of the trial's process tree (summed RSS where PSS is unknown)."""
    return result.memory.total or None


def heuristic_config(num_workers: int, batch_size: int) -> LoaderConfig:
    """A heuristic sets num_workers only; the rest is the grid's pf2, persistent, no pin."""
    if num_workers == 0:
        return LoaderConfig(batch_size=batch_size)
    return LoaderConfig(num_workers=num_workers, batch_size=batch_size, prefetch_factor=2,
                        persistent_workers=True)


def grid_trial(sweep: SweepResult | None, config: LoaderConfig) -> TrialResult | None:
    """The grid's trial of the same DataLoader settings, if it ran one."""
    if sweep is None:
        return None
    wanted = config.to_kwargs()
    return next((r for r in sweep.results if r.config.to_kwargs() == wanted
                 and r.status != "skipped"), None)


class WorkloadRun:
    """Runs one case: grid sweep, heuristic configs, tuner, all with one TrialPlan."""

    def __init__(self, case: Case, quick: bool, grid: Grid, plan: TrialPlan,
                 machine: MachineInfo, heuristics: list[Heuristic], budget: Budget,
                 progress: SweepProgress, step_s: float | None, tune_runs: int = 1) -> None:
        self.case, self.quick, self.grid, self.plan = case, quick, grid, plan
        self.machine, self.heuristic_list, self.budget = machine, heuristics, budget
        self.progress, self.step_s, self.tune_runs = progress, step_s, tune_runs
        self.report = WorkloadReport(case, quick, grid.batch_size, plan=plan)
        self.extra = 0

    def run(self) -> WorkloadReport:
        dataset = self.case.build(self.quick)
        source, _ = source_for(dataset)

        def on_start(i: int, n: int, config: LoaderConfig) -> None:
            self.budget.check()
            self.progress.on_start(i, n, config)

        sweep = bench(dataset, self.grid, self._plan(), machine=self.machine,
                      on_start=on_start, on_batches=self.progress.on_batches,
                      on_done=self.progress.on_done)
        self.report.sweep = sweep
        if sweep.interrupted:
            self.report.status = ("stopped: time budget spent"
                                  if isinstance(sweep.interrupt, BudgetExhausted)
                                  else "interrupted")
            raise sweep.interrupt or KeyboardInterrupt()
        for h in self.heuristic_list:
            config = heuristic_config(h.num_workers, self.grid.batch_size)
            self.report.heuristics.append((h, self._measure(source, config)))
        self.report.tuned = self._tune(dataset, source)
        return self.report

    def _plan(self) -> TrialPlan:
        """The plan, its per-trial time limit capped by what is left of the budget."""
        left = self.budget.remaining()
        return replace(self.plan, timeout_s=max(10.0, min(self.plan.timeout_s, left)))

    def _measure(self, source: DatasetSource, config: LoaderConfig) -> Measured:
        found = grid_trial(self.report.sweep, config)
        if found is not None:
            return Measured(found, reused=True)
        return Measured(self._fresh_trial(source, config), reused=False)

    def _fresh_trial(self, source: DatasetSource, config: LoaderConfig) -> TrialResult:
        """Measure ``config`` once more with the run's plan (memory-limited), with progress."""
        self.budget.check()
        self.extra += 1
        done = len(self.grid.configs()) + self.extra
        self.progress.on_start(done - 1, done, config)
        plan = self._plan()
        if plan.memory_limit is None:
            plan = replace(plan, memory_limit=default_memory_budget(self.machine))
        result = run_trial(source, config, plan, progress=self.progress.on_batches)
        self.progress.on_done(done - 1, result)
        return result

    def _run_tune(self, dataset: Any) -> tuple[Any, float, float | None]:
        """One fresh tune (its own empty history): the result, its wall time, its budget."""
        tune_detailed = loadertune.tune_detailed
        budget_s = None if self.budget.seconds is None else max(10.0, self.budget.remaining())
        self.progress.progress.reset(self.progress.trial, total=None,
                                     description="  loadertune tune")
        with tempfile.TemporaryDirectory(prefix="loadertune-bench-") as tmp:
            started = time.monotonic()
            tuned = tune_detailed(dataset, self.grid.batch_size, step=self.step_s,
                                  budget_s=budget_s, max_workers=max(self.grid.workers),
                                  memory_budget=self.plan.memory_limit,
                                  store=os.fspath(Path(tmp) / "store.sqlite"), fresh=True)
            return tuned, time.monotonic() - started, budget_s

    def _config(self, tuned: Any) -> LoaderConfig:
        config = tuned.config
        if config.batch_size != self.grid.batch_size:
            config = config.with_(batch_size=self.grid.batch_size)
        return config

    def _tune(self, dataset: Any, source: DatasetSource) -> TuneOutcome:
        if getattr(loadertune, "tune_detailed", None) is None:
            return TuneOutcome("unavailable", TUNE_MISSING)
        try:
            tuned, wall, budget_s = self._run_tune(dataset)
        except Exception as err:
            return TuneOutcome("failed", f"tune raised {type(err).__name__}: {err}")
        config = self._config(tuned)
        outcome = TuneOutcome("ok", "", kwargs=dict(tuned.kwargs), tuning_s=wall,
                              reported_s=getattr(tuned, "seconds", None),
                              reason=str(getattr(tuned, "reason", "")),
                              tuner_trials=len(getattr(tuned, "trials", []) or []),
                              from_store=getattr(tuned, "from_store", None), budget_s=budget_s)
        self.progress.console.print(f"  tuned: {config.label()} in {wall:.1f} s", highlight=False)
        outcome.measured = self._measure(source, config)
        best = self.report.grid_best()
        if (best is not None and outcome.measured.result.ok
                and best.config.to_kwargs() != config.to_kwargs()):
            outcome.rematch = self._rematch(source, config, best.config)
        for _ in range(self.tune_runs - 1):
            outcome.again.append(self._again(dataset, source, config))
        return outcome

    def _again(self, dataset: Any, source: DatasetSource, first: LoaderConfig) -> Repeat:
        """Tune once more; when the pick differs, measure both picks in turn."""
        tuned, wall, _ = self._run_tune(dataset)
        config = self._config(tuned)
        repeat = Repeat(config.label(), dict(tuned.kwargs), wall)
        self.progress.console.print(f"  tuned again: {config.label()} in {wall:.1f} s",
                                    highlight=False)
        if config.to_kwargs() != first.to_kwargs():
            repeat.rematch = self._rematch(source, config, first)
        return repeat

    def _rematch(self, source: DatasetSource, tuned: LoaderConfig,
                 best: LoaderConfig) -> Rematch:
        rematch = Rematch()
        for who in REMATCH_ORDER:
            measured = self._fresh_trial(source, tuned if who == "tuned" else best)
            if not measured.ok:
                rematch.failed = f"{measured.config.label()}: {measured.status}"
                return rematch
            rates = rematch.tuned_rates if who == "tuned" else rematch.best_rates
            rates.append(measured.samples_per_s or 0.0)
        return rematch
