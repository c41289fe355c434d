"""The trial process: builds the DataLoader, consumes batches, reports events to the parent.

Run as ``python -m loadertune.trial.child EVENT_FD`` with a pickled `TrialJob` on stdin, in a
session of its own so that the parent can kill it and every worker with one signal.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from loadertune.profile.trial import TrialProfiler
from loadertune.trial.classify import INDEX_NOTE, classify
from loadertune.trial.consumer import make_step
from loadertune.trial.job import EventWriter, TrialJob
from loadertune.trial.process import TRIAL_TMP_PREFIX
from loadertune.trial.results import TrialFailure
from loadertune.trial.stats import median, relative_spread, window_rates
from loadertune.trial.threads import ThreadCap

if TYPE_CHECKING:
    from loadertune.config import LoaderConfig
    from loadertune.pipeline import LoadedDataset
    from loadertune.trial.plan import TrialPlan

PROGRESS_EVERY_S = 0.2


class IndexTagged:
    """Wraps a map-style dataset so an exception names the index that raised it."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: Any) -> Any:
        try:
            return self.dataset[index]
        except Exception as err:
            err.add_note(f"{INDEX_NOTE}{index}")
            raise

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        inner = getattr(self.dataset, "__getitems__", None)
        if inner is None:
            return [self[i] for i in indices]
        return inner(indices)


def die_orphaned() -> None:
    """The parent is gone: remove this trial's temp folder and kill its process group, so a
    crashed or SIGKILLed loadertune leaves no orphans and no files."""
    tmp = os.environ.get("TMPDIR", "")
    if os.path.basename(tmp).startswith(TRIAL_TMP_PREFIX):
        shutil.rmtree(tmp, ignore_errors=True)
    os.killpg(0, signal.SIGKILL)


def watch_parent(parent: int) -> None:
    """Call `die_orphaned` as soon as the parent process disappears."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            die_orphaned()


def batch_length(batch: Any, default: int) -> int:
    """Samples in a collated batch: the leading size of its first tensor or array."""
    import torch

    stack = [batch]
    while stack:
        item = stack.pop(0)
        if isinstance(item, torch.Tensor):
            return int(item.shape[0]) if item.dim() > 0 else 1
        shape = getattr(item, "shape", None)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            if item and not isinstance(item[0], (list, tuple, dict)) and \
                    getattr(item[0], "shape", None) is None:
                return len(item)
            stack.extend(item)
    return default


def worker_exits(iterator: Any, settle_s: float = 0.5) -> dict[int, int]:
    """Exit codes of the iterator's workers that have ended (negative: killed by a signal)."""
    workers = list(getattr(iterator, "_workers", []) or [])
    deadline = time.monotonic() + settle_s
    exits: dict[int, int] = {}
    while True:
        for wid, proc in enumerate(workers):
            code = proc.exitcode
            if code is not None and code != 0:
                exits[wid] = code
        if exits or time.monotonic() >= deadline:
            return exits
        time.sleep(0.05)


def describe_failure(err: BaseException, worker_pids: dict[int, int],
                     iterator: Any) -> TrialFailure:
    """Classify ``err`` with the workers' exit codes, ignoring torch's later SIGCHLD errors.

    After a worker dies, torch's SIGCHLD handler may raise again at any moment; it is switched
    off first, and an error it raised in between replaces the first (it names the signal).
    """
    for _ in range(3):
        try:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            return classify(err, worker_pids, worker_exits(iterator))
        except RuntimeError as late:
            err = late
    return classify(err, worker_pids)


Pipeline = tuple["LoadedDataset", Any]


def load(job: TrialJob, inherited: Pipeline | None = None) -> Pipeline:
    """The user's pipeline (dataset, collate_fn, loader parts) and step of ``job``: inherited
    from the parent (a forked trial), unpickled, or imported from its spec."""
    from loadertune.pipeline import LoadedDataset, import_target, load_dataset, resolve_attr
    from loadertune.pipeline import split_spec as split_target

    sys.path[:] = job.sys_path
    if job.preparation:
        import multiprocessing.spawn

        multiprocessing.spawn.prepare(job.preparation)
    if inherited is not None:
        loaded, step = inherited
    else:
        dataset, collate_fn, step, parts = (pickle.loads(job.payload) if job.payload
                                            else (None, None, None, None))
        loaded = LoadedDataset(dataset=dataset, collate_fn=collate_fn, spec=None, parts=parts)
    if job.spec is not None:
        loaded = load_dataset(job.spec, job.split)
    if job.step_spec is not None:
        target, attr = split_target(job.step_spec)
        step = resolve_attr(import_target(target), attr, job.step_spec)
    return loaded, step


def build(loaded: LoadedDataset, config: Any) -> Any:
    """The loader a trial iterates: the user's own rebuilt with ``config``'s knobs, or a plain
    one over a bare dataset (whose errors then name the index)."""
    if loaded.parts is None and not loaded.iterable:
        loaded = replace(loaded, dataset=IndexTagged(loaded.dataset))
    return loaded.loader(config)


def measure(job: TrialJob, events: EventWriter, inherited: Pipeline | None = None) -> None:
    """Iterate the loader until warm-up and enough steady windows are timed; report them."""
    loaded, user_step = load(job, inherited)
    config, plan = job.config, job.plan
    step = make_step(plan.step_ms, plan.step_kind, user_step)
    if plan.sample is not None:
        from loadertune.trial.cache import Decoded, Sampled

        sample = (Decoded if plan.cached else Sampled)(loaded.dataset, plan.sample)
        loaded = replace(loaded, dataset=sample)
    loader = build(loaded, config)
    if plan.worker_threads is not None and config.num_workers > 0:
        loader.worker_init_fn = ThreadCap(plan.worker_threads, loader.worker_init_fn)
    profiler = TrialProfiler.start(loader, config.num_workers, plan.profile,
                                   lambda failure: events.send("failure", **failure.to_dict()))
    try:
        _measure(loader, config, plan, step, events, profiler)
    finally:
        profiler.stop()


