"""PNG of throughput and memory against num_workers (matplotlib, Agg backend)."""

from __future__ import annotations

import io
import os
from collections import defaultdict
from pathlib import Path

from loadertune.bench.sweep import SweepResult
from loadertune.report.jsonio import write_atomic
from loadertune.trial.results import TrialResult


def _series_key(r: TrialResult) -> str:
    c = r.config
    parts = [f"prefetch {c.effective_prefetch}"]
    if c.persistent_workers:
        parts.append("persistent")
    if c.pin_memory:
        parts.append("pinned")
    if c.multiprocessing_context:
        parts.append(c.multiprocessing_context)
    return ", ".join(parts)


def plot_sweep(sweep: SweepResult, path: str | os.PathLike[str], best: TrialResult | None = None,
               title: str = "loadertune bench") -> Path:
    """Two panels sharing num_workers: samples/s (with min-max of repeats) and peak memory.

    ``best`` (default: ``sweep.best()``) is the point starred; tune passes its own pick.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    ok = sweep.ok()
    zero = [r for r in ok if r.config.num_workers == 0]
    series: dict[str, list[TrialResult]] = defaultdict(list)
    for r in ok:
        if r.config.num_workers > 0:
            series[_series_key(r)].append(r)
    if not series and zero:
        series["no workers"] = []

    fig, (ax_t, ax_m) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for name, results in sorted(series.items()):
        points = sorted(zero[:1] + results, key=lambda r: r.config.num_workers)
        xs = [r.config.num_workers for r in points]
        ys = [r.samples_per_s or 0.0 for r in points]
        lo = [y - min(r.repeats or [y]) for y, r in zip(ys, points, strict=True)]
        hi = [max(r.repeats or [y]) - y for y, r in zip(ys, points, strict=True)]
        ax_t.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=name)
        mem = [r.memory.total / 2**20 for r in points]
        ax_m.plot(xs, mem, marker="o", label=name)
    best = best if best is not None else sweep.best()
    if best is not None:
        ax_t.plot([best.config.num_workers], [best.samples_per_s], marker="*", markersize=16,
                  color="gold", markeredgecolor="black", linestyle="none", label="best")
    for r in sweep.failed():
        ax_t.axvline(r.config.num_workers, color="red", alpha=0.25, linestyle=":")
    ax_t.set_ylabel("samples / s (median, min-max)")
    ax_t.set_title(f"{title} · {sweep.dataset}", fontsize=10)
    ax_t.grid(alpha=0.3)
    ax_t.legend(fontsize=8)
    pss = any(r.memory.total_pss is not None for r in ok)
    ax_m.set_ylabel(f"peak memory, MiB ({'PSS' if pss else 'RSS'} of all processes)")
    ax_m.set_xlabel("num_workers")
    from matplotlib.ticker import MaxNLocator

    ax_m.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_m.grid(alpha=0.3)
    cpus = sweep.machine.usable_cpus
    for ax in (ax_t, ax_m):
        ax.axvline(cpus, color="grey", linestyle="--", alpha=0.6)
    ax_t.annotate(f"{cpus:g} usable CPUs", (cpus, ax_t.get_ylim()[0]), fontsize=8,
                  color="grey", xytext=(3, 3), textcoords="offset points")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return write_atomic(path, buffer.getvalue())
