"""Run one config in an isolated trial process and turn what it reports into a TrialResult."""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.spawn
import os
import pickle
import select
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError
from loadertune.pipeline.rebuild import LoaderParts
from loadertune.trial.child import run_forked
from loadertune.trial.classify import signal_name
from loadertune.trial.job import EventReader, TrialJob
from loadertune.trial.mainguard import unguarded_call
from loadertune.trial.memory import MemoryPeaks
from loadertune.trial.plan import TrialPlan
from loadertune.trial.process import TrialProcess
from loadertune.trial.results import TrialFailure, TrialResult
from loadertune.trial.sampler import (
    TreeSampler,
    blocked_share,
    cpu_used_since,
    reads_between,
)

EXIT_GRACE_S = 3.0
OUTPUT_KEEP = 16_000

Progress = Callable[[int, int], None]


@dataclass
class DatasetSource:
    """Where a trial gets its dataset: a spec string (re-imported) or picklable objects.

    ``parts`` are the user's DataLoader's (sampler, worker_init_fn, ...) when the dataset came
    from one; ``split`` picks a LightningDataModule's loader when a spec names one.
    """

    spec: str | None = None
    dataset: Any = None
    collate_fn: Any = None
    step: Callable[[Any], Any] | None = None
    step_spec: str | None = None
    parts: LoaderParts | None = None
    split: str = "train"
    fork: bool = True

    def forks(self) -> bool:
        """Objects (no spec) on a platform that forks: the trial inherits them, unpickled."""
        return self.fork and self.spec is None and can_fork()

    def check_travel(self) -> None:
        """Raise now, with one clear line, when trials in a fresh interpreter could not get
        the objects: the script calls loadertune outside its main guard, or a part does not
        pickle. Nothing to check when trials fork or import a spec."""
        if self.forks() or (self.spec is not None and self.step is None):
            return
        unguarded = unguarded_call()
        if unguarded is not None:
            raise ConfigError(unguarded.message())
        self.payload()

    def forked_job(self, config: LoaderConfig, plan: TrialPlan, task: str) -> TrialJob:
        return TrialJob(config, plan, None, None, list(sys.path), None, self.step_spec,
                        self.split, task)

    def inherited(self) -> tuple[Any, Any]:
        from loadertune.pipeline import LoadedDataset

        return LoadedDataset(self.dataset, self.collate_fn, None, self.parts), self.step

    def job(self, config: LoaderConfig, plan: TrialPlan, task: str = "measure") -> TrialJob:
        """The job for one trial in a fresh interpreter; objects (dataset or step) travel
        pickled, with the parent's ``__main__`` described so that classes defined in a user's
        script unpickle (refused when the script calls loadertune outside its main guard)."""
        if self.spec is not None and self.step is None:
            return TrialJob(config, plan, self.spec, None, list(sys.path), None, self.step_spec,
                            self.split, task)
        unguarded = unguarded_call()
        if unguarded is not None:
            raise ConfigError(unguarded.message())
        payload = self.payload()
        preparation = multiprocessing.spawn.get_preparation_data("loadertune-trial")
        preparation.pop("authkey", None)  # not picklable outside a spawn, and not needed
        main_path = preparation.get("init_main_from_path")
        if main_path is not None and not os.path.isfile(main_path):
            del preparation["init_main_from_path"]  # `python -` names its script "<stdin>"
        return TrialJob(config, plan, self.spec, payload, list(sys.path), preparation,
                        self.step_spec, self.split, task)

    def payload(self) -> bytes:
        """``(dataset, collate_fn, step, parts)`` pickled for a fresh interpreter; one clear
        line naming the part that cannot be pickled."""
        objects = (self.dataset, self.collate_fn, self.step, self.parts)
        interactive = interactive_main_part(self)
        if interactive is not None:
            raise DatasetSpecError(interactive)
        try:
            return pickle.dumps(objects)
        except Exception as err:
            raise DatasetSpecError(unpicklable_message(self, err)) from err


