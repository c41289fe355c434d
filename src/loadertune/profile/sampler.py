"""A sampling profiler for one process's main thread, reporting through a file.

Every ``interval_s`` (10 ms when profiling) the main thread's current frame is looked at: from
a SIGALRM interval timer whose handler runs in the main thread itself (where SIGALRM is free),
else by a daemon thread (``sys._current_frames()``). A look finds the innermost own frame (see
`frames.is_own`) and the innermost frame overall, and adds the wall time since the last look,
and the main thread's CPU time over it, to that pair; a worker's feeder thread
(multiprocessing's, which pickles and sends its batches) is looked at too, and its busy time
credited to hand-over. Every `FLUSH_S` the daemon thread writes the totals and the main
thread's current stack to ``DIR/stack-PID.json`` (written to a temporary name, then
renamed), so the trial process can read a worker's profile, or the stack of a worker that
hangs, without asking it anything. The file is the only thing it leaves; the trial's private
temp folder holding it is removed with the trial.

In DataLoader workers it starts from `SamplerInit`, a ``worker_init_fn`` that starts the
sampler first (a hang in the user's own ``worker_init_fn`` is seen too) and then chains it.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from loadertune.profile.frames import BOUNDARY, HANDOVER, OTHER, OWN, Frame, role, stack_of

FLUSH_S = 0.5
PROFILE_INTERVAL_S = 0.01  # a look every 10 ms
STACK_INTERVAL_S = 0.25  # profiling off: only keep the current stack for hang reports
TIMER_BELOW_S = 0.05  # intervals this short sample from the SIGALRM timer
# the trial asks a worker for its totals now (see request_flush); None where there is none
FLUSH_SIGNAL: int | None = getattr(signal, "SIGUSR1", None)
REQUEST_WAIT_S = 0.5

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
        self.last = (0.0, 0.0)  # monotonic time and main-thread CPU time of the last look
        self.timer = False
        self.on_request = False  # flushes on FLUSH_SIGNAL (see `request_flush`)
        self.cpu_known = True
        self.started = time.monotonic()
        self.threads: dict[str, int] | None = None  # the worker's thread pools (trial.threads)

    def run(self) -> None:
        """Flush every `FLUSH_S`; between flushes, look every ``interval_s`` unless the
        interval timer samples (see `use_timer`)."""
        current = sys._current_frames
        cpu = _thread_cpu_clock(self.target)
        self.cpu_known = self.cpu_known and (self.timer or cpu is not None)
        next_flush = self.started
        while self.running:
            time.sleep(FLUSH_S if self.timer else self.interval_s)
            frame = current().get(self.target)
            now = time.monotonic()
            if not self.timer and frame is not None:
                self._record(frame, now, cpu() if cpu is not None else 0.0)
            if now >= next_flush:
                self.flush(frame)
                next_flush = now + FLUSH_S
                if self.feeder is None:
                    self._find_feeder()
            del frame  # hold no frame (and its locals) between looks

    def use_timer(self) -> bool:
        """Sample from a SIGALRM interval timer in the main thread (call it there): the
        handler sees the main thread's frame itself, so no GIL hand-over to this thread is
        forced (which costs a busy worker, and lands a look at the next GIL release, not
        where the thread was). Not when SIGALRM or the timer is already in use."""
        try:
            if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None) or \
                    signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
                return False
            signal.signal(signal.SIGALRM, self._on_alarm)
            signal.siginterrupt(signal.SIGALRM, False)  # restart what can be restarted
            signal.setitimer(signal.ITIMER_REAL, self.interval_s, self.interval_s)
            if FLUSH_SIGNAL is not None and signal.getsignal(FLUSH_SIGNAL) == signal.SIG_DFL:
                signal.signal(FLUSH_SIGNAL, self._on_flush_request)
                signal.siginterrupt(FLUSH_SIGNAL, False)
                self.on_request = True
        except (AttributeError, ValueError, OSError):  # no timer here, or not the main thread
            return False
        self.timer = True
        return True

    def finish(self) -> None:
        """The last look of a process that ends: no timer left armed, the totals written."""
        with contextlib.suppress(ValueError):  # (not the main thread: the timer is not ours)
            self.stop_timer()
        self.flush(None)

    def _on_flush_request(self, signum: int, frame: FrameType | None) -> None:
        self.flush(frame)

    def stop_timer(self) -> None:
        """Stop the interval timer and put SIGALRM back (main thread)."""
        if self.timer:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            self.timer = False
        if self.on_request and FLUSH_SIGNAL is not None:
            signal.signal(FLUSH_SIGNAL, signal.SIG_DFL)
            self.on_request = False

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        if frame is not None:
            self._record(frame, time.monotonic(), time.thread_time())

    def _record(self, frame: FrameType, now: float, used: float) -> None:
        """Credit the wall and CPU time since the last look to ``frame``'s key."""
        last, last_cpu = self.last
        if last:
            totals = self.totals.setdefault(self._key(frame), [0.0, 0.0])
            totals[0] += now - last
            totals[1] += used - last_cpu
            if self.feeder is not None:
                self._feeder_look(sys._current_frames().get(self.feeder[0]), now - last)
        self.last = (now, used)

    def _find_feeder(self) -> None:
        """The thread multiprocessing starts to pickle and send a worker's batches."""
        for thread in threading.enumerate():
            if thread.name == "QueueFeederThread" and thread.ident is not None:
                clock = _thread_cpu_clock(thread.ident)
                self.feeder = (thread.ident, clock, [clock() if clock else 0.0])

    def _feeder_look(self, frame: FrameType | None, elapsed: float) -> None:
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
            if kind == BOUNDARY:
                break
            if part == OTHER and kind != OTHER:
                part = kind
            walk = walk.f_back
        return None, 0, inner.f_code, inner.f_lineno, part

    def flush(self, frame: FrameType | None) -> None:
        """Write totals and the current stack to this process's stack file (from the daemon
        thread, or the main thread when the trial asks, each to a temporary name of its own)."""
        entries = []
        for (own, own_line, inner, inner_line, part), (wall, cpu) in list(self.totals.items()):
            own_label = (Frame(own.co_filename, own_line, own.co_name).label()
                         if own is not None else None)
            inner_label = Frame(inner.co_filename, inner_line, inner.co_name).label()
            entries.append([own_label, inner_label, part, wall, cpu if self.cpu_known else None])
        stack = [[f.file, f.line, f.func] for f in stack_of(frame)]
        data = {"who": self.who, "pid": os.getpid(), "t": time.time(),
                "wall_s": time.monotonic() - self.started, "stack": stack, "entries": entries,
                "on_request": self.on_request, "threads": self.threads}
        path = stack_file(self.directory, os.getpid())
        temporary = f"{path}.{threading.get_ident()}.tmp"
        with contextlib.suppress(OSError):  # the trial is over and its folder gone
            with open(temporary, "w") as out:
                json.dump(data, out)
            os.replace(temporary, path)


