"""The pure parts of loadertune.watch: per-batch timing, the verdict, summary and rendering."""

from __future__ import annotations

import io
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from loadertune.watch.render import render_ranks, render_summary
from loadertune.watch.summary import RankInfo, WatchSummary, summarize
from loadertune.watch.timing import LoopTimes, timed
from loadertune.watch.verdict import decide, worker_cap, workers_needed
from loadertune.watch.workers import WorkerCounters


def test_timed_records_a_wait_and_a_step_per_batch_and_reports_completion():
    times, ends = LoopTimes(), []
    assert list(timed(iter("abc"), times, on_end=ends.append)) == ["a", "b", "c"]
    assert times.batches == 3 and len(times.steps) == 3 and ends == [True]
    for i, _ in enumerate(timed(iter("abcdef"), times, on_end=ends.append)):
        if i == 1:
            break
    assert times.batches == 5 and len(times.steps) == 5 and ends == [True, False]
    assert times.pass_starts == [0, 3] and times.completed_passes == 1
    assert min(times.waits) >= 0 and min(times.steps) >= 0


def test_timed_closes_the_step_when_the_loop_raises():
    times = LoopTimes()
    with pytest.raises(RuntimeError):
        for _ in timed(iter(range(5)), times):
            raise RuntimeError("step failed")
    assert times.batches == 1 and len(times.steps) == 1


@given(batch_ms=st.floats(0.01, 1000), step_ms=st.floats(0.01, 1000), cores=st.integers(1, 64))
def test_workers_needed_is_within_one_and_the_cores(batch_ms, step_ms, cores):
    need, capped = workers_needed(batch_ms / 1000, step_ms / 1000, cores)
    assert 1 <= need <= cores
    if capped:
        assert need == cores


def test_io_bound_workers_may_outnumber_the_cores():
    assert worker_cap(2, None) == 2
    assert worker_cap(2, 0.95) == 2
    assert worker_cap(2, 0.5) == 4
    assert worker_cap(2, 0.01) == 8  # at most 4 per core
    assert worker_cap(0.5, None) == 1
    assert worker_cap(2, 0.6, exact=False) == 2  # CPU time alone: contention looks like I/O
    assert worker_cap(2, 0.3, exact=False) == 6


def judge(stall: float, batch_ms: float, step_ms: float, workers: int, cores: float = 8,
          lws: int = 1, runnable_share: float | None = 1.0):
    return decide(stall_fraction=stall, batches=100, batch_s=batch_ms / 1000,
                  step_s=step_ms / 1000, current_workers=workers, cores=cores,
                  local_world_size=lws, batch_size=64, runnable_share=runnable_share)


def test_starved_loop_gets_more_workers_with_the_number_and_the_command():
    v = judge(stall=0.38, batch_ms=24, step_ms=5, workers=2)
    assert v.kind == "starved" and v.recommended_workers == 6
    assert v.text.startswith("the loader starves the step 38 % of the time: try num_workers=6")
    assert "loadertune tune DATASET --batch-size 64 --step-ms 5" in v.text
    assert "ceil(1.2 x 24.0 ms / 5.0 ms) = 6 workers" in v.reasoning


def test_step_bound_loop_says_how_few_workers_would_do():
    v = judge(stall=0.02, batch_ms=8, step_ms=40, workers=8)
    assert v.kind == "step_bound" and v.recommended_workers == 1
    assert v.text == ("the step is the bottleneck (data wait 2 % of the time); "
                      "1 worker would do (you run 8)")


def test_local_ranks_share_the_cores_in_the_advice():
    alone = judge(stall=0.5, batch_ms=100, step_ms=5, workers=1, cores=8)
    shared = judge(stall=0.5, batch_ms=100, step_ms=5, workers=1, cores=4, lws=2)
    assert alone.recommended_workers == 8 and shared.recommended_workers == 4
    assert "2 local ranks share the machine" in shared.reasoning
    capped = judge(stall=0.5, batch_ms=100, step_ms=5, workers=4, cores=4, lws=2)
    assert "already use what the cores can run" in capped.text


