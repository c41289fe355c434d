"""``bigtensor``: ~8 MB float tensors per item; shared-memory and copy bound."""

from __future__ import annotations

import torch
from torch.utils.data import Dataset


class BigTensorDataset(Dataset):
    def __init__(self, size: int, megabytes: float = 8.0) -> None:
        self.size = size
        self.numel = int(megabytes * 2**20) // 4

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.full((self.numel,), float(index), dtype=torch.float32)


def bigtensor(size: int = 256, megabytes: float = 8.0) -> BigTensorDataset:
    return BigTensorDataset(size, megabytes)
