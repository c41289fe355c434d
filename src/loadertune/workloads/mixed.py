"""``mixed``: CPU work with a heavy tail, and some items that also wait.

Each item runs ~``cpu_ms`` of numpy work (one in ten takes five times as long, as decoding a
large image does), and ``wait_share`` of the items first wait ``wait_ms`` (a ``time.sleep``
standing for a cache miss on network storage; no network is used). A probe sees mostly CPU
time, yet trials at the core count leave the CPUs partly idle: the tuner must measure that.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from torch.utils.data import Dataset

ELEMENTS = 4096
OUT = 64
ROUNDS_PER_MS = 110  # a fixed amount of work: about a millisecond on the project's machine


def _mix(index: int) -> int:
    """A fixed pseudo-random number per index (the same in every process and run)."""
    return (index * 2654435761) % 2**32


class MixedDataset(Dataset):
    def __init__(self, size: int, cpu_ms: float, wait_ms: float, wait_share: float) -> None:
        self.size = size
        self.wait_s = wait_ms / 1000.0
        self.wait_share = wait_share
        self.base = np.linspace(0.0, 1.0, ELEMENTS, dtype=np.float64)
        self.rounds = max(1, round(cpu_ms * ROUNDS_PER_MS))

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        h = _mix(index)
        if (h % 1000) < self.wait_share * 1000:
            time.sleep(self.wait_s)
        rounds = self.rounds * (5 if h % 10 == 0 else 1)
        x = self.base + index
        for _ in range(rounds):
            x = np.tanh(x * 1.0001 + 0.1)  # elementwise: one thread, no BLAS pool
        return torch.from_numpy(x[:OUT].astype(np.float32)), index % 10


def mixed(size: int = 2_000, cpu_ms: float = 1.5, wait_ms: float = 4.0,
          wait_share: float = 0.3) -> MixedDataset:
    return MixedDataset(size, cpu_ms, wait_ms, wait_share)
