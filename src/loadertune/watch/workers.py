"""Per-worker fetch timing: what each DataLoader worker spent producing its items.

How the numbers get back to the main process
--------------------------------------------
Before the loader's workers start, the main process allocates one small shared-memory table
(a ``float64`` torch tensor of ``num_workers`` rows, moved to shared memory), and puts two
picklable wrappers on the loader: a ``worker_init_fn`` (:class:`WorkerProbe`) and a
``collate_fn`` (:class:`TimedCollate`), both holding that tensor. Each worker writes only its own
row (``get_worker_info().id``), so no lock and no message is needed, and the main process reads
the table whenever it summarises. This is the cheapest robust channel:

- it costs the worker a few float additions per batch (through a numpy view of the row) and adds
  nothing to the batches, the queues or the user's data;
- it works under ``fork`` (the mapping is inherited) and ``spawn``/``forkserver`` (torch's
  multiprocessing reductions send the shared tensor's handle with the worker's arguments);
- it survives ``persistent_workers`` (the rows keep counting across epochs) and workers that
  restart every epoch (a restarted worker adds to the same row).

Inside a worker, :class:`WorkerProbe` first runs the user's own ``worker_init_fn``, then puts a
timer on the worker's copy of the dataset (``get_worker_info().dataset``):

- map-style dataset with batches: an instance attribute ``__getitems__`` (the fetcher calls it
  once per batch when present), so the cost is one clock pair per *batch*; a dataset that
  already defines ``__getitems__`` keeps it, called through the timer;
- iterable-style dataset, or ``batch_size=None``: the worker's copy is given a slot-less subclass
  that times ``__iter__``'s items or ``__getitem__``; only that worker's copy changes.

The wrappers are on the loader only while its iterator is being created (the workers receive them
then); the user's ``worker_init_fn`` and ``collate_fn`` are put back right after, so the loader
object itself is left as it was. See :class:`LoaderProbe` for ``num_workers=0`` and for
persistent workers that started before ``watch()``.
"""

from __future__ import annotations

import functools
import os
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

ITEMS, FETCH_S, BATCHES, COLLATE_S, STARTS, PID, TIMER, CPU_S, RUNQ_S, RUNQ_KNOWN = range(10)
COLUMNS = 10
TIMER_NAMES = {0.0: "none", 1.0: "__getitems__", 2.0: "subclass", -1.0: "failed"}


@dataclass
class WorkerCounters:
    """What one worker reported, summed over every epoch it served."""

    worker_id: int
    items: int
    batches: int
    fetch_s: float
    collate_s: float
    cpu_s: float  # CPU time the worker process used while fetching (I/O waits use none)
    runq_s: float | None  # time it was ready to run but waited for a core; None: not measured
    starts: int
    pid: int | None
    timer: str


def new_table(num_workers: int) -> torch.Tensor:
    """A zeroed shared-memory table with one row per worker."""
    return torch.zeros(num_workers, COLUMNS, dtype=torch.float64).share_memory_()


def read_table(table: torch.Tensor) -> list[WorkerCounters]:
    """The rows of ``table`` as counters (a consistent-enough snapshot: rows are not locked)."""
    rows = table.clone().tolist()
    return [
        WorkerCounters(
            worker_id=i, items=int(r[ITEMS]), batches=int(r[BATCHES]), fetch_s=r[FETCH_S],
            collate_s=r[COLLATE_S], cpu_s=r[CPU_S],
            runq_s=r[RUNQ_S] if r[RUNQ_KNOWN] and r[BATCHES] else None, starts=int(r[STARTS]),
            pid=int(r[PID]) or None, timer=TIMER_NAMES.get(r[TIMER], "unknown"),
        )
        for i, r in enumerate(rows)
    ]


class WorkerProbe:
    """``worker_init_fn`` that chains the user's own, then times this worker's dataset fetches."""

    def __init__(self, table: torch.Tensor, user_fn: Callable[[int], Any] | None,
                 batched: bool) -> None:
        self.table = table
        self.user_fn = user_fn
        self.batched = batched

    def __call__(self, worker_id: int) -> None:
        if self.user_fn is not None:
            self.user_fn(worker_id)
        info = get_worker_info()
        if info is None or not 0 <= worker_id < self.table.shape[0]:
            return
        row = self.table.numpy()[worker_id]
        row[STARTS] += 1
        row[PID] = os.getpid()
        row[TIMER] = install_fetch_timer(info.dataset, row, self.batched)


