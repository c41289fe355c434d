"""The tuner-vs-grid benchmark's pure parts: heuristics, reuse of grid trials, the tuned column.

No trial runs here and nothing is timed: the measurements are made-up TrialResults.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import loadertune
from loadertune.bench.sweep import Grid, SweepResult
from loadertune.cli.progress import SweepProgress
from loadertune.config import LoaderConfig
from loadertune.machine import collect
from loadertune.trial import DatasetSource, TrialPlan
from loadertune.trial.results import MemoryStats, TrialResult
from loadertune.workloads import tiny

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import cases
import compare
import heuristics
import render
import tuner_vs_grid


def test_lightning_rule_leaves_one_core_to_the_main_process() -> None:
    assert heuristics.lightning_suggestion(2) == 1
    assert heuristics.lightning_suggestion(16) == 15
    assert heuristics.lightning_suggestion(16, local_world_size=4) == 3
    assert heuristics.lightning_suggestion(1) == 1
    with pytest.raises(ValueError):
        heuristics.lightning_suggestion(8, local_world_size=0)


def test_share_of_cores_rule() -> None:
    assert heuristics.share_of_cores(2) == 1
    assert heuristics.share_of_cores(8) == 6
    assert heuristics.share_of_cores(1) == 1


def test_heuristics_come_from_this_machine() -> None:
    machine = replace(collect(), logical_cpus=8, affinity_cpus=4, local_world_size=1)
    found = {h.key: h.num_workers for h in heuristics.heuristics(machine)}
    assert found == {"zero": 0, "share": 6, "cpu_count": 8, "lightning": 3}


def test_select_workloads() -> None:
    assert [c.name for c in cases.select("tiny,jpeg")] == ["tiny", "jpeg"]
    assert len(cases.select(None)) == len(cases.CASES) == 10
    with pytest.raises(ValueError, match="nope"):
        cases.select("tiny,nope")


def fake(config: LoaderConfig, rate: float) -> TrialResult:
    return TrialResult(config=config, samples_per_s=rate, spread=0.01,
                       memory=MemoryStats(total_pss=100 * 2**20, total_rss=200 * 2**20))


@dataclass
class FakeTuned:
    config: LoaderConfig
    kwargs: dict[str, Any]
    reason: str = "plateau"
    seconds: float = 1.5
    from_store: bool = False
    trials: list[TrialResult] = field(default_factory=list)


def workload_run(rates: dict[int, float]) -> compare.WorkloadRun:
    machine = collect()
    grid = Grid(batch_size=8, workers=tuple(rates), prefetch=(2,), persistent=(True,))
    plan = TrialPlan(batches=2, repeats=1)
    progress = SweepProgress(Console(file=io.StringIO()), len(rates))
    run = compare.WorkloadRun(cases.select("tiny")[0], True, grid, plan, machine,
                              heuristics.heuristics(machine), compare.Budget(None), progress,
                              None)
    sweep = SweepResult(machine=machine, dataset="tiny", spec=None, plan=plan, duration_s=30.0)
    sweep.results = [fake(c, rates[c.num_workers]) for c in grid.configs()]
    run.report.sweep = sweep
    return run


def test_heuristics_reuse_the_grids_trial_of_the_same_config() -> None:
    run = workload_run({0: 100.0, 1: 150.0, 2: 300.0})
    measured = run._measure(DatasetSource(dataset=tiny(10)), compare.heuristic_config(2, 8))
    assert measured.reused and measured.result.samples_per_s == 300.0
    assert run.report.ratio(measured.result) == 1.0


def test_tuned_column_says_tune_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(loadertune, "tune_detailed", raising=False)
    run = workload_run({0: 100.0, 1: 150.0})
    outcome = run._tune(tiny(10), DatasetSource(dataset=tiny(10)))
    assert outcome.status == "unavailable" and outcome.note == compare.TUNE_MISSING
    run.report.tuned = outcome
    table = render.throughput_table([run.report], run.heuristic_list, "caption")
    console = Console(file=io.StringIO(), width=200)
    console.print(table)
    assert compare.TUNE_MISSING in console.file.getvalue()  # type: ignore[attr-defined]
    assert run.report.to_dict()["tuned"]["ratio_to_grid_best"] is None


def test_tuned_config_is_compared_to_the_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def tune_detailed(dataset: Any, batch_size: int, **kwargs: Any) -> FakeTuned:
        calls.append({"batch_size": batch_size, **kwargs})
        config = LoaderConfig(num_workers=1, batch_size=batch_size, prefetch_factor=2,
                              persistent_workers=True)
        return FakeTuned(config, config.to_kwargs())

    monkeypatch.setattr(loadertune, "tune_detailed", tune_detailed, raising=False)
    run = workload_run({0: 100.0, 1: 150.0, 2: 200.0})
    rerun: list[str] = []

    def fresh_trial(source: DatasetSource, config: LoaderConfig) -> TrialResult:
        rerun.append(config.label())  # the host got faster during the rematch: it cancels
        return fake(config, (190.0 if config.num_workers == 1 else 200.0) + 10 * len(rerun))

    monkeypatch.setattr(run, "_fresh_trial", fresh_trial)
    outcome = run._tune(tiny(10), DatasetSource(dataset=tiny(10)))
    run.report.tuned = outcome
    assert calls[0]["fresh"] is True and calls[0]["max_workers"] == 2
    assert str(calls[0]["store"]).endswith(".sqlite")
    assert outcome.status == "ok" and outcome.measured is not None
    assert outcome.measured.reused and outcome.measured.result.samples_per_s == 150.0
    w1, w2 = "w1 pf2 persist", "w2 pf2 persist"
    assert rerun == [w1, w2, w2, w1]  # tuned and grid best again, in turn (ABBA)
    data = run.report.to_dict()["tuned"]
    assert data["ratio_to_grid_best"] == pytest.approx(0.75)
    assert data["rematch"]["tuned_samples_per_s"] == [200.0, 230.0]
    assert data["rematch_ratio_to_grid_best"] == pytest.approx(215 / 225)
    assert data["cost_ratio_to_grid"] == pytest.approx(outcome.tuning_s / 30.0)


def test_no_rematch_when_the_tuner_picks_the_grids_best(monkeypatch: pytest.MonkeyPatch) -> None:
    def tune_detailed(dataset: Any, batch_size: int, **kwargs: Any) -> FakeTuned:
        config = LoaderConfig(num_workers=2, batch_size=batch_size, prefetch_factor=2,
                              persistent_workers=True)
        return FakeTuned(config, config.to_kwargs())

    monkeypatch.setattr(loadertune, "tune_detailed", tune_detailed, raising=False)
    run = workload_run({0: 100.0, 1: 150.0, 2: 200.0})
    run.report.tuned = run._tune(tiny(10), DatasetSource(dataset=tiny(10)))
    assert run.report.tuned.rematch is None
    assert run.report.to_dict()["tuned"]["rematch_ratio_to_grid_best"] == 1.0


def test_a_failing_tuner_is_reported_not_faked(monkeypatch: pytest.MonkeyPatch) -> None:
    def tune_detailed(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(loadertune, "tune_detailed", tune_detailed, raising=False)
    run = workload_run({0: 100.0})
    outcome = run._tune(tiny(10), DatasetSource(dataset=tiny(10)))
    assert outcome.status == "failed" and "boom" in outcome.note and outcome.measured is None


def test_unknown_workload_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert tuner_vs_grid.main(["--workloads", "nope", "--no-growth"]) == 2
    assert "unknown workload" in capsys.readouterr().err


def test_a_second_tune_run_that_picks_otherwise_is_measured_against_the_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    picks = iter([2, 1])

    def tune_detailed(dataset: Any, batch_size: int, **kwargs: Any) -> FakeTuned:
        config = LoaderConfig(num_workers=next(picks), batch_size=batch_size,
                              prefetch_factor=2, persistent_workers=True)
        return FakeTuned(config, config.to_kwargs())

    monkeypatch.setattr(loadertune, "tune_detailed", tune_detailed, raising=False)
    run = workload_run({0: 100.0, 1: 150.0, 2: 200.0})
    run.tune_runs = 2
    order: list[int] = []

    def fresh_trial(source: DatasetSource, config: LoaderConfig) -> TrialResult:
        order.append(config.num_workers)
        return fake(config, 180.0 if config.num_workers == 1 else 200.0)

    monkeypatch.setattr(run, "_fresh_trial", fresh_trial)
    run.report.tuned = run._tune(tiny(10), DatasetSource(dataset=tiny(10)))
    [again] = run.report.tuned.again
    assert again.label == "w1 pf2 persist" and order == [1, 2, 2, 1]
    assert again.ratio() == pytest.approx(0.9)
    assert run.report.to_dict()["tuned"]["again"][0]["ratio_to_first_run"] == pytest.approx(0.9)
