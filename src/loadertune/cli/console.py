"""Rich consoles shared by the commands."""

from __future__ import annotations

from rich.console import Console


def stdout_console() -> Console:
    return Console(highlight=False)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False)
