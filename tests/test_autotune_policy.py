"""The live policy on made-up windows: grow while starved, shrink while fed, judge each trial,
never repeat a rejected setting, respect the memory budget (pure function, no loader)."""

from __future__ import annotations

from loadertune.autotune import Bounds, Knobs, Window, decide

MiB = 2**20
BOUNDS = Bounds(min_workers=0, max_workers=16, memory_budget=None)


def window(k: int, wait: float, step: float = 1.0, batches: int = 100, kind: str = "start",
           first: bool = True, pf: int | None = None, memory: int | None = None,
           worker: int | None = None) -> Window:
    """``batches`` batches with ``wait`` and ``step`` seconds in total (wall = their sum)."""
    knobs = Knobs(k, (pf or 2) if k else None)
    return Window(knobs, kind, batches, wait, step, wait + step, memory, worker, first)


def test_a_starved_loop_grows_by_what_would_end_the_wait() -> None:
    v = decide([window(0, wait=9.0)], BOUNDS, frozenset())
    assert v.kind == "grow" and v.knobs == Knobs(4, None)  # waits 90%: x4 at most
    v = decide([window(4, wait=0.25)], BOUNDS, frozenset())
    assert v.kind == "grow" and v.knobs is not None and v.knobs.num_workers == 6  # x1.5


def test_growth_stops_at_max_workers_then_tries_a_deeper_prefetch() -> None:
    bounds = Bounds(0, 4, None)
    v = decide([window(4, wait=1.0)], bounds, frozenset())
    assert v.kind == "prefetch" and v.knobs == Knobs(4, 4)


def test_a_grow_that_did_not_pay_is_reverted() -> None:
    before = window(2, wait=1.0, batches=100)
    worse = window(3, wait=1.0, batches=99, kind="grow")  # no faster at all: back at once
    v = decide([before, worse], BOUNDS, frozenset())
    assert v.kind == "revert" and v.knobs == Knobs(2, 2)
    trial = window(3, wait=1.0, batches=102, kind="grow")  # 2 % faster: within the noise
    v = decide([before, trial], BOUNDS, frozenset())
    assert v.kind == "keep" and v.knobs is None  # one window cannot tell: one more
    again = window(3, wait=1.0, batches=103, kind="grow", first=False)
    v = decide([before, trial, again], BOUNDS, frozenset())
    assert v.kind == "revert" and v.knobs == Knobs(2, 2)  # 2.5 % over the two: no gain
    paid = window(3, wait=0.2, batches=140, kind="grow")
    assert decide([before, paid], BOUNDS, frozenset()).kind == "grow"  # kept, still starved


def test_a_rejected_setting_is_never_tried_again() -> None:
    v = decide([window(2, wait=1.0, kind="revert")], BOUNDS, frozenset({Knobs(4, 2)}))
    assert v.knobs == Knobs(2, 4) and v.kind == "prefetch"
    v = decide([window(2, wait=1.0, kind="revert")], BOUNDS,
               frozenset({Knobs(4, 2), Knobs(2, 4)}))
    assert v.knobs is None and v.kind == "keep"


def test_a_fed_loop_gives_workers_back_while_it_stays_fed() -> None:
    v = decide([window(6, wait=0.01)], BOUNDS, frozenset())
    assert v.kind == "shrink" and v.knobs == Knobs(4, 2)
    before = window(6, wait=0.01)
    ok = window(4, wait=0.03, kind="shrink")  # the wait grew by 2 points, throughput held
    again = decide([before, ok], BOUNDS, frozenset())
    assert again.kind == "shrink" and again.knobs == Knobs(2, 2)  # on to fewer still
    assert decide([before, ok], BOUNDS, frozenset({Knobs(2, 2)})).kind == "keep"
    starving = window(4, wait=0.3, batches=80, kind="shrink")
    v = decide([before, starving], BOUNDS, frozenset())
    assert v.kind == "revert" and v.knobs == Knobs(6, 2)


def test_min_workers_is_a_floor() -> None:
    v = decide([window(2, wait=0.0)], Bounds(2, 16, None), frozenset())
    assert v.knobs is None


def test_a_loop_that_always_waits_a_little_still_gives_workers_back() -> None:
    """Receiving a batch costs ~5 % of a 30 ms step whatever the worker count: a shrink that
    keeps that wait and the throughput stays."""
    before = window(8, wait=0.05, batches=100)
    v = decide([before], BOUNDS, frozenset())
    assert v.kind == "shrink" and v.knobs == Knobs(5, 2)
    after = window(5, wait=0.055, batches=100, kind="shrink")
    assert decide([before, after], BOUNDS, frozenset()).kind == "shrink"


def test_memory_over_the_budget_shrinks_to_what_fits() -> None:
    bounds = Bounds(0, 16, 1000 * MiB)
    cur = window(6, wait=0.5, memory=1300 * MiB, worker=150 * MiB)  # main 400 + 6 x 150
    v = decide([cur], bounds, frozenset())
    assert v.kind == "memory" and v.knobs is not None and v.knobs.num_workers == 4


def test_growth_is_held_by_the_memory_budget() -> None:
    bounds = Bounds(0, 16, 1000 * MiB)
    cur = window(4, wait=0.5, memory=950 * MiB, worker=130 * MiB)
    v = decide([cur], bounds, frozenset())
    assert v.kind == "prefetch"  # 6 workers would need ~1210 MiB


def test_the_hand_over_floor_is_not_counted_as_starving() -> None:
    """16 workers leave ~1 ms of hand-over per 5 ms step (16 %): not starving once an earlier
    window showed that floor, so neither more workers nor a deeper prefetch are tried."""
    bounds = Bounds(0, 32, None)
    first = window(16, wait=0.10, step=0.5, batches=100, kind="grow")
    v = decide([first], bounds, frozenset())
    assert v.kind == "grow"  # no floor known yet: the whole wait counts
    second = window(16, wait=0.105, step=0.5, batches=100, kind="grow", first=False)
    v = decide([first, second], bounds, frozenset({Knobs(24, 2)}))
    assert v.kind == "keep" and "beyond a batch's hand-over" in v.why
    began = window(16, wait=0.10, step=0.5, batches=100)  # the loader's own setting
    again = window(16, wait=0.105, step=0.5, batches=100, first=False)
    assert decide([began, again], bounds, frozenset()).kind == "shrink"  # fewer may do


def test_a_shrink_that_lost_a_little_while_fed_is_judged_on_two_windows() -> None:
    before = window(6, wait=0.01)
    dip = window(4, wait=0.02, step=1.04, kind="shrink")  # 4 % slower, the loop still fed
    v = decide([before, dip], BOUNDS, frozenset())
    assert v.kind == "keep" and v.knobs is None
    steady = window(4, wait=0.01, kind="shrink", first=False)
    v = decide([before, dip, steady], BOUNDS, frozenset())
    assert v.kind == "shrink" and v.knobs == Knobs(2, 2)  # 2 % over the two: held, on down
    slow = window(4, wait=0.02, step=1.06, kind="shrink", first=False)
    v = decide([before, dip, slow], BOUNDS, frozenset())
    assert v.kind == "revert" and v.knobs == Knobs(6, 2)
    after = window(4, wait=0.01, kind="shrink", first=False)  # a third window: judged already
    assert decide([before, dip, steady, after], BOUNDS, frozenset()).kind == "shrink"
