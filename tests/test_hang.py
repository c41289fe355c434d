"""A dataset that hangs in its workers is found in seconds, not at the trial limit, with the
file:line it hangs on: fresh-interpreter and forked trials, fork and spawn workers."""

import inspect

import fixture_datasets as fx

from loadertune.bench import bench
from loadertune.bench.sweep import Grid
from loadertune.config import LoaderConfig
from loadertune.profile.frames import Frame
from loadertune.profile.hang import Stuck, describe
from loadertune.trial import DatasetSource, TrialPlan, run_trial

# a limit far above the hang floor: a "timeout" outcome would mean the hang went unseen
PLAN = TrialPlan(batches=4, repeats=3, timeout_s=100)


def sleep_line() -> int:
    """The line of ``time.sleep`` in `fixture_datasets.Hanging.__getitem__`."""
    lines, first = inspect.getsourcelines(fx.Hanging.__getitem__)
    return first + next(i for i, text in enumerate(lines) if "time.sleep(" in text)


def test_a_sweep_of_0_to_2_workers_over_a_hanging_dataset_names_the_sleep_line() -> None:
    sweep = bench("fixture_datasets:hanging", Grid(batch_size=4, workers=(0, 1, 2)), PLAN)
    where = f"fixture_datasets.py:{sleep_line()}"
    assert [r.config.num_workers for r in sweep.results] == [0, 1, 2]
    for r in sweep.results:
        assert r.failure is not None and r.failure.kind == "hang", r.failure
        assert r.failure.where is not None and r.failure.where.endswith(where), r.failure
        assert f"{where} __getitem__" in r.failure.message
        assert "time.sleep" not in r.failure.where
    main, worker = sweep.results[0].failure, sweep.results[2].failure
    assert main is not None and "main trial process" in main.message
    assert worker is not None and worker.worker_id in (0, 1)
    assert f"worker {worker.worker_id} (pid" in worker.message
    assert "Hanging" not in worker.message and "__getitem__" in worker.detail


def test_a_forked_trial_with_spawned_workers_reports_the_hang() -> None:
    cfg = LoaderConfig(num_workers=1, batch_size=4, multiprocessing_context="spawn")
    r = run_trial(DatasetSource(dataset=fx.Hanging(index=5)), cfg, PLAN)
    assert r.failure is not None and r.failure.kind == "hang", r.failure
    assert r.failure.where is not None
    assert r.failure.where.endswith(f"fixture_datasets.py:{sleep_line()}")
    assert r.failure.worker_id == 0


def test_a_frame_inside_a_library_is_named_with_the_own_frame_above_it() -> None:
    own = Frame(__file__, 12, "__getitem__")
    lib = Frame(inspect.getfile(inspect), 30, "getsource")
    idle = [Frame("/x/multiprocessing/queues.py", 113, "get"),
            Frame("/x/torch/utils/data/_utils/worker.py", 300, "_worker_loop")]
    failure = describe([Stuck("worker 0", [lib, own], 0), Stuck("worker 1", idle, 1)], 11.0)
    assert failure.kind == "hang" and failure.worker_id == 0
    assert failure.where == own.where()
    assert f"worker 0 at {own.label()} (innermost inspect.py:30 getsource)" in failure.message
    assert "worker 1 idle (waiting for indices)" in failure.message
