"""Synthetic trial results for strategy tests: a throughput curve, noise and memory."""

from __future__ import annotations

from collections.abc import Callable

from loadertune.config import LoaderConfig
from loadertune.trial.results import MemoryStats, TrialFailure, TrialResult
from loadertune.tuning.budget import Limits
from loadertune.tuning.recommend import Recommendation, recommend
from loadertune.tuning.strategy import Space, next_config

MiB = 2**20
Curve = Callable[[LoaderConfig], float]


def limits(cpus: int = 8, memory: int = 64 * 2**30, latency: int | None = None,
           max_workers: int | None = None) -> Limits:
    return Limits(memory_budget=memory, cpu_workers=cpus,
                  latency_workers=latency if latency is not None else 16 * cpus,
                  max_workers=max_workers)


def result(config: LoaderConfig, rate: float, spread: float = 0.02, main: int = 200 * MiB,
           per_worker: int = 20 * MiB, step_s: float | None = None,
           cpu_percent: float | None = None, cpu_main: float | None = None) -> TrialResult:
    k = config.num_workers
    bps = rate / config.batch_size
    memory = MemoryStats(total_pss=main + k * per_worker, main_pss=main,
                         worker_uss=[per_worker] * k, worker_pss=[per_worker] * k)
    return TrialResult(config=config, samples_per_s=rate, batches_per_s=bps, spread=spread,
                       repeats=[rate * (1 - spread / 2), rate, rate * (1 + spread / 2)],
                       first_batch_s=0.05 + 0.02 * k, batches=100, samples=100 * config.batch_size,
                       memory=memory, wall_s=2.0, step_s=step_s, cpu_percent=cpu_percent,
                       cpu_percent_main=cpu_main)


def failed(config: LoaderConfig, kind: str = "memory_limit",
           memory: MemoryStats | None = None) -> TrialResult:
    return TrialResult(config=config, failure=TrialFailure(kind, "synthetic failure"),
                       memory=memory or MemoryStats())


def killed_at(config: LoaderConfig, budget: int, main: int) -> TrialResult:
    """A trial stopped at the memory budget while its workers were still growing."""
    k = config.num_workers
    each = (budget - main) // max(k, 1)
    memory = MemoryStats(total_pss=budget, main_pss=main, worker_uss=[each] * k,
                         worker_pss=[each] * k)
    return failed(config, "memory_limit", memory)


def run(space: Space, measure: Callable[[LoaderConfig], TrialResult],
        limit: int = 40) -> tuple[Recommendation, list[TrialResult]]:
    """Drive the strategy to the end against ``measure``; return its recommendation."""
    trials: list[TrialResult] = []
    for _ in range(limit):
        decision = next_config(space, trials)
        if decision.config is None:
            return recommend(space, trials), trials
        trials.append(measure(decision.config))
    raise AssertionError(f"the strategy did not stop within {limit} trials: "
                         f"{[t.config.label() for t in trials]}")


def workers_of(trials: list[TrialResult]) -> list[int]:
    return [t.config.num_workers for t in trials]
