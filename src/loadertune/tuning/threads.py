"""Advice beyond the knobs, measured before it is said: one thread per worker.

When the best config's workers may run more threads than there are usable cores (workers ×
the threads one worker's pools may run, as its trial's workers reported them after their
``worker_init_fn``, see `loadertune.trial.threads`), the best config runs
once more with each worker's pools capped at one thread (`ThreadCap` after the user's
``worker_init_fn``). The cap is advised only when that trial is faster by more than the noise
of the two measurements (`loadertune.trial.compare.measured_gain`),
and the advice says by how much; otherwise it says the cap was measured and did not help.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.trial.compare import measured_gain
from loadertune.trial.results import TrialResult
from loadertune.trial.threads import blas_threads, opencv_threads

FIX = ("worker_init_fn=ThreadCap(1, your_worker_init_fn) from loadertune.trial.threads "
       "(torch.set_num_threads(1), numpy's OpenBLAS and OpenCV at one thread in each worker)")


@dataclass
class ThreadPools:
    """The threads one worker may run, by pool (None: that library is not loaded here)."""

    torch: int = 1  # torch's worker loop sets 1 (a worker_init_fn may raise it again)
    blas: int | None = None
    opencv: int | None = None

    @classmethod
    def here(cls) -> ThreadPools:
        """What workers started from this process get (forked ones inherit its settings)."""
        return cls(blas=blas_threads(), opencv=opencv_threads())

    @classmethod
    def of(cls, result: TrialResult) -> ThreadPools:
        """The pools ``result``'s workers reported after their ``worker_init_fn`` (a user's
        that raises torch's threads shows), else `here`."""
        seen = result.worker_threads
        if not seen:
            return cls.here()
        return cls(torch=seen.get("torch", 1), blas=seen.get("blas"), opencv=seen.get("opencv"))

    @property
    def per_worker(self) -> int:
        return max(self.torch, self.blas or 1, self.opencv or 1)

    def describe(self) -> str:
        """The pools of more than one thread (torch's 1 in a worker goes unsaid)."""
        parts = [f"torch {self.torch}"] if self.torch > 1 else []
        if self.blas is not None:
            parts.append(f"OpenBLAS {self.blas}")
        if self.opencv is not None:
            parts.append(f"OpenCV {self.opencv}")
        return ", ".join(parts) or "one each"


@dataclass
class ThreadAdvice:
    """The one-thread trial of the best config and what it says."""

    label: str  # the config both trials ran
    workers: int
    cores: float
    pools: ThreadPools
    base_rate: float  # samples/s of the best config as measured
    capped_rate: float | None  # samples/s with one thread per worker (None: the trial failed)
    gain: float | None  # capped / base - 1
    noise: float  # the gain needed to call it faster
    advised: bool
    text: str
    trial: TrialResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "workers": self.workers, "cores": self.cores,
                "pools": vars(self.pools), "base_rate": self.base_rate,
                "capped_rate": self.capped_rate, "gain": self.gain, "noise": self.noise,
                "advised": self.advised, "text": self.text,
                "trial": self.trial.to_dict() if self.trial is not None else None}


def oversubscribed(workers: int, pools: ThreadPools, cores: float) -> bool:
    """Whether ``workers`` workers may run more threads than ``cores``."""
    return workers > 0 and pools.per_worker > 1 and workers * pools.per_worker > cores


def decide(base: TrialResult, capped: TrialResult, pools: ThreadPools,
           cores: float) -> ThreadAdvice:
    """The advice from the two measurements of one config (see the module docstring)."""
    config = base.config
    base_rate = base.samples_per_s or 0.0
    measured = measured_gain(base, capped)
    noise = measured.noise
    threads = (f"{config.num_workers} workers × up to {pools.per_worker} threads "
               f"({pools.describe()}) on {cores:g} usable cores")
    if measured.value is None:
        why = capped.failure.message if capped.failure is not None else "no measurement"
        return ThreadAdvice(config.label(), config.num_workers, cores, pools, base_rate, None,
                            None, noise, False, f"threads: {threads}; the one-thread trial "
                            f"failed ({why}), so no advice", capped)
    rate = capped.samples_per_s or 0.0
    gain = measured.value
    if measured.faster:
        text = (f"threads: {threads}; one thread per worker measured {gain * 100:+.0f} % "
                f"samples/s ({base_rate:,.0f} → {rate:,.0f}, noise ±{noise * 100:.0f} %): "
                f"pass {FIX}")
    else:
        text = (f"threads: {threads}; one thread per worker measured {gain * 100:+.0f} % "
                f"samples/s ({base_rate:,.0f} → {rate:,.0f}), within the noise "
                f"(±{noise * 100:.0f} %): no change advised")
    return ThreadAdvice(config.label(), config.num_workers, cores, pools, base_rate, rate,
                        gain, noise, measured.faster, text, capped)


def advise_threads(source: DatasetSource, best: TrialResult | None, plan: TrialPlan,
                   cores: float, pools: ThreadPools | None = None,
                   run: Callable[..., TrialResult] = run_trial) -> ThreadAdvice | None:
    """Run the best config once more with one thread per worker when its workers may
    oversubscribe the cores; None when there is nothing to measure (no best, not
    oversubscribed)."""
    if best is None or not best.ok:
        return None
    pools = pools or ThreadPools.of(best)
    if not oversubscribed(best.config.num_workers, pools, cores):
        return None
    capped = run(source, best.config, replace(plan, worker_threads=1))
    return decide(best, capped, pools, cores)
