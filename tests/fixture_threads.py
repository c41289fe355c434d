"""Datasets for the thread-advice tests: torch matmul in every item, and thread counts seen."""

from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset

from loadertune.trial.threads import blas_threads


class Matmul(Dataset):
    """``n`` items, each ``rounds`` products of two ``size`` × ``size`` matrices (torch's
    intra-op pool does the work)."""

    def __init__(self, n: int = 256, size: int = 96, rounds: int = 4) -> None:
        self.n, self.size, self.rounds = n, size, rounds

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        g = torch.Generator().manual_seed(i)
        a = torch.randn(self.size, self.size, generator=g)
        for _ in range(self.rounds):
            a = torch.tanh(a @ a)
        return a.sum().reshape(1)


class ThreadCounts(Dataset):
    """Each item: the worker's torch threads and OpenBLAS threads (0: none loaded)."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.tensor([torch.get_num_threads(), blas_threads() or 0])


def two_threads(worker_id: int) -> None:
    """A user's worker_init_fn that undoes torch's one thread per worker."""
    torch.set_num_threads(2)


def matmul_loader() -> DataLoader:
    """A user's loader whose workers run torch at two threads each."""
    return DataLoader(Matmul(), batch_size=8, num_workers=2, worker_init_fn=two_threads)


class ExpectThreads(Dataset):
    """Raises in an item unless the worker runs torch at ``expected`` threads."""

    def __init__(self, expected: int) -> None:
        self.expected = expected

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> torch.Tensor:
        if torch.get_num_threads() != self.expected:
            raise RuntimeError(f"torch runs {torch.get_num_threads()} threads here")
        return torch.zeros(1)