def start_sampler(directory: str, who: str, interval_s: float) -> StackSampler:
    """Start sampling this process's main thread (call it from the main thread): profiling
    (a short interval) by the SIGALRM timer where it is free, else by the thread."""
    sampler = StackSampler(directory, who, interval_s)
    if interval_s < TIMER_BELOW_S:
        sampler.use_timer()
    sampler.flush(None)  # the file is there from the start: the trial knows the worker is up
    sampler.start()
    return sampler


@dataclass
class SamplerInit:
    """``worker_init_fn``: start this worker's `StackSampler`, then call the user's own."""

    directory: str
    interval_s: float
    user_fn: Callable[[int], Any] | None = None
    count_threads: bool = False  # write the thread pools' sizes after the user's function

    def __call__(self, worker_id: int) -> None:
        sampler = start_sampler(self.directory, f"worker {worker_id}", self.interval_s)
        # a worker that ends (an epoch over) stops its timer, then writes its last totals, on
        # the way out: a spawned worker's interpreter puts SIGALRM back to its default (which
        # ends the process) while finalizing, so an alarm left armed would kill it
        multiprocessing.util.Finalize(sampler, sampler.finish, exitpriority=10)
        if self.user_fn is not None:
            self.user_fn(worker_id)
        if self.count_threads:
            from loadertune.trial.threads import pool_threads

            sampler.threads = pool_threads()  # in the main thread: OpenMP's count is per thread
            sampler.flush(None)


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


def request_flush(directory: str, pids: list[int]) -> None:
    """Ask the samplers of ``pids`` that flush on request for their totals now, and wait (at
    most `REQUEST_WAIT_S`) until their files are newer than the request."""
    asked = time.time()
    waiting = set()
    for data in read_stack_files(directory):
        pid = data.get("pid")
        if pid in pids and data.get("on_request") and FLUSH_SIGNAL is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, FLUSH_SIGNAL)
                waiting.add(pid)
    deadline = time.monotonic() + REQUEST_WAIT_S
    while waiting and time.monotonic() < deadline:
        time.sleep(0.01)
        fresh = {d.get("pid") for d in read_stack_files(directory) if d.get("t", 0) >= asked}
        waiting -= fresh
