"""Rich renderables for watch summaries (rendering only: the numbers come from `summary`)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from loadertune.profile.summary import profile_line
from loadertune.watch.summary import WatchSummary


def _ms(seconds: float | None, unit: bool = True) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.2f} ms" if unit else f"{seconds * 1000:.2f}"


def _style(kind: str) -> str:
    return {"starved": "bold red", "step_bound": "bold green"}.get(kind, "bold")


def worker_table(summary: WatchSummary) -> Table:
    """One row per worker: items, batches and what each cost."""
    caption = "* slowest worker" if summary.slowest_worker is not None else None
    table = Table(title="per worker (ms; batch = fetch + collate; cpu % = on a core, runq % = "
                  "waiting for one, of that time)", title_justify="left", caption=caption,
                  caption_justify="left", show_edge=False)
    for name in ("worker", "pid", "items", "batches", "fetch/item", "collate", "batch",
                 "cpu %", "runq %", "starts"):
        table.add_column(name, justify="left" if name == "worker" else "right")
    for w in summary.workers:
        items = f"≈{w.items}" if w.estimated else str(w.items)
        slowest = w.worker == summary.slowest_worker
        collate = w.collate_s / w.batches if w.batches and not w.estimated else None
        busy = w.fetch_s + w.collate_s
        cpu = f"{(w.cpu_s + w.collate_s) / busy * 100:.0f}" if busy > 0 and w.starts else "-"
        runq = f"{w.runq_s / busy * 100:.0f}" if busy > 0 and w.runq_s is not None else "-"
        table.add_row(Text(w.worker + (" *" if slowest else ""),
                           style="bold yellow" if slowest else ""),
                      str(w.pid or "-"), items, str(w.batches), _ms(w.fetch_per_item_s, False),
                      _ms(collate, False), _ms(w.batch_s, False), cpu, runq,
                      str(w.starts) if w.starts else "-")
    return table


def verdict_text(summary: WatchSummary, prefix: str = "") -> Group:
    v = summary.verdict
    lines: list[RenderableType] = [Text.assemble((f"{prefix}verdict: ", _style(v.kind)), v.text)]
    if v.reasoning:
        lines.append(Text(f"  why: {v.reasoning}", style="dim"))
    return Group(*lines)


def render_summary(summary: WatchSummary) -> RenderableType:
    """The single-process report: loop totals, per-worker table, verdict."""
    s = summary
    where = f" · rank {s.rank.rank}/{s.rank.world_size}" if s.rank.world_size > 1 else ""
    head = Text.assemble(
        ("loadertune watch", "bold"), where,
        f" · {s.batches} batches, {s.passes} pass{'es' if s.passes != 1 else ''}, "
        f"{s.wall_s:.2f} s in the loop",
    )
    stall = Text.assemble(
        "  data wait ", (f"{s.stall_fraction * 100:.0f} %", _style(s.verdict.kind)),
        f" of the steady loop · wait p50 {_ms(s.wait_p50_s)} · p95 {_ms(s.wait_p95_s)}"
        f" · step p50 {_ms(s.step_p50_s)}",
    )
    parts: list[RenderableType] = [head, stall]
    if s.startup_s > 0:
        parts.append(Text(f"  start-up {s.startup_s:.2f} s waiting for the first batch of "
                          f"{s.passes} pass{'es' if s.passes != 1 else ''} (includes worker "
                          "start)"))
    if s.workers:
        parts.append(worker_table(s))
    if s.worker_note:
        parts.append(Text(f"  note: {s.worker_note}", style="yellow"))
    parts.extend(Text(f"  {h.line()}", style="bold red") for h in s.hangs)
    where = profile_line(s.profile or [])
    if where:
        parts.append(Text(f"  {where}"))
    parts.append(verdict_text(s))
    return Group(*parts)


def render_ranks(summaries: list[WatchSummary]) -> RenderableType:
    """The distributed report: one row per rank, then each rank's verdict."""
    if len(summaries) == 1:
        return render_summary(summaries[0])
    ranks = sorted(summaries, key=lambda x: x.rank.rank)
    local = max(s.rank.local_world_size for s in ranks)
    cores = sorted({f"{s.usable_cpus:g}" for s in ranks})
    title = (f"loadertune watch · {len(ranks)} ranks, {local} per machine, "
             f"{'/'.join(cores)} usable core{'' if cores == ['1'] else 's'} per rank")
    table = Table(title=title, title_justify="left")
    for name in ("rank", "host", "batches", "wall", "data wait", "wait p50", "wait p95",
                 "step p50", "workers", "slowest", "advice"):
        table.add_column(name, justify="left" if name in ("host", "advice") else "right")
    for s in ranks:
        rec = s.verdict.recommended_workers
        advice = ("starved" if s.verdict.kind == "starved" else "step-bound") + \
            (f" → {rec}" if rec is not None else "")
        table.add_row(
            str(s.rank.rank), f"{s.rank.hostname}:{s.rank.local_rank}", str(s.batches),
            f"{s.wall_s:.2f} s",
            Text(f"{s.stall_fraction * 100:.0f} %", style=_style(s.verdict.kind)),
            _ms(s.wait_p50_s), _ms(s.wait_p95_s), _ms(s.step_p50_s),
            "-" if s.num_workers is None else str(s.num_workers), s.slowest_worker or "-",
            advice,
        )
    worst = max(ranks, key=lambda x: x.stall_fraction)
    parts: list[RenderableType] = [table]
    parts.extend(verdict_text(s, prefix=f"rank {s.rank.rank} ") for s in ranks)
    if worst.stall_fraction > min(x.stall_fraction for x in ranks) + 0.1:
        parts.append(Text(f"  rank {worst.rank.rank} waits for data the most; in DDP the other "
                          "ranks wait for it at every gradient sync", style="yellow"))
    return Group(*parts)
