import pytest

from loadertune.trial.stats import relative_spread, window_rates


def test_windows_start_after_warmup_and_anchor_on_previous_batch() -> None:
    times = [3.0, 5.0, 6.0, 7.0, 9.0, 11.0]   # batch 0 arrives after start-up at t=3
    sizes = [10] * 6
    assert window_rates(times, sizes, warmup=1, batches_per_window=2) == [20 / 3, 20 / 3]
    assert window_rates(times, sizes, warmup=2, batches_per_window=2) == [10.0, 5.0]


def test_partial_windows_are_dropped_and_sizes_count() -> None:
    times = [0.0, 1.0, 2.0, 3.0]
    assert window_rates(times, [4, 4, 2, 4], warmup=1, batches_per_window=2) == [3.0]


def test_warmup_must_anchor() -> None:
    with pytest.raises(ValueError):
        window_rates([0.0, 1.0], [1, 1], warmup=0, batches_per_window=1)


def test_spread() -> None:
    assert relative_spread([10.0]) == 0.0
    assert relative_spread([9.0, 10.0, 11.0]) == pytest.approx(0.2)
