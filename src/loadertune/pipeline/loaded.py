"""`LoadedDataset`: the user's dataset with the parts of their loader that trials keep."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.errors import DatasetSpecError
from loadertune.pipeline.rebuild import LoaderParts, build_loader

DEFAULT_BATCH_SIZE = 32


@dataclass
class LoadedDataset:
    """A dataset, its collate_fn, and (when it came from a DataLoader) the loader's parts.

    ``origin`` says what the user named: "" for a dataset, else e.g. "DataLoader" or
    "LightningDataModule.train_dataloader()".
    """

    dataset: Any
    collate_fn: Any | None
    spec: str | None
    parts: LoaderParts | None = None
    origin: str = ""

    @property
    def iterable(self) -> bool:
        return is_iterable_dataset(self.dataset)

    @property
    def batch_size(self) -> int | None:
        """The batch size the user's loader uses; None for a bare dataset."""
        return self.parts.effective_batch_size() if self.parts is not None else None

    def length(self) -> int | None:
        """``len(dataset)`` when it has one, else None."""
        try:
            return len(self.dataset)
        except TypeError:
            return None

    def describe(self) -> str:
        cls = type(self.dataset)
        n = self.length()
        kind = "iterable" if self.iterable else "map-style"
        size = f", {n} items" if n is not None else ""
        via = f" from a {self.origin}" if self.origin else ""
        return f"{cls.__module__}.{cls.__qualname__} ({kind}{size}){via}"

    def loader(self, config: LoaderConfig) -> Any:
        """The DataLoader a trial of ``config`` iterates: the user's, with config's knobs."""
        return build_loader(self.dataset, self.collate_fn, self.parts, config)

    def item_indices(self, limit: int) -> list[Any]:
        """Up to ``limit`` indices in the order the user's sampler draws them (map-style only);
        empty when the loader has no sampler of its own."""
        parts = self.parts
        if parts is None or self.iterable:
            return []
        indices: list[Any] = []
        if parts.batch_sampler is not None:
            for batch in parts.batch_sampler:
                indices.extend(batch)
                if len(indices) >= limit:
                    break
        elif parts.sampler is not None:
            for index in parts.sampler:
                indices.append(index)
                if len(indices) >= limit:
                    break
        return indices[:limit]


def kept_parts_note(loaded: LoadedDataset) -> str:
    """One line telling the user that their loader was measured as built, and what to change."""
    parts = loaded.parts
    assert parts is not None
    kept = [name for name, _ in parts.named_parts()]
    collate = loaded.collate_fn
    if collate is not None and not getattr(collate, "__module__", "").startswith("torch."):
        kept.append("collate_fn")
    kept += ["drop_last"] if parts.drop_last else []
    return (f"measured your {loaded.origin} as built ({', '.join([*kept, 'batch size'])} "
            "kept): set only num_workers, prefetch_factor, persistent_workers and pin_memory "
            "in it, or use loadertune.tuned(loader)")


def is_iterable_dataset(obj: object) -> bool:
    from torch.utils.data import IterableDataset

    return isinstance(obj, IterableDataset)


def is_dataset(obj: object) -> bool:
    """True for anything a DataLoader accepts as a dataset (a Hugging Face Dataset too)."""
    from torch.utils.data import Dataset

    if isinstance(obj, Dataset) or is_iterable_dataset(obj):
        return True
    return hasattr(obj, "__getitem__") and hasattr(obj, "__len__") and not isinstance(obj, type)


def check_not_empty(loaded: LoadedDataset) -> None:
    """Raise when a map-style dataset has no items (an iterable one is checked while loading)."""
    n = loaded.length()
    if n == 0:
        raise DatasetSpecError(f"dataset {loaded.describe()} is empty: it has no items to load")
