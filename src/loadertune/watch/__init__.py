"""Measure data stalls inside a real training loop, per worker, torchrun-aware.

    for batch in loadertune.watch(loader):
        step(batch)

prints, when the pass ends, the share of the loop spent waiting for data, p50/p95 waits, each
worker's fetch times, and a verdict with the num_workers to use. Modules, one job each:
``timing`` (per-batch wait/step), ``workers`` (per-worker timers in the worker processes),
``summary`` (the numbers), ``verdict`` (the advice), ``distributed`` (ranks), ``render`` (rich),
``sinks`` (TensorBoard), ``stacks`` (workers' stacks: hangs reported live, where worker time
goes), ``watcher`` (the wrapper that ties them).
"""

from loadertune.callable_module import make_callable
from loadertune.watch.summary import RankInfo, WatchSummary, WorkerSummary
from loadertune.watch.verdict import Verdict
from loadertune.watch.watcher import Watcher, watch

__all__ = ["RankInfo", "Verdict", "WatchSummary", "Watcher", "WorkerSummary", "watch"]

make_callable(__name__, watch)
