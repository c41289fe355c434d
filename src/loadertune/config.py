"""`LoaderConfig`: one set of DataLoader settings, validated, convertible to kwargs."""

from __future__ import annotations

import multiprocessing
from dataclasses import asdict, dataclass, replace
from typing import Any

from loadertune.errors import ConfigError

START_METHODS = ("fork", "spawn", "forkserver")


@dataclass(frozen=True, order=True)
class LoaderConfig:
    """The DataLoader settings loadertune measures and recommends.

    ``prefetch_factor`` is ``None`` for torch's default (2 when workers are used) and must be
    ``None`` when ``num_workers == 0``; ``multiprocessing_context`` is ``None`` for the platform's
    default start method.
    """

    num_workers: int = 0
    batch_size: int = 1
    prefetch_factor: int | None = None
    pin_memory: bool = False
    persistent_workers: bool = False
    multiprocessing_context: str | None = None

    def __post_init__(self) -> None:
        _check_int("batch_size", self.batch_size, minimum=1)
        _check_int("num_workers", self.num_workers, minimum=0)
        if self.prefetch_factor is not None:
            _check_int("prefetch_factor", self.prefetch_factor, minimum=1)
        if self.num_workers == 0:
            if self.prefetch_factor is not None:
                raise ConfigError(
                    f"prefetch_factor={self.prefetch_factor} needs num_workers > 0: with "
                    "num_workers=0 the main process loads each batch when asked, nothing is "
                    "prefetched; drop prefetch_factor or use workers"
                )
            if self.persistent_workers:
                raise ConfigError(
                    "persistent_workers=True needs num_workers > 0; set persistent_workers=False "
                    "or use workers"
                )
        if self.multiprocessing_context is not None:
            if self.multiprocessing_context not in START_METHODS:
                raise ConfigError(
                    f"unknown start method {self.multiprocessing_context!r}; "
                    f"use one of {', '.join(START_METHODS)}"
                )
            if self.multiprocessing_context not in multiprocessing.get_all_start_methods():
                raise ConfigError(
                    f"start method {self.multiprocessing_context!r} is not available on this "
                    f"platform (available: {', '.join(multiprocessing.get_all_start_methods())})"
                )
        if not isinstance(self.pin_memory, bool) or not isinstance(self.persistent_workers, bool):
            raise ConfigError("pin_memory and persistent_workers must be True or False")

    @property
    def effective_prefetch(self) -> int:
        """Batches each worker keeps in flight (torch's default is 2); 0 without workers."""
        if self.num_workers == 0:
            return 0
        return 2 if self.prefetch_factor is None else self.prefetch_factor

    @property
    def start_method(self) -> str:
        """The start method workers would use: the explicit one or torch's default."""
        if self.multiprocessing_context is not None:
            return self.multiprocessing_context
        import torch.multiprocessing

        return torch.multiprocessing.get_start_method(allow_none=False)

    def to_kwargs(self, include_batch_size: bool = True) -> dict[str, Any]:
        """Keyword arguments for ``torch.utils.data.DataLoader``; torch defaults are left out."""
        kwargs: dict[str, Any] = {}
        if include_batch_size:
            kwargs["batch_size"] = self.batch_size
        kwargs["num_workers"] = self.num_workers
        if self.num_workers > 0:
            kwargs["prefetch_factor"] = self.effective_prefetch
            kwargs["persistent_workers"] = self.persistent_workers
            if self.multiprocessing_context is not None:
                kwargs["multiprocessing_context"] = self.multiprocessing_context
        kwargs["pin_memory"] = self.pin_memory
        return kwargs

    def label(self) -> str:
        """A short human label, e.g. ``w4 pf2 persist`` or ``w0``."""
        parts = [f"w{self.num_workers}"]
        if self.num_workers > 0:
            parts.append(f"pf{self.effective_prefetch}")
            if self.persistent_workers:
                parts.append("persist")
            if self.multiprocessing_context is not None:
                parts.append(self.multiprocessing_context)
        if self.pin_memory:
            parts.append("pin")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LoaderConfig:
        known = {f: data[f] for f in cls.__dataclass_fields__ if f in data}
        return cls(**known)

    def with_(self, **changes: Any) -> LoaderConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} must be >= {minimum}, got {value}")
