"""A user's pipeline that only works as its own DataLoader builds it, importable as
``fixture_pipelines:NAME`` (tests/ is on sys.path).

`Picky`: odd indices raise (only `EvenSampler` draws valid ones), items are `Record`s that
default_collate cannot batch (`collate_records` can), and a worker refuses to load until
`ready_worker` (the loader's worker_init_fn) ran in it. `make_loader` batches 6 with
drop_last=True over 64 valid items: every batch holds exactly 6 samples.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader, Dataset, Sampler, get_worker_info

BATCH = 6
ITEMS = 128


@dataclass
class Record:
    """An item default_collate refuses (a plain object)."""

    index: int
    x: torch.Tensor


class Picky(Dataset):
    def __init__(self, n: int = ITEMS) -> None:
        self.n = n
        self.ready = False  # set in each worker by ready_worker

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Record:
        if i % 2:
            raise IndexError(f"odd index {i}: only EvenSampler's indices exist")
        if get_worker_info() is not None and not self.ready:
            raise RuntimeError("worker_init_fn did not run in this worker")
        return Record(i, torch.full((4,), float(i)))


class EvenSampler(Sampler[int]):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return (self.n + 1) // 2

    def __iter__(self) -> Iterator[int]:
        return iter(range(0, self.n, 2))


def collate_records(batch: list[Record]) -> dict[str, torch.Tensor]:
    return {"x": torch.stack([r.x for r in batch]), "index": torch.tensor([r.index for r in batch])}


def ready_worker(worker_id: int) -> None:
    info = get_worker_info()
    assert info is not None
    info.dataset.ready = True


def loader_for(dataset: Picky, batch_size: int = BATCH) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, sampler=EvenSampler(len(dataset)),
                      collate_fn=collate_records, worker_init_fn=ready_worker, drop_last=True)


def make_loader() -> DataLoader:
    return loader_for(Picky())


picky_loader = make_loader()


class WithGenerator(Picky):
    """Holds an open Python generator: cannot be pickled for spawn."""

    def __init__(self) -> None:
        super().__init__(32)
        self.stream = (i for i in range(10))


def generator_loader() -> DataLoader:
    return loader_for(WithGenerator())


def hanging_first():  # type: ignore[no-untyped-def]
    """A dataset whose very first item never arrives."""
    from fixture_datasets import Hanging

    return Hanging(index=0)


def mismatched_loader() -> DataLoader:
    """Builds, but not with workers: its timeout is negative once workers are asked for."""
    loader = loader_for(Picky(16))
    loader.timeout = -1  # DataLoader checks it when built, not when assigned
    return loader
