"""A quick look at the dataset in this process: what one item costs in wall and CPU time.

An item whose wall time is mostly not CPU time waits on something (storage, network, a sleep):
such a dataset is latency-bound, and more workers than cores pay off.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from loadertune.pipeline import LoadedDataset

PROBE_S = 0.5          # stop probing after this long
PROBE_ITEMS = 16       # ...or after this many items (the first one is not timed)
LATENCY_SHARE = 0.5    # CPU below this share of wall time: the item mostly waits
MIN_LATENCY_S = 50e-6  # items faster than this are not latency-bound whatever their CPU share


CALIBRATE_S = 0.004    # a busy loop this long beside each item: the CPU share we can get now


@dataclass(frozen=True)
class ItemProbe:
    """Median per-item wall and CPU seconds in the main process.

    ``busy_share`` is the CPU share a pure busy loop got at the same time: on a machine shared
    with other work even a CPU-bound item gets only that, so the item's share is judged
    relative to it.
    """

    items: int
    wall_s: float
    cpu_s: float
    busy_share: float = 1.0

    @property
    def cpu_share(self) -> float:
        """The item's CPU share relative to what a busy loop got (1.0: all CPU)."""
        if self.wall_s <= 0:
            return 1.0
        return min(self.cpu_s / self.wall_s / max(self.busy_share, 0.05), 1.0)

    @property
    def latency_bound(self) -> bool:
        return (self.items > 0 and self.wall_s >= MIN_LATENCY_S
                and self.cpu_share < LATENCY_SHARE)

    def describe(self) -> str:
        if self.items == 0:
            return "the dataset could not be probed in this process"
        kind = ("latency-bound: items mostly wait" if self.latency_bound
                else "CPU-bound")
        busy = (f", relative to the {100 * self.busy_share:.0f}% a busy loop got"
                if self.busy_share < 0.9 else "")
        return (f"an item takes {_ms(self.wall_s)} of which {100 * self.cpu_share:.0f}% CPU"
                f"{busy} ({kind}; {self.items} items probed)")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cpu_share": self.cpu_share, "latency_bound": self.latency_bound}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 0.1 else f"{seconds:.2f} s"


def probe_items(loaded: LoadedDataset, limit_s: float = PROBE_S,
                limit_items: int = PROBE_ITEMS) -> tuple[ItemProbe, list[Any]]:
    """Time items of ``loaded`` here; returns the probe and the items read.

    A dataset that raises is not probed (the trials will report its error properly).
    """
    try:
        items = _items(loaded)
        seen = [next(items)]
    except Exception:
        return ItemProbe(items=0, wall_s=0.0, cpu_s=0.0), []
    walls: list[float] = []
    cpus: list[float] = []
    busy_wall, busy_cpu = 0.0, 0.0
    started = time.perf_counter()
    try:
        while len(walls) < limit_items and time.perf_counter() - started < limit_s:
            w0, c0 = time.perf_counter(), time.process_time()
            seen.append(next(items))
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            w0, c0 = time.perf_counter(), time.process_time()
            _busy(CALIBRATE_S)
            busy_wall += time.perf_counter() - w0
            busy_cpu += time.process_time() - c0
    except StopIteration:
        pass
    except Exception:
        return ItemProbe(items=0, wall_s=0.0, cpu_s=0.0), seen
    if not walls:
        return ItemProbe(items=0, wall_s=0.0, cpu_s=0.0), seen
    share = min(busy_cpu / busy_wall, 1.0) if busy_wall > 0 else 1.0
    # Medians: an item that happened to be preempted, or hit a cold cache, does not decide.
    return ItemProbe(items=len(walls), wall_s=statistics.median(walls),
                     cpu_s=statistics.median(cpus), busy_share=share), seen


def _busy(seconds: float) -> None:
    """Spin until ``seconds`` of CPU time are used (or four times that of wall time)."""
    c_end = time.process_time() + seconds
    w_end = time.perf_counter() + 4 * seconds
    while time.process_time() < c_end and time.perf_counter() < w_end:
        pass


def first_item(loaded: LoadedDataset) -> Any:
    """The dataset's first item (for its fingerprint), or None when it cannot be read."""
    try:
        return next(_items(loaded))
    except Exception:
        return None


def _items(loaded: LoadedDataset) -> Any:
    dataset = loaded.dataset
    if loaded.iterable:
        yield from iter(dataset)
        return
    drawn = loaded.item_indices(PROBE_ITEMS + 1)
    if drawn:  # the user's sampler decides which items the loader reads
        for i in drawn:
            yield dataset[i]
        return
    n = loaded.length() or 0
    # Spread the indices over the dataset so caches of neighbouring items do not flatter it.
    stride = max(n // (PROBE_ITEMS + 1), 1)
    for i in range(0, n, stride):
        yield dataset[i]


@dataclass(frozen=True)
class ProbeOutcome:
    """What the probe trial returns: the probe, one batch's hand-over cost, and the structure
    of the first item (for the dataset's fingerprint; None when no item was read)."""

    probe: ItemProbe
    handover_s: float | None
    sample: Any
    loader_uss: int | None = None  # private bytes the probe's process held after loading
    main_pss: int | None = None    # PSS of the probe's process before it loaded items


NOT_PROBED = ItemProbe(items=0, wall_s=0.0, cpu_s=0.0)


def probe_task(loaded: LoadedDataset, batch_size: int) -> dict[str, Any]:
    """In a trial process: `probe_items`, then `handover_s` of the items read; and memory: the
    PSS this process held before loading items (what a trial's main process holds) and its
    private memory (USS) once it had loaded them (JSON-ready)."""
    import psutil

    from loadertune.trial.sampler import full_memory
    from loadertune.tuning.fingerprint import sample_structure
    from loadertune.tuning.handover import handover_s

    before = full_memory(psutil.Process())
    probe, items = probe_items(loaded)
    memory = full_memory(psutil.Process()) if probe.items else None
    handover = handover_s(items, batch_size, loaded.collate_fn)
    sample = items[0] if items else first_item(loaded)
    return {"probe": asdict(probe), "handover_s": handover,
            "sample": sample_structure(sample) if sample is not None else None,
            "loader_uss": memory.uss if memory is not None else None,
            "main_pss": before.pss if before is not None else None}


def probe_in_trial(source: Any, batch_size: int, plan: Any, describe: str) -> ProbeOutcome:
    """Run `probe_task` in an isolated trial process (``source`` a `DatasetSource`) under
    ``plan``'s time and memory limits; a dataset whose items hang raises one clear line."""
    from loadertune.config import LoaderConfig
    from loadertune.errors import DatasetSpecError
    from loadertune.trial.runner import run_task

    result, done = run_task(source, LoaderConfig(num_workers=0, batch_size=batch_size), plan,
                            task="probe")
    failure = result.failure
    if failure is not None and failure.kind == "timeout":
        raise DatasetSpecError(
            f"hang: reading the first items of {describe} took over the {plan.timeout_s:g} s "
            "trial limit, so the dataset hangs (a lock, a network read, a dead mount?); "
            "`py-spy dump` on a loop over it shows where")
    if done is None or failure is not None:
        return ProbeOutcome(NOT_PROBED, None, None)  # the trials report the error properly
    return ProbeOutcome(ItemProbe(**done["probe"]), done.get("handover_s"), done.get("sample"),
                        done.get("loader_uss"), done.get("main_pss"))
