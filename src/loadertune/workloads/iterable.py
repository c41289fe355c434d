"""``iterable``: an IterableDataset that shards by worker, so no sample is duplicated or lost."""

from __future__ import annotations

import torch
from torch.utils.data import IterableDataset, get_worker_info


class ShardedRange(IterableDataset):
    """Yields items ``0..size-1``; worker ``k`` of ``n`` yields every ``n``-th from ``k``."""

    def __init__(self, size: int, features: int = 64) -> None:
        self.size = size
        self.features = features

    def __len__(self) -> int:
        return self.size

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for index in range(start, self.size, step):
            yield torch.full((self.features,), float(index)), index


def iterable(size: int = 20_000, features: int = 64) -> ShardedRange:
    return ShardedRange(size, features)
