"""`TrialPlan`: how long and how carefully one config is measured, and its limits."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError

STEP_KINDS = ("cpu", "sleep")


@dataclass(frozen=True)
class TrialPlan:
    """Measurement protocol and limits for a trial.

    ``warmup`` batches (auto: every worker's prefetched batches plus two) are excluded; then
    ``repeats`` windows of ``batches`` batches each (more with many workers, see
    `window_for`) are timed. When their spread exceeds
    ``spread_limit`` the trial measures more windows, up to ``max_repeats``.
    """

    batches: int = 20
    repeats: int = 3
    warmup: int | None = None
    max_repeats: int = 6
    spread_limit: float = 0.15
    step_ms: float = 0.0
    step_kind: str = "cpu"
    timeout_s: float = 120.0
    memory_limit: int | None = None
    sample_interval_s: float = 0.05
    full_sample_interval_s: float = 0.25
    window_per_worker: int | None = None
    profile: bool = True  # sample workers' stacks every 5 ms (off: only for hang reports)
    worker_threads: int | None = None  # cap each worker's thread pools (trial.threads)
    sample: tuple[int, ...] | None = None  # read only these items (trial.cache)...
    cached: bool = False  # ...decoded once beforehand and served from memory

    def __post_init__(self) -> None:
        if self.batches < 1:
            raise ConfigError(f"--batches must be >= 1, got {self.batches}")
        if self.repeats < 1:
            raise ConfigError(f"--repeats must be >= 1, got {self.repeats}")
        if self.warmup is not None and self.warmup < 1:
            raise ConfigError(f"--warmup must be >= 1 (the first batch is always warm-up), "
                              f"got {self.warmup}")
        if self.step_ms < 0:
            raise ConfigError(f"--step-ms must be >= 0, got {self.step_ms}")
        if self.step_kind not in STEP_KINDS:
            raise ConfigError(f"--step-kind must be one of {', '.join(STEP_KINDS)}, "
                              f"got {self.step_kind!r}")
        if self.timeout_s <= 0:
            raise ConfigError(f"--timeout must be > 0 seconds, got {self.timeout_s}")
        if self.window_per_worker is not None and self.window_per_worker < 1:
            raise ConfigError(f"window_per_worker must be >= 1, got {self.window_per_worker}")
        if self.worker_threads is not None and self.worker_threads < 1:
            raise ConfigError(f"worker_threads must be >= 1, got {self.worker_threads}")
        if self.memory_limit is not None and self.memory_limit <= 0:
            raise ConfigError(f"memory limit must be > 0 bytes, got {self.memory_limit}")

    def warmup_for(self, config: LoaderConfig) -> int:
        """Warm-up batches for ``config``: drain what workers prefetched while starting."""
        if self.warmup is not None:
            return self.warmup
        return config.num_workers * config.effective_prefetch + 2

    def window_for(self, config: LoaderConfig) -> int:
        """Batches per timed window: at least twice what the workers hold in flight, so a
        window never just drains the prefetch buffer; with ``window_per_worker`` set (the
        tuner's shorter trials), that many batches per worker instead."""
        if self.window_per_worker is not None:
            return max(self.batches, self.window_per_worker * config.num_workers)
        return max(self.batches, 2 * config.num_workers * config.effective_prefetch)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
