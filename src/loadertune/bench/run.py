"""`bench`: sweep a grid of DataLoader settings over a dataset, each in an isolated trial."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from loadertune import machine as machine_facts
from loadertune.bench.sweep import (
    BatchProgress,
    Grid,
    SweepResult,
    TrialDone,
    TrialStart,
    run_sweep,
)
from loadertune.config import LoaderConfig
from loadertune.errors import DatasetSpecError
from loadertune.machine import MachineInfo, usable_cpus_int
from loadertune.pipeline import DEFAULT_BATCH_SIZE, LoadedDataset, load_dataset, resolve
from loadertune.pipeline.preflight import preflight
from loadertune.pipeline.rebuild import check_batch_size
from loadertune.trial import DatasetSource, TrialPlan

MAX_DEFAULT_WORKER_COUNTS = 12


def default_workers(machine: MachineInfo) -> tuple[int, ...]:
    """Worker counts from 0 up to twice the usable CPUs (latency-bound datasets gain past the
    core count), log-spaced so that a big machine gets at most 12 configs: 0, 1, 2, 3, 4, 6,
    8, 12, 16... and the usable CPU count itself; where that is too many, the in-between
    (×1.5) counts farthest from the CPU count go first, then the powers of two."""
    cpus = usable_cpus_int(machine)
    top = max(2, round(2 * machine.usable_cpus))
    counts = {0, 1, 2, cpus, top}
    power = 2
    while power <= top:
        counts.update(c for c in (power, power * 3 // 2) if c <= top)
        power *= 2
    keep = {0, 1, 2, cpus, top}

    def expendable(c: int) -> tuple[bool, float]:
        return (c & (c - 1) != 0, abs(math.log(c / cpus)))

    while len(counts) > MAX_DEFAULT_WORKER_COUNTS:
        counts.remove(max(counts - keep, key=expendable))
    return tuple(sorted(counts))


def source_for(dataset: Any, collate_fn: Any = None,
               step: Callable[[Any], Any] | None = None,
               split: str = "train") -> tuple[DatasetSource, LoadedDataset]:
    """A trial source and a loaded view for a spec string, a LoadedDataset, or an object
    (a Dataset, DataLoader, LightningDataModule or a zero-argument factory of one)."""
    if isinstance(dataset, str):
        loaded = load_dataset(dataset, split)
        return DatasetSource(spec=dataset, step=step, split=split), loaded
    if isinstance(dataset, LoadedDataset):
        loaded = dataset
    else:
        loaded = resolve(dataset, f"the {type(dataset).__name__} given", split=split,
                         collate_fn=collate_fn)
    if loaded.spec is not None and step is None:
        return DatasetSource(spec=loaded.spec, split=split), loaded
    return DatasetSource(dataset=loaded.dataset, collate_fn=loaded.collate_fn, step=step,
                         parts=loaded.parts), loaded


def resolve_batch_size(loaded: LoadedDataset, batch_size: int | None) -> int:
    """The batch size asked for, else the user's loader's, else the default (32)."""
    check_batch_size(loaded.parts, batch_size)
    if batch_size is not None:
        return batch_size
    return loaded.batch_size or DEFAULT_BATCH_SIZE


def check_step_spec(spec: str) -> str:
    """Import ``module:function`` now, so a bad --step fails before any trial starts."""
    from loadertune.pipeline import import_target, resolve_attr, split_spec

    target, attr = split_spec(spec)
    fn = resolve_attr(import_target(target), attr, spec)
    if not callable(fn):
        raise DatasetSpecError(f"--step {spec!r} is a {type(fn).__name__}, not a function")
    return spec


@dataclass
class PreparedBench:
    """A sweep whose dataset loaded and passed the pre-flight checks, ready to run."""

    source: DatasetSource
    loaded: LoadedDataset
    configs: list[LoaderConfig]
    plan: TrialPlan
    machine: MachineInfo

    def run(self, *, on_start: TrialStart | None = None, on_batches: BatchProgress | None = None,
            on_done: TrialDone | None = None) -> SweepResult:
        return run_sweep(self.source, self.configs, self.plan, self.machine,
                         self.loaded.describe(), on_start=on_start, on_batches=on_batches,
                         on_done=on_done)


def prepare(dataset: Any, grid: Grid, plan: TrialPlan | None = None, *, collate_fn: Any = None,
            step: Callable[[Any], Any] | None = None, step_spec: str | None = None,
            machine: MachineInfo | None = None, split: str = "train") -> PreparedBench:
    """Load ``dataset`` and check the grid against it; raises LoadertuneError on bad input.

    A grid without a batch size takes the user's loader's (32 for a bare dataset). The memory
    limit of each trial defaults to `machine.default_memory_budget`: 80 % of the memory this
    process may use now (a cgroup limit counts).
    """
    machine = machine or machine_facts.collect()
    plan = plan or TrialPlan()
    if plan.memory_limit is None:
        plan = replace(plan, memory_limit=machine_facts.default_memory_budget(machine))
    source, loaded = source_for(dataset, collate_fn, step, split)
    grid = replace(grid, batch_size=resolve_batch_size(loaded, grid.batch_size))
    if step_spec is not None:
        source.step_spec = check_step_spec(step_spec)
    configs = grid.configs()
    preflight(loaded, configs, machine)
    source.check_travel()
    return PreparedBench(source, loaded, configs, plan, machine)


def bench(dataset: Any, grid: Grid, plan: TrialPlan | None = None, *,
          collate_fn: Any = None, step: Callable[[Any], Any] | None = None,
          machine: MachineInfo | None = None, on_start: TrialStart | None = None,
          on_batches: BatchProgress | None = None,
          on_done: TrialDone | None = None, split: str = "train") -> SweepResult:
    """Measure every config of ``grid`` on ``dataset`` (a spec string, a Dataset, a DataLoader
    or a LightningDataModule; ``split`` picks a DataModule's train or val loader)."""
    prepared = prepare(dataset, grid, plan, collate_fn=collate_fn, step=step, machine=machine,
                       split=split)
    return prepared.run(on_start=on_start, on_batches=on_batches, on_done=on_done)
