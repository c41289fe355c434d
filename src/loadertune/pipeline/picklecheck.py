"""Find what stops a dataset from being pickled, as spawn and forkserver workers require.

Plain pickle into a counting sink, not multiprocessing's ForkingPickler: with torch imported,
the latter moves every tensor it meets into shared memory, a side effect a check must not have.
"""

from __future__ import annotations

import pickle
from typing import Any

from loadertune.pipeline.objwalk import children

MAX_DEPTH = 8


class _Sink:
    """A file that counts and discards what is written (pickling needs no memory copy)."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        return len(data)


def pickle_error(obj: Any) -> str | None:
    """The error pickling ``obj`` as spawn does, or None when it pickles."""
    try:
        pickle.Pickler(_Sink(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return None


def unpicklable_path(obj: Any, name: str = "dataset", depth: int = 0) -> tuple[str, str, str]:
    """The deepest attribute path that fails to pickle, its type and the error."""
    message = pickle_error(obj) or ""
    if depth < MAX_DEPTH:
        try:
            parts = list(children(obj))
        except Exception:
            parts = []
        for key, value in parts:
            if pickle_error(value) is not None:
                return unpicklable_path(value, name + key, depth + 1)
    return name, f"{type(obj).__module__}.{type(obj).__qualname__}", message


def find_unpicklable(obj: Any, name: str = "dataset") -> tuple[str, str] | None:
    """``(path, reason)`` of the deepest part of ``obj`` that fails to pickle, or None."""
    if pickle_error(obj) is None:
        return None
    path, kind, message = unpicklable_path(obj, name)
    return path, f"{path} (a {kind.rsplit('.', 1)[-1]}) cannot be pickled: {message}"
