"""The search strategy on synthetic throughput curves: which config it picks, and why."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tune_helpers import MiB, failed, killed_at, limits, result, run, workers_of

from loadertune.config import LoaderConfig
from loadertune.trial.compare import beats, merge, pick, ties
from loadertune.trial.results import TrialResult
from loadertune.tuning.strategy import Space, next_config, undecided_rival

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


def test_ipc_bound_tiny_items_stop_after_one_worker_count() -> None:
    rates = {0: 250_000.0, 1: 14_000.0, 2: 20_000.0, 4: 24_000.0}
    rec, trials = run(space(limits=limits(cpus=4)), lambda c: result(c, rates[c.num_workers]))
    assert rec.config.num_workers == 0
    assert workers_of(trials) == [0, 2]  # one worker cannot beat w0 without a step to overlap
    assert "dropped" in rec.reason


def test_main_process_faster_than_a_hand_over_needs_no_worker_trial() -> None:
    # w0 delivers a batch every 100 µs; receiving one from a worker costs >= 300 µs
    sp = space(limits=limits(cpus=2), handover_s=300e-6)
    rec, trials = run(sp, lambda c: result(c, B / 100e-6 if c.num_workers == 0 else 1000.0))
    assert workers_of(trials) == [0]
    assert rec.config.num_workers == 0 and "unpickle" in rec.reason
    slow = space(limits=limits(cpus=2), handover_s=50e-6)
    _, trials = run(slow, lambda c: result(c, B / 100e-6 if c.num_workers == 0 else 1000.0))
    assert 2 in workers_of(trials)


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
    calls: dict[LoaderConfig, int] = {}

    def measure(c: LoaderConfig):
        k = c.num_workers
        calls[c] = calls.get(c, 0) + 1
        rate = {0: 100.0, 2: 270.0, 3: 250.0, 4: 300.0 if calls[c] == 1 else 262.0}[k]
        return result(c, rate, spread=0.15, cpu_percent={0: 90.0, 2: 150.0}.get(k, 395.0))

    sp = space(limits=limits(cpus=4))
    rec, trials = run(sp, measure)
    assert calls[sp.config(2)] == 2 and calls[sp.config(4)] == 2  # both measured again
    assert workers_of(trials)[4:6] == [4, 2]  # in turn: A B B A, nothing in between
    assert rec.config.num_workers == 2      # pooled, 4 workers no longer clearly faster


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


def test_rungs_end_at_the_cap() -> None:
    sp = space(limits=limits(cpus=3, latency=48))
    assert sp.rungs() == [0, 2, 3, 6, 12, 24, 48]  # hits the CPUs, then doubles to the cap


@pytest.mark.parametrize(("share", "first"), [(0.25, 16), (0.5, 8), (0.01, 32), (None, 32)])
def test_the_probe_only_chooses_where_a_waiting_dataset_starts(share: float | None,
                                                               first: int) -> None:
    sp = space(limits=limits(cpus=3, latency=48), latency_bound=True, item_cpu_share=share)
    assert sp.rungs()[0] == first and sp.rungs()[-1] == 48


# --- the trials decide: measured CPU, memory walls, interleaved re-measures -----------------

def test_climbs_past_the_cores_while_the_cpus_sit_idle() -> None:
    """Mixed CPU work and waits: the probe called it CPU-bound, but w2 used 125% of 200%."""
    rates = {0: 100.0, 1: 150.0, 2: 250.0, 3: 300.0, 4: 360.0, 6: 365.0, 8: 350.0}
    cpu = {0: 70.0, 1: 90.0, 2: 125.0, 3: 150.0, 4: 180.0, 6: 190.0, 8: 195.0}
    rec, trials = run(space(limits=limits(cpus=2, latency=32)),
                      lambda c: result(c, rates[c.num_workers], cpu_percent=cpu[c.num_workers]))
    assert 4 in workers_of(trials)
    assert rec.config.num_workers == 4
    assert "CPUs are saturated" in rec.reason and "180%" in rec.reason
    assert 16 not in workers_of(trials)


def test_stops_at_the_cores_when_the_trials_saturate_them() -> None:
    rec, trials = run(space(limits=limits(cpus=2, latency=32)),
                      lambda c: result(c, 100.0 * (1 + min(c.num_workers, 2)),
                                       cpu_percent=min(95.0 * (1 + c.num_workers), 198.0)))
    assert rec.config.num_workers == 2
    assert max(workers_of(trials)) == 2
    assert "CPUs are saturated" in rec.reason


def test_a_waiting_dataset_climbs_until_the_cpus_fill() -> None:
    """Items wait 6 ms and burn 1 ms: 2 cores fill at ~14 workers; w8 leaves them idle."""
    def measure(c: LoaderConfig):
        k = c.num_workers
        rate = min(k / 0.007, 0.95 * 2 / 0.001)
        return result(c, rate, cpu_percent=10.0 + rate * 0.001 * 100)

    sp = space(limits=limits(cpus=2, latency=32), latency_bound=True, item_cpu_share=0.29)
    rec, trials = run(sp, measure)
    assert workers_of(trials)[:2] == [8, 16]
    assert rec.config.num_workers >= 12
    assert "CPUs are saturated" in rec.reason


def private_caches(budget: int, main: int, cache: int):
    """Every worker holds a private ``cache``; a count over ``budget`` is stopped at it."""
    def measure(c: LoaderConfig) -> TrialResult:
        k = c.num_workers
        if main + k * cache > budget:
            return killed_at(c, budget, main)
        return result(c, 100.0 + 300.0 * k, main=main, per_worker=cache, cpu_percent=30.0)
    return measure


def test_a_memory_failure_is_a_wall_to_back_off_from() -> None:
    """A 550 MiB per-worker cache against a 2 GiB budget: 3 workers fit, the first rung (16)
    does not; the search must find 3, not answer num_workers=0."""
    budget, main, cache = 2048 * MiB, 300 * MiB, 550 * MiB

    measure = private_caches(budget, main, cache)
    sp = space(limits=limits(cpus=2, memory=budget, latency=32), latency_bound=True,
               item_cpu_share=0.1)
    rec, trials = run(sp, measure)
    assert rec.config.num_workers == 3
    assert "3 workers is the most that fit" in rec.reason
    assert len(trials) <= 8
    assert main + rec.config.num_workers * cache <= budget


def test_the_probes_own_memory_starts_the_climb_at_the_most_that_fit() -> None:
    """The probe's process held 550 MiB after loading items (a cache built on first use):
    every worker builds one too, so 16 workers cannot fit 2 GiB and the first trial is the
    most the probe's memory allows (3), not a failure at 16 and a bisection below it."""
    budget, main, cache = 2048 * MiB, 300 * MiB, 550 * MiB

    measure = private_caches(budget, main, cache)
    sp = space(limits=limits(cpus=2, memory=budget, latency=32), latency_bound=True,
               item_cpu_share=0.1, main_estimate=main, loader_uss=cache)
    first = next_config(sp, [])
    assert first.config is not None and first.config.num_workers == 3
    assert "the probe's process built" in first.why
    rec, trials = run(sp, measure)
    assert rec.config.num_workers == 3
    assert all(t.ok for t in trials)  # no trial was spent failing at the budget
    assert "4 workers need" in rec.reason  # the first count that does not fit, named
    # without the probe's memory the same search starts at 16 and fails on the way down
    _, blind = run(replace(sp, loader_uss=None), measure)
    assert workers_of(blind)[0] == 16 and not blind[0].ok


