"""``worker_cache``: each process builds a private cache on first use; items then wait.

A common pattern (a lookup table, a decoded index, a tokenizer vocabulary loaded lazily in
``__getitem__``): every DataLoader worker, and the main process when num_workers=0, holds its
own ``cache_mb`` copy. Items wait ``wait_ms`` (a ``time.sleep`` standing for storage latency)
so more workers pay off, until their caches no longer fit a memory budget. With
``workers_only`` only DataLoader workers build one (as a ``worker_init_fn`` would): the main
process, and so a probe reading items in it, never sees what a worker costs.
"""

from __future__ import annotations

import os
import time

import numpy as np
import torch
from torch.utils.data import Dataset, get_worker_info

PAGE = 4096


class WorkerCacheDataset(Dataset):
    def __init__(self, size: int, cache_mb: int, wait_ms: float,
                 workers_only: bool = False) -> None:
        self.size = size
        self.cache_bytes = cache_mb * 2**20
        self.workers_only = workers_only
        self.wait_s = wait_ms / 1000.0
        self._cache: np.ndarray | None = None
        self._owner: int | None = None

    def __len__(self) -> int:
        return self.size

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_cache": None, "_owner": None}  # never ship a cache

    def cache(self) -> np.ndarray:
        """This process's cache, built (every page written) on first use."""
        if self._cache is None or self._owner != os.getpid():
            size = self.cache_bytes
            if self.workers_only and get_worker_info() is None:
                size = PAGE * 64  # the main process reads without a cache of its own
            # np.full writes every page in place: the cache is resident, with no temporary
            self._cache = np.full(size // 8, os.getpid() % 9973, dtype=np.int64)
            self._owner = os.getpid()
        return self._cache

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        cache = self.cache()
        time.sleep(self.wait_s)
        start = (index * 7919 * PAGE) % max(cache.size - 64, 1)
        row = cache[start:start + 64].astype(np.float32)
        return torch.from_numpy(row), index % 10


def worker_cache(size: int = 2_000, cache_mb: int = 600, wait_ms: float = 4.0,
                 workers_only: bool = False) -> WorkerCacheDataset:
    return WorkerCacheDataset(size, cache_mb, wait_ms, workers_only)
