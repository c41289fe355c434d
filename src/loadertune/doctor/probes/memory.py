"""Memory: what is available, the measured cost of one worker, and copy-on-read growth."""

from __future__ import annotations

import math
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, human_bytes, ok, warn
from loadertune.machine import DEFAULT_MEMORY_FRACTION
from loadertune.pipeline.objwalk import walk

PROBE = "memory"
OBJECT_LIST_MIN = 10_000
TRIAL_WORKERS = 2


def max_safe_workers(available: int, main: int, per_worker: int) -> int:
    """Workers whose own memory fits in the headroom left after the main process."""
    if per_worker <= 0:
        return 1 << 16
    return max(math.floor((available * DEFAULT_MEMORY_FRACTION - main) / per_worker), 0)


def object_heavy(root: Any) -> list[tuple[str, int, str]]:
    """Python lists/dicts with many Python objects: (path, length, element type)."""
    hits = []
    for node in walk(root):
        obj = node.obj
        if isinstance(obj, (list, dict, tuple)) and len(obj) >= OBJECT_LIST_MIN:
            first = next(iter(obj.values() if isinstance(obj, dict) else obj))
            hits.append((node.path, len(obj), f"{type(obj).__name__} of {type(first).__name__}"))
    return hits


def measure_worker(ctx: DoctorContext) -> Any:
    """Run the dataset with two workers in an isolated trial; its MemoryStats or None."""
    from loadertune.trial import DatasetSource, TrialPlan, run_trial

    config = LoaderConfig(num_workers=TRIAL_WORKERS, batch_size=ctx.batch_size)
    # A sleeping consumer keeps the trial running long enough for several PSS/USS samples
    # of the workers (taken every 0.25 s) without taking CPU from them.
    plan = TrialPlan(batches=10, repeats=2, max_repeats=2, warmup=4, step_ms=25,
                     step_kind="sleep", timeout_s=ctx.measure_time_limit_s)
    return run_trial(DatasetSource(spec=ctx.target.spec, split=ctx.split), config, plan)


def probe(ctx: DoctorContext) -> list[Finding]:
    avail, source = ctx.machine.memory_room, ctx.machine.memory_room_source()
    total = ctx.machine.memory_total
    findings = [ok(PROBE, "memory.available", f"{human_bytes(avail)} available",
                   f"{human_bytes(avail)} {source}, of {human_bytes(total)} RAM",
                   available=avail, total=total, source=source)]
    loaded = ctx.dataset()
    if loaded is None:
        return findings
    for path, length, kind in object_heavy(loaded.dataset):
        findings.append(warn(PROBE, "memory.copy_on_read",
                             f"{path} is a Python {kind} with {length} items",
                             f"{path} holds {length} Python objects; every worker that reads "
                             "them touches their refcounts, which copies the pages "
                             "(copy-on-read): each worker's memory grows towards a full copy "
                             "over an epoch",
                             "store the data in numpy arrays (strings: one np.bytes_ array or "
                             "a flat uint8 buffer plus offsets) or an Arrow/pandas column, so "
                             "there are no per-item Python objects", path=path, length=length))
    if not ctx.measure or ctx.target.spec is None:
        return findings
    result = measure_worker(ctx)
    mem = result.memory
    per_worker = mem.per_worker
    if result.failure is not None and not per_worker:
        findings.append(warn(PROBE, "memory.measure_failed",
                             "could not measure a worker's memory",
                             f"a {TRIAL_WORKERS}-worker trial failed: {result.failure.message}",
                             "run `loadertune explain` on the message, or fix the dataset"))
        return findings
    if not per_worker:
        findings.append(warn(PROBE, "memory.measure_failed",
                             "could not measure a worker's memory",
                             f"the {TRIAL_WORKERS}-worker trial ended before its workers were "
                             "sampled", "rerun doctor; a dataset this quick to load rarely "
                             "limits memory"))
        return findings
    main = mem.main_uss or mem.main_rss
    fit = max_safe_workers(avail, main, per_worker)
    data = {"per_worker": per_worker, "main": main, "max_safe_workers": fit}
    evidence = (f"a {TRIAL_WORKERS}-worker trial measured {human_bytes(per_worker)} private "
                f"memory (USS) per worker and {human_bytes(main)} in the main process; with "
                f"{human_bytes(avail)} {source} and {1 - DEFAULT_MEMORY_FRACTION:.0%} "
                f"headroom -> at most {fit} workers")
    if fit < 1:
        findings.append(error(PROBE, "memory.max_workers", "not even one worker fits in memory",
                              evidence, "shrink what each worker holds (numpy instead of "
                              "Python objects, load lazily) or add memory", **data))
    elif fit < ctx.workers:
        findings.append(warn(PROBE, "memory.max_workers",
                             f"memory caps num_workers at {fit}", evidence,
                             f"use num_workers<={fit}, or shrink each worker's memory; more "
                             "risks the OOM killer ('DataLoader worker ... killed by signal: "
                             "Killed')", **data))
    else:
        findings.append(ok(PROBE, "memory.max_workers", f"memory allows {fit} workers",
                           evidence, **data))
    return findings
