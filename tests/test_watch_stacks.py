"""loadertune.watch reads its workers' stacks: a wait that passes the hang threshold is reported
with the dataset's own file:line while the loop goes on, and ``profile=True`` says where worker
time goes. Real DataLoaders, real worker processes."""

from __future__ import annotations

import inspect
import io
import time

import pytest
import torch
from fixture_profile import Heavy
from rich.console import Console
from torch.utils.data import DataLoader, Dataset, get_worker_info

import loadertune
from loadertune.watch import WatchSummary


class SleepsOnce(Dataset):
    """``n`` one-element tensors; item ``index`` sleeps ``seconds`` (in a worker, or in the
    main process with ``in_main``)."""

    def __init__(self, n: int = 48, index: int = 21, seconds: float = 4.0,
                 in_main: bool = False) -> None:
        self.n, self.index, self.seconds, self.in_main = n, index, seconds, in_main

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        if i == self.index and (self.in_main or get_worker_info() is not None):
            time.sleep(self.seconds)
        return torch.tensor([i])


def sleep_line() -> str:
    lines, first = inspect.getsourcelines(SleepsOnce.__getitem__)
    line = first + next(i for i, text in enumerate(lines) if "time.sleep(" in text)
    return f"test_watch_stacks.py:{line}"


def watched_loop(loader: DataLoader, **kwargs: object) -> tuple[list[int], WatchSummary, str]:
    """The item indices the loop got, the summary, and what the watch printed."""
    out = io.StringIO()
    watcher = loadertune.watch(loader, console=Console(file=out, width=400), **kwargs)
    seen = [int(i) for batch in watcher
            for i in (batch[1] if isinstance(batch, list) else batch).flatten()]
    summary = watcher.summary()
    watcher.close()
    return seen, summary, out.getvalue()


@pytest.mark.parametrize("workers", [2, 0])
def test_a_wait_past_the_threshold_names_the_datasets_line_and_the_loop_goes_on(
        workers: int) -> None:
    data = SleepsOnce(in_main=workers == 0)
    loader = DataLoader(data, batch_size=4, num_workers=workers)
    seen, summary, printed = watched_loop(loader, hang_after_s=2.0)
    assert seen == list(range(len(data)))  # nothing was killed: every batch came, in order
    assert len(summary.hangs) == 1, summary.hangs
    hang = summary.hangs[0]
    assert hang.where is not None and hang.where.endswith(sleep_line()), hang
    assert f"{sleep_line()} __getitem__" in hang.message
    assert "nothing was killed" in hang.message and "killed" not in hang.message.split(":")[0]
    assert 2.0 <= hang.waited_s < hang.resolved_after_s  # type: ignore[operator]
    assert "__getitem__" in hang.detail
    if workers:
        assert hang.worker_id == data.index // 4 % workers
        assert f"worker {hang.worker_id} (pid" in hang.message
        assert "idle (waiting for indices)" in hang.message  # the other worker
    else:
        assert "main process (pid" in hang.message and "trial" not in hang.message
    assert "possible hang" in printed and sleep_line() in printed
    assert "the batch came after" in printed and "the loop goes on" in printed
    again = WatchSummary.from_dict(summary.to_dict())
    assert again.hangs == summary.hangs


def test_a_loop_that_only_steps_slowly_is_no_hang() -> None:
    """Only waits are on the clock: a step longer than the threshold is not reported."""
    loader = DataLoader(SleepsOnce(n=16, seconds=0.0), batch_size=4, num_workers=1)
    watcher = loadertune.watch(loader, report=False, hang_after_s=0.5)
    for k, _ in enumerate(watcher):
        if k == 1:
            time.sleep(1.5)
    assert watcher.summary().hangs == []
    watcher.close()


def test_hang_reports_off_leave_the_loader_alone() -> None:
    loader = DataLoader(SleepsOnce(n=8, seconds=0.0), batch_size=4, num_workers=1)
    watcher = loadertune.watch(loader, report=False, hang_after_s=None)
    assert len(list(watcher)) == 2
    assert watcher.summary().hangs == [] and watcher.summary().profile is None
    assert loader.worker_init_fn is None


def test_profile_names_the_cpu_heavy_datasets_own_function_first() -> None:
    # spawn: workers that do not inherit pytest-timeout's SIGALRM handler, so they sample
    # from the timer as in a plain script (a forked one would sample from a thread)
    loader = DataLoader(Heavy(n=96, work=20_000), batch_size=4, num_workers=2,
                        multiprocessing_context="spawn")
    seen, summary, printed = watched_loop(loader, profile=True)
    assert seen == list(range(96))
    assert summary.profile, summary
    # the largest entry that is not a worker waiting for indices (how much of that there is
    # depends on how fast the main process takes batches on 2 shared cores)
    top = next(e for e in summary.profile if e["part"] != "idle")
    assert top["part"] == "own" and top["frame"].endswith(" spin"), summary.profile
    assert "fixture_profile.py:" in top["frame"]
    line = next(x for x in printed.splitlines() if "where worker time goes: " in x)
    assert "fixture_profile.py spin" in line or " spin" in line, line
    assert loader.worker_init_fn is None  # the user's loader is left as it was


def test_profile_is_off_by_default() -> None:
    loader = DataLoader(Heavy(n=8, work=100), batch_size=4, num_workers=1)
    watcher = loadertune.watch(loader, report=False)
    assert len(list(watcher)) == 2
    assert watcher.summary().profile is None


def test_persistent_workers_are_watched_in_every_pass() -> None:
    data = SleepsOnce(n=24, index=9, seconds=3.0)
    loader = DataLoader(data, batch_size=4, num_workers=2, persistent_workers=True)
    watcher = loadertune.watch(loader, report=False, hang_after_s=1.5)
    for _ in range(2):
        assert [int(i) for b in watcher for i in b.flatten()] == list(range(24))
    hangs = watcher.summary().hangs
    assert len(hangs) == 2, hangs
    assert all(h.where is not None and h.where.endswith(sleep_line()) for h in hangs)
    assert all(h.resolved_after_s is not None and h.resolved_after_s >= 2.5 for h in hangs)
    watcher.close()
    del watcher, loader
