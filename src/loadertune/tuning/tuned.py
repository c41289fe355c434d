"""`tuned(loader)`: the user's DataLoader again, with the tuned settings and nothing else new."""

from __future__ import annotations

from typing import Any

from loadertune.errors import ConfigError
from loadertune.pipeline import is_loader, rebuild


def tuned(loader: Any, **tune_kwargs: Any) -> Any:
    """Tune ``loader`` (see `loadertune.tune_detailed` for ``tune_kwargs``) and return a new
    DataLoader with the tuned num_workers, prefetch_factor, persistent_workers, pin_memory and
    multiprocessing_context; its dataset, sampler, batch size, collate_fn, worker_init_fn,
    generator, drop_last and timeout are the original's."""
    from loadertune.tuning.api import tune_detailed

    if not is_loader(loader):
        raise ConfigError(f"tuned() takes a torch DataLoader, got a {type(loader).__name__}; "
                          "for a Dataset use DataLoader(dataset, **loadertune.tune(dataset, B))")
    if tune_kwargs.get("batch_size") is not None:
        raise ConfigError("tuned() keeps the loader's batch size; drop batch_size")
    result = tune_detailed(loader, **tune_kwargs)
    return rebuild(loader, result.config)