def _measure(loader: Any, config: LoaderConfig, plan: TrialPlan, step: Any,
             events: EventWriter, profiler: TrialProfiler) -> None:
    warmup = plan.warmup_for(config)
    window = plan.window_for(config)
    needed = warmup + window * plan.repeats
    most = warmup + window * max(plan.max_repeats, plan.repeats)
    events.send("ready", t=time.monotonic(), pid=os.getpid(), warmup=warmup)

    times: list[float] = []
    sizes: list[int] = []
    epoch_starts: list[float] = []
    worker_pids: dict[int, int] = {}
    next_progress = 0.0
    rates: list[float] = []
    step_time = 0.0  # seconds spent in the step on timed (post-warm-up) batches
    step_count = 0
    iterator = None
    try:
        while len(times) < needed:
            started = time.monotonic()
            iterator = iter(loader)
            pids = [w.pid for w in getattr(iterator, "_workers", [])]
            worker_pids.update({pid: i for i, pid in enumerate(pids)})
            events.send("workers", pids=pids, t=started)
            profiler.watch.epoch(pids)
            before = len(times)
            for batch in iterator:
                now = time.monotonic()
                profiler.watch.batch(now)
                if len(times) == before:
                    epoch_starts.append(now - started)
                    if before == 0:
                        events.send("first_batch", t=now, seconds=now - started)
                times.append(now)
                sizes.append(batch_length(batch, config.batch_size))
                if len(times) == warmup:
                    events.send("warm", t=now, **worker_counters(worker_pids))
                if step is not None:
                    step_started = time.monotonic()
                    step(batch)
                    if len(times) > warmup:
                        step_time += time.monotonic() - step_started
                        step_count += 1
                if now >= next_progress:
                    events.send("progress", batches=len(times), needed=needed, t=now)
                    next_progress = now + PROGRESS_EVERY_S
                if len(times) >= needed:
                    rates = window_rates(times, sizes, warmup, window)
                    if relative_spread(rates) <= plan.spread_limit or needed >= most:
                        break
                    needed += window
            if len(times) == before:
                events.send("failure", kind="no_data",
                            message="the dataset yielded no batch in an epoch"
                                    + (" (is it empty?)" if before == 0 else ""))
                return
            if len(times) < needed:
                iterator = None  # epoch over: shut its workers down before the next one
    except Exception as err:
        events.send("failure", **describe_failure(err, worker_pids, iterator).to_dict())
        return
    samples = sum(sizes[warmup:])
    rate = median(rates)
    events.send(
        "done",
        t=times[-1],
        rates=rates,
        samples_per_s=rate,
        batches_per_s=rate * (len(times) - warmup) / samples if samples else None,
        spread=relative_spread(rates),
        first_batch_s=epoch_starts[0],
        epoch_start_s=median(epoch_starts[1:]) if len(epoch_starts) > 1 else None,
        batches=len(times),
        samples=samples,
        remeasured=len(rates) > plan.repeats,
        step_s=step_time / step_count if step_count else None,
        worker_pids={str(pid): wid for pid, wid in worker_pids.items()},
        profile=profiler.profile(pids),
        worker_threads=profiler.threads(),
        cpu_s=time.process_time(),  # this process's own CPU, in case it exits before a sample
        **worker_counters(worker_pids),
    )
    del iterator  # workers shut down after the parent has the numbers


def worker_counters(worker_pids: dict[int, int]) -> dict[str, Any]:
    """The workers' scheduler times and read counters now, while they live (the supervisor,
    on a busy machine, may read them only after they exited): the one reading of them."""
    from loadertune.trial.sampler import read_counts, sched_times

    return {"t_counters": time.monotonic(),
            "sched": {str(pid): sched_times(pid) for pid in worker_pids},
            "reads": {str(pid): read_counts(pid) for pid in worker_pids}}


def run(job: TrialJob, events: EventWriter, inherited: Pipeline | None = None) -> None:
    """Run the job's task; an error loading the dataset or building the loader is a failure."""
    try:
        if job.task == "probe":
            from loadertune.tuning.probe import probe_task

            loaded, _ = load(job, inherited)
            events.send("done", **probe_task(loaded, job.config.batch_size))
        else:
            measure(job, events, inherited)
    except Exception as err:
        failure = classify(err, {})
        events.send("failure", **failure.to_dict())


def run_forked(job: TrialJob, inherited: Pipeline, event_fd: int) -> None:
    """A forked trial process: the parent's objects, the fresh interpreter's protocol."""
    events = EventWriter(event_fd, on_broken=die_orphaned)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    run(job, events, inherited)


def main() -> None:
    from loadertune.trial.runner import spawn_only

    if spawn_only():  # workers start as on macOS and Windows
        multiprocessing.set_start_method("spawn", force=True)
    events = EventWriter(int(sys.argv[1]), on_broken=die_orphaned)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        job: TrialJob = pickle.load(sys.stdin.buffer)
    except Exception as err:
        events.send("failure", kind="crashed", message=f"could not read the trial job: {err}")
        sys.exit(1)
    run(job, events)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
