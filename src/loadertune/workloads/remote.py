"""``remote``: items from "network storage" — latency-bound, so more workers than cores pays.

Each read waits ``latency_ms`` (a ``time.sleep`` standing for object-store or network
filesystem latency; no network is used) and then decompresses and decodes a small payload.
"""

from __future__ import annotations

import time
import zlib

import numpy as np
import torch
from torch.utils.data import Dataset


class RemoteDataset(Dataset):
    def __init__(self, size: int, latency_ms: float = 20.0, payload_kb: int = 16) -> None:
        self.size = size
        self.latency_s = latency_ms / 1000.0
        values = np.arange(payload_kb * 256, dtype=np.float32) % 251
        self.blob = zlib.compress(values.tobytes(), 6)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        time.sleep(self.latency_s)
        raw = zlib.decompress(self.blob)
        arr = np.frombuffer(raw, dtype=np.float32) + float(index)
        return torch.from_numpy(arr), index % 10


def remote(size: int = 2_000, latency_ms: float = 20.0, payload_kb: int = 16) -> RemoteDataset:
    return RemoteDataset(size, latency_ms, payload_kb)
