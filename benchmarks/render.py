"""Rich tables for the tuner-vs-grid benchmark: throughput, memory, copy-on-read growth."""

from __future__ import annotations

from collections.abc import Sequence

from compare import Measured, WorkloadReport
from growth import Growth
from heuristics import Heuristic
from rich.table import Table

from loadertune.trial.results import TrialResult
from loadertune.units import format_bytes


def _rate(result: TrialResult | None) -> str:
    if result is None:
        return "-"
    if not result.ok:
        return result.status
    return f"{result.samples_per_s:,.0f}"


def _cell(report: WorkloadReport, measured: Measured | None) -> str:
    """samples/s, its ratio to the grid's best, and ``=`` when the grid's trial is reused."""
    if measured is None:
        return "-"
    ratio = report.ratio(measured.result)
    text = _rate(measured.result) + ("=" if measured.reused else "")
    return text + (f"\n{ratio:.2f}×" if ratio is not None else "")


def throughput_table(reports: Sequence[WorkloadReport], heuristics: Sequence[Heuristic],
                     caption: str) -> Table:
    table = Table(title="samples/s, and its ratio to the grid's best", caption=caption,
                  caption_justify="left")
    table.add_column("workload", no_wrap=True)
    for h in heuristics:
        table.add_column(f"{h.title}\nw{h.num_workers}", justify="right")
    table.add_column("grid best", justify="right")
    table.add_column("tuned", justify="right")
    table.add_column("tuned /\ngrid best", justify="right")
    table.add_column("tune s /\ngrid s", justify="right")
    for r in reports:
        by_key = {h.key: m for h, m in r.heuristics}
        best = r.grid_best()
        best_text = f"{_rate(best)}\n{best.config.label()}" if best else r.status
        tuned = r.tuned
        if tuned.measured is not None:
            tuned_text = _rate(tuned.measured.result) + ("=" if tuned.measured.reused else "")
            tuned_text += f"\n{tuned.measured.result.config.label()}"
            for i, again in enumerate(tuned.again, start=2):
                ratio = again.ratio()
                tuned_text += (f"\nrun {i}: {again.label}"
                               + (f" ({ratio:.2f}×)" if ratio is not None else ""))
        else:
            tuned_text = tuned.note
        quality = r.ratio(tuned.measured.result) if tuned.measured else None
        rematch = r.rematch_ratio() if tuned.rematch else None
        quality_text = f"{quality:.2f}" if quality is not None else "-"
        if rematch is not None:
            quality_text += f"\nside by\nside {rematch:.2f}"
        cost = r.cost_ratio()
        table.add_row(
            r.case.name if r.status == "ok" else f"{r.case.name}\n[yellow]{r.status}[/]",
            *[_cell(r, by_key.get(h.key)) for h in heuristics],
            best_text, tuned_text, quality_text,
            f"{cost:.2f}" if cost is not None else "-",
        )
    return table


def _mem(measured: Measured | None) -> str:
    if measured is None:
        return "-"
    return format_bytes(measured.result.memory.total or None)


def memory_table(reports: Sequence[WorkloadReport], heuristics: Sequence[Heuristic]) -> Table:
    table = Table(title="peak memory (total PSS of the process tree)")
    table.add_column("workload", no_wrap=True)
    for h in heuristics:
        table.add_column(f"{h.title}\nw{h.num_workers}", justify="right")
    table.add_column("grid best", justify="right")
    table.add_column("tuned", justify="right")
    for r in reports:
        by_key = {h.key: m for h, m in r.heuristics}
        best = r.grid_best()
        table.add_row(r.case.name, *[_mem(by_key.get(h.key)) for h in heuristics],
                      _mem(Measured(best, True)) if best else "-",
                      _mem(r.tuned.measured) if r.tuned.measured else r.tuned.note)
    return table


def _mib(values: Sequence[int]) -> str:
    """One number per worker, in MiB: ``38.6 / 38.5``."""
    return " / ".join(f"{v / 2**20:.1f}" for v in values)


def growth_table(growths: Sequence[Growth]) -> Table:
    table = Table(title="copy-on-read: each forked worker's memory after N batches",
                  caption="PSS splits shared pages among the processes sharing them; USS is "
                          "what a worker holds alone. Growth = last - first. gc 'frozen': "
                          "gc.freeze() before the fork, so only reference counts write to "
                          "shared pages; 'on': a full collection in a worker also writes the "
                          "header of every tracked object it holds, dataset or not.",
                  caption_justify="left")
    for name in ("workload", "gc", "items", "dataset", "batches", "worker PSS\nMiB",
                 "worker USS\nMiB", "USS growth\nMiB"):
        table.add_column(name, justify="left" if name == "workload" else "right")
    for g in growths:
        gc = "frozen" if g.gc_frozen else "on"
        if g.error:
            table.add_row(g.workload, gc, f"{g.size:,}", "-", "-", "-", "-",
                          f"[red]{g.error}[/]")
            continue
        growth = _mib(g.delta("uss"))
        for i, p in enumerate(g.points):
            table.add_row(
                g.workload if i == 0 else "",
                gc if i == 0 else "",
                f"{g.size:,}" if i == 0 else "",
                format_bytes(g.dataset_uss) if i == 0 else "",
                str(p.batches),
                _mib(p.worker_pss),
                _mib(p.worker_uss),
                growth if i == len(g.points) - 1 else "",
            )
    return table
