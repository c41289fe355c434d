"""One thread per worker is advised only when a trial measured it faster beyond the noise:
real trials and real DataLoader workers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import _lt
import pytest
from fixture_threads import ExpectThreads, ThreadCounts, matmul_loader, two_threads
from torch.utils.data import DataLoader

from loadertune.bench import prepare, source_for
from loadertune.bench.sweep import Grid
from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.results import TrialFailure, TrialResult
from loadertune.trial.threads import ThreadCap
from loadertune.tuning.api import run_tune
from loadertune.tuning.threads import ThreadPools, advise_threads, decide, oversubscribed

TESTS = Path(__file__).parent
PLAN = TrialPlan(batches=6, repeats=3, timeout_s=90, profile=False)


def counts(loader: DataLoader) -> set[tuple[int, int]]:
    return {tuple(row) for batch in loader for row in batch.tolist()}


def test_thread_cap_runs_after_the_users_worker_init_fn_and_caps_every_pool() -> None:
    raised = counts(DataLoader(ThreadCounts(), batch_size=2, num_workers=2,
                               worker_init_fn=two_threads))
    assert {torch_threads for torch_threads, _ in raised} == {2}
    capped = counts(DataLoader(ThreadCounts(), batch_size=2, num_workers=2,
                               worker_init_fn=ThreadCap(1, two_threads)))
    assert {torch_threads for torch_threads, _ in capped} == {1}
    assert {blas for _, blas in capped} <= {0, 1}  # 0: no OpenBLAS loaded in the worker


def test_the_one_thread_trial_runs_and_the_advice_follows_its_numbers() -> None:
    prepared = prepare(matmul_loader(), Grid(batch_size=None, workers=(2,)), PLAN)
    sweep = prepared.run()
    best = sweep.best()
    assert best is not None and best.ok, sweep.results
    # the loader's own worker_init_fn runs torch at 2 threads in each of its 2 workers: the
    # trial's workers report it (measured after that function), and the advice starts from it
    assert best.worker_threads is not None and best.worker_threads["torch"] == 2, best
    assert ThreadPools.of(best).torch == 2 and oversubscribed(2, ThreadPools.of(best), cores=2)
    advice = advise_threads(prepared.source, best, prepared.plan, 2)
    assert advice is not None and advice.trial is not None and advice.pools.torch == 2
    assert advice.trial.ok and advice.trial.config == best.config, advice.trial.failure
    capped = advice.trial.worker_threads
    assert capped is not None and capped["torch"] == 1 and capped.get("blas", 1) == 1, capped
    assert advice.base_rate == best.samples_per_s
    assert advice.capped_rate == advice.trial.samples_per_s
    assert advice.gain == pytest.approx(advice.capped_rate / advice.base_rate - 1)
    assert advice.advised == (advice.gain > advice.noise)
    assert f"{advice.gain * 100:+.0f} %" in advice.text
    if advice.advised:
        assert "pass worker_init_fn=ThreadCap(1" in advice.text
    else:
        assert "no change advised" in advice.text and "ThreadCap" not in advice.text
    assert advice.to_dict()["trial"]["status"] == "ok"
    print(advice.text)


def test_no_trial_without_oversubscription() -> None:
    best = TrialResult(LoaderConfig(num_workers=2, batch_size=8), samples_per_s=100.0)

    def no_run(*args: object) -> TrialResult:
        raise AssertionError("no trial should run")

    one = ThreadPools(torch=1, blas=1)
    assert advise_threads(DatasetSource(dataset=ThreadCounts()), best, PLAN, 2, one,
                          run=no_run) is None
    assert advise_threads(DatasetSource(dataset=ThreadCounts()), None, PLAN, 2, one,
                          run=no_run) is None
    assert not oversubscribed(0, ThreadPools(torch=8), 2)
    assert not oversubscribed(2, ThreadPools(blas=2), 4)


def measured(rate: float, spread: float) -> TrialResult:
    return TrialResult(LoaderConfig(num_workers=2, batch_size=8), samples_per_s=rate,
                       spread=spread)


def test_advice_is_given_only_beyond_the_noise() -> None:
    pools = ThreadPools(blas=4)
    faster = decide(measured(100, 0.04), measured(130, 0.02), pools, 2)
    assert faster.advised and "+30 %" in faster.text and "100 → 130" in faster.text
    noisy = decide(measured(100, 0.40), measured(130, 0.02), pools, 2)
    assert not noisy.advised and "within the noise (±40 %)" in noisy.text
    small = decide(measured(100, 0.0), measured(104, 0.0), pools, 2)
    assert not small.advised and small.noise == 0.05
    slower = decide(measured(100, 0.01), measured(80, 0.01), pools, 2)
    assert not slower.advised and "-20 %" in slower.text
    failed = TrialResult(LoaderConfig(num_workers=2, batch_size=8),
                         failure=TrialFailure("timeout", "ran past 90 s"))
    broke = decide(measured(100, 0.01), failed, pools, 2)
    assert not broke.advised and broke.capped_rate is None and "ran past 90 s" in broke.text


def test_a_trial_plan_caps_worker_threads_after_the_users_worker_init_fn() -> None:
    cfg = LoaderConfig(num_workers=2, batch_size=8)
    with pytest.raises(Exception, match="worker_threads"):
        TrialPlan(worker_threads=0)
    plan = TrialPlan(batches=3, repeats=1, timeout_s=90, profile=False)
    raised = DataLoader(ExpectThreads(1), batch_size=8, worker_init_fn=two_threads)
    uncapped = run_trial(source_for(raised)[0], cfg, plan)
    assert uncapped.failure is not None and "runs 2 threads" in uncapped.failure.message
    capped = run_trial(source_for(raised)[0], cfg, replace(plan, worker_threads=1))
    assert capped.ok, capped.failure


def test_bench_cli_measures_the_advice_and_writes_it(tmp_path: Path) -> None:
    """OPENBLAS_NUM_THREADS=4: each of the 2 workers may run up to 4 BLAS threads (OpenBLAS
    keeps it to the cores), more than the cores of a machine of under 8, so the best config
    runs once more with one thread per worker."""
    out = _lt.cli("bench", "fixture_threads:matmul_loader", "--workers", "2", "--batches", "4",
                  "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"),
                  cwd=str(TESTS), timeout=240, extra_env={"OPENBLAS_NUM_THREADS": "4"})
    assert out.returncode == 0, out.stderr + out.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    if data["machine"]["usable_cpus"] >= 2 * 4:
        assert data["advice"] == []
        return
    [advice] = data["advice"]
    assert advice["label"] == data["results"][0]["label"]
    assert 2 <= advice["pools"]["blas"] <= 4 and advice["trial"]["status"] == "ok"
    assert advice["advised"] == (advice["gain"] > advice["noise"])
    assert "one thread per worker measured" in out.stdout
    assert ("pass worker_init_fn=ThreadCap(1" in out.stdout) == advice["advised"]
    quiet = _lt.cli("bench", "fixture_threads:matmul_loader", "--workers", "2", "--batches",
                    "3", "--repeats", "1", "--no-advice", "--json", str(tmp_path / "q.json"),
                    "--plot", str(tmp_path / "q.png"), cwd=str(TESTS), timeout=240,
                    extra_env={"OPENBLAS_NUM_THREADS": "4"})
    assert quiet.returncode == 0, quiet.stderr + quiet.stdout
    assert json.loads((tmp_path / "q.json").read_text())["advice"] == []
    assert "one thread per worker" not in quiet.stdout


def test_tune_adds_the_measured_advice_to_its_notes_when_asked() -> None:
    result = run_tune(matmul_loader(), max_workers=2, store=False, budget_s=60, advise=True)
    chosen = result.config.num_workers
    advice = [n for n in result.notes if n.startswith("threads: ")]
    best = next(t for t in result.trials if t.ok and t.config == result.config)
    pools = ThreadPools.of(best)  # as its workers reported them
    if oversubscribed(chosen, pools, result.machine.usable_cpus):  # type: ignore[union-attr]
        [text] = advice
        assert f"{chosen} workers × up to {pools.per_worker} threads" in text
        assert "one thread per worker measured" in text
        assert ("pass worker_init_fn=ThreadCap(1" in text) != ("no change advised" in text)
    else:
        assert advice == []
    assert len(result.trials) == len({t.config for t in result.trials})  # not in the trials
