"""`loadertune demo`: bench on the bundled JPEG workload, end to end in about a minute."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from loadertune import machine as machine_facts
from loadertune.cli.bench import build_grid, run_with_progress, show_and_save
from loadertune.cli.console import stdout_console
from loadertune.interrupts import Terminated
from loadertune.trial import TrialPlan
from loadertune.units import format_bytes

DEMO_SPEC = "loadertune.workloads:jpeg"


def demo(
    out: Annotated[Path, typer.Option(help="Folder for the JSON and PNG.")] = Path(
        "loadertune-out"),
    max_workers: Annotated[int | None, typer.Option(
        help="Largest num_workers to try [default: 2 × usable CPUs, at most 4]")] = None,
) -> None:
    """Benchmark the bundled JPEG decode + augment workload and show the result."""
    machine = machine_facts.collect()
    top = max_workers if max_workers is not None else min(4, max(2, round(2 * machine.usable_cpus)))
    grid = build_grid(32, f"0-{top}", "2", "auto", "on", None, machine)
    plan = TrialPlan(batches=6, repeats=3, warmup=None, step_ms=0.0,
                     memory_limit=machine_facts.default_memory_budget(machine))
    console = stdout_console()
    console.print(f"[bold]loadertune demo[/]: decoding + augmenting 256 generated JPEGs "
                  f"(500×375 → 224², batch 32) with 0–{top} workers on {machine.cpu_model}, "
                  f"{machine.usable_cpus:g} usable CPUs, "
                  f"{format_bytes(machine.memory_room)} available", soft_wrap=True)
    sweep, stop = run_with_progress(DEMO_SPEC, grid, plan, machine)
    show_and_save(sweep, out / "demo.json", out / "demo.png")
    if stop is not None:
        sys.exit(143 if isinstance(stop, Terminated) else 130)
    if not sweep.ok():
        raise typer.Exit(1)
