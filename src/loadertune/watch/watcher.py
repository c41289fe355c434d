"""`Watcher`: a transparent wrapper around a DataLoader that times the training loop using it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

from rich.console import Console
from rich.text import Text

from loadertune import machine
from loadertune.profile.hang import HANG_FLOOR_S
from loadertune.watch.distributed import (
    GATHER_TIMEOUT_S,
    agree_to_gather,
    is_distributed,
    rank_info,
)
from loadertune.watch.distributed import gather as gather_summaries
from loadertune.watch.render import render_ranks, render_summary
from loadertune.watch.sinks import ScalarWriter, log_to_writer
from loadertune.watch.stacks import LoopHang, WorkerStacks
from loadertune.watch.summary import WatchSummary, summarize
from loadertune.watch.timing import LoopTimes, timed
from loadertune.watch.workers import LoaderProbe, WorkerCounters

T = TypeVar("T")


def summarize_here(times: LoopTimes, counters: list[WorkerCounters], *, num_workers: int | None,
                   batch_size: int | None, note: str) -> WatchSummary:
    """Summarise with this process's rank and its share of the machine's usable cores."""
    rank = rank_info()
    cpus = machine.usable_cpus(machine.affinity_cpus(), machine.cgroup_cpu_quota(),
                               rank.local_world_size)
    return summarize(times, counters, num_workers=num_workers, batch_size=batch_size,
                     worker_note=note, usable_cpus=round(cpus, 2), rank=rank)


def print_report(local: WatchSummary, console: Console | None, gather: bool | None,
                 timeout_s: float = GATHER_TIMEOUT_S) -> list[WatchSummary]:
    """Print ``local``, or every rank's summary on rank 0 when gathering (see Watcher.report)."""
    together = False
    if gather is not False and is_distributed():
        together = True if gather else agree_to_gather(timeout_s)
    summaries = gather_summaries(local) if together else [local]
    if not together or local.rank.rank == 0:
        out = console or Console()
        out.print(render_ranks(summaries) if together else render_summary(local))
    return summaries


