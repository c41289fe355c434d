"""`loadertune doctor`: render the probes' findings as a table or JSON."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Group
from rich.padding import Padding
from rich.text import Text

from loadertune.bench import resolve_batch_size
from loadertune.cli.console import stdout_console
from loadertune.cli.options import SplitOpt
from loadertune.doctor import DoctorContext, Report, parse_target, run_doctor
from loadertune.errors import LoadertuneError
from loadertune.pipeline import DEFAULT_BATCH_SIZE
from loadertune.pipeline.resolve import check_split

STYLES = {"ok": "green", "warn": "yellow", "error": "bold red"}
BADGES = {"ok": " ok  ", "warn": "WARN ", "error": "ERROR"}


def render(report: Report) -> Group:
    """One block per finding: badge and title, then the evidence and the fix, indented."""
    parts: list[Text] = [Text(f"loadertune doctor {report.target or '(this machine)'}",
                              style="bold")]
    for f in report.findings:
        head = Text()
        head.append(BADGES[f.severity], style=STYLES[f.severity])
        head.append(f" [{f.probe}] ", style="dim")
        head.append(f.title, style="bold" if f.severity != "ok" else "")
        if f.where:
            head.append(f"  {f.where}", style="cyan")
        parts.append(head)
        parts.append(Text(f.evidence, style="dim"))
        if f.fix:
            fix = Text()
            fix.append("fix: ", style="bold green")
            fix.append(f.fix)
            parts.append(fix)
    return Group(*(_indent(t, i) for i, t in enumerate(parts)))


def _indent(text: Text, index: int) -> Padding | Text:
    if index == 0 or text.plain.startswith(tuple(BADGES.values())):
        return text
    return Padding(text, (0, 0, 0, 6), expand=False)


def doctor(
    target: Annotated[str | None, typer.Argument(
        help="SCRIPT.py to inspect, a DATASET (module:attr or script.py:attr), or nothing "
             "for the machine alone", show_default=False)] = None,
    batch_size: Annotated[int | None, typer.Option(
        "--batch-size", "-b", min=1, show_default=False,
        help="Batch size the checks assume [default: the DataLoader's, else 32].")] = None,
    split: SplitOpt = "train",
    workers: Annotated[int | None, typer.Option(
        "--workers", "-w", min=0, help="num_workers you plan (default: what fits the CPUs).",
        show_default=False)] = None,
    prefetch_factor: Annotated[int, typer.Option("--prefetch-factor", min=1)] = 2,
    measure: Annotated[bool, typer.Option(
        "--measure/--no-measure", help="Run a short 2-worker trial to measure memory.")] = True,
    probe: Annotated[list[str] | None, typer.Option(
        "--probe", help="Run only this probe (repeatable).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """What will break a DataLoader on this machine, and the fix for each (exit 1 on errors)."""
    if workers is not None and workers < 0:
        raise LoadertuneError("--workers must be >= 0")
    ctx = DoctorContext(target=parse_target(target), batch_size=batch_size or DEFAULT_BATCH_SIZE,
                        split=check_split(split), num_workers=workers,
                        prefetch_factor=prefetch_factor, measure=measure)
    loaded = ctx.dataset()
    if ctx.target.spec is None:
        ctx.measure = False
    elif loaded is None and ctx.import_blocked() is None:
        raise LoadertuneError(ctx.load_error or f"cannot load dataset {target!r}")
    if loaded is not None:
        ctx.batch_size = resolve_batch_size(loaded, batch_size)
    report = run_doctor(ctx, probe)
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        console = stdout_console()
        console.print(render(report))
        c = report.counts()
        console.print(f"{c['error']} error(s), {c['warn']} warning(s), {c['ok']} ok")
    if report.has_errors:
        sys.exit(1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
