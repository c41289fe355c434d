"""A Lightning callback that autotunes ``Trainer.fit``'s train loaders (optional extra).

    from loadertune.autotune.lightning import AutotuneCallback
    trainer = lightning.Trainer(callbacks=[AutotuneCallback()])   # options as autotune()'s

Lightning builds the train DataLoader itself: it asks the module or datamodule for it, injects
its ``DistributedSampler`` under DDP (a new DataLoader), adds its worker seeding, then hands it
to the fit loop. The callback takes that processed DataLoader when the first epoch starts and
puts `loadertune.autotune` of it in its place, so Lightning's sampler, its per-epoch
``set_epoch`` and its strategy's device placement stay as they are; only the worker settings
change. Under DDP the ranks agree on every change (see `distributed.py`).

Lightning has no public hook between building the loader and iterating it, so the callback
swaps the loader inside the fit loop (``fit_loop._combined_loader``) and restarts its fetcher;
the iterator Lightning had already started is shut down first. That discarded iterator drew
one base seed from the loader's generator, so with a ``RandomSampler`` the order is another
valid shuffle than a run without the callback (a ``DistributedSampler``'s or a sequential order
is the same). A loader that Lightning rebuilds (``reload_dataloaders_every_n_epochs``) is
wrapped again, starting from the setting the last one ended with.
"""

from __future__ import annotations

from typing import Any

from torch.utils.data import DataLoader

from loadertune.autotune import AutotunedLoader, autotune
from loadertune.errors import LoadertuneError

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:
    try:
        from pytorch_lightning.callbacks import Callback
    except ImportError as err:
        raise LoadertuneError(
            "loadertune.autotune.lightning needs PyTorch Lightning, an optional extra: "
            "pip install 'loadertune[lightning]' (or use loadertune.autotune(loader) in a "
            "plain loop)") from err


class AutotuneCallback(Callback):
    """Retunes the workers of ``Trainer.fit``'s train loaders while it runs.

    ``options`` are `loadertune.autotune`'s (memory_budget, max_workers, store, report...).
    ``loaders`` holds the autotuned loaders, for their ``config`` and ``history``.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__()
        self.options = options
        self.loaders: list[AutotunedLoader] = []

    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        fit_loop = trainer.fit_loop
        combined = getattr(fit_loop, "_combined_loader", None)
        fetcher = getattr(fit_loop, "_data_fetcher", None)
        if combined is None or fetcher is None:
            if getattr(trainer, "train_dataloader", None) is not None:
                raise LoadertuneError("AutotuneCallback: this Lightning version's fit loop has "
                                      "no _combined_loader/_data_fetcher to hand the autotuned "
                                      "loader to; use loadertune.autotune(loader) directly")
            return
        flat = list(combined.flattened)
        if not any(isinstance(dl, DataLoader) for dl in flat):
            return  # wrapped already (or not DataLoaders: nothing to tune)
        combined.reset()  # shut down the workers of the iterator Lightning already started
        previous, self.loaders = self.loaders, []
        for old in previous:
            old.close()
        for i, dl in enumerate(flat):
            if isinstance(dl, DataLoader):
                options, n = dict(self.options), len(self.loaders)
                if n < len(previous):  # a rebuilt loader starts where the last one ended
                    options.setdefault("start", previous[n].config)
                self.loaders.append(autotune(dl, **options))
                flat[i] = self.loaders[-1]
        combined.flattened = flat
        fetcher.setup(combined)
        epoch_loop = fit_loop.epoch_loop
        if not (trainer.current_epoch > 0 and not fit_loop.is_resuming
                and not epoch_loop.restarting):
            iter(fetcher)  # the epoch loop starts the iterator itself only in that case

    def on_train_end(self, trainer: Any, pl_module: Any) -> None:
        self._close()

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        self._close()

    def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
        self._close()

    def _close(self) -> None:
        for tuned in self.loaders:
            tuned.close()