def _named_parts(source: DatasetSource) -> list[tuple[str, Any]]:
    named = [("dataset", source.dataset), ("collate_fn", source.collate_fn),
             ("step", source.step)]
    if source.parts is not None:
        named.extend(source.parts.named_parts())
    return [(name, obj) for name, obj in named if obj is not None]


def interactive_main_part(source: DatasetSource) -> str | None:
    """A part defined in the ``__main__`` of a notebook or REPL (no file a fresh interpreter
    could import it from): it pickles by name but cannot be unpickled there."""
    if getattr(sys.modules.get("__main__"), "__file__", None):
        return None
    for name, obj in _named_parts(source):
        kind = obj if isinstance(obj, type) or hasattr(obj, "__qualname__") else type(obj)
        if getattr(kind, "__module__", None) == "__main__":
            return (f"trials run in a fresh interpreter here, and the {name} "
                    f"({kind.__qualname__}) is defined in a notebook or interactive session, "
                    "which it cannot import: move it into a .py module and import it")
    return None


def unpicklable_message(source: DatasetSource, err: BaseException) -> str:
    """Which part of ``source`` stops it from travelling to a fresh interpreter, and why."""
    from loadertune.pipeline.picklecheck import find_unpicklable

    for name, obj in _named_parts(source):
        found = find_unpicklable(obj, name)
        if found is not None:
            return (f"trials run in a fresh interpreter (spawn), so the loader is pickled, and "
                    f"{found[1]}; open such resources lazily (in __getitem__ or worker_init_fn) "
                    "and use module-level functions instead of lambdas")
    return f"trials run in a fresh interpreter, and pickling the loader failed: {err}"


SPAWN_ONLY_ENV = "LOADERTUNE_SPAWN_ONLY"


def spawn_only() -> bool:
    """``LOADERTUNE_SPAWN_ONLY=1``: behave as on a platform without fork (macOS, Windows) —
    trials start fresh interpreters and their workers spawn — to check a setup on Linux."""
    return os.environ.get(SPAWN_ONLY_ENV, "") not in ("", "0")


def can_fork() -> bool:
    """Whether trials can fork from the caller (not where fork is unsafe or missing)."""
    return ("fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"
            and not spawn_only())


def run_trial(source: DatasetSource, config: LoaderConfig, plan: TrialPlan,
              progress: Progress | None = None) -> TrialResult:
    """Measure ``config`` in an isolated process; any failure comes back as ``result.failure``."""
    return run_task(source, config, plan, progress)[0]


def run_task(source: DatasetSource, config: LoaderConfig, plan: TrialPlan,
             progress: Progress | None = None,
             task: str = "measure") -> tuple[TrialResult, dict[str, Any] | None]:
    """Run ``task`` in a trial process: forked from here when `DatasetSource.forks`, else a
    fresh interpreter. The result (limits enforced) and the task's "done" event, if any."""
    started = time.monotonic()
    if source.forks():
        job = source.forked_job(config, plan, task)
        start = functools.partial(_start_forked, job=job, inherited=source.inherited())
    else:
        start = functools.partial(_start_fresh, job_bytes=pickle.dumps(source.job(config, plan,
                                                                                  task)))
    with TrialProcess() as proc:
        start(proc)
        observer = _Observer(proc, config, plan, progress)
        result = observer.run()
    result.wall_s = time.monotonic() - started
    return result, observer.done


def _start_fresh(proc: TrialProcess, job_bytes: bytes) -> None:
    proc.start(job_bytes)


def _start_forked(proc: TrialProcess, job: TrialJob, inherited: tuple[Any, Any]) -> None:
    proc.start_forked(functools.partial(run_forked, job, inherited))


