"""An inner DataLoader serving a `Feed` of the user's batches with other worker settings.

Everything but the tuned knobs is the user's (`pipeline.rebuild` keeps it): dataset,
collate_fn, worker_init_fn (called after the worker is seeded as the plain loader would seed
it), pin_memory, timeout, multiprocessing_context, in_order. Batches come from the feed,
already formed by the user's sampler or batch_sampler, so batch size and drop_last are the
user's too.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch.utils.data import DataLoader, IterableDataset
from torch.utils.data._utils import signal_handling
from torch.utils.data.dataloader import _BaseDataLoaderIter

from loadertune.autotune.feed import Feed, SeedWorker
from loadertune.pipeline.rebuild import build_loader, config_of, parts_of

LOCK_WAIT_S = 1.0   # a queue lock held this long was left by an interrupted put
FEEDER_JOIN_S = 1.0  # how long a queue's feeder thread may take to flush and exit
WORKER_CHECK_S = 0.25  # how often a wait for a batch checks that the workers live


@dataclass(frozen=True)
class Knobs:
    """What autotune changes: worker count and prefetch depth."""

    num_workers: int
    prefetch_factor: int | None = None

    def label(self) -> str:
        if self.num_workers == 0:
            return "w0"
        return f"w{self.num_workers} pf{self.prefetch_factor or 2}"

    def kwargs(self, loader: DataLoader) -> dict[str, Any]:
        """The DataLoader keyword arguments these knobs mean for ``loader``."""
        out: dict[str, Any] = {"num_workers": self.num_workers}
        if self.num_workers:
            out["prefetch_factor"] = self.prefetch_factor or 2
            out["persistent_workers"] = True
        out["pin_memory"] = bool(loader.pin_memory)
        return out


def knobs_of(loader: DataLoader) -> Knobs:
    return Knobs(loader.num_workers, loader.prefetch_factor if loader.num_workers else None)


def inner_loader(loader: DataLoader, knobs: Knobs, feed: Feed | None,
                 base_seed: int) -> DataLoader:
    """A loader with ``knobs`` serving ``feed`` (None for an iterable dataset, whose batches
    its workers form), built by the pipeline's one rebuild with the user's other parts."""
    parts = replace(parts_of(loader), worker_init_fn=SeedWorker(base_seed, loader.worker_init_fn),
                    generator=torch.Generator().manual_seed(base_seed))
    if feed is not None and not isinstance(loader.dataset, IterableDataset):
        if loader.batch_sampler is not None:  # batches formed already: drop_last applied
            parts = replace(parts, batch_size=None, sampler=None, batch_sampler=feed)
        else:
            parts = replace(parts, sampler=feed)
    base = config_of(loader)
    config = replace(base, num_workers=knobs.num_workers,
                     prefetch_factor=(knobs.prefetch_factor or 2) if knobs.num_workers else None,
                     persistent_workers=knobs.num_workers > 0,
                     multiprocessing_context=base.multiprocessing_context
                     if knobs.num_workers else None)
    return build_loader(loader.dataset, loader.collate_fn, parts, config)


def start_iterator(loader: DataLoader) -> Iterator[Any]:
    """``iter(loader)``, with torch's SIGCHLD handler kept from raising for its workers.

    That handler raises a worker's death in the main thread wherever it happens to be: inside
    a queue's ``put`` it can leave the queue's lock held (every later put, shutdown's
    included, then hangs) or start a feeder thread that close() never tells to quit. Without
    it, a dead worker is still found: the iterator checks its workers each time it has
    waited ``WORKER_CHECK_S`` for a batch. When starting fails, the half-built
    iterator (reachable only from the traceback) is closed before raising."""
    try:
        with _sigchld_held():
            it = iter(loader)
    except BaseException as err:
        tb = err.__traceback__
        while tb is not None:
            half = tb.tb_frame.f_locals.get("self")
            if isinstance(half, _BaseDataLoaderIter):
                with contextlib.suppress(Exception):
                    close_iterator(half)
                break
            tb = tb.tb_next
        raise
    if getattr(it, "_worker_pids_set", False):
        signal_handling._remove_worker_pids(id(it))
        it._worker_pids_set = False  # type: ignore[attr-defined]
        if callable(getattr(type(it), "_try_get_data", None)):  # (else torch's 5 s checks)
            it._try_get_data = types.MethodType(_try_get_data, it)  # type: ignore[attr-defined]
    return it


def _try_get_data(it: Any, timeout: float = WORKER_CHECK_S) -> tuple[bool, Any]:
    """torch's wait for a batch, checking that the workers live every ``WORKER_CHECK_S``
    unless a timeout is given (the loader's own)."""
    return type(it)._try_get_data(it, timeout)


@contextlib.contextmanager
def _sigchld_held() -> Iterator[None]:
    """SIGCHLD at its default (ignored, children kept for waiting) while torch starts workers;
    torch's handler installed first, as the constructor would, and put back after."""
    sigchld = getattr(signal, "SIGCHLD", None)
    if sigchld is None or threading.current_thread() is not threading.main_thread():
        yield  # no SIGCHLD (Windows), or torch installs no handler from this thread
        return
    signal_handling._set_SIGCHLD_handler()
    previous = signal.signal(sigchld, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(sigchld, previous)


def close_iterator(it: Any) -> None:
    """Shut down a DataLoader iterator's workers and close its queues' pipes now.

    torch closes the result queue only with pin_memory, and an index queue only through its
    feeder thread; a shutdown cut short (a worker's SIGCHLD arriving in it) closes neither,
    and a feeder never told to close keeps its pipe (and itself) alive for good.
    Left to the garbage collector, which a traceback cycle (a worker that died) can put off
    indefinitely, each keeps both ends of a pipe open in this process. A queue whose feeder
    thread is still running is left to it (closing under a writer could hit a reused fd)."""
    shutdown = getattr(it, "_shutdown_workers", None)
    if shutdown is None:
        return
    for queue in getattr(it, "_index_queues", ()):
        _unstick(queue)
    try:
        shutdown()
    finally:
        queues = [*getattr(it, "_index_queues", ()), getattr(it, "_worker_result_queue", None)]
        for queue in queues:
            if queue is None:
                continue
            queue.close()  # (again: a no-op once done) its feeder thread flushes and exits
            feeder = getattr(queue, "_thread", None)
            if feeder is not None:
                if feeder.is_alive():  # a put cut short by a worker's SIGCHLD (raised right
                    # after the feeder started, before close() was armed) leaves a feeder that
                    # close() never tells: tell it directly (a second sentinel is never read)
                    queue._finalize_close(queue._buffer, queue._notempty)
                feeder.join(timeout=FEEDER_JOIN_S)
                if feeder.is_alive():
                    continue
            for end in (getattr(queue, "_reader", None), getattr(queue, "_writer", None)):
                if end is not None:
                    end.close()


def _unstick(queue: Any) -> None:
    """Release a queue's buffer lock left held by a ``put`` that a KeyboardInterrupt cut
    short (every later put, shutdown's included, would wait on it for good). Its feeder
    thread holds that lock only for moments, so one held for ``LOCK_WAIT_S`` is stuck."""
    notempty = getattr(queue, "_notempty", None)
    lock = getattr(notempty, "_lock", None)
    if lock is None or not hasattr(lock, "acquire"):
        return
    if not lock.acquire(timeout=LOCK_WAIT_S):
        with contextlib.suppress(RuntimeError):
            lock.release()
        return
    lock.release()