class Watcher(Generic[T]):
    """Iterate it like the loader; ask it for :meth:`summary` or :meth:`report` at any time.

    - ``len(watcher)`` and attributes (``watcher.dataset``, ``watcher.batch_size``...) are the
      loader's; each ``iter(watcher)`` is a new pass (epoch) over the loader, and the numbers
      add up over passes.
    - The report is printed when a pass ends (exhausted, or left with ``break``), or, inside a
      ``with`` block, once when the block exits. ``report=False`` turns printing off.
    - Under ``torch.distributed``, the report of a completed pass (or of a ``with`` block that
      exits without an exception) gathers every rank's summary when every rank reaches its
      report within ``gather_timeout_s`` (they agree through the process group's store, so a
      rank that does not wrap its loader cannot deadlock the job: the others then report
      alone); rank 0 prints one table with a row per rank.
    - Per-worker numbers need the workers to start under the watcher: wrap the loader before
      its first iteration (a persistent worker's ``worker_init_fn`` cannot be replaced once it
      runs; such a loader is still timed, without the per-worker table). With
      ``num_workers=0`` the main process fetches, and its fetch time is the wait.
    - Iterate one pass at a time: passes that overlap would share one set of timings.
    - A DataLoader's workers keep their current stack where the watcher can read it: when the
      loop waits for a batch longer than max(``hang_after_s``, 20 × the slowest wait so far)
      while the workers live, each worker's file:line is reported at once (printed, and in
      :meth:`summary`); nothing is killed, and the loop goes on when the batch comes.
      ``hang_after_s=None`` turns this off. ``profile=True`` samples the workers every 10 ms
      (a few % of their time) for "where worker time goes" in the report and summary.
    """

    def __init__(self, loader: Iterable[T], *, report: bool = True,
                 console: Console | None = None, writer: ScalarWriter | None = None,
                 gather_timeout_s: float = GATHER_TIMEOUT_S,
                 hang_after_s: float | None = HANG_FLOOR_S, profile: bool = False) -> None:
        self.loader = loader
        self._probe = LoaderProbe(loader)
        self._stacks = (WorkerStacks(hang_after_s, profile, self._on_hang)
                        if self._probe.is_dataloader and (hang_after_s is not None or profile)
                        else None)
        self._times = LoopTimes()
        self._auto_report = report
        self._console = console
        self._writer = writer
        self._in_context = False
        self._gather_timeout_s = gather_timeout_s

    def __iter__(self) -> Iterator[T]:
        stacks = self._stacks
        iterator = (self._probe.start_pass() if stacks is None
                    else stacks.start_pass(self.loader, self._probe.start_pass))
        return timed(iterator, self._times, on_end=self._pass_ended)

    def __len__(self) -> int:
        return len(self.loader)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("loader", "_probe", "_times", "_stacks"):
            raise AttributeError(name)
        return getattr(self.loader, name)

    def __enter__(self) -> Watcher[T]:
        self._in_context = True
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._in_context = False
        if self._auto_report:
            self.report(gather=None if exc_type is None else False)

    def _pass_ended(self, completed: bool) -> None:
        if self._stacks is not None:
            self._stacks.end_pass(bool(getattr(self.loader, "persistent_workers", False)))
        if self._auto_report and not self._in_context:
            self.report(gather=None if completed else False)

    def _on_hang(self, hang: LoopHang, resolved: bool) -> None:
        if not self._auto_report:
            return
        out = self._console or Console()
        if resolved:
            out.print(Text(f"loadertune watch: the batch came after {hang.resolved_after_s:.1f}"
                           " s; the loop goes on", style="yellow"))
        else:
            out.print(Text(f"loadertune watch: possible hang: {hang.message}", style="bold red"))

    def summary(self) -> WatchSummary:
        """This process's numbers so far (no communication with other ranks)."""
        summary = summarize_here(
            self._times, self._probe.counters(),
            num_workers=self._probe.num_workers if self._probe.is_dataloader else None,
            batch_size=getattr(self.loader, "batch_size", None), note=self._probe.note,
        )
        if self._stacks is not None:
            summary.hangs = list(self._stacks.hangs)
            summary.profile = self._stacks.profile()
        return summary

    def close(self) -> None:
        """Stop the hang watch and remove the workers' stack files now (else done when the
        watcher is garbage-collected)."""
        if self._stacks is not None:
            self._stacks.close()

    def report(self, console: Console | None = None,
               gather: bool | None = None) -> list[WatchSummary]:
        """Print the summary; under torch.distributed, gather all ranks and print on rank 0.

        ``gather=None`` gathers when a process group is initialised and every rank reaches its
        report within ``gather_timeout_s`` (else each rank prints its own); ``True`` gathers
        without asking (a plain collective: every rank must call it); ``False`` prints only
        this rank's summary, on this rank. Returns the
        summaries printed (every rank's when gathered, on every rank). Also logs to the writer
        given to :func:`watch`, if any.
        """
        local = self.summary()
        summaries = print_report(local, console or self._console, gather,
                                 self._gather_timeout_s)
        if self._writer is not None:
            log_to_writer(self._writer, local)
        return summaries

    def log_to(self, writer: ScalarWriter, global_step: int | None = None,
               prefix: str = "loadertune/watch") -> WatchSummary:
        """Log this rank's summary to a TensorBoard ``SummaryWriter`` (or alike) in one call."""
        summary = self.summary()
        log_to_writer(writer, summary, global_step, prefix)
        return summary


def watch(loader: Iterable[T], *, report: bool = True, console: Console | None = None,
          writer: ScalarWriter | None = None, gather_timeout_s: float = GATHER_TIMEOUT_S,
          hang_after_s: float | None = HANG_FLOOR_S, profile: bool = False) -> Watcher[T]:
    """Wrap ``loader`` to measure data stalls in the loop that iterates it.

    ``for batch in watch(loader): ...`` or ``with watch(loader) as batches: ...``; see
    :class:`Watcher`. Wrap the loader before its first iteration to get per-worker numbers
    (workers get their timers when they start). ``writer``: a TensorBoard ``SummaryWriter`` to
    log the summary to at each report. ``gather_timeout_s``: under torch.distributed, how long
    a report waits for every rank to reach its own before printing this rank alone.
    ``hang_after_s``: report each worker's file:line when a wait passes max(this, 20 × the
    slowest wait so far); None: off. ``profile``: sample the workers for "where worker time
    goes" (costs a few % of their time). A
    LightningDataModule is watched through its ``train_dataloader()`` (after ``setup("fit")``).
    """
    from loadertune.pipeline.resolve import datamodule_loader, is_datamodule

    if is_datamodule(loader):
        loader = datamodule_loader(loader, f"the {type(loader).__name__} given", "train")
    return Watcher(loader, report=report, console=console, writer=writer,
                   gather_timeout_s=gather_timeout_s, hang_after_s=hang_after_s,
                   profile=profile)
