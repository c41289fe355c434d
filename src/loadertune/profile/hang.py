"""Hang detection inside a trial: no batch for long while the workers live → where each is stuck.

`HangWatch` runs as a thread in the trial process. The measuring loop tells it when an epoch's
iterator starts (`epoch`, with its workers' pids) and when a batch arrives (`batch`: two
assignments). The clock of an epoch starts once every worker's sampler has reported (a slow
spawn is not a hang) and restarts at each batch; when it passes max(``floor_s``, ``factor`` ×
the slowest gap between batches so far) while the workers live, the watch reads each worker's
current stack from its stack file (see `loadertune.profile.sampler`), and the main thread's
from this process, and calls ``report`` with a `TrialFailure` of kind ``hang``.

In a live training loop (`loadertune.watch`) only the loop's waits are on the clock: the loop
calls `waiting` when it asks for a batch and `arrived` when it gets it (its step is not a
hang), and with ``keep_watching`` the watch reports each stuck wait once and goes on.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from loadertune.profile.frames import Frame, idle, own_frame, stack_of
from loadertune.profile.sampler import read_stack_files
from loadertune.trial.results import TrialFailure

KILLED = "the process tree was killed"

HANG_FLOOR_S = 10.0
HANG_FACTOR = 20.0
CHECK_S = 0.25


@dataclass
class Stuck:
    """One process's stack when the hang was found (innermost frame first)."""

    who: str
    stack: list[Frame]
    worker_id: int | None = None

    def place(self) -> str:
        """``file:line func`` of its own frame, and the innermost frame when that differs."""
        own, inner = own_frame(self.stack), self.stack[0] if self.stack else None
        if inner is None:
            return "no Python stack (blocked before its sampler ran)"
        if own is None or own == inner:
            return (own or inner).label()
        return f"{own.label()} (innermost {inner.label()})"

    def traceback(self) -> str:
        lines = [f"{self.who} (most recent call last):"]
        lines += [f'  File "{f.file}", line {f.line}, in {f.func}' for f in reversed(self.stack)]
        return "\n".join(lines)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def describe(stuck: list[Stuck], waited_s: float, outcome: str = KILLED) -> TrialFailure:
    """The ``hang`` failure: who is stuck where; the own frame of the first stuck one;
    ``outcome`` says what was done about it."""
    busy = [s for s in stuck if not idle(s.stack)] or stuck
    places = "; ".join(f"{s.who} at {s.place()}" for s in busy)
    idlers = [s.who for s in stuck if s not in busy]
    rest = f"; {', '.join(idlers)} idle (waiting for indices)" if idlers else ""
    first = busy[0] if busy else None
    where_frame = (own_frame(first.stack) or (first.stack[0] if first.stack else None)
                   if first is not None else None)
    return TrialFailure(
        "hang", f"no batch for {waited_s:.0f} s while the workers live: {places}{rest}; "
                f"{outcome}",
        detail="\n\n".join(s.traceback() for s in stuck),
        worker_id=first.worker_id if first is not None else None,
        where=where_frame.where() if where_frame is not None else None)


@dataclass
class HangWatch:
    """Watches a trial's batches; see the module docstring."""

    directory: str
    report: Callable[[TrialFailure], None]
    floor_s: float = HANG_FLOOR_S
    factor: float = HANG_FACTOR
    pids: list[int] = field(default_factory=list)
    since: float | None = None  # when the clock started (None: workers not all up yet)
    last: float | None = None
    slowest: float = 0.0
    running: bool = True
    outcome: str = KILLED  # what is done about a hang, said in the report
    keep_watching: bool = False  # report each stuck wait once and go on watching
    paused: bool = False  # a live loop is in its step: no batch is being waited for
    reported: float | None = None  # the clock start of the wait last reported
    main_name: str = "main trial process"  # what this process is called in the report

    def start(self) -> None:
        self.main = threading.main_thread().ident
        threading.Thread(target=self._loop, name="loadertune-hang", daemon=True).start()

    def stop(self) -> None:
        self.running = False

    def epoch(self, pids: list[int]) -> None:
        """A new iterator with workers ``pids`` (none: the main process loads)."""
        self.last = None
        self.pids = pids
        self.since = None if pids else time.monotonic()

    def batch(self, now: float) -> None:
        if self.last is not None and now - self.last > self.slowest:
            self.slowest = now - self.last
        self.last = self.since = now

    def waiting(self, now: float) -> None:
        """A live loop asks for a batch: the clock restarts (once the workers are up)."""
        if self.since is not None:
            self.since = now
        self.paused = False

    def arrived(self, now: float) -> None:
        """The batch a live loop waited for came: its wait counts towards the slowest (not
        an epoch's first, which includes the workers' start, nor one reported as a hang, which
        would hide the next), and its step is off the clock."""
        self.paused = True
        since = self.since
        if self.last is not None and since is not None and since != self.reported and \
                now - since > self.slowest:
            self.slowest = now - since
        self.last = now

    def _loop(self) -> None:
        while self.running:
            time.sleep(CHECK_S)
            now = time.monotonic()
            pids, since = self.pids, self.since
            if since is None:
                self._maybe_started(pids, now)
                continue
            if self.paused or since == self.reported:
                continue
            limit = max(self.floor_s, self.factor * self.slowest)
            if now - since > limit and self.running and since == self.since and \
                    all(_alive(p) for p in pids):
                self.running = self.keep_watching
                self.reported = since
                self.report(describe(self._stacks(pids), now - since, self.outcome))

    def _maybe_started(self, pids: list[int], now: float) -> None:
        reported = {d.get("pid") for d in read_stack_files(self.directory)}
        if pids and set(pids) <= reported:
            self.since = now

    def _stacks(self, pids: list[int]) -> list[Stuck]:
        """Each live worker's stack from its file, and the main thread's (num_workers=0, or
        a main thread outside the DataLoader, i.e. in the step)."""
        out = []
        files = {d.get("pid"): d for d in read_stack_files(self.directory)}
        for wid, pid in enumerate(pids):
            data = files.get(pid) or {}
            stack = [Frame(*f) for f in data.get("stack") or []]
            out.append(Stuck(f"worker {wid} (pid {pid})", stack, wid))
        with contextlib.suppress(Exception):
            frame = sys._current_frames().get(self.main or 0)
            main = stack_of(frame)
            del frame
            if not pids or not any(f.file.endswith("dataloader.py") for f in main):
                out.append(Stuck(f"{self.main_name} (pid {os.getpid()})", main))
        return out
