"""autotune's inner iterators: a worker's death is found at a safe point (never raised by
torch's SIGCHLD handler inside a queue operation), and a start that fails leaves no worker
running by the time the error reaches the caller (real workers, real SIGKILL)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import psutil
import pytest
from torch.utils.data import DataLoader, Dataset, Sampler

from loadertune.autotune.rebuild import close_iterator, start_iterator


class Slow(Dataset):
    def __len__(self) -> int:
        return 100

    def __getitem__(self, index: int) -> int:
        if index >= 2:
            import time

            time.sleep(3)  # the wait in which the worker is killed
        return index


class BreaksAfter(Sampler[int]):
    """Yields one index, then raises: iteration fails inside the iterator's constructor,
    after its workers started and the first queue's feeder thread did."""

    def __len__(self) -> int:
        return 10

    def __iter__(self) -> Iterator[int]:
        yield 0
        raise ValueError("sampler broke")


def _workers() -> list[psutil.Process]:
    return [p for p in psutil.Process().children() if p.status() != psutil.STATUS_ZOMBIE
            and "resource_tracker" not in " ".join(p.cmdline())]


def test_a_killed_worker_is_raised_by_next_not_by_a_signal_handler() -> None:
    loader = DataLoader(Slow(), batch_size=1, num_workers=2, persistent_workers=True)
    it = start_iterator(loader)
    try:
        assert it._worker_pids_set is False  # torch's SIGCHLD handler does not watch them
        assert [next(it).item(), next(it).item()] == [0, 1]
        os.kill(it._workers[0].pid, signal.SIGKILL)
        with pytest.raises(RuntimeError, match="exited unexpectedly"):
            next(it)
    finally:
        close_iterator(it)
    assert not _workers()


def test_a_start_that_fails_leaves_no_worker_behind() -> None:
    loader = DataLoader(Slow(), sampler=BreaksAfter(), num_workers=2, persistent_workers=True)
    with pytest.raises(ValueError, match="sampler broke") as raised:
        start_iterator(loader)
    assert raised.value is not None  # the traceback, holding the half-built iterator, lives on
    assert not psutil.wait_procs(_workers(), timeout=5)[1]


def test_the_private_torch_parts_autotune_relies_on_are_there() -> None:
    """autotune reaches into torch's multiprocessing iterator (its worker check, shutdown and
    queues): a torch that renames them must fail here, not leak or stall in a live job."""
    it = start_iterator(DataLoader(Slow(), num_workers=1))
    try:
        assert "_try_get_data" in vars(it)  # the shorter worker check is in place
        assert not it._worker_pids_set  # torch's SIGCHLD registry no longer lists them
        for name in ("_shutdown_workers", "_index_queues", "_worker_result_queue", "_workers"):
            assert hasattr(it, name), name
        assert next(it) == 0
    finally:
        close_iterator(it)
    assert not _workers()


def test_closing_frees_a_queue_lock_an_interrupted_put_left_held() -> None:
    """A KeyboardInterrupt inside ``Queue.put`` can leave the queue's buffer lock held; torch's
    shutdown puts to that queue and would wait for good. Closing releases it and finishes."""
    import threading

    it = start_iterator(DataLoader(Slow(), num_workers=2))
    assert next(it) is not None
    it._index_queues[1]._notempty._lock.acquire()  # as a put cut short leaves it
    closer = threading.Thread(target=close_iterator, args=(it,), daemon=True)
    closer.start()
    closer.join(timeout=30)
    assert not closer.is_alive(), "shutdown waited on the stuck queue lock"
    assert not _workers()
