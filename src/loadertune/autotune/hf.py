"""A Hugging Face ``Trainer`` callback that autotunes its train loader (optional extra ``hf``).

    from loadertune.autotune.hf import AutotuneCallback
    trainer = transformers.Trainer(..., callbacks=[AutotuneCallback()])  # options as autotune()'s

The Trainer builds its train DataLoader and ``accelerate`` prepares it: a ``DataLoaderShard``
around a base DataLoader that holds this rank's shard of the sampler; the shard sets the epoch,
synchronises random states, moves each batch to the device and tells the gradient state when
the epoch ends, while the base loader loads. When training begins, the callback puts
`loadertune.autotune` of that base loader under the shard, behind a DataLoader face
(`TunedBase`), so everything accelerate does stays as it is and only the worker settings
change. Under ``torch.distributed`` the ranks agree on every change (see `distributed.py`).

Not tuned (left as they are, with a warning): a ``DataLoaderDispatcher`` (``dispatch_batches``,
accelerate's default for iterable datasets across processes: only rank 0 loads), and a loader
accelerate did not prepare. Resuming mid-epoch from a checkpoint serves that epoch's rest with
accelerate's own skipping loader; the epochs after it are autotuned.
"""

from __future__ import annotations

import warnings
from typing import Any

from torch.utils.data import DataLoader

from loadertune.autotune import AutotunedLoader, autotune
from loadertune.errors import LoadertuneError

try:
    from accelerate.data_loader import DataLoaderShard
    from transformers import TrainerCallback
except ImportError as err:
    raise LoadertuneError(
        "loadertune.autotune.hf needs transformers and accelerate, an optional extra: "
        "pip install 'loadertune[hf]' (or use loadertune.autotune(loader) in a plain loop)"
    ) from err


class TunedBase(DataLoader):
    """The user's DataLoader as code that checks ``isinstance(x, DataLoader)`` sees it (same
    dataset, samplers, collate_fn...), iterated by its autotuned loader."""

    def __init__(self, tuned: AutotunedLoader) -> None:  # no DataLoader.__init__: a view
        self.__dict__.update(tuned.loader.__dict__)
        self.__dict__["tuned"] = tuned
        self.__dict__["_iterator"] = None

    def __iter__(self) -> Any:
        return iter(self.__dict__["tuned"])

    def __len__(self) -> int:
        return len(self.__dict__["tuned"])


def autotune_prepared(loader: Any, **options: Any) -> AutotunedLoader | None:
    """Autotune the base loader under accelerate's ``DataLoaderShard`` ``loader``, in place;
    the autotuned loader, or None (with a warning) for a loader this cannot tune."""
    if type(loader) is not DataLoaderShard:  # (its __class__ says DataLoader)
        warnings.warn(f"loadertune: cannot autotune a {type(loader).__name__} (only "
                      "accelerate's DataLoaderShard); its settings stay as they are",
                      stacklevel=2)
        return None
    base = loader.base_dataloader
    if isinstance(base, TunedBase):
        return base.tuned
    tuned = autotune(base, **options)
    loader.base_dataloader = TunedBase(tuned)
    return tuned


class AutotuneCallback(TrainerCallback):
    """Retunes the workers of the Trainer's train loader while it trains.

    ``options`` are `loadertune.autotune`'s (memory_budget, max_workers, store, report...);
    ``loader`` is the autotuned loader once training has begun (its ``config``, ``history``).
    """

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.loader: AutotunedLoader | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        dataloader = kwargs.get("train_dataloader")
        if dataloader is not None:
            self.loader = autotune_prepared(dataloader, **self.options)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.loader is not None:
            self.loader.close()
