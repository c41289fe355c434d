"""Where generated workload files live (``LOADERTUNE_CACHE`` or the user's cache folder)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    env = os.environ.get("LOADERTUNE_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "loadertune"