class TimedCollate:
    """``collate_fn`` wrapper that counts batches and times collation in the worker."""

    def __init__(self, table: torch.Tensor, collate_fn: Callable[[Any], Any]) -> None:
        self.table = table
        self.collate_fn = collate_fn
        self._view: Any = None  # this process's numpy view of the table, made on first use

    def __getstate__(self) -> dict[str, Any]:
        return {"table": self.table, "collate_fn": self.collate_fn, "_view": None}

    def __call__(self, data: Any) -> Any:
        info = get_worker_info()
        if info is None:
            return self.collate_fn(data)
        t0 = time.perf_counter()
        batch = self.collate_fn(data)
        elapsed = time.perf_counter() - t0
        view = self._view
        if view is None:
            view = self._view = self.table.numpy()
        row = view[info.id]
        row[COLLATE_S] += elapsed
        row[BATCHES] += 1
        return batch


def install_fetch_timer(dataset: Any, row: Any, batched: bool) -> float:
    """Time ``dataset``'s fetches into ``row``; returns the TIMER code of the method used."""
    if batched and not isinstance(dataset, IterableDataset):
        try:
            object.__setattr__(dataset, "__getitems__", _timed_getitems(dataset, row))
            return 1.0
        except (AttributeError, TypeError):
            pass  # no instance __dict__ (slots): fall through to the subclass
    try:
        dataset.__class__ = _timed_subclass(type(dataset), row, batched)
        return 2.0
    except Exception:  # an exotic class layout: leave the dataset alone, report "failed"
        return -1.0


def _timed_getitems(dataset: Any, row: Any) -> Callable[[list[Any]], Any]:
    own = getattr(dataset, "__getitems__", None)
    getitem = dataset.__getitem__
    if callable(own):
        def fetch(_: Any, indices: list[Any]) -> Any:
            return own(indices)
    else:
        def fetch(_: Any, indices: list[Any]) -> Any:
            return [getitem(i) for i in indices]
    return functools.partial(_batch_timer(fetch, row), None)


def run_delay_reader() -> Callable[[], int] | None:
    """Nanoseconds this thread has spent ready to run but waiting for a core (Linux schedstat).

    One ``pread`` of an already open file (< 1 µs). With CPU time, it splits a fetch's wall time
    into on a core / waiting for a core (contention) / blocked (I/O, sleep); ``process_time``
    alone cannot tell contention from I/O. None where the file does not exist.
    """
    try:
        fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        return None
    reader = _RunDelay(fd)
    try:
        reader()
    except (OSError, IndexError, ValueError):
        return None
    return reader


