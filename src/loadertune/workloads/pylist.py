"""``pylist`` vs ``pylist_numpy``: the copy-on-read memory growth of forked workers.

``pylist`` keeps its records as a Python list of dicts. Reading an item in a forked worker
touches the objects' reference counts, which writes to the pages holding them, so the kernel
copies those pages into the worker: each worker's private memory (USS) grows towards the whole
list as it reads. ``pylist_numpy`` holds the same data in numpy arrays (a few big objects whose
buffers are only read), so workers keep sharing the parent's pages.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import Dataset

FEATURES = 8


class PyListDataset(Dataset):
    def __init__(self, size: int) -> None:
        self.records = [
            {"id": i, "label": i % 10, "name": f"item-{i}",
             "features": [float((i * 7 + k) % 97) for k in range(FEATURES)]}
            for i in range(size)
        ]

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        record = self.records[index]
        return torch.tensor(record["features"]), record["label"]


class PyListNumpyDataset(Dataset):
    def __init__(self, size: int) -> None:
        ids = np.arange(size)
        self.labels = (ids % 10).astype(np.int64)
        self.features = ((ids[:, None] * 7 + np.arange(FEATURES)) % 97).astype(np.float32)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        return torch.from_numpy(self.features[index].copy()), int(self.labels[index])


def pylist(size: int = 400_000) -> PyListDataset:
    return PyListDataset(size)


def pylist_numpy(size: int = 400_000) -> PyListNumpyDataset:
    return PyListNumpyDataset(size)
