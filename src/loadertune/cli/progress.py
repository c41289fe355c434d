"""A rich progress display for sweeps: configs done overall, batches of the current trial."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from loadertune.config import LoaderConfig
from loadertune.trial.results import TrialResult


class SweepProgress:
    """Context manager whose methods are the sweep's callbacks."""

    def __init__(self, console: Console, total: int, title: str = "sweep") -> None:
        self.console = console
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.overall: TaskID = self.progress.add_task(title, total=total)
        self.trial: TaskID = self.progress.add_task("starting", total=None)

    def __enter__(self) -> SweepProgress:
        self.progress.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.progress.stop()

    def on_start(self, index: int, total: int, config: LoaderConfig) -> None:
        self.progress.update(self.overall, total=total)
        self.progress.reset(self.trial, total=None, description=f"  {config.label()}")

    def on_batches(self, done: int, needed: int) -> None:
        self.progress.update(self.trial, completed=done, total=max(needed, done))

    def on_done(self, index: int, result: TrialResult) -> None:
        self.progress.advance(self.overall)
        if result.ok:
            text = f"[green]✓[/] {result.config.label():<22} {result.samples_per_s:,.0f} samples/s"
        else:
            assert result.failure is not None
            text = (f"[red]✗[/] {result.config.label():<22} {result.failure.kind}: "
                    f"{result.failure.message}")
        self.console.print(text, highlight=False, soft_wrap=True)
