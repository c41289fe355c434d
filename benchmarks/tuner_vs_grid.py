"""Tuner quality: `loadertune tune` against the exhaustive grid and today's heuristics.

For each bundled workload, in one run on this machine: every config of the grid (num_workers 0
to 2 × usable CPUs, then on to 16 × them: issue #10's grid; prefetch_factor 2 and 4,
pin_memory off without an accelerator, persistent_workers on), the num_workers heuristics
users apply today, and the tuner's choice, all measured with the same TrialPlan and memory
budget. Also: per-worker memory growth of pylist vs pylist_numpy.

    PYTHONPATH=src python benchmarks/tuner_vs_grid.py --quick --json out.json
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from cases import CASES, Case, select
from compare import TUNE_MISSING, Budget, BudgetExhausted, WorkloadReport, WorkloadRun
from growth import Growth, measure_growth
from heuristics import Heuristic, heuristics
from render import growth_table, memory_table, throughput_table
from rich.console import Console

import loadertune
from loadertune import machine as machine_facts
from loadertune.bench.sweep import Grid
from loadertune.cli.console import stdout_console
from loadertune.cli.progress import SweepProgress
from loadertune.interrupts import exit_code, sigterm_as_interrupt
from loadertune.machine import MachineInfo, default_memory_budget
from loadertune.report.jsonio import write_json
from loadertune.trial import TrialPlan
from loadertune.units import format_bytes

QUICK_BUDGET_S = 480.0  # --quick must finish in under 10 minutes on 2 busy cores
DEFAULT_TRIAL_S = 4.0  # assumed cost of one trial before any has been timed
GROWTH_SIZE = {True: 100_000, False: 400_000}
GROWTH_BATCH = 256


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and short windows; finishes in under 10 minutes")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON (atomically)")
    parser.add_argument("--workloads", metavar="A,B",
                        help=f"workloads to run [default: all: {', '.join(c.name for c in CASES)}]")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help=f"stop starting trials after this long [default: "
                             f"{QUICK_BUDGET_S:g} with --quick, none otherwise]")
    parser.add_argument("--step-ms", type=float, default=0.0,
                        help="simulated CPU-bound training step per batch, in ms [default: 0]")
    parser.add_argument("--tune-runs", type=int, default=1, metavar="N",
                        help="tune N times per workload; a pick that differs from the first "
                             "run's is measured against it in turn (stability) [default: 1]")
    parser.add_argument("--no-growth", action="store_true",
                        help="skip the pylist vs pylist_numpy memory-growth section")
    return parser.parse_args(argv)


def make_plan(quick: bool, step_ms: float, machine: MachineInfo) -> TrialPlan:
    memory_limit = default_memory_budget(machine)
    if quick:
        return TrialPlan(batches=4, repeats=3, max_repeats=4, timeout_s=60.0, step_ms=step_ms,
                         memory_limit=memory_limit)
    return TrialPlan(batches=20, repeats=3, timeout_s=180.0, step_ms=step_ms,
                     memory_limit=memory_limit)


def grid_workers(machine: MachineInfo) -> tuple[int, ...]:
    """The exhaustive reference, issue #10's grid on this 2-core machine (0, 1, 2, 3, 4, 6, 8,
    12, 16, 24, 32): every count up to 2 × the usable CPUs (at most 8), then powers of two and
    1.5 × powers of two on to 16 × them (at most 128) — as far as `tune` itself may climb.
    For CPU-bound items the top of it shows that more workers than cores gain nothing."""
    cpus = max(1, round(machine.usable_cpus))
    base = tuple(range(0, min(max(2, 2 * cpus), 8) + 1))
    top = min(16 * cpus, 128)
    more = {k for i in range(1, 8) for k in (2**i, 3 * 2 ** (i - 1)) if base[-1] < k <= top}
    return (*base, *sorted(more))


def make_grid(batch_size: int, machine: MachineInfo) -> Grid:
    pins = (False, True) if machine.accelerator is not None else (False,)
    return Grid(batch_size=batch_size, workers=grid_workers(machine), prefetch=(2, 4),
                pin_memory=pins, persistent=(True,))


def caption(machine: MachineInfo, plan: TrialPlan, tune_available: bool) -> str:
    quota = f", cgroup quota {machine.cgroup_cpu_quota:g}" if machine.cgroup_cpu_quota else ""
    tune = "" if tune_available else f" tuned: {TUNE_MISSING} on this branch, so no number."
    return (f"{machine.logical_cpus} logical CPUs (affinity {machine.affinity_cpus}{quota}), "
            f"{format_bytes(machine.memory_room)} free, torch {machine.torch}. Each cell: "
            f"median samples/s of ≥{plan.repeats} windows after warm-up"
            f"{f', step {plan.step_ms:g} ms' if plan.step_ms else ', no training step'}. "
            "Heuristics set num_workers only (prefetch 2, persistent workers on, no pinning, as "
            "in the grid); '=' marks a number reused from the grid's own trial of the same "
            "config. Grid best: fastest config, fewer workers winning ties within the noise "
            "(at most 5%). 'side by side': when the tuner picked another config, the two "
            "measured again in turn (tuned, best, best, tuned), medians compared." + tune)


def run_growth(console: Console, quick: bool) -> list[Growth]:
    size = GROWTH_SIZE[quick]
    out = []
    for frozen in (False, True):
        for name in ("pylist", "pylist_numpy"):
            with console.status(f"copy-on-read growth: {name} ({size:,} items, 2 fork workers"
                                f"{', gc frozen' if frozen else ''})"):
                out.append(measure_growth(name, size, GROWTH_BATCH, workers=2,
                                          start_method="fork", gc_frozen=frozen))
    return out


def too_little_time(budget: Budget, trials: int, timed: list[WorkloadReport]) -> bool:
    """True when the budget left is under half the estimated cost of ``trials`` more trials."""
    sweeps = [r.sweep for r in timed if r.sweep is not None and r.sweep.results]
    n = sum(len(s.results) for s in sweeps)
    per_trial = sum(s.duration_s for s in sweeps) / n if n else DEFAULT_TRIAL_S
    return budget.remaining() < 0.5 * trials * per_trial


def run_case(case: Case, args: argparse.Namespace, machine: MachineInfo, plan: TrialPlan,
             heuristic_list: list[Heuristic], budget: Budget, console: Console,
             reports: list[WorkloadReport]) -> BaseException | None:
    """Run one case into ``reports``; return the user's interrupt, if any."""
    grid = make_grid(case.batch_size(args.quick), machine)
    configs = grid.configs()
    if too_little_time(budget, len(configs), reports):
        reports.append(WorkloadReport(case, args.quick, grid.batch_size,
                                      status="skipped: time budget"))
        return None
    console.print(f"[bold]{case.name}[/] ({case.note}; {case.params(args.quick)}, batch size "
                  f"{grid.batch_size}): {len(configs)} grid configs", soft_wrap=True)
    step_s = plan.step_ms / 1000.0 if plan.step_ms else None
    with SweepProgress(console, len(configs), title=case.name) as progress:
        case_plan = replace(plan, batches=case.batches(args.quick))
        budget_bytes = case.memory_budget(args.quick)
        if budget_bytes is not None:
            case_plan = replace(case_plan, memory_limit=budget_bytes)
        run = WorkloadRun(case, args.quick, grid, case_plan, machine, heuristic_list, budget,
                          progress, step_s, tune_runs=max(args.tune_runs, 1))
        try:
            reports.append(run.run())
        except KeyboardInterrupt as err:
            if run.report.status == "ok":
                run.report.status = ("stopped: time budget spent"
                                     if isinstance(err, BudgetExhausted) else "interrupted")
            reports.append(run.report)
            return None if isinstance(err, BudgetExhausted) else err
    return None