def test_starved_although_workers_keep_up_points_at_transfer():
    v = judge(stall=0.3, batch_ms=0.5, step_ms=5, workers=4)
    assert v.kind == "starved" and "should keep up" in v.text and "num_workers=0" in v.text
    assert v.recommended_workers is None  # more workers would not help


def test_no_batches_and_no_worker_timing():
    empty = decide(stall_fraction=0, batches=0, batch_s=None, step_s=0, current_workers=2,
                   cores=4, local_world_size=1, batch_size=8)
    assert empty.kind == "no_data"
    blind = decide(stall_fraction=0.6, batches=10, batch_s=None, step_s=0.01,
                   current_workers=None, cores=4, local_world_size=1, batch_size=8)
    assert blind.kind == "starved" and blind.recommended_workers is None


def synthetic(waits: list[float], steps: list[float], starts: list[int]) -> LoopTimes:
    return LoopTimes(array("d", waits), array("d", steps), starts, completed_passes=len(starts))


def test_summary_excludes_first_batches_from_the_steady_stall():
    times = synthetic([1.0, 0.01, 0.01, 2.0, 0.01], [0.09] * 5, [0, 3])
    counters = [WorkerCounters(0, 10, 5, 0.5, 0.05, 0.4, 0.01, 2, 123, "__getitems__")]
    s = summarize(times, counters, num_workers=1, batch_size=2, worker_note="",
                  usable_cpus=2.0, rank=RankInfo())
    assert s.startup_s == pytest.approx(3.0)
    assert s.stall_fraction == pytest.approx(0.03 / (0.03 + 0.45))
    assert s.wall_s == pytest.approx(3.03 + 0.45)
    assert s.verdict.kind == "step_bound" and s.passes == 2


def test_summary_renders_single_and_per_rank():
    times = synthetic([0.5, 0.02, 0.03, 0.02], [0.005] * 4, [0])
    counters = [WorkerCounters(i, 8, 2, 0.04 * (i + 1), 0.002, 0.04, None, 1, 100 + i, "x")
                for i in range(2)]
    ranks = [summarize(times, counters, num_workers=2, batch_size=4, worker_note="",
                       usable_cpus=1.0, rank=RankInfo(rank=r, world_size=2, local_rank=r,
                                                      local_world_size=2, hostname="h"))
             for r in range(2)]
    assert ranks[0].slowest_worker == "1"
    out = Console(file=io.StringIO(), width=150)
    out.print(render_summary(ranks[0]))
    out.print(render_ranks(ranks))
    text = out.file.getvalue()
    assert "per worker" in text and "1 *" in text and "rank 0/2" in text
    assert "2 ranks, 2 per machine" in text and "rank 1 verdict" in text
    assert WatchSummary.from_dict(ranks[1].to_dict()) == ranks[1]


def test_a_worker_whose_dataset_took_no_timer_is_named():
    times = synthetic([0.1, 0.01], [0.01, 0.01], [0])
    counters = [WorkerCounters(0, 0, 2, 0.0, 0.001, 0.0, None, 1, 5, "failed")]
    s = summarize(times, counters, num_workers=1, batch_size=2, worker_note="",
                  usable_cpus=2.0, rank=RankInfo())
    assert "worker 0: its dataset copy could not take a fetch timer" in s.worker_note
    assert s.verdict.recommended_workers is None  # no fetch time: no worker count from it


def test_fetch_timer_on_a_plain_dataset_and_on_one_that_cannot_take_it():
    import numpy as np

    from loadertune.watch.workers import COLUMNS, FETCH_S, ITEMS, install_fetch_timer

    class Squares:
        def __getitem__(self, i):
            return i * i

    row = np.zeros(COLUMNS)
    data = Squares()
    assert install_fetch_timer(data, row, batched=True) == 1.0
    assert data.__getitems__([1, 2, 3]) == [1, 4, 9]
    assert row[ITEMS] == 3 and row[FETCH_S] >= 0
    unbatched = Squares()
    assert install_fetch_timer(unbatched, row, batched=False) == 2.0
    assert unbatched[4] == 16 and row[ITEMS] == 4 and isinstance(unbatched, Squares)
    assert install_fetch_timer(7, row, batched=False) == -1.0
