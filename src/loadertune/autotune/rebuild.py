"""An inner DataLoader serving a `Feed` of the user's batches with other worker settings.

Everything but the tuned knobs is the user's: dataset, collate_fn, worker_init_fn (called
after the worker is seeded as the plain loader would seed it), pin_memory, timeout,
multiprocessing_context, in_order. Batches come from the feed, already formed by the user's
sampler or batch_sampler, so batch size and drop_last are the user's too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, IterableDataset

from loadertune.autotune.feed import Feed, SeedWorker


@dataclass(frozen=True)
class Knobs:
    """What autotune changes: worker count and prefetch depth."""

    num_workers: int
    prefetch_factor: int | None = None

    def label(self) -> str:
        if self.num_workers == 0:
            return "w0"
        return f"w{self.num_workers} pf{self.prefetch_factor or 2}"

    def kwargs(self, loader: DataLoader) -> dict[str, Any]:
        """The DataLoader keyword arguments these knobs mean for ``loader``."""
        out: dict[str, Any] = {"num_workers": self.num_workers}
        if self.num_workers:
            out["prefetch_factor"] = self.prefetch_factor or 2
            out["persistent_workers"] = True
        out["pin_memory"] = bool(loader.pin_memory)
        return out


def knobs_of(loader: DataLoader) -> Knobs:
    return Knobs(loader.num_workers, loader.prefetch_factor if loader.num_workers else None)


def inner_loader(loader: DataLoader, knobs: Knobs, feed: Feed | None,
                 base_seed: int) -> DataLoader:
    """A loader with ``knobs`` serving ``feed`` (None for an iterable dataset, whose batches
    its workers form)."""
    common: dict[str, Any] = {
        "num_workers": knobs.num_workers,
        "collate_fn": loader.collate_fn,
        "pin_memory": loader.pin_memory,
        "timeout": loader.timeout,
        "worker_init_fn": SeedWorker(base_seed, loader.worker_init_fn),
        "generator": torch.Generator().manual_seed(base_seed),
        "in_order": getattr(loader, "in_order", True),
    }
    if knobs.num_workers:
        common.update(prefetch_factor=knobs.prefetch_factor or 2, persistent_workers=True,
                      multiprocessing_context=loader.multiprocessing_context)
    if isinstance(loader.dataset, IterableDataset) or feed is None:
        return DataLoader(loader.dataset, batch_size=loader.batch_size,
                          drop_last=loader.drop_last, **common)
    if loader.batch_sampler is not None:
        return DataLoader(loader.dataset, batch_sampler=feed, **common)
    return DataLoader(loader.dataset, batch_size=None, sampler=feed, **common)