def test_a_count_predicted_barely_over_the_budget_is_measured() -> None:
    """Each worker's own memory (USS) is 360 MiB, but several workers share pages, so the tree
    holds 340 MiB more per worker: the model says 5 workers need 2,100 MiB of the 2,048 MiB
    budget (2.5 % over) while they take 2,000. The search measures 5 and keeps it; 6 (predicted
    20 % over) is not tried."""
    budget, main, own, shared = 2048 * MiB, 300 * MiB, 360 * MiB, 340 * MiB

    def measure(c: LoaderConfig):
        k = c.num_workers
        if main + k * shared > budget:
            return killed_at(c, budget, main)
        r = result(c, 100.0 + 300.0 * k, main=main, per_worker=own, cpu_percent=30.0)
        return replace(r, memory=replace(r.memory, total_pss=main + k * shared))

    sp = space(limits=limits(cpus=2, memory=budget, latency=32), latency_bound=True,
               item_cpu_share=0.1)
    rec, trials = run(sp, measure)
    assert rec.config.num_workers == 5
    assert 6 not in workers_of(trials)


def test_zero_workers_only_when_no_worker_count_fits_and_it_says_so() -> None:
    budget, main = 400 * MiB, 300 * MiB

    def measure(c: LoaderConfig):
        if c.num_workers:
            return killed_at(c, budget, main)
        return result(c, 100.0, main=main)

    sp = space(limits=limits(cpus=2, memory=budget, latency=32), latency_bound=True,
               item_cpu_share=0.1)
    rec, trials = run(sp, measure)
    assert rec.config.num_workers == 0
    assert 0 in workers_of(trials) and 1 in workers_of(trials)  # both measured
    assert any("no worker count fits" in n for n in rec.notes)


