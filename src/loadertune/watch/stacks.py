"""Worker stacks in a watched loop: hangs reported while the loop goes on, and where worker
time goes.

The trial's machinery (`loadertune.profile`) does the work. While a pass's iterator is made, a
`SamplerInit` stands in front of the loader's ``worker_init_fn`` (the user's is chained), so
each worker keeps its current stack in a file of a private folder (a look every 0.25 s; with
``profile=True`` a 10 ms sampling profile as well). A `HangWatch` thread has only the loop's
waits on its clock (its steps are not hangs): when no batch came for max(``hang_after_s``,
20 × the slowest wait so far) while the workers live, it reads each worker's stack and the
watch reports who is stuck at which file:line. Nothing is killed: when the batch comes, the
loop goes on and the report says how long the wait took. With ``num_workers=0`` the stuck
place is the main thread's own.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from loadertune.profile.hang import HangWatch
from loadertune.profile.sampler import (
    PROFILE_INTERVAL_S,
    STACK_INTERVAL_S,
    SamplerInit,
    read_stack_files,
    request_flush,
)
from loadertune.profile.summary import merge
from loadertune.trial.results import TrialFailure

OUTCOME = "reported only, nothing was killed: the loop goes on waiting"


@dataclass
class LoopHang:
    """One wait of the loop that passed the hang threshold."""

    waited_s: float  # how long the loop had waited when the hang was reported
    message: str  # who is stuck where (each worker's file:line)
    where: str | None  # file:line of the first stuck process's own code
    worker_id: int | None
    detail: str  # every stuck process's stack, as a traceback
    resolved_after_s: float | None = None  # the whole wait, once the batch came

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LoopHang:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def line(self) -> str:
        came = ("the batch has not come yet" if self.resolved_after_s is None
                else f"the batch came after {self.resolved_after_s:.1f} s")
        return f"possible hang: {self.message}; {came}"


def _weakly(method: Callable[..., Any]) -> Callable[..., None]:
    """``method`` (a bound method, or any callable) called through a weak reference."""
    if not hasattr(method, "__self__"):
        return method
    ref = weakref.WeakMethod(method)  # type: ignore[arg-type]

    def call(*args: Any) -> None:
        target = ref()
        if target is not None:
            target(*args)

    return call


class WorkerStacks:
    """The stack files and hang watch of one `Watcher`; see the module docstring.

    ``hang_after_s``: the floor of the threshold (None: no hang reports).
    ``on_hang(hang, resolved)`` is called when a wait passes the threshold (from the watch
    thread, ``resolved=False``) and when its batch comes after all (``resolved=True``). Both
    it and the watch thread's report are held weakly, so the watcher and this are freed (and
    the stack files removed) as soon as the user drops the watcher, with no cycle to collect.
    """

    def __init__(self, hang_after_s: float | None, profiling: bool,
                 on_hang: Callable[[LoopHang, bool], None]) -> None:
        self.hang_after_s = math.inf if hang_after_s is None else hang_after_s
        self.profiling = profiling
        self.on_hang = _weakly(on_hang)
        self.directory = tempfile.mkdtemp(prefix="loadertune-watch-")
        self._remove = weakref.finalize(self, shutil.rmtree, self.directory, True)
        self.hangs: list[LoopHang] = []
        self.pids: list[int] = []
        self._watch: HangWatch | None = None
        self._open: LoopHang | None = None  # reported, its batch not come yet
        self._slowest = 0.0  # the slowest steady wait of the passes before

    def start_pass(self, loader: Any, make_iterator: Callable[[], Iterator[Any]]
                   ) -> Iterator[Any]:
        """``make_iterator()`` with the samplers on the loader while its workers start; the
        iterator it makes, with its waits on the hang watch's clock."""
        user_init = loader.worker_init_fn
        interval = PROFILE_INTERVAL_S if self.profiling else STACK_INTERVAL_S
        loader.worker_init_fn = SamplerInit(self.directory, interval, user_init)
        try:
            iterator = make_iterator()
        finally:
            loader.worker_init_fn = user_init
        self.pids = [w.pid for w in getattr(iterator, "_workers", None) or []]
        watch = HangWatch(self.directory, _weakly(self._reported), floor_s=self.hang_after_s,
                          slowest=self._slowest, outcome=OUTCOME, keep_watching=True,
                          paused=True, main_name="main process")
        watch.epoch(self.pids)
        watch.start()
        self._watch = watch
        return self._clocked(iterator, watch)

    def _clocked(self, iterator: Iterator[Any], watch: HangWatch) -> Iterator[Any]:
        clock = time.monotonic
        while True:
            asked = clock()
            watch.waiting(asked)
            try:
                batch = next(iterator)
            except StopIteration:
                watch.paused = True
                return
            now = clock()
            watch.arrived(now)
            hang = self._open
            if hang is not None:
                self._open = None
                hang.resolved_after_s = now - asked
                self.on_hang(hang, True)
            yield batch

    def _reported(self, failure: TrialFailure) -> None:
        watch = self._watch
        since = watch.reported if watch is not None else None
        waited = time.monotonic() - since if since is not None else 0.0
        hang = LoopHang(round(waited, 2), failure.message, failure.where, failure.worker_id,
                        failure.detail)
        self.hangs.append(hang)
        self._open = hang
        self.on_hang(hang, False)

    def end_pass(self, persistent: bool) -> None:
        """Stop the hang watch; the workers' last totals are asked for while they live."""
        if self._watch is not None:
            self._watch.stop()
            self._slowest = max(self._slowest, self._watch.slowest)
            self._watch = None
        if self.profiling and self.pids:
            request_flush(self.directory, self.pids)
        if not persistent:
            self.pids = []

    def profile(self) -> list[dict[str, Any]] | None:
        """Where worker time went so far, merged over every worker (None: profiling is off,
        or no worker sampled)."""
        if not self.profiling:
            return None
        if self.pids and self._watch is not None:
            request_flush(self.directory, self.pids)
        return merge(read_stack_files(self.directory)) or None

    def close(self) -> None:
        """Stop watching and remove the stack files (also done when this is collected)."""
        self.end_pass(persistent=False)
        self._remove()
