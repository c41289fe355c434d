"""The measurement sweep: a grid of configs, each measured in an isolated trial (``sweep``),
and `bench` over a user's dataset or loader (``run``)."""

from loadertune.bench.run import (
    MAX_DEFAULT_WORKER_COUNTS,
    PreparedBench,
    bench,
    check_step_spec,
    default_workers,
    prepare,
    resolve_batch_size,
    source_for,
)
from loadertune.bench.sweep import Grid, SweepResult, run_sweep

__all__ = ["MAX_DEFAULT_WORKER_COUNTS", "Grid", "PreparedBench", "SweepResult", "bench",
           "check_step_spec", "default_workers", "prepare", "resolve_batch_size", "run_sweep",
           "source_for"]
