"""A CPU-heavy dataset for the profiler tests: nearly all its time is in `spin`."""

from __future__ import annotations

import math

import torch
from torch.utils.data import Dataset


def spin(n: int) -> float:
    total = 0.0
    for k in range(n):
        total += math.sin(k) * math.cos(k)
    return total


class Heavy(Dataset):
    """``n`` items, each ``work`` iterations of pure-Python arithmetic in `spin`."""

    def __init__(self, n: int = 512, work: int = 20_000) -> None:
        self.n = n
        self.work = work

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        return torch.full((4,), spin(self.work)), i


def heavy() -> Heavy:
    return Heavy()
