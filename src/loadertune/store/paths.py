"""Where the history store lives: ``--store``, else ``LOADERTUNE_STORE``, else the cache dir."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "LOADERTUNE_STORE"
FILENAME = "history.sqlite"


def default_store_path() -> Path:
    """``$LOADERTUNE_STORE``, else ``$XDG_CACHE_HOME/loadertune/history.sqlite`` (the XDG
    default is ``~/.cache``)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "loadertune" / FILENAME


def resolve_store_path(path: str | os.PathLike[str] | None) -> Path:
    return Path(path).expanduser() if path is not None else default_store_path()
