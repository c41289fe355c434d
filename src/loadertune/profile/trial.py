"""The profiler and hang watch of one trial: started around its loader, stopped with it."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loadertune.profile.hang import HangWatch
from loadertune.profile.sampler import (
    PROFILE_INTERVAL_S,
    STACK_INTERVAL_S,
    SamplerInit,
    StackSampler,
    read_stack_files,
    request_flush,
    start_sampler,
)
from loadertune.profile.summary import merge
from loadertune.trial.results import TrialFailure


@dataclass
class TrialProfiler:
    """Samplers in the loader's workers (or, with none, in this process) and a `HangWatch`.

    `start` puts a `SamplerInit` in front of the loader's ``worker_init_fn`` (the user's is
    chained), so every worker, forked or spawned, samples its main thread into a private
    folder; `stop` ends this process's threads and removes the folder.
    """

    directory: str
    profiling: bool
    watch: HangWatch
    main: StackSampler | None = None

    @classmethod
    def start(cls, loader: Any, num_workers: int, profiling: bool,
              report: Callable[[TrialFailure], None]) -> TrialProfiler:
        directory = tempfile.mkdtemp(prefix="loadertune-profile-")
        interval = PROFILE_INTERVAL_S if profiling else STACK_INTERVAL_S
        main = None
        if num_workers > 0:
            loader.worker_init_fn = SamplerInit(directory, interval, loader.worker_init_fn,
                                                count_threads=True)
        elif profiling:
            main = start_sampler(directory, "main", interval)
        watch = HangWatch(directory, report)
        watch.start()
        return cls(directory, profiling, watch, main)

    def profile(self, pids: list[int]) -> list[dict[str, Any]] | None:
        """The merged profile up to now of this process or the live workers ``pids`` (and
        the workers that ended before); None when profiling is off."""
        if not self.profiling:
            return None
        if self.main is not None:
            self.main.flush(sys._getframe())
        request_flush(self.directory, pids)
        return merge(read_stack_files(self.directory))

    def threads(self) -> dict[str, int] | None:
        """The most threads any worker's pools would run, by pool, as each worker had them
        after its ``worker_init_fn`` (None: no worker reported)."""
        out: dict[str, int] = {}
        for data in read_stack_files(self.directory):
            for pool, count in (data.get("threads") or {}).items():
                out[pool] = max(out.get(pool, 0), int(count))
        return out or None

    def stop(self) -> None:
        self.watch.stop()
        if self.main is not None:
            self.main.stop_timer()
            self.main.running = False
            self.main.join(1.0)
        shutil.rmtree(self.directory, ignore_errors=True)
