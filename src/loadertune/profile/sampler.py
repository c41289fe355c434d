"""A sampling profiler for one process's main thread, reporting through a file.

A daemon thread looks at the main thread's current frame every ``interval_s``
(``sys._current_frames()``), finds the innermost own frame (see `frames.is_own`) and the
innermost frame overall, and adds the wall time since the last look, and the main thread's CPU
time over it (its per-thread clock, where the OS has one), to that pair; a worker's feeder
thread (multiprocessing's, which pickles and sends its batches) is looked at too, and its busy
time credited to hand-over. Every ``flush_s`` it
writes the totals and the main thread's current stack to ``DIR/stack-PID.json`` (written to a
temporary name, then renamed), so the trial process can read a worker's profile, or the stack
of a worker that hangs, without asking it anything. The file is the only thing it leaves; the
trial's private temp folder holding it is removed with the trial.

In DataLoader workers it starts from `SamplerInit`, a ``worker_init_fn`` that starts the
sampler first (a hang in the user's own ``worker_init_fn`` is seen too) and then chains it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from loadertune.profile.frames import HANDOVER, OTHER, OWN, Frame, role, stack_of

FLUSH_S = 0.5
PROFILE_INTERVAL_S = 0.005  # a look every 5 ms
STACK_INTERVAL_S = 0.25  # profiling off: only keep the current stack for hang reports
SWITCH_BELOW_S, SWITCH_S = 0.05, 0.0005  # profiling: GIL switch interval 0.5 ms

Key = tuple[CodeType | None, int, CodeType, int, str]


def stack_file(directory: str, pid: int) -> str:
    return os.path.join(directory, f"stack-{pid}.json")


def _thread_cpu_clock(ident: int) -> Callable[[], float] | None:
    """The CPU time of thread ``ident`` (Linux, most Unix), or None where unknown."""
    try:
        clock = time.pthread_getcpuclockid(ident)
        time.clock_gettime(clock)
    except (AttributeError, OSError):
        return None
    return lambda: time.clock_gettime(clock)


class StackSampler(threading.Thread):
    """Samples the main thread of this process; see the module docstring."""

    def __init__(self, directory: str, who: str, interval_s: float) -> None:
        super().__init__(name="loadertune-profile", daemon=True)
        self.directory = directory
        self.who = who
        self.interval_s = interval_s
        self.target = threading.main_thread().ident or 0
        self.totals: dict[Key, list[float]] = {}
        self.roles: dict[CodeType, str] = {}
        self.running = True
        self.feeder: tuple[int, Callable[[], float] | None, list[float]] | None = None

    def run(self) -> None:
        cpu = _thread_cpu_clock(self.target)
        clock, current = time.monotonic, sys._current_frames
        started = last = clock()
        last_cpu = cpu() if cpu is not None else 0.0
        next_flush = started
        while self.running:
            time.sleep(self.interval_s)
            frame = current().get(self.target)
            now = clock()
            used = cpu() if cpu is not None else 0.0
            if frame is not None:
                totals = self.totals.setdefault(self._key(frame), [0.0, 0.0])
                totals[0] += now - last
                totals[1] += used - last_cpu
            if self.feeder is not None:
                self._feeder_look(current().get(self.feeder[0]), now, now - last)
            last, last_cpu = now, used
            if now >= next_flush:
                self.flush(frame, now - started, cpu is not None)
                next_flush = now + FLUSH_S
                if self.feeder is None:
                    self._find_feeder()
            del frame  # hold no frame (and its locals) between looks

    def _find_feeder(self) -> None:
        """The thread multiprocessing starts to pickle and send a worker's batches."""
        for thread in threading.enumerate():
            if thread.name == "QueueFeederThread" and thread.ident is not None:
                clock = _thread_cpu_clock(thread.ident)
                self.feeder = (thread.ident, clock, [clock() if clock else 0.0])

    def _feeder_look(self, frame: FrameType | None, now: float, elapsed: float) -> None:
        """Credit ``elapsed`` to hand-over when the feeder thread is busy (not waiting)."""
        assert self.feeder is not None
        _, clock, last = self.feeder
        used = clock() if clock is not None else 0.0
        if frame is not None and frame.f_code.co_name != "wait":
            key = (None, 0, frame.f_code, frame.f_lineno, HANDOVER)
            totals = self.totals.setdefault(key, [0.0, 0.0])
            totals[0] += elapsed
            totals[1] += used - last[0]
        last[0] = used

    def _key(self, frame: FrameType) -> Key:
        """(own code, its line, innermost code, its line, what the machinery part is)."""
        roles = self.roles
        inner = frame
        part = OTHER
        walk: FrameType | None = frame
        while walk is not None:
            code = walk.f_code
            kind = roles.get(code)
            if kind is None:
                kind = roles[code] = role(code)
            if kind == OWN:
                return code, walk.f_lineno, inner.f_code, inner.f_lineno, OWN
            if part == OTHER and kind != OTHER:
                part = kind
            walk = walk.f_back
        return None, 0, inner.f_code, inner.f_lineno, part

    def flush(self, frame: FrameType | None, wall_s: float, cpu_known: bool) -> None:
        """Write totals and the current stack to this process's stack file."""
        entries = []
        for (own, own_line, inner, inner_line, part), (wall, cpu) in list(self.totals.items()):
            own_label = (Frame(own.co_filename, own_line, own.co_name).label()
                         if own is not None else None)
            inner_label = Frame(inner.co_filename, inner_line, inner.co_name).label()
            entries.append([own_label, inner_label, part, wall, cpu if cpu_known else None])
        stack = [[f.file, f.line, f.func] for f in stack_of(frame)]
        data = {"who": self.who, "pid": os.getpid(), "t": time.time(), "wall_s": wall_s,
                "stack": stack, "entries": entries}
        path = stack_file(self.directory, os.getpid())
        with contextlib.suppress(OSError):  # the trial is over and its folder gone
            with open(path + ".tmp", "w") as out:
                json.dump(data, out)
            os.replace(path + ".tmp", path)


def start_sampler(directory: str, who: str, interval_s: float) -> StackSampler:
    """Start sampling this process's main thread. Profiling (a short interval) also shortens
    the GIL switch interval, so that a look lands where the main thread is when it was due,
    not at its next GIL release (a torch call, say), which would credit that line for all."""
    if interval_s < SWITCH_BELOW_S:
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_S))
    sampler = StackSampler(directory, who, interval_s)
    sampler.start()
    return sampler


@dataclass
class SamplerInit:
    """``worker_init_fn``: start this worker's `StackSampler`, then call the user's own."""

    directory: str
    interval_s: float
    user_fn: Callable[[int], Any] | None = None

    def __call__(self, worker_id: int) -> None:
        start_sampler(self.directory, f"worker {worker_id}", self.interval_s)
        if self.user_fn is not None:
            self.user_fn(worker_id)


def read_stack_files(directory: str) -> list[dict[str, Any]]:
    """Every stack file in ``directory`` (one per process that sampled), unreadable ones left."""
    out = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return out
    for name in names:
        if name.startswith("stack-") and name.endswith(".json"):
            with contextlib.suppress(OSError, ValueError), \
                    open(os.path.join(directory, name)) as f:
                out.append(json.load(f))
    return out
