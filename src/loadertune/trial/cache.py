"""Datasets a cache-advice trial reads: a sample of the user's items, read as the dataset
reads them or served from a list decoded beforehand (`loadertune.tuning.cache`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch.utils.data import Dataset


class Sampled(Dataset):
    """Items ``indices`` of ``dataset``, each read (opened, decoded) on every access."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]


class Decoded(Dataset):
    """The same items read once, in the trial's main process before its workers start (forked
    workers share them), and served from memory."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.items = [dataset[i] for i in indices]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Any:
        return self.items[index]
