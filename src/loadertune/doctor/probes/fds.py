"""Open-file limit (ulimit -n) vs what torch's file_descriptor sharing strategy needs."""

from __future__ import annotations

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, ok, warn

PROBE = "fds"
BASELINE = 128  # libraries, sockets, pipes and the worker queues themselves
LOW = 1024
STRATEGY_COST = (
    "`torch.multiprocessing.set_sharing_strategy('file_system')` at the top of the script "
    "passes tensors by /dev/shm file name instead of by descriptor (no fd limit), at a cost: "
    "a torch_shm_manager process runs, and files leak in /dev/shm when a process is killed")


def fds_needed(tensors_per_batch: int, workers: int, prefetch: int) -> int:
    """Descriptors the main process holds for batches in flight, plus a baseline."""
    return BASELINE + max(tensors_per_batch, 1) * max(workers, 1) * prefetch


def probe(ctx: DoctorContext) -> list[Finding]:
    import torch.multiprocessing as tmp

    try:
        import resource  # POSIX only
    except ImportError:
        return [ok(PROBE, "fds.limit", "no ulimit -n on this platform",
                   f"this platform has no RLIMIT_NOFILE; torch shares tensors with the "
                   f"{tmp.get_sharing_strategy()!r} strategy here")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    strategy = tmp.get_sharing_strategy()
    sample = ctx.sample()
    tensors = sample.tensors if sample is not None else 1
    need = fds_needed(tensors, ctx.workers, ctx.prefetch_factor)
    hard_text = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    evidence = (f"ulimit -n: soft {soft}, hard {hard_text}; sharing strategy {strategy!r}; "
                f"{ctx.workers} workers × prefetch {ctx.prefetch_factor} × {tensors} tensor(s) "
                f"per batch -> about {need} descriptors")
    data = {"soft": soft, "hard": hard, "strategy": strategy, "need": need}
    raise_to = hard_text if hard != resource.RLIM_INFINITY else "65536"
    fix = (f"raise the limit: `ulimit -n {raise_to}` in the shell (hard limit {hard_text}), or "
           "in Python `resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))`; or "
           + STRATEGY_COST)
    if strategy != "file_descriptor":
        return [ok(PROBE, "fds.limit", f"sharing strategy {strategy}", evidence, **data)]
    if soft < need:
        return [error(PROBE, "fds.limit", f"ulimit -n {soft} is below the ~{need} needed",
                      evidence + "; expect 'Too many open files' or 'received 0 items of "
                      "ancdata'", fix, **data)]
    if soft < LOW:
        return [warn(PROBE, "fds.limit", f"ulimit -n is only {soft}",
                     evidence + "; keeping batches (e.g. in a list) holds one descriptor per "
                     "tensor, and 'Too many open files' follows", fix, **data)]
    return [ok(PROBE, "fds.limit", f"ulimit -n {soft} is enough", evidence, **data)]
