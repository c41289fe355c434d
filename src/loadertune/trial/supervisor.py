"""One supervisor for child process trees: start a child in a session of its own, and end it
with everything it started (its process group, and descendants that left the group).

`TrialProcess` (trials, forked or fresh), the benchmarks' measurement children and the tests'
command-line runs all end their children through `kill_tree`; `run_supervised` is the one way
to run a command to completion under a time limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

import psutil

from loadertune.interrupts import signals_deferred

GONE_WAIT_S = 5.0


def descendants(pid: int) -> list[psutil.Process]:
    """Every live descendant of ``pid`` (empty when it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def group_members(pgid: int) -> list[psutil.Process]:
    """Live (not zombie) processes whose process group is ``pgid`` (none without groups)."""
    if not hasattr(os, "getpgid"):
        return []
    members = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                members.append(proc)
        except (OSError, psutil.Error):
            continue
    return members


def _kill(procs: list[psutil.Process]) -> None:
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()


def kill_tree(pid: int, timeout: float = GONE_WAIT_S, *, running: bool = True) -> set[int]:
    """SIGKILL ``pid``'s process group (``pid`` leads a session of its own), ``pid`` and every
    descendant, and wait for the descendants to go; then sweep the group again (a process
    forked while being killed). Returns the pids killed. ``pid`` itself is left for its
    parent to reap; ``running=False`` says it was reaped already (its pid may be reused, so
    only what is left in its group is killed)."""
    strays = descendants(pid) if running else []
    killed = {pid, *(p.pid for p in strays)}
    if hasattr(os, "killpg"):  # POSIX: the group first, so that nothing forks meanwhile
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    if running:
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()
    _kill(strays)
    psutil.wait_procs(strays, timeout=timeout)
    for _ in range(3):
        members = [p for p in group_members(pid) if p.pid != pid]
        if not members:
            break
        killed.update(p.pid for p in members)
        _kill(members)
        psutil.wait_procs(members, timeout=2.0)
    return killed


@dataclass
class Finished:
    """A supervised command's outcome; ``timed_out`` when it was killed at its limit."""

    returncode: int
    stdout: Any
    stderr: Any
    timed_out: bool = False


def run_supervised(argv: Sequence[str], *, timeout: float, input: Any = None,
                   stdout: int | IO[Any] = subprocess.PIPE,
                   stderr: int | IO[Any] = subprocess.PIPE, text: bool = True,
                   **popen: Any) -> Finished:
    """Run ``argv`` in a session of its own until it exits or ``timeout`` passes; then kill
    what is left of its tree (a worker that outlived its parent included). Ctrl-C during the
    run ends the tree too."""
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    with signals_deferred():
        proc = subprocess.Popen(list(argv), stdin=stdin, stdout=stdout, stderr=stderr,
                                text=text, start_new_session=True, **popen)
    timed_out = False
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        out = err = None
    finally:
        with signals_deferred():
            kill_tree(proc.pid, running=proc.poll() is None)
            if proc.returncode is None or timed_out:
                rest = proc.communicate()
                out, err = (out or rest[0]), (err or rest[1])
    return Finished(proc.returncode, out, err, timed_out)
