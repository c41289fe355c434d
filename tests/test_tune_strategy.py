"""The search strategy on synthetic throughput curves: which config it picks, and why."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tune_helpers import MiB, failed, limits, result, run, workers_of

from loadertune.compare import beats, merge, pick, ties
from loadertune.config import LoaderConfig
from loadertune.tuning.strategy import Space, next_config

B = 32


def space(**kw: object) -> Space:
    lim = kw.pop("limits", None) or limits()
    return Space(batch_size=B, limits=lim, **kw)  # type: ignore[arg-type]


def curve(points: dict[int, float]):
    """Piecewise-linear throughput over num_workers through ``points``."""
    ks = sorted(points)

    def rate(k: int) -> float:
        if k in points:
            return points[k]
        lo = max(x for x in ks if x < k)
        hi = min((x for x in ks if x > k), default=None)
        if hi is None:
            return points[lo]
        return points[lo] + (points[hi] - points[lo]) * (k - lo) / (hi - lo)

    return rate


def test_plateau_picks_the_fewest_workers_at_full_speed() -> None:
    rate = curve({0: 90, 1: 100, 2: 200, 4: 400, 8: 405})
    rec, trials = run(space(), lambda c: result(c, rate(c.num_workers)))
    assert rec.config.num_workers == 4
    assert "plateau" in rec.reason
    assert 16 not in workers_of(trials)


def test_peak_then_drop_refines_between_the_peak_and_the_drop() -> None:
    rate = curve({0: 100, 1: 110, 2: 200, 4: 380, 6: 430, 8: 250})
    rec, trials = run(space(), lambda c: result(c, rate(c.num_workers)))
    assert 6 in workers_of(trials)  # not on the coarse ladder: found by refining
    assert rec.config.num_workers == 6
    assert "dropped" in rec.reason


def test_monotone_latency_bound_climbs_past_the_cores_to_the_cap() -> None:
    sp = space(limits=limits(cpus=2, latency=32), latency_bound=True, item_wall_s=0.02)
    rec, trials = run(sp, lambda c: result(c, 48.0 * c.num_workers))
    assert rec.config.num_workers == 32
    assert 0 not in workers_of(trials)
    assert "cap" in rec.reason


def test_cpu_bound_monotone_stops_at_the_usable_cpus() -> None:
    rec, trials = run(space(limits=limits(cpus=4)),
                      lambda c: result(c, 100.0 * (1 + c.num_workers)))
    assert rec.config.num_workers == 4
    assert max(workers_of(trials)) == 4
    assert "usable CPUs" in rec.reason


def test_ipc_bound_tiny_items_stop_after_one_worker() -> None:
    rates = {0: 250_000.0, 1: 14_000.0, 2: 20_000.0}
    rec, trials = run(space(limits=limits(cpus=2)), lambda c: result(c, rates[c.num_workers]))
    assert rec.config.num_workers == 0
    assert workers_of(trials) == [0, 1]
    assert "cannot catch up" in rec.reason


def test_main_process_faster_than_a_hand_over_needs_no_worker_trial() -> None:
    # w0 delivers a batch every 100 µs; receiving one from a worker costs >= 300 µs
    sp = space(limits=limits(cpus=2), handover_s=300e-6)
    rec, trials = run(sp, lambda c: result(c, B / 100e-6 if c.num_workers == 0 else 1000.0))
    assert workers_of(trials) == [0]
    assert rec.config.num_workers == 0 and "unpickle" in rec.reason
    slow = space(limits=limits(cpus=2), handover_s=50e-6)
    _, trials = run(slow, lambda c: result(c, B / 100e-6 if c.num_workers == 0 else 1000.0))
    assert 1 in workers_of(trials)


def test_noise_ties_go_to_fewer_workers() -> None:
    rates = {0: 100.0, 1: 150.0, 2: 300.0, 4: 310.0, 8: 290.0}
    rec, _ = run(space(), lambda c: result(c, rates[c.num_workers], spread=0.12))
    assert rec.config.num_workers == 2


def test_a_gain_within_the_noise_is_not_preferred() -> None:
    a = result(LoaderConfig(num_workers=2, batch_size=B, persistent_workers=True), 100, 0.2)
    b = result(LoaderConfig(num_workers=4, batch_size=B, persistent_workers=True), 110, 0.2)
    assert not beats(b, a)
    c = result(LoaderConfig(num_workers=4, batch_size=B, persistent_workers=True), 130, 0.02)
    assert beats(c, a)


def test_noisy_measurements_still_pick_a_near_best_config() -> None:
    truth = curve({0: 100, 1: 110, 2: 210, 4: 400, 8: 420})
    rng = random.Random(7)

    def measure(c: LoaderConfig):
        true = truth(c.num_workers)
        return result(c, true * rng.uniform(0.92, 1.08), spread=0.16)

    rec, trials = run(space(), measure)
    assert truth(rec.config.num_workers) >= 0.85 * 420
    assert len(trials) <= 12


def test_memory_wall_stops_climbing_before_the_budget() -> None:
    budget = 200 * MiB + 3 * 100 * MiB
    sp = space(limits=limits(memory=budget))
    rec, trials = run(sp, lambda c: result(c, 100.0 * (1 + c.num_workers),
                                           main=200 * MiB, per_worker=100 * MiB))
    assert max(workers_of(trials)) <= 3
    assert "memory budget" in rec.reason
    assert rec.config.num_workers in (2, 3)


def test_memory_budget_below_one_worker_gives_zero_workers() -> None:
    sp = space(limits=limits(memory=210 * MiB))
    rec, trials = run(sp, lambda c: result(c, 100.0 * (1 + c.num_workers), main=200 * MiB))
    assert workers_of(trials) == [0]
    assert rec.config.num_workers == 0
    assert "memory budget" in rec.reason


def test_failed_worker_count_is_a_wall() -> None:
    def measure(c: LoaderConfig):
        if c.num_workers >= 4:
            return failed(c, "worker_killed")
        return result(c, 100.0 * (1 + c.num_workers))

    rec, trials = run(space(), measure)
    assert 8 not in workers_of(trials)
    assert rec.config.num_workers == 3  # refined up to just below the failing count
    assert "worker_killed" in rec.reason


def test_saturated_consumer_picks_the_fewest_workers_that_keep_the_step_fed() -> None:
    step_s = 0.040  # the step takes 40 ms per batch of 32: at most 800 samples/s

    def measure(c: LoaderConfig):
        loader = 300.0 * max(c.num_workers, 0.5)  # what the loader alone could deliver
        return result(c, min(loader, 780.0), step_s=step_s)

    rec, trials = run(space(), measure)
    assert rec.config.num_workers == 3
    assert "saturated" in rec.reason
    assert 8 not in workers_of(trials)


def test_prefetch_is_tried_and_kept_only_when_it_clearly_helps() -> None:
    def measure(c: LoaderConfig, gain: float):
        base = 100.0 * (1 + min(c.num_workers, 4))
        return result(c, base * (gain if c.effective_prefetch == 4 else 1.0))

    rec, trials = run(space(limits=limits(cpus=4)), lambda c: measure(c, 1.3))
    assert rec.config.prefetch_factor == 4
    rec, trials = run(space(limits=limits(cpus=4)), lambda c: measure(c, 1.01))
    assert any(t.config.prefetch_factor == 4 for t in trials)
    assert rec.config.effective_prefetch == 2


def test_prefetch_is_skipped_when_the_cpus_are_saturated() -> None:
    def measure(c: LoaderConfig):
        return result(c, 100.0 * (1 + min(c.num_workers, 4)), cpu_percent=395.0)

    rec, trials = run(space(limits=limits(cpus=4)), measure)
    assert all(t.config.effective_prefetch == 2 or t.config.num_workers == 0 for t in trials)
    assert any("prefetch_factor=2 kept without a trial" in n for n in rec.notes)


def test_pin_memory_only_with_an_accelerator() -> None:
    def measure(c: LoaderConfig):
        return result(c, 100.0 * (1 + min(c.num_workers, 2)))

    _, trials = run(space(limits=limits(cpus=2)), measure)
    assert not any(t.config.pin_memory for t in trials)
    rec, trials = run(space(limits=limits(cpus=2), accelerator=True), measure)
    assert any(t.config.pin_memory for t in trials)
    assert rec.config.pin_memory


def test_close_contenders_are_re_measured_and_pooled() -> None:
    calls: dict[int, int] = {}

    def measure(c: LoaderConfig):
        k = c.num_workers
        calls[k] = calls.get(k, 0) + 1
        rate = {0: 100.0, 1: 270.0, 2: 300.0 if calls[k] == 1 else 262.0}[k]
        return result(c, rate, spread=0.15, cpu_percent=195.0)

    rec, _ = run(space(limits=limits(cpus=2)), measure)
    assert calls[1] == 2 and calls[2] == 2  # both contenders measured again
    assert rec.config.num_workers == 1      # pooled, 2 workers no longer clearly faster


def test_max_workers_caps_the_search() -> None:
    rec, trials = run(space(limits=limits(max_workers=2)),
                      lambda c: result(c, 100.0 * (1 + c.num_workers)))
    assert max(workers_of(trials)) == 2
    assert "max_workers" in rec.reason


def test_nothing_measurable_recommends_zero_workers() -> None:
    rec, trials = run(space(), lambda c: failed(c, "exception"))
    assert rec.config.num_workers == 0
    assert "no config could be measured" in rec.reason
    assert len(trials) == 1


def test_strategy_is_pure() -> None:
    trials = [result(LoaderConfig(num_workers=0, batch_size=B), 100.0)]
    sp = space()
    assert next_config(sp, trials) == next_config(sp, list(trials))


def test_pick_and_merge() -> None:
    c2 = LoaderConfig(num_workers=2, batch_size=B, persistent_workers=True)
    c4 = LoaderConfig(num_workers=4, batch_size=B, persistent_workers=True)
    a, b = result(c2, 100.0), result(c4, 103.0)
    assert ties(a, b) and pick([a, b]) is a
    merged = merge([a, result(c2, 110.0)])
    assert len(merged) == 1 and merged[0].remeasured
    assert 100.0 <= (merged[0].samples_per_s or 0) <= 110.0


@settings(max_examples=60, deadline=None)
@given(peak=st.integers(min_value=0, max_value=16),
       cpus=st.sampled_from([1, 2, 4, 8, 16]),
       spread=st.floats(min_value=0.0, max_value=0.3))
def test_any_single_peaked_curve_ends_near_its_best(peak: int, cpus: int, spread: float) -> None:
    """Single-peaked curves: the pick is within the tie tolerance of the best rung measured,
    the search always stops, and it never exceeds the CPU cap."""
    def true_rate(k: int) -> float:
        return 1000.0 - 40.0 * abs(k - peak)

    rec, trials = run(space(limits=limits(cpus=cpus)),
                      lambda c: result(c, true_rate(c.num_workers), spread=spread))
    best_seen = max(true_rate(t.config.num_workers) for t in trials)
    assert true_rate(rec.config.num_workers) >= best_seen * (1 - 0.15)
    assert max(workers_of(trials)) <= cpus
    assert len(trials) <= 12


@pytest.mark.parametrize("latency", [True, False])
def test_rungs_end_at_the_cap(latency: bool) -> None:
    sp = space(limits=limits(cpus=3, latency=48), latency_bound=latency)
    rungs = sp.rungs()
    assert rungs == sorted(rungs)
    assert rungs[-1] == (48 if latency else 3)
