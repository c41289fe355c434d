"""The `loadertune` command line: a thin typer layer over the library.

Each command lives in its own module and is registered here with one line.
"""

from __future__ import annotations

import os
import sys

import typer

from loadertune.errors import LoadertuneError

app = typer.Typer(
    name="loadertune",
    help="Measure, tune and debug PyTorch DataLoader settings on your own dataset.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    """One line per command module."""
    from loadertune.cli import bench, demo, doctor, explain, history, tune

    app.command("bench")(bench.bench)
    app.command("demo")(demo.demo)
    app.command("tune")(tune.tune)
    app.add_typer(history.app, name="history")
    doctor.register(app)
    explain.register(app)


_register()


def main() -> None:
    """Console entry point: one clear line for bad input (exit 2), 130 after Ctrl-C.

    typer handles usage errors, ``--help`` and ``typer.Exit`` itself; library errors
    (`LoadertuneError`) and anything unexpected reach us here.
    """
    from loadertune.cli.console import stderr_console

    try:
        app()
    except LoadertuneError as err:
        stderr_console().print(f"[bold red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        stderr_console().print("[yellow]interrupted[/]")
        sys.exit(130)
    except Exception as err:
        if os.environ.get("LOADERTUNE_DEBUG"):
            raise
        stderr_console().print(
            f"[bold red]internal error:[/] {type(err).__name__}: {err} "
            "(set LOADERTUNE_DEBUG=1 for the traceback, and please report it)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)
