"""Write JSON atomically: a crash or Ctrl-C never leaves a half-written file."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from loadertune.interrupts import signals_deferred


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename it into place.

    Ctrl-C waits until the file is complete (it is delivered right after)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with signals_deferred():
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    return target


def write_json(path: str | os.PathLike[str], payload: dict[str, Any]) -> Path:
    return write_atomic(path, (json.dumps(payload, indent=2, default=str) + "\n").encode())
