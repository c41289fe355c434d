"""Rich consoles shared by the commands."""

from __future__ import annotations

import os
import sys

from rich.console import Console

PIPE_WIDTH = 120


def _width(stream: object) -> int | None:
    """Let rich size a terminal; give pipes and files room for a full table."""
    isatty = getattr(stream, "isatty", None)
    if (isatty is not None and isatty()) or os.environ.get("COLUMNS"):
        return None
    return PIPE_WIDTH


def stdout_console() -> Console:
    return Console(highlight=False, width=_width(sys.stdout))


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, width=_width(sys.stderr))
