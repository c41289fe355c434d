"""Copy-on-read growth: per-worker PSS and USS of forked workers as they read a dataset.

Each measurement runs in a fresh interpreter (this file run as a script), so that memory freed
by an earlier dataset is not reused, and so written, by the next one's workers.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from loadertune.trial.supervisor import run_supervised

WAIT_S = 300.0


@dataclass
class GrowthPoint:
    batches: int
    worker_pss: list[int]
    worker_uss: list[int]


@dataclass
class Growth:
    """Workers' memory after the first batch, half the epoch and the whole epoch."""

    workload: str
    size: int
    batch_size: int
    workers: int
    start_method: str
    gc_frozen: bool = False  # gc.freeze() before forking: no collector writes, only refcounts
    dataset_uss: int | None = None  # what building the dataset added to the parent's USS
    points: list[GrowthPoint] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def delta(self, kind: str) -> list[int]:
        """Per-worker growth of ``kind`` ("pss" or "uss") from the first to the last point."""
        if len(self.points) < 2:
            return []
        first = getattr(self.points[0], f"worker_{kind}")
        last = getattr(self.points[-1], f"worker_{kind}")
        return [b - a for a, b in zip(first, last, strict=False)]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["growth_pss"] = self.delta("pss")
        data["growth_uss"] = self.delta("uss")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Growth:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields["points"] = [GrowthPoint(**p) for p in data.get("points", [])]
        return cls(**fields)


def _measure(name: str, size: int, batch_size: int, workers: int, start_method: str,
             gc_frozen: bool) -> Growth:
    """Build the dataset, iterate one epoch, read the workers' smaps at checkpoints."""
    from torch.utils.data import DataLoader

    from loadertune import workloads
    from loadertune.trial.sampler import process_memory

    started = time.monotonic()
    growth = Growth(name, size, batch_size, workers, start_method, gc_frozen)
    before = process_memory(os.getpid())
    dataset = getattr(workloads, name)(size)
    after = process_memory(os.getpid())
    if before is not None and after is not None and before.uss is not None:
        growth.dataset_uss = (after.uss or 0) - before.uss
    if gc_frozen:
        gc.freeze()
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                        multiprocessing_context=start_method)
    total = len(loader)
    checkpoints = {1, max(1, total // 2), total}
    iterator = iter(loader)
    pids = [w.pid for w in iterator._workers]  # type: ignore[attr-defined]
    for i, _ in enumerate(iterator, 1):
        if i in checkpoints:  # workers stay alive until the last batch has been taken
            mems = [process_memory(pid) for pid in pids]
            growth.points.append(GrowthPoint(
                i, [(m.pss or 0) if m else 0 for m in mems],
                [(m.uss or 0) if m else 0 for m in mems]))
    del iterator
    growth.seconds = time.monotonic() - started
    return growth


def measure_growth(name: str, size: int, batch_size: int, workers: int = 2,
                   start_method: str = "fork", gc_frozen: bool = False) -> Growth:
    """Run `_measure` in a fresh interpreter; any failure comes back as ``error``."""
    failed = Growth(name, size, batch_size, workers, start_method, gc_frozen)
    if start_method not in multiprocessing.get_all_start_methods():
        failed.error = f"start method {start_method} is not available here"
        return failed
    cmd = [sys.executable, os.path.abspath(__file__), name, str(size), str(batch_size),
           str(workers), start_method, "frozen" if gc_frozen else "gc"]
    done = run_supervised(cmd, timeout=WAIT_S)  # its own session: its tree is killed after
    if done.timed_out:
        failed.error = f"no result within {WAIT_S:g} s"
        return failed
    out, err = done.stdout or "", done.stderr or ""
    if done.returncode != 0 or not out.strip():
        tail = (err.strip().splitlines() or ["no output"])[-1]
        failed.error = f"exit code {done.returncode}: {tail}"
        return failed
    return Growth.from_dict(json.loads(out.strip().splitlines()[-1]))


if __name__ == "__main__":
    _name, _size, _batch, _workers, _method, _gc = sys.argv[1:7]
    print(json.dumps(_measure(_name, int(_size), int(_batch), int(_workers), _method,
                              _gc == "frozen").to_dict()))
