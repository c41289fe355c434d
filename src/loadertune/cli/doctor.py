"""`loadertune doctor`: render the probes' findings as a table or JSON."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from loadertune.cli.console import stdout_console
from loadertune.doctor import DoctorContext, Report, parse_target, run_doctor
from loadertune.errors import LoadertuneError

STYLES = {"ok": "green", "warn": "yellow", "error": "bold red"}


def render(report: Report) -> Table:
    table = Table(title=f"loadertune doctor {report.target or '(machine only)'}",
                  show_lines=True, expand=True)
    table.add_column("", width=5, no_wrap=True)
    table.add_column("check", ratio=1)
    table.add_column("evidence", ratio=3)
    table.add_column("fix", ratio=2)
    for f in report.findings:
        check = Text(f.title + ("" if not f.where else f"\n{f.where}"))
        table.add_row(Text(f.severity, style=STYLES[f.severity]), check, f.evidence, f.fix)
    return table


def doctor(
    target: Annotated[str | None, typer.Argument(
        help="SCRIPT.py to inspect, a DATASET (module:attr or script.py:attr), or nothing "
             "for the machine alone", show_default=False)] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", "-b", min=1,
                                            help="Batch size the checks assume.")] = 32,
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
    ctx = DoctorContext(target=parse_target(target), batch_size=batch_size, num_workers=workers,
                        prefetch_factor=prefetch_factor, measure=measure)
    if ctx.target.spec is None:
        ctx.measure = False
    elif ctx.dataset() is None:
        raise LoadertuneError(ctx.load_error or f"cannot load dataset {target!r}")
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
