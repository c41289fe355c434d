"""Merge the samplers' stack files into a trial's profile, and say it in one line.

A profile is a list of entries, largest share first::

    {"frame": "ds.py:28 __getitem__", "under": "numpy/_core/numeric.py:1 tanh",
     "part": "own", "share": 0.61, "cpu_share": 0.58}

``frame`` is the innermost own frame (or, for time in torch's and multiprocessing's machinery,
the innermost frame), ``under`` the innermost frame below it when that is a library's;
``part`` says what a frame outside the user's code stands for (collate, hand-over, idle,
pin memory, other). ``share`` is the share of the sampled wall time: the processes' main
threads, plus a worker's feeder thread while it pickles and sends batches (hand-over);
``cpu_share`` the share spent on a CPU (None where the OS keeps no thread clock).
"""

from __future__ import annotations

from typing import Any

from loadertune.profile.frames import COLLATE, HANDOVER, IDLE, OTHER, OWN, PIN

TOP = 12
PART_NAMES = {COLLATE: "collate", HANDOVER: "hand-over", IDLE: "idle (waiting for indices)",
              PIN: "pin memory"}


def merge(files: list[dict[str, Any]], top: int = TOP) -> list[dict[str, Any]]:
    """The ``top`` largest entries over every process's stack file (see the module doc)."""
    totals: dict[tuple[str, str | None, str], list[float | None]] = {}
    wall_all = 0.0
    for data in files:
        for own, inner, part, wall, cpu in data.get("entries") or []:
            frame, under = (own, inner if inner != own else None) if own else (inner, None)
            slot = totals.setdefault((frame, under, part), [0.0, 0.0])
            slot[0] = (slot[0] or 0.0) + wall
            slot[1] = None if cpu is None or slot[1] is None else slot[1] + cpu
            wall_all += wall
    if wall_all <= 0:
        return []
    ranked = sorted(totals.items(), key=lambda kv: -(kv[1][0] or 0.0))[:top]
    return [{"frame": frame, "under": under, "part": part, "share": (wall or 0.0) / wall_all,
             "cpu_share": None if cpu is None else cpu / wall_all}
            for (frame, under, part), (wall, cpu) in ranked]


def _short(label: str) -> str:
    """``path/to/ds.py:28 __getitem__`` → ``ds.py:28 __getitem__``."""
    where, _, func = label.partition(" ")
    return f"{where.rsplit('/', 1)[-1]} {func}".strip()


def _library(label: str) -> str:
    """``numpy/_core/numeric.py:12 tanh`` → ``numpy tanh``."""
    where, _, func = label.partition(" ")
    return f"{where.split('/', 1)[0].split(':', 1)[0].removesuffix('.py')} {func}".strip()


def result_line(result: Any) -> str | None:
    """`profile_line` of a `TrialResult` (or None), naming its config; None without one."""
    if result is None:
        return None
    line = profile_line(getattr(result, "profile", None) or [])
    return None if line is None else f"{line} ({result.config.label()})"


def profile_line(profile: list[dict[str, Any]], most: int = 5) -> str | None:
    """``where worker time goes: 61 % ds.py:28 __getitem__ → numpy tanh, 22 % collate, …``"""
    if not profile:
        return None
    groups: dict[str, float] = {}
    for entry in profile:
        if entry["part"] == OWN:
            name = _short(entry["frame"])
            if entry.get("under"):
                name += f" → {_library(entry['under'])}"
        elif entry["part"] in PART_NAMES:
            name = PART_NAMES[entry["part"]]
        else:
            name = _library(entry["frame"]) if entry["part"] == OTHER else entry["part"]
        groups[name] = groups.get(name, 0.0) + entry["share"]
    ranked = [(share, name) for name, share in groups.items() if share >= 0.02]
    ranked.sort(reverse=True)
    if not ranked:
        return None
    return "where worker time goes: " + ", ".join(
        f"{100 * share:.0f} % {name}" for share, name in ranked[:most])
