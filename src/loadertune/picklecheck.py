"""Find what stops a dataset from being pickled, as spawn and forkserver workers require."""

from __future__ import annotations

import io
import pickle
from typing import Any

MAX_DEPTH = 3


def _pickle_error(obj: Any) -> Exception | None:
    from multiprocessing.reduction import ForkingPickler

    try:
        ForkingPickler(io.BytesIO(), pickle.HIGHEST_PROTOCOL).dump(obj)
    except Exception as err:
        return err
    return None


def _children(obj: Any) -> list[tuple[str, Any]]:
    if isinstance(obj, dict):
        return [(f"[{k!r}]", v) for k, v in list(obj.items())[:200]]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [(f"[{i}]", v) for i, v in enumerate(list(obj)[:200])]
    state = getattr(obj, "__dict__", None)
    if isinstance(state, dict):
        return [(f".{k}", v) for k, v in state.items()]
    return []


def find_unpicklable(obj: Any, name: str = "dataset") -> tuple[str, str] | None:
    """``(path, reason)`` of the deepest part of ``obj`` that fails to pickle, or None."""
    err = _pickle_error(obj)
    if err is None:
        return None
    path, culprit_err = name, err
    current = obj
    for _ in range(MAX_DEPTH):
        for child_name, child in _children(current):
            child_err = _pickle_error(child)
            if child_err is not None:
                path, current, culprit_err = path + child_name, child, child_err
                break
        else:
            break
    kind = type(current).__name__
    return path, f"{path} (a {kind}) cannot be pickled: {culprit_err}"
