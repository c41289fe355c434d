"""A sweep: every config of a grid measured one after another in isolated trials."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.machine import MachineInfo
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.compare import pick
from loadertune.trial.process import close_all
from loadertune.trial.results import TrialFailure, TrialResult


@dataclass(frozen=True)
class Grid:
    """The settings to sweep; prefetch and persistence apply only to configs with workers.

    ``batch_size`` None: the user's loader's (set by `bench.prepare` before any config).
    """

    batch_size: int | None
    workers: tuple[int, ...] = (0, 1, 2)
    prefetch: tuple[int | None, ...] = (None,)
    pin_memory: tuple[bool, ...] = (False,)
    persistent: tuple[bool, ...] = (True,)
    start_methods: tuple[str | None, ...] = (None,)

    def configs(self) -> list[LoaderConfig]:
        """Every distinct config, fewest workers first."""
        assert self.batch_size is not None, "resolve the batch size first"
        seen: dict[LoaderConfig, None] = {}
        for w, pf, pin, persist, sm in itertools.product(
                sorted(set(self.workers)), self.prefetch, self.pin_memory, self.persistent,
                self.start_methods):
            if w == 0:
                cfg = LoaderConfig(num_workers=0, batch_size=self.batch_size, pin_memory=pin)
            else:
                cfg = LoaderConfig(num_workers=w, batch_size=self.batch_size, prefetch_factor=pf,
                                   pin_memory=pin, persistent_workers=persist,
                                   multiprocessing_context=sm)
            seen.setdefault(cfg, None)
        return list(seen)


def same_kind(a: LoaderConfig, b: LoaderConfig) -> bool:
    """Configs that differ only in their number of workers (num_workers=0 matches any)."""
    if a.num_workers == 0 or b.num_workers == 0:
        return a.pin_memory == b.pin_memory
    return (a.pin_memory, a.effective_prefetch, a.persistent_workers,
            a.multiprocessing_context) == (b.pin_memory, b.effective_prefetch,
                                           b.persistent_workers, b.multiprocessing_context)


@dataclass
class SweepResult:
    """All trials of one sweep, with the machine and dataset they ran on."""

    machine: MachineInfo
    dataset: str
    spec: str | None
    plan: TrialPlan
    results: list[TrialResult] = field(default_factory=list)
    started_at: str = ""
    duration_s: float = 0.0
    interrupted: bool = False
    interrupt: BaseException | None = field(default=None, repr=False, compare=False)
    advice: list[dict[str, Any]] = field(default_factory=list)  # measured, beyond the knobs

    def ok(self) -> list[TrialResult]:
        return [r for r in self.results if r.ok]

    def best(self) -> TrialResult | None:
        """The cheapest config that ties with the fastest within the noise of both (at most
        5 % slower): fewer workers, then less prefetch."""
        return pick(self.results)

    def baseline(self) -> TrialResult | None:
        """The num_workers=0 result, the reference for speed-ups."""
        for r in self.results:
            if r.ok and r.config.num_workers == 0:
                return r
        return None

    def failed(self) -> list[TrialResult]:
        return [r for r in self.results if not r.ok]

    def to_dict(self) -> dict[str, Any]:
        best = self.best()
        base = self.baseline()
        return {
            "loadertune": "bench",
            "started_at": self.started_at,
            "duration_s": self.duration_s,
            "interrupted": self.interrupted,
            "dataset": self.dataset,
            "spec": self.spec,
            "machine": self.machine.to_dict(),
            "plan": self.plan.to_dict(),
            "best": best.config.to_kwargs() if best else None,
            "baseline_samples_per_s": base.samples_per_s if base else None,
            "results": [r.to_dict() for r in self.results],
            "advice": self.advice,
        }


TrialStart = Callable[[int, int, LoaderConfig], None]
TrialDone = Callable[[int, TrialResult], None]
BatchProgress = Callable[[int, int], None]


def run_sweep(source: DatasetSource, configs: list[LoaderConfig], plan: TrialPlan,
              machine: MachineInfo, dataset: str, *, on_start: TrialStart | None = None,
              on_batches: BatchProgress | None = None,
              on_done: TrialDone | None = None) -> SweepResult:
    """Measure each config in turn; failures are recorded and the sweep goes on.

    After a config hits the memory limit, larger configs of the same kind are skipped. Ctrl-C
    stops the sweep: finished results are kept and ``interrupted`` is set.
    """
    sweep = SweepResult(machine=machine, dataset=dataset, spec=source.spec, plan=plan,
                        started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    started = time.monotonic()
    walls: list[LoaderConfig] = []
    config: LoaderConfig | None = None
    try:
        for i, config in enumerate(configs):
            if on_start is not None:
                on_start(i, len(configs), config)
            wall = next((w for w in walls if same_kind(w, config)
                         and config.num_workers > w.num_workers), None)
            if wall is not None:
                result = TrialResult(config=config, failure=TrialFailure(
                    "skipped", f"not run: {wall.label()} already exceeded the memory budget"))
            else:
                result = run_trial(source, config, plan, progress=on_batches)
                if result.failure is not None and result.failure.kind == "memory_limit":
                    walls.append(config)
            sweep.results.append(result)
            if on_done is not None:
                on_done(i, result)
    except KeyboardInterrupt as err:
        close_all()  # a trial the interrupt caught between start and ownership
        sweep.interrupted = True
        sweep.interrupt = err
        if config is not None and not any(r.config == config for r in sweep.results):
            why = "SIGTERM" if type(err).__name__ == "Terminated" else "Ctrl-C"
            sweep.results.append(TrialResult(config=config, failure=TrialFailure(
                "interrupted", f"stopped by {why} while being measured")))
    sweep.duration_s = time.monotonic() - started
    return sweep