class _Observer:
    """Reads the trial's events and output, samples its tree, enforces time and memory."""

    def __init__(self, proc: TrialProcess, config: LoaderConfig, plan: TrialPlan,
                 progress: Progress | None) -> None:
        self.proc = proc
        self.config = config
        self.plan = plan
        self.progress = progress
        self.sampler = TreeSampler(proc.pid)
        self.peaks = MemoryPeaks(main_pid=proc.pid)
        self.reader = EventReader()
        self.output = bytearray()
        self.done: dict[str, Any] | None = None
        self.failure: TrialFailure | None = None
        self.cpu_warm: dict[int, float] | None = None
        self.t_warm: float | None = None
        self.counters_warm = WorkerCounters()  # as the trial read them at warm-up...
        self.counters_last = WorkerCounters()  # ...and with its result
        self.batches_seen = 0
        self.t_end: float | None = None

    def run(self) -> TrialResult:
        plan = self.plan
        deadline = time.monotonic() + plan.timeout_s
        next_sample = last_full = 0.0
        open_fds = {self.proc.event_fd, self.proc.output_fd}
        while self.done is None and self.failure is None:
            now = time.monotonic()
            wait = max(0.0, min(next_sample, deadline) - now)
            ready, _, _ = select.select(list(open_fds), [], [], wait) if open_fds else ([], [], [])
            for fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    open_fds.discard(fd)
                elif fd == self.proc.event_fd:
                    for event in self.reader.feed(data):
                        self._on_event(event)
                else:
                    self.output += data
                    del self.output[:-OUTPUT_KEEP]
            now = time.monotonic()
            if now >= next_sample:
                full = now - last_full >= plan.full_sample_interval_s
                last_full = now if full else last_full
                self._sample(full)
                next_sample = now + plan.sample_interval_s
            if self.failure is not None or self.done is not None:
                break
            if not open_fds and self.proc.poll() is not None:
                self.failure = self._exit_failure()
            elif now >= deadline:
                self.failure = TrialFailure(
                    "timeout",
                    f"no result within the {plan.timeout_s:g} s limit "
                    f"({self.batches_seen} batches arrived); the process tree was killed",
                    detail=self._output_tail())
            elif not open_fds:
                time.sleep(0.01)
        if self.done is not None:
            self._sample(True)
            self.t_end = time.monotonic()
            self.proc.wait_exit(EXIT_GRACE_S)
        return self._result()

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("e")
        if kind == "workers":
            pids = event.get("pids") or []
            self.peaks.worker_ids.update({pid: i for i, pid in enumerate(pids)})
        elif kind == "warm":
            self._sample(True)
            self.cpu_warm = self.sampler.cpu_snapshot()
            self.t_warm = time.monotonic()
            self.counters_warm = WorkerCounters.of(event)
        elif kind == "progress":
            self.batches_seen = int(event.get("batches", 0))
            if self.progress is not None:
                self.progress(self.batches_seen, int(event.get("needed", 0)))
        elif kind == "done":
            if self.t_warm is not None and self.done is None:
                self._sample(False)
                self._own_cpu(event)
                self.counters_last = WorkerCounters.of(event)
            self.done = event
        elif kind == "failure":
            fields = {k: event.get(k) for k in
                      ("kind", "message", "detail", "worker_id", "signal", "index", "where")}
            fields["detail"] = (fields.get("detail") or "") + self._output_tail()
            self.failure = TrialFailure(**{k: v for k, v in fields.items() if v is not None})

    def _sample(self, full: bool) -> None:
        sample = self.sampler.sample(full)
        self.proc.known_pids.update(sample.memory)
        limit = self.plan.memory_limit
        if limit is not None and not full and sample.total_rss() > limit:
            sample = self.sampler.sample(True)  # RSS double-counts shared pages: check PSS
        self.peaks.add(sample)
        if limit is None or self.failure is not None:
            return
        # PSS where it was read (RSS double-counts shared pages); below the limit otherwise
        used = (sample.total_pss() if sample.full else None) or sample.total_rss()
        if used > limit:
            self.failure = TrialFailure(
                "memory_limit",
                f"stopped at {used / 2**30:.2f} GiB of the {limit / 2**30:.2f} GiB memory budget",
                detail=self._output_tail())

    def _exit_failure(self) -> TrialFailure:
        code = self.proc.poll()
        tail = self._output_tail()
        if code is not None and code < 0:
            sig = -code
            hint = " (the kernel's OOM killer sends this when memory runs out)" if sig == 9 else ""
            return TrialFailure("crashed", f"trial process killed by signal {sig} "
                                f"({signal_name(sig)}){hint}", detail=tail, signal=sig)
        last = tail.strip().splitlines()[-1] if tail.strip() else "no output"
        return TrialFailure("crashed", f"trial process exited with code {code}: {last}",
                            detail=tail)

    def _output_tail(self) -> str:
        text = self.output.decode("utf-8", "replace")
        return f"\n--- trial output ---\n{text[-4000:]}" if text.strip() else ""

    def _result(self) -> TrialResult:
        memory = self.peaks.result()
        result = TrialResult(config=self.config, memory=memory, failure=self.failure)
        if self.done is None:
            result.batches = self.batches_seen
            return result
        d = self.done
        result.samples_per_s = d.get("samples_per_s")
        result.batches_per_s = d.get("batches_per_s")
        result.spread = d.get("spread")
        result.repeats = list(d.get("rates") or [])
        result.first_batch_s = d.get("first_batch_s")
        result.epoch_start_s = d.get("epoch_start_s")
        result.batches = int(d.get("batches", 0))
        result.samples = int(d.get("samples", 0))
        result.remeasured = bool(d.get("remeasured"))
        result.step_s = d.get("step_s")
        result.profile = d.get("profile")
        result.worker_threads = d.get("worker_threads")
        self._cpu(result, self.t_end or time.monotonic())
        return result

    def _cpu(self, result: TrialResult, t_end: float) -> None:
        if self.cpu_warm is None or self.t_warm is None:
            return
        elapsed = max(t_end - self.t_warm, 1e-6)
        after = self.sampler.cpu_snapshot()
        workers = set(self.peaks.worker_ids)
        main = {self.proc.pid}
        result.cpu_percent = 100 * cpu_used_since(self.cpu_warm, after) / elapsed
        result.cpu_percent_main = 100 * cpu_used_since(self.cpu_warm, after, main) / elapsed
        result.cpu_percent_workers = 100 * cpu_used_since(self.cpu_warm, after, workers) / elapsed
        warm, last = self.counters_warm, self.counters_last
        if warm.t is not None and last.t is not None and last.sched:
            result.workers_blocked = blocked_share(warm.sched, last.sched, last.t - warm.t)
            result.worker_reads = reads_between(warm.reads, last.reads)

    def _own_cpu(self, done: dict[str, Any]) -> None:
        """The trial process's own CPU as it reported it with its result (it may exit before
        this process samples it again)."""
        own, cpu = done.get("cpu_s"), self.sampler.cpu_seconds
        if isinstance(own, (int, float)) and own > cpu.get(self.proc.pid, 0.0):
            cpu[self.proc.pid] = float(own)


@dataclass(frozen=True)
class WorkerCounters:
    """The workers' scheduler times and read counters by pid, read by the trial process
    itself while they lived (``t``: its monotonic clock then), as an event reports them."""

    t: float | None = None
    sched: dict[int, tuple[int, int]] = field(default_factory=dict)
    reads: dict[int, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, event: dict[str, Any]) -> WorkerCounters:
        t = event.get("t_counters")
        return cls(float(t) if isinstance(t, (int, float)) else None,
                   _by_pid(event.get("sched")), _by_pid(event.get("reads")))


def _by_pid(reported: Any) -> dict[int, tuple[int, int]]:
    """``{"pid": [a, b] | None}`` from an event, as ``{pid: (a, b)}`` less the missing."""
    if not isinstance(reported, dict):
        return {}
    return {int(pid): (int(v[0]), int(v[1])) for pid, v in reported.items()
            if isinstance(v, (list, tuple)) and len(v) == 2}
