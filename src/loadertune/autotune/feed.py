"""The plain loader's order of batches, drawn exactly as it draws them, and fed to any loader.

A ``DataLoader`` iterator draws a base seed (for its workers) from ``loader.generator`` — once
per epoch, or once in all with persistent workers — and then walks its index sampler (a
``RandomSampler`` draws its own seed at that moment). `EpochOrder` makes the same draws in the
same order and keeps the epoch's index batches as a list, so the batches can be served by
whatever inner loader the tuner runs at the moment, from any position in the epoch, and the
user's random streams advance exactly as with the plain loader.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Sampler
from torch.utils.data._utils.worker import _generate_state


@dataclass
class EpochOrder:
    """The user's loader's index order, one epoch at a time."""

    loader: DataLoader
    base_seed: int | None = None
    epochs: int = 0

    @property
    def batched(self) -> bool:
        return self.loader.batch_sampler is not None

    def next_epoch(self, iterable: bool = False) -> list[Any] | None:
        """This epoch's indices (lists of indices with automatic batching), drawn as the plain
        loader draws them: the base seed first (every epoch, or only the first one with
        persistent workers), then the sampler. None for an iterable dataset, whose workers
        form the batches."""
        loader = self.loader
        if self.base_seed is None or not (loader.persistent_workers and loader.num_workers):
            self.base_seed = int(torch.empty((), dtype=torch.int64)
                                 .random_(generator=loader.generator).item())
        self.epochs += 1
        if iterable:
            return None
        sampler = loader.batch_sampler if self.batched else loader.sampler
        return [list(b) if self.batched else b for b in sampler]


@dataclass
class Feed(Sampler[Any]):
    """A sampler serving a list of indices (or index batches) from a position on."""

    items: list[Any] = field(default_factory=list)
    start: int = 0

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items[self.start:])

    def __len__(self) -> int:
        return len(self.items) - self.start


@dataclass(frozen=True)
class SeedWorker:
    """``worker_init_fn`` seeding a worker as the plain loader's would have been seeded (its
    base seed + worker id, numpy from the same state), then calling the user's function."""

    base_seed: int
    user_fn: Callable[[int], Any] | None = None

    def __call__(self, worker_id: int) -> None:
        seed = self.base_seed + worker_id
        random.seed(seed)
        torch.manual_seed(seed)
        np.random.seed(_generate_state(self.base_seed, worker_id))
        if self.user_fn is not None:
            self.user_fn(worker_id)
