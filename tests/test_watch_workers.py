"""loadertune.watch with real DataLoaders and real worker processes (fork and spawn)."""

from __future__ import annotations

import gc
import io
import time
from pathlib import Path

import psutil
import pytest
import torch
from rich.console import Console
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

import loadertune
from loadertune.watch import WatchSummary


class Items(Dataset):
    """``n`` one-element tensors; fetching one sleeps ``delay`` seconds (storage latency)."""

    def __init__(self, n: int, delay: float = 0.0) -> None:
        self.n, self.delay = n, delay

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> torch.Tensor:
        if self.delay:
            time.sleep(self.delay)
        return torch.tensor([index])


class SlotItems(Dataset):
    """A dataset without an instance ``__dict__``: the per-batch hook cannot be set on it."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.tensor([index])


class Stream(IterableDataset):
    """``0..n-1``, split between workers by id."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield torch.tensor([i])


class MarkStart:
    """A user's worker_init_fn: leaves a file per worker start (picklable for spawn)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, worker_id: int) -> None:
        marker = self.folder / f"worker{worker_id}-{psutil.Process().pid}"
        marker.write_text(str(get_worker_info().num_workers))


def workers_alive() -> list[psutil.Process]:
    """Child processes, less multiprocessing's own long-lived helpers (resource tracker)."""
    alive = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                alive.append(child)
        except psutil.Error:
            continue
    return alive


@pytest.fixture(autouse=True)
def no_children_left():
    yield
    gc.collect()
    deadline = time.monotonic() + 10
    while workers_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers_alive() == []


def stop_workers(loader: DataLoader) -> None:
    """Shut down persistent workers now, even when a failed assertion keeps ``loader`` alive."""
    loader._iterator = None  # the iterator's finaliser shuts its workers down
    gc.collect()


def quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


def run(loader, step_s: float = 0.0, passes: int = 1, **kwargs) -> WatchSummary:
    watched = loadertune.watch(loader, report=False, **kwargs)
    for _ in range(passes):
        for _batch in watched:
            if step_s:
                time.sleep(step_s)
    return watched.summary()


def test_stall_near_one_for_slow_data_and_near_zero_for_slow_step():
    slow_data = run(DataLoader(Items(48, delay=0.003), batch_size=4, num_workers=1,
                               multiprocessing_context="fork"))
    slow_step = run(DataLoader(Items(48), batch_size=4, num_workers=1,
                               multiprocessing_context="fork"), step_s=0.02)
    assert slow_data.stall_fraction > 0.7
    assert slow_step.stall_fraction < 0.3
    assert slow_data.stall_fraction > slow_step.stall_fraction
    assert slow_data.verdict.kind == "starved"
    assert "starves the step" in slow_data.verdict.text
    # the verdict's threshold (10 %) is tested on fixed numbers in test_watch_verdict.py; here
    # a loaded machine can push a fast loader's waits near it
    assert slow_data.wait_p95_s >= slow_data.wait_p50_s > 0
    assert slow_step.step_p50_s > slow_data.step_p50_s


def test_worker_counts_add_up_over_epochs_with_fork():
    loader = DataLoader(Items(60), batch_size=5, num_workers=2, multiprocessing_context="fork")
    summary = run(loader, passes=2)
    assert summary.batches == 2 * 12
    assert sum(w.items for w in summary.workers) == summary.batches * 5
    assert sum(w.batches for w in summary.workers) == summary.batches
    assert [w.starts for w in summary.workers] == [2, 2]  # workers restart each epoch
    assert all(w.fetch_s > 0 and w.pid for w in summary.workers)
    assert summary.slowest_worker in {"0", "1"}


def test_spawn_persistent_workers_and_user_init_fn_still_runs(tmp_path):
    user_init = MarkStart(tmp_path)
    loader = DataLoader(Items(24), batch_size=4, num_workers=2, multiprocessing_context="spawn",
                        persistent_workers=True, worker_init_fn=user_init)
    try:
        summary = run(loader, passes=2)
    finally:
        stop_workers(loader)
    assert summary.batches == 12
    assert sum(w.items for w in summary.workers) == 12 * 4
    assert [w.starts for w in summary.workers] == [1, 1]  # persistent: started once
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["worker0", "worker1"]
    assert loader.worker_init_fn is user_init  # the loader is left as the user made it


