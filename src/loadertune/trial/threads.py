"""Thread pools in a worker: how many threads each may run, and a ``worker_init_fn`` that caps
them.

A worker runs the user's code with whatever thread pools its libraries keep: torch's intra-op
pool (torch's worker loop sets it to 1 before ``worker_init_fn``, which a user's own may raise
again), numpy's OpenBLAS (as many threads as cores unless ``OPENBLAS_NUM_THREADS`` /
``OMP_NUM_THREADS`` say otherwise; forked workers inherit the parent's setting) and OpenCV's
(as many as cores). With several workers these multiply: `ThreadCap` sets each to
``threads`` after the user's ``worker_init_fn``. OpenBLAS is reached through the symbols it
exports (the library is found among those this process has loaded), as threadpoolctl does.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_OPENBLAS_PREFIXES = ("openblas", "scipy_openblas")
_OPENBLAS_SUFFIXES = ("", "64_")


def _openblas_libraries() -> list[str]:
    """Paths of the OpenBLAS builds loaded in this process (Linux: from its memory map)."""
    found: dict[str, None] = {}
    with contextlib.suppress(OSError), open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rsplit(None, 1)[-1]
            if ".so" in path and "openblas" in os.path.basename(path).lower():
                found[path] = None
    return list(found)


def _openblas_call(name: str, *args: int) -> list[int]:
    """``<prefix>_<name><suffix>(*args)`` in every loaded OpenBLAS; what each returned."""
    out = []
    for path in _openblas_libraries():
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        except (OSError, AttributeError):
            continue
        for prefix in _OPENBLAS_PREFIXES:
            for suffix in _OPENBLAS_SUFFIXES:
                fn = getattr(lib, f"{prefix}_{name}{suffix}", None)
                if fn is not None:
                    out.append(int(fn(*args) or 0))
                    break
            else:
                continue
            break
    return out


def blas_threads() -> int | None:
    """Threads numpy's OpenBLAS runs in this process (None: no OpenBLAS loaded); else the
    thread count the environment sets for OpenMP/MKL/OpenBLAS, if any."""
    counts = _openblas_call("get_num_threads")
    if counts:
        return max(counts)
    values = [int(v) for name in THREAD_VARS
              if (v := os.environ.get(name, "").split(",")[0].strip()).isdigit()]
    return max(values) if values else None


def opencv_threads() -> int | None:
    """OpenCV's thread count, when this process has loaded OpenCV (None otherwise)."""
    cv2 = sys.modules.get("cv2")
    get = getattr(cv2, "getNumThreads", None)
    return int(get()) if callable(get) else None


def pool_threads() -> dict[str, int]:
    """The threads each loaded pool of this thread would run now: torch's intra-op, OpenBLAS's
    (or the environment's count), OpenCV's."""
    out = {}
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch"] = int(torch.get_num_threads())
    if (blas := blas_threads()) is not None:
        out["blas"] = blas
    if (cv := opencv_threads()) is not None:
        out["opencv"] = cv
    return out


def cap_threads(threads: int) -> None:
    """Set torch's intra-op threads, every loaded OpenBLAS's and OpenCV's to ``threads``."""
    import torch

    torch.set_num_threads(threads)
    _openblas_call("set_num_threads", threads)
    cv2 = sys.modules.get("cv2")
    if callable(getattr(cv2, "setNumThreads", None)):
        cv2.setNumThreads(0 if threads == 1 else threads)  # type: ignore[union-attr]


@dataclass
class ThreadCap:
    """``worker_init_fn``: the user's own first, then every thread pool capped (see
    `cap_threads`): ``DataLoader(..., worker_init_fn=ThreadCap(1, your_fn))``."""

    threads: int = 1
    user_fn: Callable[[int], Any] | None = None

    def __call__(self, worker_id: int) -> None:
        if self.user_fn is not None:
            self.user_fn(worker_id)
        cap_threads(self.threads)
