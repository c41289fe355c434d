"""Sample a process tree's CPU time and memory (RSS cheaply; PSS/USS less often)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import psutil


@dataclass
class ProcMemory:
    rss: int
    pss: int | None = None
    uss: int | None = None


def full_memory(proc: psutil.Process) -> ProcMemory | None:
    """RSS, and PSS/USS where the OS gives them (psutil reads Linux's smaps_rollup)."""
    try:
        info = proc.memory_full_info()
        return ProcMemory(rss=info.rss, pss=getattr(info, "pss", None),
                          uss=getattr(info, "uss", None))
    except (psutil.Error, OSError):
        try:
            return ProcMemory(rss=proc.memory_info().rss)
        except (psutil.Error, OSError):
            return None


def process_memory(pid: int) -> ProcMemory | None:
    """`full_memory` of ``pid``; None when it is gone or not readable."""
    try:
        return full_memory(psutil.Process(pid))
    except psutil.Error:
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


def sched_times(pid: int) -> tuple[int, int] | None:
    """Nanoseconds ``pid``'s main thread ran and waited runnable for a core (Linux
    ``/proc/PID/schedstat``); None where the OS does not tell."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as fh:
            run, wait, *_ = fh.read().split()
        return int(run), int(wait)
    except (OSError, ValueError):
        return None


def read_counts(pid: int) -> tuple[int, int] | None:
    """Bytes ``pid`` asked for with read() and the like (page cache hits included), and bytes
    of those fetched from storage (Linux ``/proc/PID/io``); None where the OS does not tell."""
    try:
        with open(f"/proc/{pid}/io", "rb") as fh:
            fields = dict(line.split(b":", 1) for line in fh.read().splitlines() if b":" in line)
        return int(fields[b"rchar"]), int(fields[b"read_bytes"])
    except (OSError, ValueError, KeyError):
        return None


def reads_between(before: dict[int, tuple[int, int]],
                  after: dict[int, tuple[int, int]]) -> dict[str, int] | None:
    """What the processes in both snapshots read in between: ``requested`` bytes, and the
    ``storage`` bytes of them that missed the page cache."""
    pids = [p for p in after if p in before]
    if not pids:
        return None
    return {"requested": sum(max(after[p][0] - before[p][0], 0) for p in pids),
            "storage": sum(max(after[p][1] - before[p][1], 0) for p in pids)}


def blocked_share(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]],
                  wall_s: float) -> float | None:
    """The share of ``wall_s`` the processes in both snapshots spent blocked: neither running
    nor waiting for a core (on storage, a network, a lock, a full queue)."""
    pids = [p for p in after if p in before]
    if not pids or wall_s <= 0:
        return None
    busy = sum((after[p][0] - before[p][0]) + (after[p][1] - before[p][1]) for p in pids)
    return min(max(1.0 - busy / 1e9 / (wall_s * len(pids)), 0.0), 1.0)


def cpu_used_since(before: dict[int, float], after: dict[int, float],
                   pids: set[int] | None = None) -> float:
    """CPU seconds used between two snapshots, counting processes born in between."""
    total = 0.0
    for pid, seconds in after.items():
        if pids is not None and pid not in pids:
            continue
        total += max(seconds - before.get(pid, 0.0), 0.0)
    return total
