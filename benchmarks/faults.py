"""Fault-tolerance benchmark: a 21-config sweep in which half the configs break on purpose.

Runs real sweeps over datasets that raise, hang, SIGKILL or SIGSEGV their worker, or grow past
the memory budget (the misbehaving datasets of the test suite), then reports how many configs
completed, whether every failure was classified correctly, and what was leaked: processes,
/dev/shm files, temp files, file descriptors (all must be 0).

    python benchmarks/faults.py [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fixture_datasets as fx

from loadertune.bench import bench
from loadertune.bench.sweep import Grid
from loadertune.report.jsonio import write_json
from loadertune.trial import TrialPlan
from loadertune.trial.results import TrialResult


@dataclass
class Case:
    name: str
    dataset: object
    workers: tuple[int, ...]
    expected: tuple[str, ...]          # expected status per config, in order
    prefetch: tuple[int | None, ...] = (None,)
    signal: int | None = None
    index: int | None = None
    timeout_s: float = 60.0
    memory_limit: int | None = None


CASES = [
    Case("healthy", fx.Squares(512), (0, 1, 2, 3, 4), ("ok",) * 9, prefetch=(2, 4)),
    Case("worker SIGKILL", fx.Killing(40, signal.SIGKILL), (0, 1, 2),
         ("ok", "worker_killed", "worker_killed"), signal=signal.SIGKILL),
    Case("worker SIGSEGV", fx.Killing(40, signal.SIGSEGV), (1, 2),
         ("worker_killed", "worker_killed"), signal=signal.SIGSEGV),
    Case("raises at index 37", fx.Raising(37), (0, 2), ("exception", "exception"), index=37),
    Case("hangs", fx.Hanging(5), (0, 1), ("timeout", "timeout"), timeout_s=4),
    Case("grows past 500 MiB", fx.Growing(8), (1, 2, 3),
         ("memory_limit", "skipped", "skipped"), memory_limit=500 * 2**20),
]


def correctly_classified(case: Case, result: TrialResult, expected: str) -> bool:
    if result.status != expected:
        return False
    failure = result.failure
    if failure is None:
        return True
    if case.signal is not None and expected == "worker_killed":
        return failure.signal == case.signal and failure.worker_id is not None
    if case.index is not None and expected == "exception":
        return failure.index == case.index
    return True


def snapshot(tmp: Path) -> dict[str, object]:
    me = psutil.Process()
    return {
        "processes": {p.pid for p in me.children(recursive=True)
                      if p.status() != psutil.STATUS_ZOMBIE},
        "shm": {n for n in os.listdir("/dev/shm") if n.startswith("torch_")}
        if os.path.isdir("/dev/shm") else set(),
        "tmp": set(os.listdir(tmp)),
        "fds": me.num_fds(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args()
    console = Console()
    tmp = Path(tempfile.mkdtemp(prefix="faults-bench-"))
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = str(tmp)
    before = snapshot(tmp)
    started = time.monotonic()
    rows = []
    for case in CASES:
        plan = TrialPlan(batches=4, repeats=3, timeout_s=case.timeout_s,
                         memory_limit=case.memory_limit)
        grid = Grid(batch_size=4, workers=case.workers, prefetch=case.prefetch)
        sweep = bench(case.dataset, grid, plan)
        for result, expected in zip(sweep.results, case.expected, strict=True):
            good = correctly_classified(case, result, expected)
            rows.append((case.name, result, expected, good))
            mark = "[green]✓[/]" if good else "[red]✗[/]"
            detail = result.failure.message if result.failure else \
                f"{result.samples_per_s:,.0f} samples/s"
            console.print(f"{mark} {case.name:<20} {result.config.label():<16} "
                          f"{result.status:<14} {detail}", highlight=False, soft_wrap=True)
    wall = time.monotonic() - started
    time.sleep(1.0)
    after = snapshot(tmp)
    leaks = {
        "processes": len(after["processes"] - before["processes"]),  # type: ignore[operator]
        "shm_files": len(after["shm"] - before["shm"]),  # type: ignore[operator]
        "temp_files": len(after["tmp"] - before["tmp"]),  # type: ignore[operator]
        "fds": max(int(after["fds"]) - int(before["fds"]), 0),  # type: ignore[call-overload]
    }
    os.rmdir(tmp) if not os.listdir(tmp) else None
    failures = [r for r in rows if r[2] != "ok"]
    report = {
        "configs": len(rows),
        "completed": sum(1 for r in rows if r[1].ok),
        "failures_expected": len(failures),
        "failures_correctly_classified": sum(1 for r in failures if r[3]),
        "all_correct": all(r[3] for r in rows),
        "leaks": leaks,
        "wall_s": round(wall, 1),
    }
    table = Table(title="fault-tolerance sweep")
    for key in ("configs", "completed", "failures_expected", "failures_correctly_classified",
                "all_correct", "wall_s"):
        table.add_column(key.replace("_", " "), justify="right")
    table.add_row(*(str(report[k]) for k in ("configs", "completed", "failures_expected",
                                             "failures_correctly_classified", "all_correct",
                                             "wall_s")))
    console.print(table)
    console.print(f"leaked: {leaks}")
    if args.json:
        write_json(args.json, report)
    return 0 if report["all_correct"] and not any(leaks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
