"""Measure data stalls inside a real training loop, per worker, torchrun-aware.

    for batch in loadertune.watch(loader):
        step(batch)

prints, when the pass ends, the share of the loop spent waiting for data, p50/p95 waits, each
worker's fetch times, and a verdict with the num_workers to use. Modules, one job each:
``timing`` (per-batch wait/step), ``workers`` (per-worker timers in the worker processes),
``summary`` (the numbers), ``verdict`` (the advice), ``distributed`` (ranks), ``render`` (rich),
``sinks`` (TensorBoard), ``watcher`` (the wrapper that ties them).
"""

import sys
import types
from collections.abc import Iterable
from typing import Any, TypeVar

from loadertune.watch.summary import RankInfo, WatchSummary, WorkerSummary
from loadertune.watch.verdict import Verdict
from loadertune.watch.watcher import Watcher, watch

__all__ = ["RankInfo", "Verdict", "WatchSummary", "Watcher", "WorkerSummary", "watch"]

T = TypeVar("T")


class _CallableModule(types.ModuleType):
    """``loadertune.watch`` names both this package and the function; calling it calls
    :func:`watch`, so ``loadertune.watch(loader)`` and ``loadertune.watch.WatchSummary`` both
    work whichever way the name was imported."""

    def __call__(self, loader: Iterable[T], **kwargs: Any) -> Watcher[T]:
        return watch(loader, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