@settings(max_examples=40, deadline=None)
@given(per_worker=st.integers(min_value=10, max_value=900),
       budget=st.integers(min_value=400, max_value=4000),
       latency=st.booleans())
def test_the_recommendation_never_exceeds_the_memory_budget(per_worker: int, budget: int,
                                                           latency: bool) -> None:
    main = 300 * MiB

    def measure(c: LoaderConfig):
        k = c.num_workers
        if main + k * per_worker * MiB > budget * MiB:
            return killed_at(c, budget * MiB, main)
        return result(c, 100.0 + 50.0 * k, main=main, per_worker=per_worker * MiB,
                      cpu_percent=20.0 * (1 + k) if latency else None)

    sp = space(limits=limits(cpus=2, memory=budget * MiB, latency=32), latency_bound=latency,
               item_cpu_share=0.1)
    rec, _ = run(sp, measure)
    assert main + rec.config.num_workers * per_worker * MiB <= budget * MiB


def test_noisy_single_worker_does_not_end_the_climb_early() -> None:
    """GIL-bound items: w1 is slow and noisy, w2 is 1.3x w0; extrapolating from w1 at the
    low end of its noise must not stop the climb before w2 is measured."""
    rates = {0: 100.0, 1: 47.0, 2: 130.0, 4: 90.0}
    rec, trials = run(space(limits=limits(cpus=2)),
                      lambda c: result(c, rates[c.num_workers], spread=0.18,
                                       cpu_percent=100.0 * min(c.num_workers, 2)))
    assert 2 in workers_of(trials)
    assert rec.config.num_workers == 2


def test_a_busy_main_process_ends_the_climb() -> None:
    rec, trials = run(space(limits=limits(cpus=8)),
                      lambda c: result(c, 100.0 * (1 + min(c.num_workers, 2)),
                                       cpu_percent=150.0, cpu_main=97.0))
    assert max(workers_of(trials)) <= 4
    assert "main process is the bottleneck" in rec.reason


def test_undecided_contenders_are_measured_again_in_turn_abba() -> None:
    calls: dict[int, int] = {}

    def measure(c: LoaderConfig):
        k = c.num_workers
        calls[k] = calls.get(k, 0) + 1
        return result(c, {0: 100.0, 1: 70.0, 2: 108.0}[k], spread=0.12, cpu_percent=190.0)

    rec, trials = run(space(limits=limits(cpus=2)), measure)
    assert workers_of(trials) == [0, 2, 1, 2, 0]  # then A B B A: the later one first
    assert any("beats" in n or "within" in n for n in rec.notes)


def test_a_costlier_config_measured_slower_beyond_the_tie_is_not_measured_again() -> None:
    """w32 pf4 measured 8 % slower than w32 pf2 inside a wide noise: nothing points to the
    deeper prefetch, so no A B B A pair is spent on it; a cheaper one in the same spot is."""
    sp = space(limits=limits(cpus=2))
    best = result(sp.config(2), 1150.0, spread=0.22)
    costlier = result(sp.config(2, prefetch=4), 1060.0, spread=0.04)
    assert undecided_rival([best, costlier], best) is None
    cheaper = result(sp.config(1), 1060.0, spread=0.04)
    assert undecided_rival([best, cheaper], best) is cheaper
    tied = result(sp.config(2, prefetch=4), 1120.0, spread=0.04)  # within 5 %, noise 22 %
    assert undecided_rival([best, tied], best) is tied


