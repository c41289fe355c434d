"""The consumer model: what the training step does with each batch during a trial."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Step = Callable[[Any], Any]


def burn_cpu(seconds: float) -> None:
    """Keep one core busy for ``seconds`` (a stand-in for a step's CPU work)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def make_step(step_ms: float, kind: str, user_step: Step | None = None) -> Step | None:
    """The per-batch step: the user's callable, else CPU burn or sleep for ``step_ms``."""
    if user_step is not None:
        return user_step
    if step_ms <= 0:
        return None
    seconds = step_ms / 1000.0
    if kind == "sleep":
        return lambda _batch: time.sleep(seconds)
    return lambda _batch: burn_cpu(seconds)
