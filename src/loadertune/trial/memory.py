"""Track peak memory per role (main process, each worker, the whole tree) over samples."""

from __future__ import annotations

from dataclasses import dataclass, field

from loadertune.trial.results import MemoryStats
from loadertune.trial.sampler import ProcMemory, TreeSample


def _peak(current: int | None, value: int | None) -> int | None:
    if value is None:
        return current
    return value if current is None else max(current, value)


@dataclass
class MemoryPeaks:
    """Running peaks; workers are keyed by worker id so restarts across epochs share a slot."""

    main_pid: int
    worker_ids: dict[int, int] = field(default_factory=dict)
    stats: MemoryStats = field(default_factory=MemoryStats)
    _worker: dict[int, ProcMemory] = field(default_factory=dict)
    pss_known: bool = True

    def add(self, sample: TreeSample) -> None:
        s = self.stats
        s.total_rss = max(s.total_rss, sample.total_rss())
        main = sample.memory.get(self.main_pid)
        if main is not None:
            s.main_rss = max(s.main_rss, main.rss)
        for pid, mem in sample.memory.items():
            wid = self.worker_ids.get(pid)
            if wid is None:
                continue
            slot = self._worker.setdefault(wid, ProcMemory(rss=0))
            slot.rss = max(slot.rss, mem.rss)
            slot.pss = _peak(slot.pss, mem.pss)
            slot.uss = _peak(slot.uss, mem.uss)
        if not sample.full:
            return
        total_pss = sample.total_pss()
        if total_pss is None:
            self.pss_known = False
            return
        s.total_pss = _peak(s.total_pss, total_pss)
        s.total_uss = _peak(s.total_uss, sum(m.uss or 0 for m in sample.memory.values()))
        if main is not None:
            s.main_pss = _peak(s.main_pss, main.pss)
            s.main_uss = _peak(s.main_uss, main.uss)

    def result(self) -> MemoryStats:
        s = self.stats
        ids = sorted(self._worker)
        s.worker_rss = [self._worker[i].rss for i in ids]
        if self.pss_known and all(self._worker[i].pss is not None for i in ids):
            s.worker_pss = [self._worker[i].pss or 0 for i in ids]
            s.worker_uss = [self._worker[i].uss or 0 for i in ids]
        if not self.pss_known:
            s.total_pss = s.total_uss = s.main_pss = s.main_uss = None
        return s