def test_iterable_dataset_and_unbatched_and_slotted_datasets_are_counted():
    stream = run(DataLoader(Stream(30), batch_size=3, num_workers=2,
                            multiprocessing_context="fork"))
    assert sum(w.items for w in stream.workers) == 30
    assert sum(w.batches for w in stream.workers) == stream.batches == 10
    unbatched = run(DataLoader(Items(10), batch_size=None, num_workers=2,
                               multiprocessing_context="fork"))
    assert sum(w.items for w in unbatched.workers) == unbatched.batches == 10
    slotted = run(DataLoader(SlotItems(20), batch_size=4, num_workers=2,
                             multiprocessing_context="fork"))
    assert sum(w.items for w in slotted.workers) == 20


def test_num_workers_zero_measures_fetch_as_the_wait():
    summary = run(DataLoader(Items(20, delay=0.001), batch_size=4), step_s=0.0)
    assert summary.num_workers == 0
    assert [w.worker for w in summary.workers] == ["main"]
    assert summary.workers[0].estimated and summary.workers[0].items == 20
    assert summary.workers[0].fetch_s == pytest.approx(summary.wait_s)
    assert summary.verdict.recommended_workers is not None


def test_persistent_workers_started_before_watch_are_reported_as_unavailable():
    loader = DataLoader(Items(8), batch_size=4, num_workers=1, persistent_workers=True,
                        multiprocessing_context="fork")
    try:
        list(loader)  # the workers start here, without watch's timers
        summary = run(loader)
    finally:
        stop_workers(loader)
    assert summary.batches == 2
    assert "before watch()" in summary.worker_note
    assert all(w.items == 0 for w in summary.workers)


def test_wrapper_is_transparent_and_reports_at_the_end():
    loader = DataLoader(Items(12), batch_size=4, num_workers=1, multiprocessing_context="fork")
    out = quiet()
    watched = loadertune.watch(loader, console=out)
    assert len(watched) == 3
    assert watched.batch_size == 4 and watched.dataset is loader.dataset
    seen = [b for b in watched]
    assert len(seen) == 3 and torch.equal(seen[0], torch.tensor([[0], [1], [2], [3]]))
    text = out.file.getvalue()
    assert "loadertune watch" in text and "verdict:" in text and "per worker" in text
    for i, _ in enumerate(watched):  # a second pass, left early
        if i == 1:
            break
    summary = watched.summary()
    assert summary.batches == 5 and summary.passes == 2
    assert text.count("verdict:") == 1 and out.file.getvalue().count("verdict:") == 2


def test_context_manager_reports_once_and_summary_round_trips():
    out = quiet()
    loader = DataLoader(Items(8), batch_size=2)
    with loadertune.watch(loader, console=out) as watched:
        for _ in range(2):
            for _batch in watched:
                pass
    assert out.file.getvalue().count("verdict:") == 1
    summary = watched.summary()
    again = WatchSummary.from_dict(summary.to_dict())
    assert again == summary
    assert set(summary.scalars()) >= {"stall_fraction", "wait_p50_ms", "step_p50_ms"}


def test_log_to_writes_scalars_and_verdict_to_a_summary_writer():
    class Writer:
        def __init__(self) -> None:
            self.scalars: dict[str, float] = {}
            self.texts: dict[str, str] = {}

        def add_scalar(self, tag, value, global_step=None):
            self.scalars[tag] = value

        def add_text(self, tag, text, global_step=None):
            self.texts[tag] = text

    writer = Writer()
    watched = loadertune.watch(DataLoader(Items(8), batch_size=2), report=False)
    for _ in watched:
        pass
    summary = watched.log_to(writer, global_step=3)
    assert writer.scalars["loadertune/watch/batches"] == 4
    assert writer.scalars["loadertune/watch/stall_fraction"] == summary.stall_fraction
    text = writer.texts["loadertune/watch/verdict"]
    assert text == f"{summary.verdict.text}\n\n{summary.verdict.reasoning}" and summary.verdict.text
