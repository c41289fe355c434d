"""`loadertune history`: past runs from the local store; `history show ID` shows one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from loadertune.cli.console import stdout_console
from loadertune.config import LoaderConfig
from loadertune.store import HistoryStore, resolve_store_path
from loadertune.tuning import TuneResult

app = typer.Typer(help="Past tuning runs from the local history store.",
                  no_args_is_help=False, add_completion=False)

STATUS = {"search": "done", "budget": "budget", "interrupted": "stopped"}

StoreOption = Annotated[Path | None, typer.Option(
    help="History file [default: $LOADERTUNE_STORE or ~/.cache/loadertune/history.sqlite]")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.callback(invoke_without_command=True)
def history(ctx: typer.Context, store: StoreOption = None, as_json: JsonOption = False,
            limit: Annotated[int | None, typer.Option(help="Show the newest N runs.")] = None,
            ) -> None:
    """List past runs, newest first (`loadertune history show ID` shows one)."""
    if ctx.invoked_subcommand is not None:
        return
    path = resolve_store_path(store)
    console = stdout_console()
    if not path.exists():
        if as_json:
            print("[]")
        else:
            console.print(f"no history yet ({path} does not exist); `loadertune tune` "
                          "records its runs there", soft_wrap=True)
        return
    runs = HistoryStore(path).runs(limit)
    if as_json:
        print(json.dumps([r.to_dict() for r in runs], indent=2))
        return
    table = Table(title=f"loadertune history · {path}", title_justify="left",
                  caption="recommended: wN = num_workers, pfN = prefetch_factor, persist = "
                  "persistent_workers; `loadertune history show ID` for the evidence",
                  caption_justify="left")
    for name in ("id", "when (UTC)", "dataset", "batch", "recommended", "samples/s",
                 "trials", "took", "status"):
        table.add_column(name, no_wrap=True)
    for r in runs:
        label = LoaderConfig.from_dict({**r.kwargs, "batch_size": r.batch_size}).label()
        table.add_row(str(r.id), r.created_at.replace("T", " ")[:16], r.spec or r.dataset,
                      str(r.batch_size), label,
                      f"{r.samples_per_s:,.0f}" if r.samples_per_s else "-",
                      str(r.trial_count), f"{r.seconds:.0f}s", STATUS.get(r.status, r.status))
    console.print(table)


@app.command("show")
def show(run_id: Annotated[int, typer.Argument(help="Run id from `loadertune history`.")],
         store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Show one run: recommendation, reason and every trial."""
    from loadertune.cli.tune import show as show_result

    data = HistoryStore(resolve_store_path(store)).get(run_id)
    if as_json:
        print(json.dumps(data, indent=2, default=str))
        return
    console = stdout_console()
    console.print(f"[bold]run #{run_id}[/] of {data.get('created_at')} UTC · "
                  f"{data.get('spec') or data.get('dataset')}", soft_wrap=True)
    show_result(TuneResult.from_dict(data), None, None)
