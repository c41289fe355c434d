"""Live autotune against the best fixed config, side by side in one run.

For each case: every fixed config of a small grid runs the same training loop (a sleep standing
for a GPU step) for a warm-up epoch and a timed one; the fastest is the oracle. Then
`loadertune.autotune` runs the loop for ``--epochs`` epochs starting from the case's start
setting. Reported: the time of epochs 3.. against the oracle's, the batches it took to settle
(the last change), the final setting, and whether its batches were exactly the plain loader's.

    PYTHONPATH=src python benchmarks/autotune.py --json autotune.json
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from rich.console import Console
from rich.table import Table
from torch.utils.data import DataLoader

import loadertune
from loadertune.cli.console import stdout_console
from loadertune.report.jsonio import write_json
from loadertune.workloads import remote, tiny

SEED = 1234


@dataclass(frozen=True)
class Case:
    name: str
    note: str
    make: Callable[[], Any]
    batch_size: int
    step_s: float
    start_workers: int
    grid: tuple[int, ...]
    expect: str  # grow | shrink


CASES = (
    Case("latency", "10 ms storage latency per item, 5 ms step, started at num_workers=0",
         lambda: remote(1_600, latency_ms=10.0, payload_kb=4), 8, 0.005, 0,
         (0, 2, 4, 8, 12, 16, 24, 32), "grow"),
    Case("step-bound", "cheap items, 30 ms step, started at num_workers=8",
         lambda: tiny(4_000), 32, 0.030, 8, (0, 1, 2, 4, 8), "shrink"),
)


@dataclass
class Outcome:
    case: str
    oracle: str = ""
    oracle_epoch_s: float = 0.0
    grid: dict[str, float] = field(default_factory=dict)
    epochs_s: list[float] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    changes: int = 0
    history: list[str] = field(default_factory=list)
    settled_at_batch: int | None = None
    identical: bool = False
    start_workers: int = 0

    def ratio(self, first: int = 2) -> float | None:
        """The oracle's time over autotune's, epochs ``first``+1 onward (1.0: as fast)."""
        later = self.epochs_s[first:]
        if not later or not self.oracle_epoch_s:
            return None
        return self.oracle_epoch_s * len(later) / sum(later)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "ratio_epochs_3_on": self.ratio()}


def loader_for(case: Case, workers: int) -> DataLoader:
    kwargs: dict[str, Any] = {"num_workers": workers}
    if workers:
        kwargs.update(persistent_workers=True, prefetch_factor=2)
    return DataLoader(case.make(), batch_size=case.batch_size, shuffle=True,
                      generator=torch.Generator().manual_seed(SEED), **kwargs)


def epoch(loader: Any, step_s: float, keep: list[list[int]] | None = None) -> float:
    started = time.perf_counter()
    for batch in loader:
        if keep is not None:  # both workloads carry the item's index in its first value
            keep.append([int(i) for i in batch[0][:, 0]])
        time.sleep(step_s)
    return time.perf_counter() - started


def run_case(case: Case, epochs: int, console: Console) -> Outcome:
    out = Outcome(case.name, start_workers=case.start_workers)
    for k in case.grid:
        loader = loader_for(case, k)
        epoch(loader, case.step_s)  # warm-up: workers start, caches fill
        out.grid[f"w{k}"] = epoch(loader, case.step_s)
        del loader
        console.print(f"  {case.name}: fixed w{k}: {out.grid[f'w{k}']:.2f} s per epoch")
    out.oracle, out.oracle_epoch_s = min(out.grid.items(), key=lambda kv: kv[1])
    plain: list[list[int]] = []
    reference = loader_for(case, case.start_workers)  # the plain loader it starts as
    for _ in range(epochs):
        epoch(reference, 0.0, plain)
    tuned = loadertune.autotune(loader_for(case, case.start_workers), store=False,
                                report=False)
    seen: list[list[int]] = []
    for i in range(epochs):
        out.epochs_s.append(epoch(tuned, case.step_s, seen))
        console.print(f"  {case.name}: autotune epoch {i + 1}: {out.epochs_s[-1]:.2f} s, "
                      f"{tuned.knobs.label()}")
    tuned.close()
    out.final = tuned.config
    out.changes = len(tuned.history)
    out.history = [f"epoch {c.epoch} batch {c.batch}: {c.before} -> {c.after} ({c.kind})"
                   for c in tuned.history]
    for line in out.history:
        console.print(f"  {case.name}: {line}")
    per_epoch = len(tuned)
    if tuned.history:
        last = tuned.history[-1]
        out.settled_at_batch = (last.epoch - 1) * per_epoch + last.batch
    out.identical = seen == plain
    return out


def _label(kwargs: dict[str, Any]) -> str:
    pf = kwargs.get("prefetch_factor")
    return f"w{kwargs.get('num_workers')}" + (f" pf{pf}" if pf else "")


def table(outcomes: list[Outcome]) -> Table:
    t = Table(title="autotune vs the best fixed config (oracle), same loop, same machine")
    for name in ("case", "oracle", "oracle s/epoch", "autotune s/epoch (3..)", "oracle / autotune",
                 "settled at batch", "final", "identical batches"):
        t.add_column(name, justify="left" if name in ("case", "final") else "right")
    for o in outcomes:
        later = o.epochs_s[2:]
        ratio = o.ratio()
        t.add_row(o.case, o.oracle, f"{o.oracle_epoch_s:.2f}",
                  f"{sum(later) / len(later):.2f}" if later else "-",
                  f"{ratio:.2f}" if ratio is not None else "-",
                  str(o.settled_at_batch) if o.settled_at_batch is not None else "-",
                  f"{_label(o.final)} (from w{o.start_workers})",
                  "yes" if o.identical else "NO")
    return t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    # more workers than cores is what the latency case is about: torch's warning is noise here
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    wanted = [c for c in CASES if c.name in args.cases.split(",")]
    if not wanted or args.epochs < 3:
        print("error: name at least one case (latency, step-bound) and --epochs >= 3",
              file=sys.stderr)
        return 2
    console = stdout_console()
    outcomes = [run_case(c, args.epochs, console) for c in wanted]
    console.print(table(outcomes))
    if args.json:
        write_json(args.json, {"loadertune": "autotune_benchmark",
                               "cases": [o.to_dict() for o in outcomes]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
