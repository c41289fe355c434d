"""Real trials: real DataLoaders and worker processes in an isolated trial process."""

import signal

import fixture_datasets as fx
import pytest

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial

QUICK = TrialPlan(batches=4, repeats=3, timeout_s=60)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_trial_measures_throughput_first_batch_cpu_and_memory(workers: int) -> None:
    cfg = LoaderConfig(num_workers=workers, batch_size=8, persistent_workers=workers > 0)
    r = run_trial(DatasetSource(spec="fixture_datasets:busy_squares"), cfg, QUICK)
    assert r.ok, r.failure
    assert r.samples_per_s and r.samples_per_s > 0
    assert len(r.repeats) >= 3
    assert r.first_batch_s is not None and r.first_batch_s > 0
    assert r.cpu_percent is not None and r.cpu_percent > 0
    assert r.memory.main_rss > 0 and r.memory.total > 0
    assert len(r.memory.worker_rss) == workers
    if workers:
        assert r.memory.total_pss is not None and r.memory.per_worker
        assert all(u <= p for u, p in zip(r.memory.worker_uss, r.memory.worker_pss, strict=True))
        assert r.cpu_percent_workers and r.cpu_percent_workers > 0


def test_a_dataset_object_defined_in_a_test_module_is_sent_pickled() -> None:
    cfg = LoaderConfig(num_workers=1, batch_size=4)
    r = run_trial(DatasetSource(dataset=fx.Squares(64), collate_fn=fx.collate_fn), cfg, QUICK)
    assert r.ok, r.failure
    assert r.samples == sum(4 for _ in range(QUICK.batches * len(r.repeats)))


def test_an_iterable_dataset_runs_across_epochs() -> None:
    cfg = LoaderConfig(num_workers=2, batch_size=16)
    r = run_trial(DatasetSource(spec="fixture_datasets:stream"), cfg, QUICK)
    assert r.ok, r.failure
    assert r.batches >= QUICK.warmup_for(cfg) + 3 * QUICK.window_for(cfg)


def test_spawn_workers_load_a_script_dataset(tmp_path) -> None:
    cfg = LoaderConfig(num_workers=1, batch_size=8, multiprocessing_context="spawn")
    r = run_trial(DatasetSource(spec="fixture_datasets:squares"), cfg, QUICK)
    assert r.ok, r.failure
    assert r.first_batch_s is not None


@pytest.mark.parametrize("workers", [0, 2])
def test_a_raising_dataset_is_reported_with_type_message_and_index(workers: int) -> None:
    cfg = LoaderConfig(num_workers=workers, batch_size=8)
    r = run_trial(DatasetSource(dataset=fx.Raising(bad_index=37)), cfg, QUICK)
    assert not r.ok and r.failure is not None
    assert r.failure.kind == "exception"
    assert r.failure.index == 37
    assert "ValueError" in r.failure.message and "corrupt record 37" in r.failure.message
    if workers:
        assert r.failure.worker_id in (0, 1)


def test_a_hanging_dataset_times_out_and_its_tree_is_killed() -> None:
    cfg = LoaderConfig(num_workers=2, batch_size=4)
    plan = TrialPlan(batches=4, repeats=3, timeout_s=4)
    r = run_trial(DatasetSource(dataset=fx.Hanging(index=5)), cfg, plan)
    assert r.failure is not None and r.failure.kind == "timeout"
    assert "4 s limit" in r.failure.message


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
def test_a_worker_killed_by_a_signal_is_named(sig: int) -> None:
    cfg = LoaderConfig(num_workers=2, batch_size=4)
    r = run_trial(DatasetSource(dataset=fx.Killing(index=40, sig=sig)), cfg, QUICK)
    assert r.failure is not None and r.failure.kind == "worker_killed", r.failure
    assert r.failure.signal == sig and r.failure.worker_id in (0, 1)
    assert r.failure.message == (f"worker {r.failure.worker_id} killed by signal {int(sig)} "
                                 f"({signal.Signals(sig).name})")


def test_memory_growth_past_the_limit_is_stopped() -> None:
    cfg = LoaderConfig(num_workers=1, batch_size=4)
    plan = TrialPlan(batches=50, repeats=3, timeout_s=60, memory_limit=600 * 2**20)
    r = run_trial(DatasetSource(dataset=fx.Growing(mb_per_item=8)), cfg, plan)
    assert r.failure is not None and r.failure.kind == "memory_limit"
    assert "GiB of the 0.59 GiB memory budget" in r.failure.message
    assert r.memory.total > 0


def test_a_step_slows_the_loop_as_a_consumer_would() -> None:
    cfg = LoaderConfig(num_workers=0, batch_size=8)
    plan = TrialPlan(batches=3, repeats=3, step_ms=30, step_kind="sleep")
    r = run_trial(DatasetSource(spec="fixture_datasets:squares"), cfg, plan)
    assert r.ok
    assert r.batches_per_s is not None and r.batches_per_s < 1000 / 30


def test_a_callable_step_travels_with_a_spec_dataset() -> None:
    source = DatasetSource(spec="fixture_datasets:squares", step=fx.sleepy_step)
    r = run_trial(source, LoaderConfig(num_workers=0, batch_size=8), QUICK)
    assert r.ok, r.failure
    assert r.step_s is not None and r.step_s >= 0.015


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/schedstat"),
                    reason="the OS does not report scheduler times (Linux schedstat)")
def test_workers_blocked_share_tells_waiting_items_from_cpu_work() -> None:
    """Items that sleep leave their workers blocked; items that compute keep them running."""
    from loadertune.workloads import mixed, remote

    cfg = LoaderConfig(num_workers=2, batch_size=4, persistent_workers=True)
    waiting = run_trial(DatasetSource(dataset=remote(200, latency_ms=5.0, payload_kb=1)), cfg,
                        QUICK)
    working = run_trial(DatasetSource(dataset=mixed(200, cpu_ms=3.0, wait_share=0.0)), cfg,
                        QUICK)
    assert waiting.ok and working.ok, (waiting.failure, working.failure)
    assert waiting.workers_blocked is not None and working.workers_blocked is not None
    assert waiting.workers_blocked > 0.6
    assert working.workers_blocked < waiting.workers_blocked - 0.3
    w0 = run_trial(DatasetSource(dataset=remote(50, latency_ms=1.0)), LoaderConfig(batch_size=4),
                   QUICK)
    assert w0.ok and w0.workers_blocked is None  # no worker to judge


def test_spawn_only_mode_runs_trials_as_on_macos_and_windows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """LOADERTUNE_SPAWN_ONLY=1: no forked trial, so objects must pickle (one clear line when
    they do not), and the trial's workers spawn."""
    from loadertune.errors import LoadertuneError
    from loadertune.trial.runner import SPAWN_ONLY_ENV, can_fork

    monkeypatch.setenv(SPAWN_ONLY_ENV, "1")
    assert not can_fork()
    unpicklable = fx.Squares(16)
    unpicklable.transform = lambda x: x  # type: ignore[attr-defined]
    with pytest.raises(LoadertuneError, match="transform"):
        DatasetSource(dataset=unpicklable).check_travel()
    cfg = LoaderConfig(num_workers=1, batch_size=4, persistent_workers=True)
    r = run_trial(DatasetSource(dataset=fx.Squares(64), collate_fn=fx.collate_fn), cfg, QUICK)
    assert r.ok, r.failure
