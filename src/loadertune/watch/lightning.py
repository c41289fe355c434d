"""A PyTorch Lightning callback for loadertune.watch (optional: Lightning is not a dependency).

    from loadertune.watch.lightning import WatchCallback
    trainer = lightning.Trainer(callbacks=[WatchCallback()])

Lightning owns the training loop, so the callback times it from the batch hooks instead of
wrapping the loader: a batch's *wait* runs from the end of the previous batch (or the start of
the epoch) to ``on_train_batch_start``, its *step* from there to ``on_train_batch_end``. The wait
therefore also holds Lightning's own work between batches, and per-worker times are not measured
(use ``loadertune.watch(loader)`` in a plain loop for those). The report is printed when training
ends; under DDP every rank's summary is gathered and rank 0 prints the table.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console

from loadertune.errors import LoadertuneError
from loadertune.watch.summary import WatchSummary
from loadertune.watch.timing import LoopTimes
from loadertune.watch.watcher import print_report, summarize_here

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:
    try:
        from pytorch_lightning.callbacks import Callback
    except ImportError as err:
        raise LoadertuneError(
            "loadertune.watch.lightning needs PyTorch Lightning, an optional extra: "
            "pip install lightning (or use loadertune.watch(loader) in a plain loop)"
        ) from err

NOTE = ("Lightning callback: the wait includes Lightning's own work between batches; "
        "per-worker times need loadertune.watch(loader)")


class WatchCallback(Callback):
    """Times data wait vs step of ``Trainer.fit`` and reports at the end of training."""

    def __init__(self, report: bool = True, console: Console | None = None) -> None:
        super().__init__()
        self.times = LoopTimes()
        self.report = report
        self.console = console
        self._mark: float | None = None  # end of the last batch, or start of the epoch
        self._loader: Any = None

    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        self.times.pass_starts.append(self.times.batches)
        self._mark = time.perf_counter()
        self._loader = getattr(trainer, "train_dataloader", None)

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any,
                             batch_idx: int) -> None:
        now = time.perf_counter()
        self.times.waits.append(now - self._mark if self._mark is not None else 0.0)
        self._mark = now

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        now = time.perf_counter()
        self.times.steps.append(now - self._mark if self._mark is not None else 0.0)
        self._mark = now

    def on_train_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        self.times.completed_passes += 1

    def summary(self) -> WatchSummary:
        loader = self._loader
        workers = getattr(loader, "num_workers", None)
        return summarize_here(self.times, [], num_workers=workers,
                              batch_size=getattr(loader, "batch_size", None), note=NOTE)

    def on_train_end(self, trainer: Any, pl_module: Any) -> None:
        if self.report:
            print_report(self.summary(), self.console, gather=None)
