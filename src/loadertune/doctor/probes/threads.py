"""Threads: torch/OpenMP/MKL/OpenBLAS threads per worker × workers vs the cores."""

from __future__ import annotations

import os
import sys
import threading

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, ok, warn
from loadertune.machine import usable_cpus_int

PROBE = "threads"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
FIX = ("limit threads per worker: pass `worker_init_fn` that calls `torch.set_num_threads(1)` "
       "(and `cv2.setNumThreads(0)` when using OpenCV), and set OMP_NUM_THREADS=1 / "
       "MKL_NUM_THREADS=1 in the environment before Python starts so numpy's BLAS in workers "
       "uses one thread")


def env_threads(environ: dict[str, str]) -> dict[str, int]:
    """Thread counts set in the environment (ignoring unparsable values)."""
    out = {}
    for name in THREAD_VARS:
        value = environ.get(name, "").split(",")[0].strip()
        if value.isdigit():
            out[name] = int(value)
    return out


def oversubscription(workers: int, per_worker: int, main_threads: int, cores: int) -> float:
    """Runnable threads per core when every worker and the main process are busy."""
    return (workers * per_worker + main_threads) / max(cores, 1)


def probe(ctx: DoctorContext) -> list[Finding]:
    import torch

    cores = usable_cpus_int(ctx.machine)
    main_threads = torch.get_num_threads()
    env = env_threads(dict(os.environ))
    per_worker = max(env.values()) if env else 1
    workers = ctx.workers
    ratio = oversubscription(workers, per_worker, main_threads, cores)
    env_text = ", ".join(f"{k}={v}" for k, v in env.items()) or "no OMP/MKL/OpenBLAS variables"
    evidence = (f"{workers} workers × {per_worker} thread(s) each + {main_threads} torch "
                f"threads in the main process on {cores} core(s) = {ratio:.1f} threads per core "
                f"({env_text}; torch sets 1 intra-op thread in each worker itself)")
    data = {"workers": workers, "per_worker": per_worker, "main_threads": main_threads,
            "cores": cores, "per_core": ratio, "env": env}
    findings: list[Finding] = []
    if env and per_worker > 1 and workers * per_worker > cores:
        findings.append(warn(PROBE, "threads.oversubscribed",
                             f"{workers * per_worker} worker threads on {cores} core(s)",
                             evidence + f"; numpy/BLAS/OpenMP in each worker start "
                             f"{per_worker} threads", FIX, **data))
    elif not env and "cv2" in sys.modules and workers > 1:
        findings.append(warn(PROBE, "threads.oversubscribed", "OpenCV threads in every worker",
                             evidence + f"; OpenCV starts {cores} threads in every worker",
                             FIX, **data))
    elif ratio > 2 and workers > 0:
        findings.append(warn(PROBE, "threads.main", "main-process threads compete with workers",
                             evidence, f"call torch.set_num_threads({max(cores - workers, 1)}) "
                             "in the main process so the training step leaves cores to the "
                             "workers", **data))
    else:
        findings.append(ok(PROBE, "threads.ok", "threads fit the cores", evidence, **data))
    findings.extend(parent_threads(ctx))
    return findings


def parent_threads(ctx: DoctorContext) -> list[Finding]:
    """Threads the dataset's import started: forked workers inherit their locks, held or not."""
    if ctx.dataset() is None or ctx.machine.start_method != "fork":
        return []
    ours = ("MainThread", "loadertune-sample")
    others = [t.name for t in threading.enumerate() if t.name not in ours]
    if not others:
        return []
    return [warn(PROBE, "threads.before_fork", f"{len(others)} thread(s) running before fork",
                 f"importing the dataset started thread(s) {', '.join(others[:5])}; a worker "
                 "forked while one of them holds a lock (logging, a queue, an OpenMP pool) "
                 "waits on it forever: the loader hangs",
                 "start such threads after the DataLoader's workers exist (persistent_workers="
                 "True), or use multiprocessing_context='forkserver' or 'spawn'",
                 threads=others)]
