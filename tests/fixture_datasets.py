"""Small real datasets for tests, importable as ``fixture_datasets:NAME`` (tests/ is on sys.path).

Some misbehave on purpose: raise, hang, kill their worker, grow without bound.
"""

from __future__ import annotations

import os
import signal
import time

import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info


class Squares(Dataset):
    """``n`` small tensors, each costing ``cost_ms`` of CPU."""

    def __init__(self, n: int = 256, cost_ms: float = 0.2) -> None:
        self.n = n
        self.cost = cost_ms / 1000

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        end = time.perf_counter() + self.cost
        while time.perf_counter() < end:
            pass
        return torch.full((4, 8), float(i)), i


class Raising(Squares):
    """Raises ValueError at ``bad_index``."""

    def __init__(self, bad_index: int = 37, n: int = 256) -> None:
        super().__init__(n)
        self.bad_index = bad_index

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        if i == self.bad_index:
            raise ValueError(f"corrupt record {i}")
        return super().__getitem__(i)


class Hanging(Squares):
    """Sleeps (practically) forever at ``index``."""

    def __init__(self, index: int = 5, n: int = 256) -> None:
        super().__init__(n)
        self.index = index

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        if i == self.index:
            time.sleep(3600)
        return super().__getitem__(i)


class Killing(Squares):
    """A worker sends itself ``sig`` when loading ``index`` (the main process never does)."""

    def __init__(self, index: int = 40, sig: int = signal.SIGKILL, n: int = 256) -> None:
        super().__init__(n)
        self.index = index
        self.sig = sig

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        if i == self.index and get_worker_info() is not None:
            os.kill(os.getpid(), self.sig)
            time.sleep(5)
        return super().__getitem__(i)


class Growing(Squares):
    """Keeps ``mb_per_item`` MiB of every item it loads: memory grows without bound."""

    def __init__(self, mb_per_item: float = 8.0, n: int = 100_000) -> None:
        super().__init__(n)
        self.mb = mb_per_item
        self.kept: list[bytearray] = []

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        self.kept.append(bytearray(os.urandom(16)) * int(self.mb * 2**20 / 16))
        return super().__getitem__(i)


class Stream(IterableDataset):
    """An iterable dataset sharded by worker."""

    def __init__(self, n: int = 512) -> None:
        self.n = n

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield torch.full((4,), float(i))


class WithHandle(Squares):
    """Holds an open file: cannot be pickled for spawn workers."""

    def __init__(self) -> None:
        super().__init__(64)
        self.log = open(os.devnull, "w")  # noqa: SIM115


def squares() -> Squares:
    return Squares()


def busy_squares() -> Squares:
    """Squares whose items cost 3 ms each: a few batches are enough CPU for the clock's 10 ms
    ticks to count in every process (0.2 ms items can finish between two ticks)."""
    return Squares(cost_ms=3)


def raising() -> Raising:
    return Raising()


def hanging() -> Hanging:
    return Hanging()


def broken_factory() -> Squares:
    raise OSError("dataset root /data/imagenet is not mounted")


def killing() -> Killing:
    return Killing()


def empty() -> Squares:
    return Squares(n=0)


def stream() -> Stream:
    return Stream()


def with_handle() -> WithHandle:
    return WithHandle()


def collate_fn(batch):  # type: ignore[no-untyped-def]
    """Picked up by `load_dataset` because it sits beside the datasets: stacks the tensors."""
    if isinstance(batch[0], tuple):
        return torch.stack([b[0] for b in batch]), torch.tensor([b[1] for b in batch])
    return torch.stack(batch)


not_a_dataset = 42


def train_step(batch):  # type: ignore[no-untyped-def]
    """A user's step: a little real tensor work on each batch."""
    x = batch[0] if isinstance(batch, (list, tuple)) else batch
    return (x.float() @ x.float().transpose(-1, -2)).sum()


def counting_step(batch):  # type: ignore[no-untyped-def]
    """A step that appends a line per batch to $LOADERTUNE_TEST_STEP_LOG: proof that it ran."""
    with open(os.environ["LOADERTUNE_TEST_STEP_LOG"], "a") as fh:
        fh.write(f"{len(batch[0]) if isinstance(batch, (list, tuple)) else len(batch)}\n")


def sleepy_step(batch):  # type: ignore[no-untyped-def]
    """A step that takes 20 ms, as a GPU step would keep the main thread waiting."""
    time.sleep(0.02)
