"""`loadertune explain`: read a traceback, log or pasted issue; print cause, confirm, fix."""

from __future__ import annotations

import json
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.panel import Panel
from rich.text import Text

from loadertune.cli.console import stderr_console, stdout_console
from loadertune.errors import LoadertuneError

if TYPE_CHECKING:  # the catalogue compiles its regexes on import: only `explain` pays for it
    from loadertune.explain import Explanation, Match

MAX_BYTES = 20 * 2**20
LONG_INPUT = 2**18  # a log this long takes seconds to read: show that it is being read


def read_input(source: str) -> str:
    if source == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise LoadertuneError("no log given: pass a FILE with the traceback, or pipe it in "
                                  "(`python train.py 2>&1 | loadertune explain -`)")
        return sys.stdin.read()
    path = Path(source).expanduser()
    if not path.is_file():
        raise LoadertuneError(f"log file {source!r} does not exist; pass a file with the "
                              "traceback, or - to read it from stdin")
    if path.stat().st_size > MAX_BYTES:
        with path.open("rb") as fh:  # the end of a huge log holds the traceback
            fh.seek(-MAX_BYTES, 2)
            return fh.read().decode("utf-8", "replace")
    return path.read_text(encoding="utf-8", errors="replace")


def render_match(match: Match, primary: bool) -> Panel:
    s = match.signature
    body = Text()
    # the id and confidence in the body, not only in the title: a title is cut to one line,
    # and at 80 columns a long one loses its end
    basis = ", from similar reports" if match.similar else ""
    body.append("id:      ", style="bold")
    body.append(f"{s.id}, confidence {match.confidence:.0%}{basis}\n", style="dim")
    if match.record:
        named, right = match.record
        body.append(f"         (capped: named first on {named} unseen reports, right {right})\n",
                    style="dim")
    if s.harmless:
        body.append("probably harmless: ", style="bold green")
        body.append("nothing failed because of these lines\n")
    if match.similar:
        body.append("basis:   ", style="bold yellow")
        body.append(f"no sign of it in the text itself; the real reports most like this one "
                    f"had this cause (similarity {match.similar.similarity:.2f}, shared words: "
                    f"{', '.join(match.similar.words[:3])})\n")
    body.append("cause:   ", style="bold")
    body.append(s.cause + "\n")
    if match.detail:
        body.append("here:    ", style="bold")
        body.append(match.detail + "\n")
    body.append("evidence:", style="bold")
    body.append("\n")
    for line_no, line in match.evidence:
        body.append(f"  line {line_no}: ", style="dim")
        body.append(line[:200] + "\n", style="italic")
    body.append("confirm: ", style="bold")
    body.append(s.confirm + "\n")
    body.append("fix:     ", style="bold green")
    body.append(s.fix)
    for finding in match.live:
        if finding.severity == "ok" and not primary:
            continue
        style = {"ok": "green", "warn": "yellow", "error": "red"}[finding.severity]
        body.append(f"\nhere:    [{finding.severity}] ", style=style)
        body.append(finding.evidence)
    title = f"[bold]{s.title}[/]"
    style = "green" if s.harmless else "red" if primary else "yellow"
    return Panel(body, title=title, title_align="left", border_style=style)


def render(explanation: Explanation) -> None:
    console = stdout_console()
    if not explanation.known:
        console.print("[yellow]unknown:[/] no known DataLoader failure signature in this text. "
                      "Run `loadertune doctor [SCRIPT.py | DATASET]` to check this machine and "
                      "your script, and rerun with num_workers=0 for a plain traceback.")
        return
    if not explanation.by_signals:
        console.print("[yellow]no known signature in this text;[/] these are the causes of the "
                      "real reports most like it, a direction to check, not a diagnosis. "
                      "`loadertune doctor [SCRIPT.py | DATASET]` checks this machine and your "
                      "script; a rerun with num_workers=0 gives a plain traceback.")
    for i, match in enumerate(explanation.matches):
        if i == 1:
            console.print("[dim]also found:[/]")
        console.print(render_match(match, primary=i == 0))


def explain(
    source: Annotated[str, typer.Argument(
        help="Log, traceback or pasted issue text (file), or - for stdin.",
        show_default=False)] = "-",
    live: Annotated[bool, typer.Option(
        "--live/--no-live", help="Add this machine's probe results (run it where it failed).",
    )] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON with stable cause ids.")]
    = False,
    list_causes: Annotated[bool, typer.Option("--list", help="List the known causes.")] = False,
) -> None:
    """Name the cause of a DataLoader traceback, log or issue text: confirm, fix, confidence."""
    if list_causes:
        print_catalogue(as_json)
        return
    from loadertune.explain import add_live_probes, explain_text

    text = read_input(source)
    if not text.strip():
        raise LoadertuneError("the input is empty; pass the file holding the traceback")
    with _reading(text):
        explanation = explain_text(text)
    if live:
        add_live_probes(explanation)
    if as_json:
        print(json.dumps(explanation.to_dict(), indent=2, default=str))
    else:
        render(explanation)
    if not explanation.by_signals:
        sys.exit(1)  # unknown, or only the causes of similar reports


def _reading(text: str) -> AbstractContextManager[object]:
    if len(text) < LONG_INPUT:
        return nullcontext()
    return stderr_console().status(f"reading {len(text) / 2**20:.1f} MiB of log ...")


def print_catalogue(as_json: bool) -> None:
    from loadertune.explain import CATALOGUE

    rows = [{"id": s.id, "title": s.title, "cause": s.cause, "fix": s.fix,
             "harmless": s.harmless} for s in CATALOGUE]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    console = stdout_console()
    for row in rows:
        console.print(f"[bold]{row['id']}[/]  {row['title']}")


def register(app: typer.Typer) -> None:
    app.command("explain")(explain)