def test_the_margin_is_reported_with_its_windows() -> None:
    rates = {0: 100.0, 2: 200.0}
    rec, _ = run(space(limits=limits(cpus=2)),
                 lambda c: result(c, rates[c.num_workers], cpu_percent=190.0))
    note = rec.notes[0]
    assert note.startswith("w2 pf2 persist beats w0 by 2.00×")
    assert "over 3/3 windows" in note


def test_blocked_workers_decide_past_the_cores_even_when_the_machine_is_busy() -> None:
    """Schedstat, where the OS gives it, decides over the trial's CPU share: workers that were
    runnable but got no core (another job on the machine) must not make the climb go on."""
    def measure(c: LoaderConfig, blocked: float):
        r = result(c, 100.0 * (1 + min(c.num_workers, 2)), cpu_percent=80.0)
        r.workers_blocked = blocked if c.num_workers else None
        return r

    _, busy = run(space(limits=limits(cpus=2, latency=32)), lambda c: measure(c, 0.05))
    assert max(workers_of(busy)) == 2
    _, waiting = run(space(limits=limits(cpus=2, latency=32)), lambda c: measure(c, 0.6))
    assert max(workers_of(waiting)) > 2


def test_fewer_processes_are_sought_only_while_a_trial_saves_a_fifth_of_them() -> None:
    sp = space(limits=limits(cpus=2, latency=32), latency_bound=True, item_wall_s=0.02)
    rate = curve({0: 50, 16: 1000, 24: 1300, 28: 1420, 32: 1500})
    rec, trials = run(sp, lambda c: result(c, rate(c.num_workers)))
    assert 24 in workers_of(trials)  # 8 of 32 processes fewer might keep up: measured
    assert 28 not in workers_of(trials)  # 4 of 32 fewer is not worth a trial
    assert rec.config.num_workers == 32


def test_a_count_that_grows_past_the_budget_while_reading_is_backed_off_from() -> None:
    """Copy-on-read: each worker ends up holding 200 MiB once it has read the dataset, but a
    short trial reads a sliver of it, so every count measures well within the 1,000 MiB
    budget. The search must back off to a count whose projected peak fits and measure it."""
    budget, main, final, floor, items = 1000 * MiB, 300 * MiB, 200 * MiB, 16 * MiB, 6400

    def measure(c: LoaderConfig):
        k = c.num_workers
        share = min(100 * B / max(k, 1) / items, 1.0)  # what each worker read in the trial
        own = floor + int((final - floor) * share)
        return result(c, 100.0 + 300.0 * k, main=main, per_worker=own, cpu_percent=30.0)

    sp = space(limits=limits(cpus=2, memory=budget, latency=32), latency_bound=True,
               item_cpu_share=0.1, dataset_len=items)
    rec, trials = run(sp, measure)
    assert rec.result is not None and rec.config.num_workers >= 1, (rec.reason, rec.notes)
    assert main + rec.config.num_workers * final <= budget * 1.05  # the model's own error
    assert rec.config.num_workers in workers_of(trials)  # measured, not predicted
    assert len(trials) <= 8


def test_a_tie_within_a_noise_wider_than_the_tolerance_is_measured_again_in_turn() -> None:
    """w4 and w8 measured within 1 % of each other, but each to ±14 %: the tie cannot tell a
    5 % difference either way, so the pair is measured again (A B B A) before the fewer
    workers are kept; measured to ±2 %, the tie stands at once."""
    rates = {0: 300.0, 1: 290.0, 2: 560.0, 4: 842.0, 8: 839.0, 16: 700.0}

    def trials_with(spread: float) -> list[LoaderConfig]:
        sp = space(limits=limits(cpus=2, latency=32))
        _, trials = run(sp, lambda c: result(c, rates[c.num_workers], spread=spread,
                                             cpu_percent=120.0))
        return [t.config for t in trials]

    noisy = trials_with(0.14)
    assert max(noisy.count(c) for c in set(noisy)) == 2  # one pair measured again
    tight = trials_with(0.02)
    assert len(tight) == len(set(tight))