class _RunDelay:
    """Reads run-queue wait from an open schedstat file; closes it when garbage-collected."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        weakref.finalize(self, os.close, fd)

    def __call__(self) -> int:
        return int(os.pread(self.fd, 64, 0).split()[1])


FetchMany = Callable[[Any, list[Any]], Any]


def _batch_timer(fetch_many: FetchMany, row: Any) -> FetchMany:
    """Time each ``fetch_many(dataset, indices)``: wall, CPU and (on Linux) run-queue wait."""
    clock, cpu = time.perf_counter, time.process_time
    runq = run_delay_reader()
    if runq is None:
        def timed_fetch(dataset: Any, indices: list[Any]) -> Any:
            c0, t0 = cpu(), clock()
            data = fetch_many(dataset, indices)
            row[FETCH_S] += clock() - t0
            row[CPU_S] += cpu() - c0
            row[ITEMS] += len(indices)
            return data

        return timed_fetch
    row[RUNQ_KNOWN] = 1.0

    def timed_fetch_runq(dataset: Any, indices: list[Any]) -> Any:
        r0, c0, t0 = runq(), cpu(), clock()
        data = fetch_many(dataset, indices)
        row[FETCH_S] += clock() - t0
        row[CPU_S] += cpu() - c0
        row[RUNQ_S] += (runq() - r0) * 1e-9
        row[ITEMS] += len(indices)
        return data

    return timed_fetch_runq


def _timed_subclass(cls: type, row: Any, batched: bool) -> type:
    clock, cpu = time.perf_counter, time.process_time
    namespace: dict[str, Any] = {"__slots__": (), "__module__": cls.__module__,
                                 "__qualname__": cls.__qualname__}
    if issubclass(cls, IterableDataset) or not hasattr(cls, "__getitem__"):
        base_iter = cls.__iter__

        def __iter__(self: Any) -> Iterator[Any]:
            items = base_iter(self)
            while True:
                c0, t0 = cpu(), clock()
                try:
                    item = next(items)
                except StopIteration:
                    return
                row[FETCH_S] += clock() - t0
                row[CPU_S] += cpu() - c0
                row[ITEMS] += 1
                yield item

        namespace["__iter__"] = __iter__
    elif batched:  # one timing per batch, through __getitems__ (the fetcher prefers it)
        own = getattr(cls, "__getitems__", None)
        if callable(own):
            fetch: FetchMany = own
        else:
            base = cls.__getitem__

            def fetch(dataset: Any, indices: list[Any]) -> Any:
                return [base(dataset, i) for i in indices]
        namespace["__getitems__"] = _batch_timer(fetch, row)
    else:
        base_getitem = cls.__getitem__

        def __getitem__(self: Any, index: Any) -> Any:
            c0, t0 = cpu(), clock()
            item = base_getitem(self, index)
            row[FETCH_S] += clock() - t0
            row[CPU_S] += cpu() - c0
            row[ITEMS] += 1
            return item

        namespace["__getitem__"] = __getitem__
    return type(cls)(cls.__name__, (cls,), namespace)


class LoaderProbe:
    """Puts the worker wrappers on a DataLoader for the moment its workers start.

    - Not a DataLoader, or ``num_workers=0``: nothing is installed; there are no workers, each
      batch is fetched in the main process and its fetch time *is* the wait.
    - ``persistent_workers=True`` and the workers already started before ``watch()`` (the loader
      was iterated before): a worker's ``worker_init_fn`` has run and cannot be replaced, so no
      per-worker numbers are available; :attr:`note` says so and how to get them.
    - Otherwise a table is made once, and every pass that starts workers hands them the wrappers.
    """

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.num_workers = int(getattr(loader, "num_workers", 0) or 0)
        self.table: torch.Tensor | None = None
        self.note = ""
        self._our_iterator: Any = None
        self.is_dataloader = isinstance(loader, DataLoader)
        if not self.is_dataloader:
            self.num_workers = 0
            self.note = "not a DataLoader: only the loop's wait and step are measured"
        elif self.num_workers == 0:
            self.note = "num_workers=0: batches are fetched in the main process; fetch = wait"
        elif loader.persistent_workers and getattr(loader, "_iterator", None) is not None:
            self.note = ("per-worker times unavailable: the loader's persistent workers started "
                         "before watch(); wrap the loader before its first iteration")
        else:
            self.table = new_table(self.num_workers)

    def start_pass(self) -> Iterator[Any]:
        """``iter(loader)`` with the wrappers on the loader while workers start, then removed."""
        loader = self.loader
        existing = getattr(loader, "_iterator", None)
        if self.table is None or existing is not None:
            if self.table is not None and existing is not self._our_iterator:
                self.table, self.note = None, (
                    "per-worker times unavailable: the loader's persistent workers were started "
                    "outside watch(); iterate the loader only through the watcher")
            return iter(loader)  # workers already running keep the timers they started with
        user_init, user_collate = loader.worker_init_fn, loader.collate_fn
        loader.worker_init_fn = WorkerProbe(self.table, user_init, loader.batch_sampler is not None)
        loader.collate_fn = TimedCollate(self.table, user_collate)
        try:
            iterator = iter(loader)
        finally:
            loader.worker_init_fn, loader.collate_fn = user_init, user_collate
        if loader.persistent_workers:
            self._our_iterator = getattr(loader, "_iterator", None)
        return iterator

    def counters(self) -> list[WorkerCounters]:
        return read_table(self.table) if self.table is not None else []
