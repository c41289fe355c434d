"""`loadertune tune`: adaptive search -> a DataLoader(...) line, the evidence table, a plot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from loadertune.cli.bench import default_paths
from loadertune.cli.console import stdout_console
from loadertune.cli.options import BatchSizeOpt, DatasetArg, SplitOpt
from loadertune.cli.progress import SweepProgress
from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError
from loadertune.interrupts import Terminated, sigterm_as_interrupt
from loadertune.pipeline import DEFAULT_BATCH_SIZE
from loadertune.profile.reads import reads_line
from loadertune.profile.summary import result_line
from loadertune.report.jsonio import write_json
from loadertune.report.plot import plot_sweep
from loadertune.report.table import sweep_table
from loadertune.trial.plan import STEP_KINDS
from loadertune.trial.results import TrialResult
from loadertune.tuning import TuneResult, run_tune
from loadertune.tuning.strategy import Decision
from loadertune.tuning.tuner import Callbacks
from loadertune.units import format_bytes, parse_duration


class TuneProgress:
    """Adapts the tuner's callbacks to the sweep progress display (the total is open)."""

    def __init__(self, progress: SweepProgress) -> None:
        self.progress = progress

    def on_start(self, index: int, config: LoaderConfig, decision: Decision) -> None:
        self.progress.on_start(index, index + 1, config)
        self.progress.console.print(f"[dim]{decision.phase}: {decision.why}[/]",
                                    highlight=False, soft_wrap=True)

    def callbacks(self) -> Callbacks:
        return Callbacks(on_start=self.on_start, on_batches=self.progress.on_batches,
                         on_done=self.progress.on_done)


def show(result: TuneResult, json_path: Path | None, plot_path: Path | None) -> None:
    """The DataLoader line, why, the evidence table, and where JSON and plot went."""
    console = stdout_console()
    best = result.best
    speed = f"  # {best.samples_per_s:,.0f} samples/s" if best and best.samples_per_s else ""
    console.print(f"[bold green]{result.dataloader_line()}[/]{speed}", soft_wrap=True)
    console.print(f"[bold]why:[/] {result.reason}", soft_wrap=True)
    for note in result.notes:
        console.print(f"  · {note}", soft_wrap=True)
    if result.machine is not None and result.trials:
        sweep = result.as_sweep()
        console.print(sweep_table(sweep, best=best, title="loadertune tune",
                                  caption=_caption(result)))
        for line in (result_line(best), reads_line(best)):
            if line:
                console.print(line, style="dim", markup=False, soft_wrap=True)
        for r in sweep.failed():
            if r.failure is not None:
                console.print(f"[red]{r.config.label()}[/]: {r.failure.kind}: "
                              f"{r.failure.message}", soft_wrap=True)
    source = "served from history" if result.from_store else "tuning"
    console.print(f"{source} took {result.seconds:.1f} s, {len(result.trials)} trials"
                  + (f" (history run #{result.run_id})" if result.run_id else ""),
                  soft_wrap=True)
    written = []
    if json_path is not None:
        write_json(json_path, result.to_dict())
        written.append(f"JSON {json_path}")
    if plot_path is not None and result.machine is not None and any(
            r.ok for r in result.trials):
        plot_sweep(result.as_sweep(), plot_path, best=best, title="loadertune tune")
        written.append(f"plot {plot_path}")
    if written:
        console.print("wrote " + ", ".join(written), soft_wrap=True)


def _caption(result: TuneResult) -> str:
    m = result.machine
    assert m is not None
    return (f"{m.logical_cpus} CPUs (usable {m.usable_cpus:g}), "
            f"{format_bytes(m.memory_room)} free. samples/s: median of short timed "
            "windows after warm-up; ±: half the spread; ok*: re-measured (noisy); "
            "★ recommended (fewer workers win ties within the noise, at most 5%)")


def tune(
    dataset: DatasetArg,
    batch_size: BatchSizeOpt = None,
    split: SplitOpt = "train",
    step_ms: Annotated[float | None, typer.Option(
        help="Your training step per batch, ms (simulated while loading).")] = None,
    step_kind: Annotated[str, typer.Option(
        help="How the simulated step spends its time: cpu (busy) or sleep (e.g. waiting "
             "for a GPU).")] = "cpu",
    budget: Annotated[str | None, typer.Option(
        help="Time budget for the search, e.g. 60s or 2m [default: until it converges]")] = None,
    memory_budget: Annotated[str | None, typer.Option(
        help="Memory the loader may use: 8GiB or a % of the memory this process may use "
             "(host available or, tighter, a cgroup limit) [default: 80%]")
    ] = None,
    max_workers: Annotated[int | None, typer.Option(help="Never try more workers.")] = None,
    timeout: Annotated[str, typer.Option(
        help="Time limit per trial (the first items' probe too), e.g. 120s or 5m.")] = "120s",
    start_method: Annotated[str | None, typer.Option(
        help="fork, spawn or forkserver [default: the platform's]")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write JSON here.")] = None,
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write the PNG here.")] = None,
    out: Annotated[Path, typer.Option(help="Folder for the PNG when --plot is not given.")] = Path(
        "loadertune-out"),
    store: Annotated[Path | None, typer.Option(
        help="History file [default: $LOADERTUNE_STORE or ~/.cache/loadertune/"
             "history.sqlite]")] = None,
    fresh: Annotated[bool, typer.Option(
        help="Measure again even when history holds a result for this dataset here.")] = False,
    advice: Annotated[bool, typer.Option(
        help="Measure advice beyond the knobs: when the chosen config's workers may run more "
             "threads than there are cores, one more trial with one thread per worker; for a "
             "map-style dataset, a sample of items read vs served decoded (cache them?)."
    )] = True,
) -> None:
    """Find the DataLoader settings that feed your step fastest here, within budgets."""
    if step_kind not in STEP_KINDS:
        raise ConfigError(f"--step-kind must be one of {', '.join(STEP_KINDS)}, got {step_kind!r}")
    budget_s = parse_duration(budget) if budget else None
    console = stdout_console()
    step = None if not step_ms else step_ms / 1000.0
    console.print(f"[bold]loadertune tune[/] {dataset}: batch size "
                  f"{batch_size or 'of the loader (32 for a dataset)'}"
                  + (f", step {step_ms:g} ms {step_kind}" if step_ms else ", no step")
                  + (f", budget {budget_s:g} s" if budget_s else ""), soft_wrap=True)
    _, plot_default = default_paths(out, "tune", None, plot_path)
    with sigterm_as_interrupt(), SweepProgress(console, 0, title="tune") as progress:
        result = run_tune(dataset, batch_size, step=step, step_kind=step_kind,
                          budget_s=budget_s, memory_budget=memory_budget,
                          max_workers=max_workers, start_method=start_method,
                          store=store, fresh=fresh, split=split,
                          default_batch_size=DEFAULT_BATCH_SIZE,
                          trial_timeout_s=parse_duration(timeout),
                          callbacks=TuneProgress(progress).callbacks(), advise=advice)
    if result.interrupt is not None:
        console.print("[yellow]interrupted: keeping the configs measured so far[/]")
    show(result, json_path, None if result.from_store and plot_path is None else plot_default)
    if result.interrupt is not None:
        sys.exit(143 if isinstance(result.interrupt, Terminated) else 130)
    if not any(isinstance(t, TrialResult) and t.ok for t in result.trials):
        raise typer.Exit(1)
