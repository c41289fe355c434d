"""Result records of trials and sweeps (plain dataclasses, JSON-ready)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from loadertune.config import LoaderConfig

FAILURE_KINDS = (
    "exception",      # the dataset, collate_fn or step raised
    "worker_killed",  # a DataLoader worker died by a signal
    "worker_exited",  # a DataLoader worker exited with a non-zero code
    "timeout",        # the trial ran past its wall-clock limit
    "hang",           # no batch for long while the workers lived: stopped early, stacks named
    "memory_limit",   # the process tree grew past the memory budget
    "crashed",        # the trial process itself died
    "no_data",        # the dataset yielded no batch
    "interrupted",    # the user stopped the sweep
    "skipped",        # not run: a smaller config of the same kind already hit a limit
)


@dataclass
class TrialFailure:
    """Why a trial produced no measurement."""

    kind: str
    message: str
    detail: str = ""
    worker_id: int | None = None
    signal: int | None = None
    index: int | None = None
    where: str | None = None  # file:line a hung worker is stuck at (its own code's frame)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MemoryStats:
    """Peak memory of a trial's processes in bytes.

    PSS splits pages shared between processes (fork copy-on-write) among them, so summing PSS
    over the tree does not double-count; USS is what a process alone holds. Where the OS gives
    no PSS/USS (not Linux), those fields are None and only RSS is known.
    """

    total_pss: int | None = None
    total_uss: int | None = None
    total_rss: int = 0
    main_pss: int | None = None
    main_uss: int | None = None
    main_rss: int = 0
    worker_pss: list[int] = field(default_factory=list)
    worker_uss: list[int] = field(default_factory=list)
    worker_rss: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Best estimate of the tree's true footprint: PSS where known, else summed RSS."""
        return self.total_pss if self.total_pss is not None else self.total_rss

    @property
    def per_worker(self) -> int | None:
        """The largest worker's own memory (USS where known, else RSS)."""
        values = self.worker_uss or self.worker_rss
        return max(values) if values else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["total"] = self.total
        data["per_worker"] = self.per_worker
        return data


@dataclass
class TrialResult:
    """One config measured (or failed) in an isolated process."""

    config: LoaderConfig
    samples_per_s: float | None = None
    batches_per_s: float | None = None
    spread: float | None = None
    repeats: list[float] = field(default_factory=list)
    first_batch_s: float | None = None
    epoch_start_s: float | None = None
    batches: int = 0
    samples: int = 0
    cpu_percent: float | None = None
    cpu_percent_main: float | None = None
    cpu_percent_workers: float | None = None
    memory: MemoryStats = field(default_factory=MemoryStats)
    wall_s: float = 0.0
    remeasured: bool = False
    failure: TrialFailure | None = None
    step_s: float | None = None  # mean seconds per timed batch spent in the step (None: no step)
    workers_blocked: float | None = None  # share of workers' time neither running nor runnable
    profile: list[dict[str, Any]] | None = None  # where worker time went (loadertune.profile)
    worker_threads: dict[str, int] | None = None  # a worker's thread pools (trial.threads)
    worker_reads: dict[str, int] | None = None  # bytes workers read: requested, from storage

    @property
    def ok(self) -> bool:
        return self.failure is None and self.samples_per_s is not None

    @property
    def status(self) -> str:
        return "ok" if self.ok else (self.failure.kind if self.failure else "unknown")

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "label": self.config.label(),
            "status": self.status,
            "samples_per_s": self.samples_per_s,
            "batches_per_s": self.batches_per_s,
            "spread": self.spread,
            "repeats": self.repeats,
            "first_batch_s": self.first_batch_s,
            "epoch_start_s": self.epoch_start_s,
            "batches": self.batches,
            "samples": self.samples,
            "cpu_percent": self.cpu_percent,
            "cpu_percent_main": self.cpu_percent_main,
            "cpu_percent_workers": self.cpu_percent_workers,
            "memory": self.memory.to_dict(),
            "wall_s": self.wall_s,
            "remeasured": self.remeasured,
            "failure": self.failure.to_dict() if self.failure else None,
            "step_s": self.step_s,
            "workers_blocked": self.workers_blocked,
            "profile": self.profile,
            "worker_threads": self.worker_threads,
            "worker_reads": self.worker_reads,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrialResult:
        mem = dict(data.get("memory") or {})
        mem.pop("total", None)
        mem.pop("per_worker", None)
        failure = data.get("failure")
        return cls(
            config=LoaderConfig.from_dict(data["config"]),
            samples_per_s=data.get("samples_per_s"),
            batches_per_s=data.get("batches_per_s"),
            spread=data.get("spread"),
            repeats=list(data.get("repeats") or []),
            first_batch_s=data.get("first_batch_s"),
            epoch_start_s=data.get("epoch_start_s"),
            batches=data.get("batches", 0),
            samples=data.get("samples", 0),
            cpu_percent=data.get("cpu_percent"),
            cpu_percent_main=data.get("cpu_percent_main"),
            cpu_percent_workers=data.get("cpu_percent_workers"),
            memory=MemoryStats(**mem),
            wall_s=data.get("wall_s", 0.0),
            remeasured=data.get("remeasured", False),
            failure=TrialFailure(**failure) if failure else None,
            step_s=data.get("step_s"),
            workers_blocked=data.get("workers_blocked"),
            profile=data.get("profile"),
            worker_threads=data.get("worker_threads"),
            worker_reads=data.get("worker_reads"),
        )