def payload(args: argparse.Namespace, machine: MachineInfo, plan: TrialPlan,
            heuristic_list: list[Heuristic], reports: list[WorkloadReport],
            growths: list[Growth], started_at: str, seconds: float,
            interrupted: bool) -> dict[str, Any]:
    return {
        "loadertune": "tuner_vs_grid",
        "version": loadertune.__version__,
        "started_at": started_at,
        "duration_s": seconds,
        "quick": args.quick,
        "interrupted": interrupted,
        "tune_available": getattr(loadertune, "tune_detailed", None) is not None,
        "machine": machine.to_dict(),
        "plan": plan.to_dict(),
        "grid": {"workers": list(grid_workers(machine)), "prefetch": [2, 4],
                 "pin_memory": [False, True] if machine.accelerator else [False],
                 "persistent_workers": [True]},
        "heuristics": [{"key": h.key, "title": h.title, "rule": h.rule,
                        "num_workers": h.num_workers} for h in heuristic_list],
        "workloads": [r.to_dict() for r in reports],
        "growth": [g.to_dict() for g in growths],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cases = select(args.workloads)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    console = stdout_console()
    machine = machine_facts.collect()
    plan = make_plan(args.quick, args.step_ms, machine)
    budget = Budget(args.budget if args.budget is not None
                    else (QUICK_BUDGET_S if args.quick else None))
    heuristic_list = heuristics(machine)
    tune_available = getattr(loadertune, "tune_detailed", None) is not None
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    started = time.monotonic()
    console.print(f"[bold]tuner vs grid[/] on {machine.cpu_model}: {machine.usable_cpus:g} "
                  f"usable CPUs; heuristics: " + ", ".join(
                      f"{h.title} = {h.num_workers} ({h.rule})" for h in heuristic_list)
                  + ("" if tune_available else f"; {TUNE_MISSING}"), soft_wrap=True)
    reports: list[WorkloadReport] = []
    growths: list[Growth] = []
    stop: BaseException | None = None
    with sigterm_as_interrupt():
        try:
            if not args.no_growth:
                growths = run_growth(console, args.quick)
            for case in cases:
                stop = run_case(case, args, machine, plan, heuristic_list, budget, console,
                                reports)
                if stop is not None:
                    break
        except KeyboardInterrupt as err:
            stop = err
    if stop is not None:
        console.print("[yellow]interrupted: showing what finished[/]")
    console.print(throughput_table(reports, heuristic_list,
                                   caption(machine, plan, tune_available)))
    console.print(memory_table(reports, heuristic_list))
    if growths:
        console.print(growth_table(growths))
    seconds = time.monotonic() - started
    console.print(f"total {seconds:.0f} s")
    if args.json:
        path = write_json(args.json, payload(args, machine, plan, heuristic_list, reports,
                                             growths, started_at, seconds, stop is not None))
        console.print(f"wrote {path}")
    return exit_code(stop) if stop is not None else 0


if __name__ == "__main__":
    sys.exit(main())
