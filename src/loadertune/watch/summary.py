"""`WatchSummary`: the numbers of a watched loop as a plain, JSON-ready dataclass.

Definitions (all times in seconds):

- ``wall_s``: the loop's time over every pass, waits plus steps (time between passes, such as a
  validation loop, is not in it);
- ``startup_s``: the waits for each pass's *first* batch, which include starting the workers;
  kept apart so that a short run is not judged by its start-up;
- ``stall_fraction``: steady waits / (steady waits + steps), i.e. the share of the loop's steady
  time spent waiting for data (the first batch of each pass is excluded; with only first batches
  it falls back to every batch);
- ``wait_p50_s``/``wait_p95_s``: percentiles of the steady waits; ``step_p50_s`` of the steps.
"""

from __future__ import annotations

import socket
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from loadertune.watch.stacks import LoopHang
from loadertune.watch.timing import LoopTimes
from loadertune.watch.verdict import Verdict, decide
from loadertune.watch.workers import WorkerCounters


@dataclass
class WorkerSummary:
    """One worker's share of the work (``worker="main"`` when the main process fetched)."""

    worker: str
    items: int
    batches: int
    fetch_s: float
    collate_s: float
    cpu_s: float = 0.0
    starts: int = 0
    pid: int | None = None
    estimated: bool = False  # items inferred from the batch size, not counted
    runq_s: float | None = None  # fetch time spent ready to run, waiting for a core

    @property
    def fetch_per_item_s(self) -> float | None:
        return self.fetch_s / self.items if self.items else None

    @property
    def batch_s(self) -> float | None:
        """Fetch plus collate per batch."""
        return (self.fetch_s + self.collate_s) / self.batches if self.batches else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["fetch_per_item_s"] = self.fetch_per_item_s
        data["batch_s"] = self.batch_s
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkerSummary:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


@dataclass
class RankInfo:
    """Where this summary was measured."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    local_world_size: int = 1
    hostname: str = field(default_factory=socket.gethostname)


@dataclass
class WatchSummary:
    """Data wait vs step of a watched loop, per worker, with a verdict."""

    batches: int
    passes: int
    wall_s: float
    wait_s: float
    step_s: float
    startup_s: float
    stall_fraction: float
    wait_p50_s: float
    wait_p95_s: float
    step_p50_s: float
    num_workers: int | None
    batch_size: int | None
    usable_cpus: float
    workers: list[WorkerSummary]
    worker_note: str
    slowest_worker: str | None
    verdict: Verdict
    rank: RankInfo = field(default_factory=RankInfo)
    hangs: list[LoopHang] = field(default_factory=list)  # waits that passed the hang threshold
    profile: list[dict[str, Any]] | None = None  # where worker time goes (watch(profile=True))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["workers"] = [w.to_dict() for w in self.workers]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WatchSummary:
        data = dict(data)
        data["workers"] = [WorkerSummary.from_dict(w) for w in data.get("workers", [])]
        data["verdict"] = Verdict(**data["verdict"])
        data["rank"] = RankInfo(**data.get("rank", {}))
        data["hangs"] = [LoopHang.from_dict(h) for h in data.get("hangs", [])]
        return cls(**data)

    def scalars(self) -> dict[str, float]:
        """The numeric fields, flat, for a metrics logger."""
        values = {
            "stall_fraction": self.stall_fraction, "wait_p50_ms": self.wait_p50_s * 1000,
            "wait_p95_ms": self.wait_p95_s * 1000, "step_p50_ms": self.step_p50_s * 1000,
            "wall_s": self.wall_s, "wait_s": self.wait_s, "step_s": self.step_s,
            "startup_s": self.startup_s, "batches": float(self.batches),
        }
        if self.verdict.recommended_workers is not None:
            values["recommended_workers"] = float(self.verdict.recommended_workers)
        return values


def _pct(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if values.size else 0.0


def main_process_worker(times: LoopTimes, batch_size: int | None) -> WorkerSummary:
    """The main process as the only 'worker' (num_workers=0): its fetch time is the wait."""
    items = times.batches * (batch_size or 1)
    return WorkerSummary("main", items, times.batches, float(sum(times.waits)), 0.0,
                         starts=0, estimated=True)


def summarize(times: LoopTimes, counters: list[WorkerCounters], *, num_workers: int | None,
              batch_size: int | None, worker_note: str, usable_cpus: float,
              rank: RankInfo) -> WatchSummary:
    """Reduce raw loop times and worker counters to a summary and a verdict."""
    waits = np.frombuffer(times.waits, dtype=np.float64) if times.batches else np.zeros(0)
    steps = np.frombuffer(times.steps, dtype=np.float64)[: waits.size] if times.batches \
        else np.zeros(0)
    first = np.zeros(waits.size, dtype=bool)
    starts = [s for s in times.pass_starts if s < waits.size]
    first[starts] = True
    steady = waits[~first] if (~first).any() else waits
    startup = float(waits[first].sum()) if (~first).any() else 0.0
    steady_total = float(steady.sum()) + float(steps.sum())
    stall = float(steady.sum()) / steady_total if steady_total > 0 else 0.0

    failed = [str(c.worker_id) for c in counters if c.timer == "failed"]
    if failed:
        worker_note = "; ".join(filter(None, [worker_note, (
            f"worker {', '.join(failed)}: its dataset copy could not take a fetch timer "
            "(an unusual class layout), so only its batches and collate time are counted")]))
    if num_workers:
        workers = [WorkerSummary(str(c.worker_id), c.items, c.batches, c.fetch_s, c.collate_s,
                                 c.cpu_s, c.starts, c.pid, runq_s=c.runq_s) for c in counters]
    elif times.batches and num_workers == 0:
        workers = [main_process_worker(times, batch_size)]
    else:
        workers = []
    timed = [w for w in workers if w.batches and (w.items or w.estimated)]  # fetch was timed
    slowest = max(timed, key=lambda w: w.batch_s or 0.0).worker if len(timed) > 1 else None

    step_p50 = _pct(steps, 50)
    if num_workers == 0 and times.batches:
        batch_s: float | None = _pct(steady, 50)
    elif timed:
        total_batches = sum(w.batches for w in timed)
        batch_s = sum(w.fetch_s + w.collate_s for w in timed) / total_batches
    else:
        batch_s = None
    runnable_share, exact = None, False
    busy = sum(w.fetch_s + w.collate_s for w in timed)
    if num_workers and busy > 0:
        runnable = sum(w.cpu_s + w.collate_s + (w.runq_s or 0.0) for w in timed)
        runnable_share = min(1.0, runnable / busy)
        exact = all(w.runq_s is not None for w in timed)
    verdict = decide(stall_fraction=stall, batches=times.batches, batch_s=batch_s,
                     step_s=step_p50, current_workers=num_workers, cores=usable_cpus,
                     local_world_size=rank.local_world_size, batch_size=batch_size,
                     runnable_share=runnable_share, runnable_exact=exact)
    return WatchSummary(
        batches=times.batches, passes=len(times.pass_starts),
        wall_s=float(waits.sum() + steps.sum()), wait_s=float(waits.sum()),
        step_s=float(steps.sum()), startup_s=startup, stall_fraction=stall,
        wait_p50_s=_pct(steady, 50), wait_p95_s=_pct(steady, 95), step_p50_s=step_p50,
        num_workers=num_workers, batch_size=batch_size, usable_cpus=usable_cpus,
        workers=workers, worker_note=worker_note, slowest_worker=slowest, verdict=verdict,
        rank=rank,
    )

