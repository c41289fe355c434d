"""The live job's loader memory, read at a cost the loop does not feel.

PSS (what the memory budget is held with) comes from each process's ``smaps_rollup``: the
kernel walks every page table, a few ms for a process that imported torch, so 16 workers read
at every window took ~7 % of a latency-bound epoch. RSS (``statm``) costs microseconds and is
never below PSS, so it bounds it: PSS is read again only when the workers changed, when the
RSS total may be over the budget, or when enough time has passed for the reading to cost at
most `MAX_SHARE` of the loop; otherwise the last PSS reading stands.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import psutil

from loadertune.trial.sampler import process_memory

MAX_SHARE = 0.01   # PSS readings take at most this share of the loop's time...
MIN_AGE_S = 1.0    # ...and are at least this old before they are read again


@dataclass(frozen=True)
class TreeMemory:
    total: int          # PSS of the main process plus the workers (RSS where PSS is not given)
    largest_worker: int | None


class MemoryReader:
    """`read` the tree's memory: PSS when it is due (see the module docstring), else the last."""

    def __init__(self, budget: int | None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.budget = budget
        self._clock = clock
        self._last: TreeMemory | None = None
        self._pids: tuple[int, ...] = ()
        self._read_at = 0.0
        self._cost_s = 0.0
        self.full_reads = 0

    def read(self, pids: Sequence[int]) -> TreeMemory | None:
        """Memory of the processes ``pids`` (the main process first, then the workers)."""
        now = self._clock()
        if self._last is not None and tuple(pids) == self._pids:
            rss = _rss_total(pids)
            due = max(MIN_AGE_S, self._cost_s / MAX_SHARE)
            over = rss is None or (self.budget is not None and rss > self.budget)
            if not over and now - self._read_at < due:
                return self._last
        started = time.perf_counter()
        self._last = _pss(pids)
        self._cost_s = time.perf_counter() - started
        self._pids, self._read_at = tuple(pids), now
        self.full_reads += 1
        return self._last


def _rss_total(pids: Sequence[int]) -> int | None:
    try:
        return sum(psutil.Process(pid).memory_info().rss for pid in pids)
    except (psutil.Error, OSError):
        return None


def _pss(pids: Sequence[int]) -> TreeMemory | None:
    if not pids:
        return None
    read = [process_memory(pid) for pid in pids]
    if read[0] is None:
        return None
    sizes = [m.pss if m.pss is not None else m.rss for m in read if m is not None]
    return TreeMemory(sum(sizes), max(sizes[1:], default=None))
