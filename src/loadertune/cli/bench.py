"""`loadertune bench`: measured sweep, shown as a table, a PNG plot and JSON."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from loadertune import machine as machine_facts
from loadertune.bench import default_workers, prepare
from loadertune.bench.sweep import Grid, SweepResult
from loadertune.cli.console import stdout_console
from loadertune.cli.options import BatchSizeOpt, DatasetArg, SplitOpt
from loadertune.cli.progress import SweepProgress
from loadertune.config import START_METHODS
from loadertune.errors import ConfigError
from loadertune.interrupts import Terminated, sigterm_as_interrupt
from loadertune.machine import MachineInfo, default_memory_budget
from loadertune.pipeline import kept_parts_note
from loadertune.profile.reads import reads_line
from loadertune.profile.summary import result_line
from loadertune.report.jsonio import write_json
from loadertune.report.plot import plot_sweep
from loadertune.report.table import recommendation, sweep_table
from loadertune.trial import DatasetSource, TrialPlan
from loadertune.tuning.cache import advise_cache, sample_length
from loadertune.tuning.threads import advise_threads
from loadertune.units import parse_choice_list, parse_duration, parse_int_list, parse_size

ON_OFF = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False}


def build_grid(batch_size: int | None, workers: str | None, prefetch: str, pin_memory: str,
               persistent: str, start_method: str | None, machine: MachineInfo) -> Grid:
    """Parse the sweep options into a Grid (raising ConfigError on bad values)."""
    if batch_size is not None and batch_size <= 0:
        raise ConfigError(f"--batch-size must be >= 1, got {batch_size}")
    worker_counts = (parse_int_list(workers, "--workers") if workers
                     else list(default_workers(machine)))
    prefetches = parse_int_list(prefetch, "--prefetch")
    if 0 in prefetches:
        raise ConfigError("--prefetch values must be >= 1")
    pin_choices: dict[str, object] = {**ON_OFF, "both": "both",
                                      "auto": machine.accelerator is not None}
    pins: list[bool] = []
    for value in parse_choice_list(pin_memory, "--pin-memory", pin_choices):
        pins.extend([False, True] if value == "both" else [bool(value)])
    persist: list[bool] = []
    for value in parse_choice_list(persistent, "--persistent", {**ON_OFF, "both": "both"}):
        persist.extend([True, False] if value == "both" else [bool(value)])
    methods: list[str | None] = [None]
    if start_method:
        methods = [str(m) for m in parse_choice_list(start_method, "--start-method",
                                                     {m: m for m in START_METHODS})]
    return Grid(batch_size=batch_size, workers=tuple(worker_counts), prefetch=tuple(prefetches),
                pin_memory=tuple(dict.fromkeys(pins)), persistent=tuple(dict.fromkeys(persist)),
                start_methods=tuple(methods))


def default_paths(out: Path, stem: str, json_path: Path | None,
                  plot_path: Path | None) -> tuple[Path, Path]:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return (json_path or out / f"{stem}-{stamp}.json", plot_path or out / f"{stem}-{stamp}.png")


def show_and_save(sweep: SweepResult, json_path: Path, plot_path: Path) -> None:
    """Print the table and recommendation, write JSON and PNG, say where they went."""
    console = stdout_console()
    console.print(sweep_table(sweep))
    for line in (result_line(sweep.best()), reads_line(sweep.best())):
        if line:
            console.print(line, style="dim", markup=False, soft_wrap=True)
    for advice in sweep.advice:
        console.print(advice["text"], style="bold" if advice["advised"] else "dim",
                      markup=False, soft_wrap=True)
    best = recommendation(sweep)
    if best:
        console.print(f"[bold]best:[/] {best}")
    for r in sweep.failed():
        if r.failure and r.failure.kind not in ("skipped",):
            console.print(f"[red]{r.config.label()}[/]: {r.failure.kind}: {r.failure.message}",
                          soft_wrap=True)
    write_json(json_path, sweep.to_dict())
    written = [f"JSON {json_path}"]
    if sweep.ok():
        plot_sweep(sweep, plot_path)
        written.append(f"plot {plot_path}")
    console.print("wrote " + ", ".join(written), soft_wrap=True)


def run_with_progress(dataset: str, grid: Grid, plan: TrialPlan, machine: MachineInfo,
                      step_spec: str | None = None, split: str = "train", advise: bool = True,
                      ) -> tuple[SweepResult, BaseException | None]:
    """Check the input, then run the sweep behind a progress display, then (``advise``) the
    measured advice beyond the knobs (`loadertune.tuning.threads`).

    Returns the sweep and the interrupt (Ctrl-C or SIGTERM) that stopped it, if any.
    """
    console = stdout_console()
    prepared = prepare(dataset, grid, plan, machine=machine, step_spec=step_spec, split=split)
    console.print(f"[bold]loadertune bench[/] {prepared.loaded.describe()}: "
                  f"{len(prepared.configs)} configs, batch size {prepared.configs[0].batch_size}, "
                  f"{machine.usable_cpus:g} usable CPUs", soft_wrap=True)
    if prepared.loaded.parts is not None:
        console.print(f"[dim]{kept_parts_note(prepared.loaded)}[/]", soft_wrap=True)
    with sigterm_as_interrupt(), SweepProgress(console, len(prepared.configs)) as progress:
        sweep = prepared.run(on_start=progress.on_start, on_batches=progress.on_batches,
                             on_done=progress.on_done)
    stop: BaseException | None = None
    if sweep.interrupted:
        stop = sweep.interrupt or KeyboardInterrupt()
        console.print("[yellow]interrupted: keeping the configs measured so far[/]")
    elif advise:
        length = sample_length(prepared.loaded)
        stop = measure_advice(sweep, prepared.source, prepared.plan, machine, length)
    return sweep, stop


def measure_advice(sweep: SweepResult, source: DatasetSource, plan: TrialPlan,
                   machine: MachineInfo, length: int | None = None) -> BaseException | None:
    """Add the measured advice for the sweep's best config to ``sweep.advice``: one thread per
    worker (when its workers may oversubscribe the cores) and caching the decoded samples
    (a map-style dataset of ``length`` items); the interrupt that stopped it, if any."""
    console = stdout_console()
    best = sweep.best()
    if best is not None and best.ok:
        console.print(f"[dim]measuring advice for {best.config.label()}: one thread per worker "
                      "(when its workers may run more threads than there are cores), and "
                      "reading a sample of items vs serving it decoded...[/]", soft_wrap=True)
    try:
        with sigterm_as_interrupt():
            for advise in (lambda: advise_threads(source, best, plan, machine.usable_cpus),
                           lambda: advise_cache(source, best, plan, length,
                                                plan.memory_limit
                                                or default_memory_budget(machine))):
                advice = advise()
                if advice is not None:
                    sweep.advice.append(advice.to_dict())
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM (Terminated)
        console.print("[yellow]interrupted: advice measured so far kept[/]")
        return err
    return None


def bench(
    dataset: DatasetArg,
    batch_size: BatchSizeOpt = None,
    split: SplitOpt = "train",
    workers: Annotated[str | None, typer.Option(
        help="num_workers to try: 0-8, 0,2,4 or 0-16:4 [default: 0 to 2 × usable CPUs, "
             "log-spaced, at most 12 counts]")] = None,
    prefetch: Annotated[str, typer.Option(help="prefetch_factor values, e.g. 2,4")] = "2",
    pin_memory: Annotated[str, typer.Option(
        help="auto (on with an accelerator), on, off or both")] = "auto",
    persistent: Annotated[str, typer.Option(help="persistent_workers: on, off or both")] = "on",
    start_method: Annotated[str | None, typer.Option(
        help="fork, spawn, forkserver or a comma list [default: the platform's]")] = None,
    batches: Annotated[int, typer.Option(help="Batches per timed window.")] = 20,
    repeats: Annotated[int, typer.Option(help="Timed windows per config (median reported).")] = 3,
    warmup: Annotated[int | None, typer.Option(
        help="Warm-up batches [default: workers × prefetch + 2]")] = None,
    step_ms: Annotated[float, typer.Option(help="Simulated training step per batch, ms.")] = 0.0,
    step_kind: Annotated[str, typer.Option(help="cpu (busy) or sleep")] = "cpu",
    step: Annotated[str | None, typer.Option(
        help="Your training step as module:function, called with each batch "
             "(instead of --step-ms).")] = None,
    timeout: Annotated[str, typer.Option(help="Time limit per config, e.g. 120s or 5m.")] = "120s",
    memory_limit: Annotated[str | None, typer.Option(
        help="Memory budget per config: 8GiB or a % of the memory this process may use (the "
             "host's available memory or, tighter, a cgroup limit) [default: 80%]")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write JSON here.")] = None,
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write the PNG here.")] = None,
    out: Annotated[Path, typer.Option(help="Folder for JSON/PNG not named otherwise.")] = Path(
        "loadertune-out"),
    strict: Annotated[bool, typer.Option(help="Exit 1 if any config failed.")] = False,
    advice: Annotated[bool, typer.Option(
        help="Measure advice beyond the knobs: when the best config's workers may run more "
             "threads than there are cores, one more trial with one thread per worker; for a "
             "map-style dataset, a sample of items read vs served decoded (cache them?)."
    )] = True,
) -> None:
    """Measure DataLoader settings on your dataset: throughput, first batch, memory, CPU."""
    machine = machine_facts.collect()
    grid = build_grid(batch_size, workers, prefetch, pin_memory, persistent, start_method,
                      machine)
    plan = TrialPlan(batches=batches, repeats=repeats, warmup=warmup, step_ms=step_ms,
                     step_kind=step_kind, timeout_s=parse_duration(timeout),
                     memory_limit=parse_size(memory_limit, of=machine.memory_room)
                     if memory_limit else None)
    json_file, plot_file = default_paths(out, "bench", json_path, plot_path)
    sweep, stop = run_with_progress(dataset, grid, plan, machine, step_spec=step, split=split,
                                    advise=advice)
    show_and_save(sweep, json_file, plot_file)
    if stop is not None:
        sys.exit(143 if isinstance(stop, Terminated) else 130)
    if not sweep.ok():
        raise typer.Exit(1)
    if strict and sweep.failed():
        raise typer.Exit(1)
