"""What the search explores: the space of configs, the facts it needs, and its decisions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.config import LoaderConfig
from loadertune.trial.results import TrialResult
from loadertune.tuning.budget import Limits, MemoryModel, memory_model

PREFETCH_OPTIONS = (4,)
MAX_REFINES = 2
MIN_CPU_SHARE = 1 / 8  # a probe share below this still starts the climb at 8 x the CPUs


@dataclass(frozen=True)
class Space:
    """What the strategy searches over and the facts it needs beyond the results.

    ``latency_bound`` and ``item_cpu_share`` come from the probe: a hypothesis that only
    chooses where the climb starts; the trials' measured CPU decides how far it goes.
    """

    batch_size: int
    limits: Limits
    latency_bound: bool = False
    accelerator: bool = False
    start_method: str | None = None      # multiprocessing_context to recommend (None: default)
    worker_start_method: str = "fork"    # the start method workers actually use
    main_estimate: int = 0               # bytes the main process holds before any trial
    item_wall_s: float | None = None     # probe: wall seconds one item takes in-process
    item_cpu_share: float | None = None  # probe: share of that wall time spent on the CPU
    handover_s: float | None = None      # least seconds main needs to receive a worker's batch
    dataset_len: int | None = None
    loader_uss: int | None = None        # probe: private bytes its process held after loading
    prefetch_options: tuple[int, ...] = PREFETCH_OPTIONS
    max_refines: int = MAX_REFINES

    @property
    def cpus(self) -> int:
        return max(self.limits.cpu_workers, 1)

    @property
    def cap(self) -> int:
        """The most workers the climb may reach; past the CPUs only while CPUs sit idle."""
        return self.limits.worker_cap(True)

    def config(self, workers: int, prefetch: int | None = None,
               pin: bool = False) -> LoaderConfig:
        if workers == 0:
            return LoaderConfig(num_workers=0, batch_size=self.batch_size, pin_memory=pin)
        return LoaderConfig(num_workers=workers, batch_size=self.batch_size,
                            prefetch_factor=prefetch, pin_memory=pin, persistent_workers=True,
                            multiprocessing_context=self.start_method)

    def first_rung(self) -> int:
        """Where the climb starts: num_workers=0, or for items that mostly wait the workers
        the probe's CPU share suggests would fill the CPUs (a power of two)."""
        if not self.latency_bound:
            return 0
        share = max(self.item_cpu_share or 0.0, MIN_CPU_SHARE)
        want = 2 ** math.ceil(math.log2(max(self.cpus / share, 2)))
        return min(max(want, 2 * self.cpus), self.cap)

    def next_rung(self, k: int) -> int:
        """The rung above ``k``: 0 -> 2 (one worker is measured only when the refine phase
        finds it might keep up), doubling up to the CPUs (hitting them exactly), then doubling
        on to the cap."""
        if k < self.cpus:
            return min(max(2 * k, 2), self.cpus, self.cap)
        return min(2 * k, self.cap)

    def rungs(self) -> list[int]:
        """The whole coarse ladder from the first rung, ascending, ending at the cap."""
        out = [self.first_rung()]
        while out[-1] < self.cap:
            out.append(self.next_rung(out[-1]))
        return out

    def memory(self, results: Sequence[TrialResult]) -> MemoryModel:
        return memory_model(results, self.worker_start_method, self.main_estimate,
                            self.dataset_len, self.loader_uss)


@dataclass(frozen=True)
class Decision:
    """The next config to measure (None: the search is over) and why."""

    config: LoaderConfig | None
    phase: str
    why: str


def worker_results(space: Space, results: Sequence[TrialResult]) -> dict[int, TrialResult]:
    """The climb's results by num_workers: default prefetch, no pinning."""
    out: dict[int, TrialResult] = {}
    for r in results:
        c = r.config
        if c == space.config(c.num_workers):
            out[c.num_workers] = r
    return out


def over_budget(space: Space, results: Sequence[TrialResult], workers: int) -> str | None:
    """Why ``workers`` is predicted not to fit the memory budget, or None when it may."""
    model = space.memory(results)
    if workers > 0 and model.predict(workers) > space.limits.memory_budget:
        return model.explain(workers)
    return None


@dataclass(frozen=True)
class MemoryFit:
    """Measured peaks against the memory budget, with the copy-on-read growth per worker
    that the memory model (fitted once, to all the results) still projects."""

    budget: int
    growth: int  # bytes one worker still grows once it has read the whole dataset

    def peak(self, r: TrialResult) -> int:
        """``r``'s measured peak plus its workers' projected growth."""
        return r.memory.total + r.config.num_workers * self.growth

    def fits(self, r: TrialResult) -> bool:
        """``r`` ran, and its peak stays in the budget with the growth still projected."""
        return r.ok and (r.config.num_workers == 0 or self.peak(r) <= self.budget)


def memory_fit(space: Space, results: Sequence[TrialResult]) -> MemoryFit:
    return MemoryFit(space.limits.memory_budget, space.memory(results).growth)
