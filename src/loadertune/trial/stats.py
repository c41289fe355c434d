"""Throughput statistics from batch arrival times (pure functions)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def window_rates(times: Sequence[float], sizes: Sequence[int], warmup: int,
                 batches_per_window: int) -> list[float]:
    """Samples/s of each full window of ``batches_per_window`` batches after ``warmup``.

    ``times[i]`` is when batch ``i`` arrived and ``sizes[i]`` its samples. A window's time runs
    from the arrival of the batch before it, so the warm-up's last batch anchors the first one.
    """
    if warmup < 1:
        raise ValueError("warmup must be >= 1: the first window needs an anchor batch")
    rates = []
    start = warmup
    while start + batches_per_window <= len(times):
        end = start + batches_per_window
        elapsed = times[end - 1] - times[start - 1]
        samples = sum(sizes[start:end])
        if elapsed > 0:
            rates.append(samples / elapsed)
        start = end
    return rates


def relative_spread(values: Sequence[float]) -> float:
    """(max - min) / median; 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med > 0 else float("inf")


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))
