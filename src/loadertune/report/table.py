"""The sweep table: one row per config, the best one highlighted."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from loadertune.bench.sweep import SweepResult
from loadertune.trial.results import TrialResult
from loadertune.units import format_bytes


def _speedup(r: TrialResult, base: TrialResult | None) -> str:
    if not r.ok or base is None or not base.samples_per_s:
        return "-"
    return f"{(r.samples_per_s or 0) / base.samples_per_s:.2f}×"


def _status(r: TrialResult) -> Text:
    if r.ok:
        return Text("ok*" if r.remeasured else "ok", style="green")
    assert r.failure is not None
    style = "yellow" if r.failure.kind in ("skipped", "interrupted") else "red"
    return Text(r.failure.kind, style=style)


def sweep_table(sweep: SweepResult, best: TrialResult | None = None,
                title: str = "loadertune bench", caption: str | None = None) -> Table:
    """Throughput (median ± half the spread), speed-up, first batch, memory, CPU, status.

    ``best`` (default: ``sweep.best()``) is the row starred; tune passes its own pick.
    """
    best = best if best is not None else sweep.best()
    base = sweep.baseline()
    pss = any(r.memory.total_pss is not None for r in sweep.results)
    table = Table(title=f"{title} · {sweep.dataset}", title_justify="left",
                  caption=caption if caption is not None else _caption(sweep),
                  caption_justify="left")
    table.add_column("config", no_wrap=True)
    table.add_column("samples/s", justify="right", no_wrap=True)
    table.add_column("±", justify="right", no_wrap=True)
    table.add_column("vs w0", justify="right", no_wrap=True)
    table.add_column("1st batch", justify="right", no_wrap=True)
    table.add_column("mem " + ("PSS" if pss else "RSS"), justify="right", no_wrap=True)
    table.add_column("/worker", justify="right", no_wrap=True)
    table.add_column("CPU", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for r in sweep.results:
        mem = r.memory
        marker = r is best
        table.add_row(
            ("★ " if marker else "  ") + r.config.label(),
            f"{r.samples_per_s:,.0f}" if r.ok and r.samples_per_s else "-",
            f"{100 * (r.spread or 0) / 2:.0f}%" if r.ok else "",
            _speedup(r, base),
            f"{r.first_batch_s:.2f}s" if r.first_batch_s is not None else "-",
            format_bytes(mem.total) if mem.total else "-",
            format_bytes(mem.per_worker),
            f"{r.cpu_percent:.0f}%" if r.cpu_percent is not None else "-",
            _status(r),
            style="bold green" if marker else None,
        )
    return table


def _caption(sweep: SweepResult) -> str:
    m = sweep.machine
    quota = f", quota {m.cgroup_cpu_quota:g}" if m.cgroup_cpu_quota else ""
    plan = sweep.plan
    step = f"; step {plan.step_ms:g} ms {plan.step_kind}" if plan.step_ms else ""
    return (f"{m.logical_cpus} CPUs (affinity {m.affinity_cpus}{quota}), "
            f"{format_bytes(m.memory_room)} free. samples/s: median of ≥{plan.repeats} "
            f"windows after warm-up{step}; ±: half the spread; ok*: re-measured (noisy); "
            f"/worker: largest worker's {'USS' if m.platform.startswith('Linux') else 'RSS'}; "
            "★ best (fewer workers win ties within the noise, at most 5%)")


def recommendation(sweep: SweepResult) -> str | None:
    """``DataLoader(...)`` kwargs of the best config, ready to paste."""
    best = sweep.best()
    if best is None:
        return None
    args = ", ".join(f"{k}={v!r}" for k, v in best.config.to_kwargs().items())
    return f"DataLoader(dataset, {args})"
