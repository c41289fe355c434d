"""Sample a process tree's CPU time and memory (RSS cheaply; PSS/USS from smaps_rollup)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import psutil

_ROLLUP_KEYS = {"Rss:": "rss", "Pss:": "pss", "Private_Clean:": "pc", "Private_Dirty:": "pd"}


@dataclass
class ProcMemory:
    rss: int
    pss: int | None = None
    uss: int | None = None


def read_smaps_rollup(pid: int) -> ProcMemory | None:
    """RSS, PSS and USS of ``pid`` from ``/proc/PID/smaps_rollup``; None where unavailable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    values: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in _ROLLUP_KEYS:
            values[_ROLLUP_KEYS[parts[0]]] = int(parts[1]) * 1024
    if "rss" not in values or "pss" not in values:
        return None
    return ProcMemory(rss=values["rss"], pss=values["pss"],
                      uss=values.get("pc", 0) + values.get("pd", 0))


def full_memory(proc: psutil.Process) -> ProcMemory | None:
    """Best memory figures for one process: smaps_rollup on Linux, psutil elsewhere."""
    mem = read_smaps_rollup(proc.pid)
    if mem is not None:
        return mem
    try:
        info = proc.memory_full_info()
        return ProcMemory(rss=info.rss, pss=getattr(info, "pss", None),
                          uss=getattr(info, "uss", None))
    except (psutil.Error, OSError):
        try:
            return ProcMemory(rss=proc.memory_info().rss)
        except (psutil.Error, OSError):
            return None


@dataclass
class TreeSample:
    """One look at the tree: memory of each live process and the time it was taken."""

    t: float
    memory: dict[int, ProcMemory]
    full: bool

    def total_rss(self) -> int:
        return sum(m.rss for m in self.memory.values())

    def total_pss(self) -> int | None:
        if not self.memory or any(m.pss is None for m in self.memory.values()):
            return None
        return sum(m.pss or 0 for m in self.memory.values())


@dataclass
class TreeSampler:
    """Follows a root process and its descendants; remembers each pid's CPU time and peaks."""

    root_pid: int
    pids_seen: set[int] = field(default_factory=set)
    cpu_seconds: dict[int, float] = field(default_factory=dict)
    _procs: dict[int, psutil.Process] = field(default_factory=dict)

    def processes(self) -> list[psutil.Process]:
        """The root and its live descendants (cached Process objects keep cpu deltas right)."""
        try:
            root = self._procs.get(self.root_pid) or psutil.Process(self.root_pid)
            self._procs[self.root_pid] = root
            procs = [root, *root.children(recursive=True)]
        except (psutil.Error, OSError):
            return []
        live = []
        for proc in procs:
            cached = self._procs.setdefault(proc.pid, proc)
            live.append(cached)
            self.pids_seen.add(proc.pid)
        return live

    def sample(self, full: bool) -> TreeSample:
        """Read CPU times and memory (PSS/USS too when ``full``) of every live process."""
        memory: dict[int, ProcMemory] = {}
        for proc in self.processes():
            try:
                times = proc.cpu_times()
                self.cpu_seconds[proc.pid] = times.user + times.system
                mem = full_memory(proc) if full else ProcMemory(rss=proc.memory_info().rss)
            except (psutil.Error, OSError):
                continue
            if mem is not None:
                memory[proc.pid] = mem
        return TreeSample(t=time.monotonic(), memory=memory, full=full)

    def cpu_snapshot(self) -> dict[int, float]:
        return dict(self.cpu_seconds)


def cpu_used_since(before: dict[int, float], after: dict[int, float],
                   pids: set[int] | None = None) -> float:
    """CPU seconds used between two snapshots, counting processes born in between."""
    total = 0.0
    for pid, seconds in after.items():
        if pids is not None and pid not in pids:
            continue
        total += max(seconds - before.get(pid, 0.0), 0.0)
    return total
