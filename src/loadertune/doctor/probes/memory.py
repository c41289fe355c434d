"""Memory: what is available, the measured cost of one worker, and copy-on-read growth."""

from __future__ import annotations

import math
from typing import Any

import psutil

from loadertune.cgroups import read_limits
from loadertune.config import LoaderConfig
from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, human_bytes, ok, warn
from loadertune.objwalk import walk

PROBE = "memory"
OBJECT_LIST_MIN = 10_000
HEADROOM = 0.8  # leave a fifth of available memory to the training step and the OS
TRIAL_WORKERS = 2


def available_memory() -> tuple[int, str]:
    """Bytes available to this process: the system's, capped by a cgroup limit."""
    avail = psutil.virtual_memory().available
    limits = read_limits()
    if limits.memory_limit is not None:
        room = limits.memory_limit - (limits.memory_usage or 0)
        if room < avail:
            return max(room, 0), f"cgroup limit {human_bytes(limits.memory_limit)}"
    return avail, "system"


def max_safe_workers(available: int, main: int, per_worker: int) -> int:
    """Workers whose own memory fits in the headroom left after the main process."""
    if per_worker <= 0:
        return 1 << 16
    return max(math.floor((available * HEADROOM - main) / per_worker), 0)


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
    avail, source = available_memory()
    total = psutil.virtual_memory().total
    findings = [ok(PROBE, "memory.available", f"{human_bytes(avail)} available",
                   f"{human_bytes(avail)} available of {human_bytes(total)} ({source})",
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
                f"{human_bytes(avail)} available and 20% headroom -> at most {fit} workers")
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
