"""Rebuild a user's DataLoader with only the tuned knobs changed.

The tuned knobs are num_workers, prefetch_factor, persistent_workers, pin_memory and
multiprocessing_context (a `LoaderConfig`); everything else of the user's loader is kept: its
sampler or batch_sampler, collate_fn, worker_init_fn, generator, drop_last, timeout and batch
size (unless a batch size is asked for).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError

TUNED_KNOBS = ("num_workers", "prefetch_factor", "persistent_workers", "pin_memory",
               "multiprocessing_context")


@dataclass
class LoaderParts:
    """What a user's DataLoader keeps in every trial besides its dataset and collate_fn.

    ``batch_size`` is None when the loader batches with its own ``batch_sampler`` (or does not
    batch at all); ``sampler`` is None for an IterableDataset (the loader makes its own).
    """

    batch_size: int | None
    sampler: Any = None
    batch_sampler: Any = None
    worker_init_fn: Any = None
    generator: Any = None
    drop_last: bool = False
    timeout: float = 0.0
    pin_memory_device: str = ""
    in_order: bool = True

    @property
    def own_batch_sampler(self) -> bool:
        return self.batch_sampler is not None

    def effective_batch_size(self) -> int | None:
        """Samples per batch: the batch size, else the batch sampler's ``batch_size``."""
        if self.batch_size is not None:
            return self.batch_size
        size = getattr(self.batch_sampler, "batch_size", None)
        return size if isinstance(size, int) and size > 0 else None

    def named_parts(self) -> list[tuple[str, Any]]:
        """The user's objects that a trial keeps, by the DataLoader argument they came from."""
        parts = [("sampler", self.sampler), ("batch_sampler", self.batch_sampler),
                 ("worker_init_fn", self.worker_init_fn), ("generator", self.generator)]
        return [(name, obj) for name, obj in parts if obj is not None]


def parts_of(loader: Any) -> LoaderParts:
    """The parts of ``loader`` (a torch DataLoader) that every rebuild keeps."""
    from torch.utils.data import IterableDataset

    iterable = isinstance(loader.dataset, IterableDataset)
    own_batches = loader.batch_size is None and loader.batch_sampler is not None
    return LoaderParts(
        batch_size=loader.batch_size,
        sampler=None if iterable or own_batches else loader.sampler,
        batch_sampler=loader.batch_sampler if own_batches else None,
        worker_init_fn=loader.worker_init_fn,
        generator=loader.generator,
        drop_last=bool(loader.drop_last),
        timeout=float(loader.timeout),
        pin_memory_device=getattr(loader, "pin_memory_device", "") or "",
        in_order=bool(getattr(loader, "in_order", True)),
    )


def config_of(loader: Any) -> LoaderConfig:
    """The tuned knobs as ``loader`` has them now (batch size included when it has one)."""
    ctx = loader.multiprocessing_context
    method = ctx.get_start_method() if ctx is not None and not isinstance(ctx, str) else ctx
    workers = int(loader.num_workers)
    parts = parts_of(loader)
    return LoaderConfig(num_workers=workers, batch_size=parts.effective_batch_size() or 1,
                        prefetch_factor=loader.prefetch_factor if workers else None,
                        pin_memory=bool(loader.pin_memory),
                        persistent_workers=bool(loader.persistent_workers) if workers else False,
                        multiprocessing_context=method if workers else None)


def check_batch_size(parts: LoaderParts | None, batch_size: int | None) -> None:
    """A batch size asked for cannot replace a loader's own batch_sampler."""
    if parts is not None and parts.own_batch_sampler and batch_size is not None \
            and batch_size != parts.effective_batch_size():
        raise ConfigError(
            f"the loader batches with its own batch_sampler "
            f"({type(parts.batch_sampler).__name__}), so a batch size of {batch_size} cannot "
            "be applied; drop the batch size (-b) to keep the loader's batches")


def build_loader(dataset: Any, collate_fn: Any, parts: LoaderParts | None,
                 config: LoaderConfig) -> Any:
    """A DataLoader over ``dataset`` with ``config``'s knobs and the user's ``parts``.

    Without parts (a bare dataset) it is ``DataLoader(dataset, batch_size, collate_fn)`` in
    order; with parts, the batch size of ``config`` replaces the loader's own (equal unless one
    was asked for), and a user's batch_sampler is kept as it is.
    """
    from torch.utils.data import DataLoader

    kwargs: dict[str, Any] = config.to_kwargs(include_batch_size=False)
    if collate_fn is not None:
        kwargs["collate_fn"] = collate_fn
    if parts is None:
        return DataLoader(dataset, batch_size=config.batch_size, shuffle=False, **kwargs)
    if parts.own_batch_sampler:
        kwargs["batch_sampler"] = parts.batch_sampler
    else:
        kwargs["batch_size"] = config.batch_size if parts.batch_size is not None else None
        kwargs["drop_last"] = parts.drop_last
        if parts.sampler is not None:
            kwargs["sampler"] = parts.sampler
    if parts.worker_init_fn is not None:
        kwargs["worker_init_fn"] = parts.worker_init_fn
    if parts.generator is not None:
        kwargs["generator"] = parts.generator
    if parts.timeout and config.num_workers > 0:
        kwargs["timeout"] = parts.timeout
    if parts.pin_memory_device:
        kwargs["pin_memory_device"] = parts.pin_memory_device
    if not parts.in_order:
        kwargs["in_order"] = False
    return DataLoader(dataset, **kwargs)


def rebuild(loader: Any, config: LoaderConfig) -> Any:
    """``loader`` again, with the knobs of ``config`` and every other part unchanged."""
    return build_loader(loader.dataset, loader.collate_fn, parts_of(loader), config)
