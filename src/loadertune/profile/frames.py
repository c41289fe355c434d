"""Which code a stack frame belongs to: the user's own, a library, torch's loader machinery.

A frame is "own" when its file is outside the standard library, installed packages and
loadertune itself: that is the dataset's (or collate_fn's, or step's) code. Frames are named
``path:line func``, the path relative to the working directory for own code and from the
package root (``numpy/_core/numeric.py``) for libraries.
"""

from __future__ import annotations

import os
import sysconfig
from dataclasses import dataclass
from types import CodeType, FrameType

import loadertune

_LIBRARY_ROOTS = tuple(
    {os.path.realpath(p) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
     if (p := sysconfig.get_paths().get(key))})
_OWN_PACKAGE = os.path.dirname(os.path.realpath(loadertune.__file__)) + os.sep
_PACKAGE_DIRS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)

# what a frame of torch's or multiprocessing's loader machinery stands for in a worker
COLLATE, HANDOVER, IDLE, PIN, OTHER = "collate", "hand-over", "idle", "pin memory", "other"
OWN = "own"
BOUNDARY = "boundary"  # where a trial's own stack begins: what is above is not the trial's
_BOUNDARIES = (("torch/utils/data/_utils/worker.py", "_worker_loop"),
               ("loadertune/trial/child.py", "_measure"))


@dataclass(frozen=True)
class Frame:
    """One frame of a stack: file, line and function."""

    file: str
    line: int
    func: str

    def label(self) -> str:
        return f"{short_path(self.file)}:{self.line} {self.func}"

    def where(self) -> str:
        return f"{short_path(self.file)}:{self.line}"


def is_own(filename: str) -> bool:
    """Whether ``filename`` is the user's code (not stdlib, an installed package, loadertune)."""
    if filename.startswith("<"):  # <frozen ...>, <string>
        return False
    path = os.path.realpath(filename)
    if path.startswith(_OWN_PACKAGE) or any(d in path for d in _PACKAGE_DIRS):
        return False
    return not path.startswith(_LIBRARY_ROOTS)


def short_path(filename: str) -> str:
    """``filename`` relative to the working directory (own code) or its package root."""
    for marker in _PACKAGE_DIRS:
        if marker in filename:
            return filename.rsplit(marker, 1)[1]
    for root in (*_LIBRARY_ROOTS, os.path.dirname(_OWN_PACKAGE.rstrip(os.sep)) + os.sep):
        if filename.startswith(root):
            return filename[len(root):]
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative


def role(code: CodeType) -> str:
    """What ``code`` stands for: own code, or which part of the loader machinery."""
    name = code.co_filename.replace(os.sep, "/")
    if any(name.endswith(f) and code.co_name == func for f, func in _BOUNDARIES):
        return BOUNDARY
    if is_own(code.co_filename):
        return OWN
    if name.endswith("torch/utils/data/_utils/collate.py"):
        return COLLATE
    if name.endswith("torch/utils/data/_utils/pin_memory.py"):
        return PIN
    if name.endswith("multiprocessing/queues.py"):
        return IDLE if code.co_name == "get" else HANDOVER
    if name.endswith(("multiprocessing/reduction.py", "torch/multiprocessing/reductions.py")):
        return HANDOVER
    return OTHER


def stack_of(frame: FrameType | None, limit: int = 60) -> list[Frame]:
    """The frames from ``frame`` outwards, innermost first (at most ``limit``), up to the
    worker loop or the trial's measuring loop: the frames above them (a forked trial's or
    worker's caller, a user's script among them) are not where its time goes."""
    out: list[Frame] = []
    while frame is not None and len(out) < limit:
        out.append(Frame(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        if role(frame.f_code) == BOUNDARY:
            break
        frame = frame.f_back
    return out


def own_frame(stack: list[Frame]) -> Frame | None:
    """The innermost own frame of ``stack`` (innermost first), or None."""
    return next((f for f in stack if is_own(f.file)), None)


def idle(stack: list[Frame]) -> bool:
    """A worker waiting for indices from the main process (torch's worker loop's ``get``)."""
    return any(f.func == "get" and f.file.endswith("queues.py") for f in stack[:6]) and \
        any(f.func == "_worker_loop" for f in stack)
