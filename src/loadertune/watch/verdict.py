"""The verdict: is the loop data-starved or step-bound, and how many workers would feed it.

A pure function of measured numbers, so it can be tested without a loader:

    workers needed = ceil(MARGIN x batch time in a worker / step time), within [1, usable cores]

where *batch time* is what one worker spends producing a batch (fetch + collate; with
``num_workers=0`` the main process's wait, since there fetch is the wait) and *step time* the
median time the loop spends between batches. ``MARGIN`` leaves room for jitter and for moving the
batch to the main process, which the worker-side timers do not see. The cap is the usable cores
of *this rank*: affinity and cgroup quota, shared by the ``LOCAL_WORLD_SIZE`` ranks on the machine.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

STARVED = 0.10  # a loop that waits for data this fraction of its steady time is data-bound
MARGIN = 1.2
CPU_BOUND = 0.9  # workers runnable this share of their fetch time are CPU-bound
CPU_BOUND_GUESS = 0.5  # the same from CPU time alone, which contention for cores also lowers
IO_FLOOR = 0.25  # I/O-bound workers: at most 1 / IO_FLOOR workers per core


@dataclass
class Verdict:
    """The conclusion, with the number behind it and the reasoning that produced it."""

    kind: str  # "starved" | "step_bound" | "no_data"
    text: str
    reasoning: str
    stall_fraction: float
    recommended_workers: int | None
    current_workers: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def workers_needed(batch_s: float, step_s: float, cores: int) -> tuple[int, bool]:
    """Workers that produce a batch per step, capped by ``cores``; and whether the cap bit."""
    cap = max(cores, 1)
    if batch_s <= 0:
        return 1, False
    if step_s <= 0:
        return cap, True
    need = max(1, math.ceil(MARGIN * batch_s / step_s - 1e-9))
    return min(need, cap), need > cap


def worker_cap(cores: float, runnable_share: float | None, exact: bool = True) -> int:
    """How many workers the cores can run: one per core when fetching is CPU-bound, more when
    the workers mostly wait on I/O.

    ``runnable_share`` is the share of their fetch time the workers were running or ready to
    run (``exact``), or, where the run-queue wait is unknown, just on a core, which contention
    for the cores lowers too; so that estimate must be lower before it counts as I/O-bound.
    """
    whole = max(1, math.floor(cores + 1e-9))
    bound = CPU_BOUND if exact else CPU_BOUND_GUESS
    if runnable_share is None or runnable_share >= bound:
        return whole
    return max(whole, math.floor(whole / max(runnable_share, IO_FLOOR)))


def _workers(n: int | str) -> str:
    return f"{n} worker" if n == 1 else f"{n} workers"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def decide(*, stall_fraction: float, batches: int, batch_s: float | None, step_s: float,
           current_workers: int | None, cores: float, local_world_size: int,
           batch_size: int | None, runnable_share: float | None = None,
           runnable_exact: bool = True) -> Verdict:
    """Say whether the data or the step bounds the loop, and what num_workers to use."""
    if batches == 0:
        return Verdict("no_data", "no batch was drawn yet: nothing to judge", "", 0.0, None,
                       current_workers)
    pct = round(stall_fraction * 100)
    whole_cores = worker_cap(cores, runnable_share, runnable_exact)
    share = f" ({local_world_size} local ranks share the machine)" if local_world_size > 1 else ""
    if batch_s is None:
        if stall_fraction >= STARVED:
            text = (f"the loader starves the step {pct} % of the time: wrap a DataLoader to get a "
                    "worker count, or run loadertune tune")
            return Verdict("starved", text, "no per-worker timing for this loader",
                           stall_fraction, None, current_workers)
        return Verdict("step_bound", f"the step is the bottleneck (data wait {pct} % of the time)",
                       "no per-worker timing for this loader", stall_fraction, None,
                       current_workers)
    need, capped = workers_needed(batch_s, step_s, whole_cores)
    where = "the main process" if not current_workers else "a worker"
    raw = math.ceil(MARGIN * batch_s / step_s - 1e-9) if step_s > 0 else "inf"
    room = f"{cores:g} usable core{'' if cores == 1 else 's'} for this rank{share}"
    if whole_cores > max(1, math.floor(cores + 1e-9)) and runnable_share is not None:
        busy = "running or ready to run" if runnable_exact else "on a core"
        room = (f"{whole_cores} workers for {room}, as the workers were {busy} only "
                f"{runnable_share * 100:.0f} % of their fetch time (the rest: I/O waits)")
    reasoning = (f"{where} needs {_ms(batch_s)} per batch, the step takes {_ms(step_s)}: "
                 f"ceil({MARGIN} x {_ms(batch_s)} / {_ms(step_s)}) = {_workers(raw)}, "
                 f"at most {room}")
    tune = "loadertune tune DATASET" + (f" --batch-size {batch_size}" if batch_size else "") + \
        f" --step-ms {step_s * 1000:.0f}"
    have = current_workers or 0
    starves = f"the loader starves the step {pct} % of the time"
    if stall_fraction >= STARVED:
        advice: int | None = need
        if need > have:
            most = " (the most the cores can run)" if capped else ""
            text = f"{starves}: try num_workers={need}{most} ({tune})"
        elif capped:
            text = (f"{starves} and {_workers(have)} already use what the cores can run{share}: "
                    f"make items cheaper to load or the batches larger ({tune})")
        else:
            text = (f"{starves} although {_workers(have)} should keep up: batches are slow to "
                    "reach the main process (transfer) or the workers compete with the step for "
                    f"cores; try num_workers=0 or larger batches ({tune})")
            advice = None  # more workers would not help: no number to give
        return Verdict("starved", text, reasoning, stall_fraction, advice, current_workers)
    bound = f"the step is the bottleneck (data wait {pct} % of the time)"
    if have == 0:
        text, need = f"{bound}; num_workers=0 keeps up", 0
    elif need < have:
        text = f"{bound}; {_workers(need)} would do (you run {have})"
    else:
        text, need = f"{bound}; {_workers(have)} keep up", have
    return Verdict("step_bound", text, reasoning, stall_fraction, need, current_workers)
