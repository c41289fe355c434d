"""Limits of a tuning run: the memory budget, predicted memory per config, and CPU caps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.errors import ConfigError
from loadertune.machine import DEFAULT_MEMORY_FRACTION as DEFAULT_MEMORY_FRACTION
from loadertune.machine import MachineInfo, default_memory_budget
from loadertune.pipeline.preflight import WORKER_FLOOR_BYTES
from loadertune.trial.results import TrialResult
from loadertune.units import format_bytes, parse_size

LATENCY_WORKERS_PER_CPU = 16  # a latency-bound dataset may use this many workers per CPU...
LATENCY_MAX_WORKERS = 128     # ...and never more than this


@dataclass(frozen=True)
class Limits:
    """What the search may use: bytes of memory and numbers of workers."""

    memory_budget: int
    cpu_workers: int                 # most workers for a CPU-bound dataset: the usable CPUs
    latency_workers: int             # most workers once the dataset is shown latency-bound
    max_workers: int | None = None   # the user's own cap
    notes: tuple[str, ...] = ()      # how the limits were derived (torchrun, quota...)

    def worker_cap(self, latency_bound: bool) -> int:
        cap = self.latency_workers if latency_bound else self.cpu_workers
        return cap if self.max_workers is None else min(cap, self.max_workers)


def budget_bytes(memory_budget: int | str | None, room: int) -> int | None:
    """A memory budget given as bytes, "8GiB" or "80%" (of ``room``) in bytes; None stays None
    (the default budget); anything not positive is a ConfigError."""
    budget = parse_size(memory_budget, of=room) if isinstance(memory_budget, str) else memory_budget
    if budget is not None and (isinstance(budget, bool) or int(budget) <= 0):
        raise ConfigError(f"memory_budget must be > 0 bytes (or e.g. '8GiB', '80%'), "
                          f"got {memory_budget!r}")
    return None if budget is None else int(budget)


def check_max_workers(max_workers: int | None) -> None:
    if max_workers is not None and (isinstance(max_workers, bool)
                                    or not isinstance(max_workers, int) or max_workers < 0):
        raise ConfigError(f"max_workers must be an integer >= 0, got {max_workers!r}")


def limits_for(machine: MachineInfo, memory_budget: int | None = None,
               max_workers: int | None = None) -> Limits:
    """Limits on this machine; under torchrun memory and CPUs are split between local ranks."""
    notes: list[str] = []
    ranks = machine.local_world_size
    if memory_budget is None:
        memory_budget = default_memory_budget(machine, ranks)
        notes.append(f"memory budget {format_bytes(memory_budget)}: "
                     f"{DEFAULT_MEMORY_FRACTION:.0%} of the {format_bytes(machine.memory_room)} "
                     f"{machine.memory_room_source()}"
                     + (f", split between {ranks} local ranks" if ranks > 1 else ""))
    cpus = max(1, math.floor(machine.usable_cpus + 1e-9))
    limit = f"{machine.affinity_cpus} CPUs in this process's affinity"
    if machine.cgroup_cpu_quota is not None and machine.cgroup_cpu_quota < machine.affinity_cpus:
        limit = f"a cgroup CPU quota of {machine.cgroup_cpu_quota:g} CPUs"
    if ranks > 1:
        notes.append(f"torchrun: LOCAL_WORLD_SIZE={ranks}, so this rank gets {cpus} of the "
                     f"machine's CPUs ({limit}) and 1/{ranks} of its memory")
    else:
        notes.append(f"{cpus} usable CPUs ({limit})")
    latency = min(LATENCY_WORKERS_PER_CPU * cpus, LATENCY_MAX_WORKERS // ranks)
    if max_workers is not None:
        notes.append(f"at most {max_workers} workers (max_workers)")
    return Limits(memory_budget=memory_budget, cpu_workers=cpus,
                  latency_workers=max(latency, cpus), max_workers=max_workers,
                  notes=tuple(notes))


@dataclass(frozen=True)
class MemoryModel:
    """Predicted peak memory: the main process plus a cost per worker (growth included)."""

    main: int
    per_worker: int
    measured: bool   # per_worker comes from trials, not from the start method's floor
    growth: int = 0  # of per_worker, bytes projected for reading the whole dataset
    probed: bool = False  # unmeasured per_worker is what the probe's process built loading

    def predict(self, num_workers: int) -> int:
        return self.main + num_workers * self.per_worker

    def most_workers(self, budget: int, cap: int) -> int:
        """The most workers (at most ``cap``) predicted to fit ``budget``; 0 when none does."""
        room = budget - self.main
        if room < self.per_worker:
            return 0
        return min(room // max(self.per_worker, 1), cap)

    def explain(self, num_workers: int) -> str:
        how = ("measured" if self.measured else
               "at least what the probe's process built loading items, no worker measured yet"
               if self.probed else "assumed (no worker measured yet)")
        grows = f", {format_bytes(self.growth)} of it projected growth" if self.growth else ""
        return (f"{num_workers} workers need ~{format_bytes(self.predict(num_workers))}: main "
                f"{format_bytes(self.main)} + {num_workers} × {format_bytes(self.per_worker)} "
                f"per worker ({how}{grows})")


def memory_model(results: Sequence[TrialResult], start_method: str,
                 main_estimate: int = 0, dataset_len: int | None = None,
                 loader_uss: int | None = None) -> MemoryModel:
    """Fit main and per-worker memory to every trial so far (failed ones included).

    Before any worker is measured, a worker costs at least the start method's floor and at
    least ``loader_uss``: the private memory the probe's process held after loading items
    (a cache built on first use, decoded buffers), which every worker builds too.
    """
    floor = WORKER_FLOOR_BYTES.get(start_method, WORKER_FLOOR_BYTES["spawn"])
    mains = [_main(r) for r in results]
    main = max([m for m in mains if m], default=main_estimate)
    probed = bool(loader_uss and loader_uss > floor)
    per_worker, growth, measured = max(floor, loader_uss or 0), 0, False
    grows = _grows_with_reading(results, floor)
    for r in results:
        k = r.config.num_workers
        if k == 0 or not r.memory.total:
            continue
        marginal = max(r.memory.total - main, 0) // k
        own = r.memory.per_worker or 0
        extra = _growth(r, own, floor, main, dataset_len) if grows else 0
        cost = max(marginal, own) + extra
        if not measured or cost > per_worker:
            per_worker, growth = cost, extra
        measured = True
    return MemoryModel(main=main, per_worker=per_worker, measured=measured, growth=growth,
                       probed=probed and not measured)


def _main(r: TrialResult) -> int:
    mem = r.memory
    if mem.main_pss is not None:
        return mem.main_pss
    return mem.main_rss if r.config.num_workers else mem.total


READ_RATIO = 1.5    # two trials whose workers read this many times more items...
FLAT_MEMORY = 1.25  # ...yet hold less than this many times more memory: it does not grow


def _grows_with_reading(results: Sequence[TrialResult], floor: int) -> bool:
    """False when the trials show a worker's own memory does not grow with the items it read
    (a cache built on first use, a model loaded in worker_init_fn): a worker that read far more
    items holds about the same; a trial stopped before its first batch counts what its workers
    were asked for. True (growth assumed) while no pair of trials tells."""
    seen = [(_items_read(r), (r.memory.per_worker or 0) - floor)
            for r in results if r.config.num_workers and (r.memory.per_worker or 0) > floor]
    if len(seen) < 2:
        return True
    least, most = min(seen), max(seen)
    return not (most[0] >= READ_RATIO * least[0] and most[1] <= FLAT_MEMORY * least[1])


def _items_read(r: TrialResult) -> float:
    """Items each worker read, at most (a trial stopped before its first batch: the first
    round of prefetched batches it was asked for)."""
    c = r.config
    if r.batches > 0:
        return r.batches * c.batch_size / c.num_workers
    return float(c.effective_prefetch * c.batch_size)


def _growth(r: TrialResult, own: int, floor: int, main: int, dataset_len: int | None) -> int:
    """Copy-on-read growth still to come: a worker's private memory beyond the floor grows
    with the share of the dataset it has read, up to a copy of the main process."""
    if not dataset_len or own <= floor or r.batches <= 0:
        return 0
    read = r.batches * r.config.batch_size / r.config.num_workers
    share = min(read / dataset_len, 1.0)
    if share >= 1.0:
        return 0
    projected = (own - floor) / share
    return int(max(min(projected, main) - (own - floor), 0))
