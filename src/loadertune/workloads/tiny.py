"""``tiny``: items that cost microseconds; IPC dominates, so 0 or 1 worker should win."""

from __future__ import annotations

import torch
from torch.utils.data import Dataset


class TinyDataset(Dataset):
    def __init__(self, size: int, features: int = 16) -> None:
        self.size = size
        self.features = features

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        return torch.full((self.features,), float(index)), index % 10


def tiny(size: int = 100_000, features: int = 16) -> TinyDataset:
    return TinyDataset(size, features)
