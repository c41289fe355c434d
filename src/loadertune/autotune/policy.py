"""When to change the loader, and to what: a pure function of the windows measured so far.

A window is a run of batches at one setting, after its workers have warmed up: how long the
loop waited for data and how long its step took, the throughput, the process tree's CPU and
memory. The rules, in order:

1. **memory** — the tree is past the budget: shrink to the most workers the measured per-worker
   memory says fit.
2. **judge a trial** — the window just measured is the first at a setting tried by rule 3 or 4:
   a grow stays only if it raised throughput beyond the noise; a shrink only if the loop still
   hardly waits and throughput held. Otherwise back to the previous setting, and the rejected
   one is never tried again — but a verdict that one window's noise could have decided (a grow
   that gained a little, a shrink that lost a little while the loop stayed fed) waits for a
   second window and is given on the two together.
3. **grow** — the loop waits for data more than ``STARVED`` of its time beyond what receiving a
   batch from a worker costs anyway (the least wait per batch seen with workers): more workers
   (as many as would end the wait if throughput scaled with them, x1.5 to x4 a step), or, when
   more workers are known not to help and the loop still starves badly, a deeper prefetch.
4. **shrink** — the loop hardly starves (under half that): fewer workers (/1.5), giving memory
   and cores back to the step, kept only while throughput holds and the wait does not grow. A
   setting that a grow just paid for is left alone unless the loop has stopped waiting
   altogether (the step became the bottleneck).
5. otherwise keep the setting.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from loadertune.autotune.rebuild import Knobs

STARVED = 0.10      # the loop waits for data this share of its time: grow; below it, shrink
WAIT_SLACK = 0.03   # a shrink stays while the wait share grows by less than this
FED = 0.02          # a setting a grow paid for is shrunk only once the loop waits under this
GAIN = 0.05         # a grow must raise throughput by this much to stay
HOLD = 0.97         # a shrink must keep this share of the throughput
CLOSE = 0.90        # a shrink that keeps this share while fed is judged again on two windows
MAX_PREFETCH = 8
TRIALS = ("grow", "shrink", "prefetch")


@dataclass(frozen=True)
class Window:
    """Measured batches at one setting (warm-up excluded)."""

    knobs: Knobs
    kind: str               # why this setting runs: start | grow | shrink | prefetch | revert...
    batches: int
    wait_s: float
    step_s: float
    wall_s: float
    memory: int | None = None         # PSS of main + workers, bytes
    worker_memory: int | None = None  # the largest worker's PSS
    first: bool = True                # the first window at this setting since it was set

    @property
    def wait_share(self) -> float:
        busy = self.wait_s + self.step_s
        return self.wait_s / busy if busy > 0 else 0.0

    @property
    def rate(self) -> float:
        """Batches per second of the loop."""
        return self.batches / self.wall_s if self.wall_s > 0 else 0.0


@dataclass(frozen=True)
class Bounds:
    min_workers: int
    max_workers: int
    memory_budget: int | None


@dataclass(frozen=True)
class Verdict:
    """The setting to switch to (None: keep), the kind of change, and why."""

    knobs: Knobs | None
    kind: str
    why: str


def grow(k: int, wait_share: float) -> int:
    """More workers for a loop that waits ``wait_share`` of its time: as many as would remove
    the wait if throughput scaled with workers (k / (1 - share)), by x1.5 to x4 a step."""
    factor = min(max(1 / max(1 - wait_share, 1e-3), 1.5), 4.0)
    return max(k + 1, math.ceil(max(k, 1) * factor))


def shrink(k: int) -> int:
    return min(k - 1, math.floor(k / 1.5))


def decide(windows: Sequence[Window], bounds: Bounds, rejected: frozenset[Knobs]) -> Verdict:
    """The next change after ``windows`` (oldest first; the last is the current setting)."""
    cur = windows[-1]
    k = cur.knobs.num_workers
    memory = _memory(cur, bounds)
    if memory is not None:
        return memory
    trial = _trial_windows(windows)
    before = _last_at(windows, lambda w: w.knobs != cur.knobs) if trial else None
    if trial and before is not None:
        if len(trial) == 1:
            kept = _judge(cur, before, final=False)
        else:  # the first window was too close to call: judge the two together
            kept = _judge(_pooled(trial), before, final=True)
        if kept is not None:
            return kept
    share = starved_share(cur, windows)
    if share > STARVED:
        up = Knobs(grow(k, share), cur.knobs.prefetch_factor if k else None)
        if up.num_workers <= bounds.max_workers and up not in rejected and _fits(cur, up, bounds):
            return Verdict(up, "grow", f"the loop waited {100 * share:.0f}% of its time for "
                           f"data with {cur.knobs.label()}: trying {up.label()}")
        pf = (cur.knobs.prefetch_factor or 2) * 2
        deeper = Knobs(k, pf)
        if k and share > 2 * STARVED and pf <= MAX_PREFETCH and deeper not in rejected:
            return Verdict(deeper, "prefetch", f"the loop waited {100 * share:.0f}% of its "
                           f"time and more workers did not help: trying {deeper.label()}")
        return Verdict(None, "keep", f"the loop waits {100 * share:.0f}% of its time, and "
                       "no setting left to try helps")
    grown_into = any(w.knobs == cur.knobs and w.kind == "grow" for w in windows)
    if (k > bounds.min_workers and share < STARVED / 2
            and (not grown_into or cur.wait_share < FED)):
        down = Knobs(max(shrink(k), bounds.min_workers), cur.knobs.prefetch_factor)
        if down.num_workers == 0:
            down = Knobs(0)
        if down not in rejected:
            return Verdict(down, "shrink", f"the loop waited only {100 * share:.1f}% of its "
                           f"time for data beyond a batch's hand-over with "
                           f"{cur.knobs.label()}: trying {down.label()}")
    return Verdict(None, "keep", f"{cur.knobs.label()}: the loop waits "
                   f"{100 * share:.1f}% of its time beyond a batch's hand-over")


def handover_floor(windows: Sequence[Window]) -> float:
    """The least wait per batch seen with workers: what receiving a batch from a worker costs
    the loop whatever the worker count (0 until a setting with workers was measured)."""
    per_batch = [w.wait_s / w.batches for w in windows if w.knobs.num_workers and w.batches]
    return min(per_batch, default=0.0)


def starved_share(cur: Window, windows: Sequence[Window]) -> float:
    """The share of the loop's time spent waiting beyond the hand-over floor of the windows
    before it: waiting that more workers (or a deeper prefetch) could remove."""
    busy = cur.wait_s + cur.step_s
    if busy <= 0:
        return 0.0
    floor = handover_floor(windows[:-1]) if cur.knobs.num_workers else 0.0
    if floor * cur.batches > cur.wait_s:
        floor = 0.0  # this window beats every floor seen: it may be starved all the same
    return max(cur.wait_s - floor * cur.batches, 0.0) / busy


def _last_at(windows: Sequence[Window], match) -> Window | None:  # type: ignore[no-untyped-def]
    for w in reversed(windows):
        if match(w):
            return w
    return None


def _trial_windows(windows: Sequence[Window]) -> list[Window]:
    """The windows of a trial still being judged: its first, or its first two when the first
    was too close to call. Empty when the current setting is no trial or is judged already."""
    if len(windows) < 2 or windows[-1].kind not in TRIALS:
        return []
    cur = windows[-1]
    if cur.first:
        return [cur]
    first = windows[-2]
    if first.knobs != cur.knobs or not first.first or first.kind != cur.kind:
        return []
    before = _last_at(windows[:-1], lambda w: w.knobs != cur.knobs)
    if before is None or not _close(first, before):
        return []
    return [first, cur]


def _pooled(trial: Sequence[Window]) -> Window:
    last = trial[-1]
    return Window(last.knobs, last.kind, sum(w.batches for w in trial),
                  sum(w.wait_s for w in trial), sum(w.step_s for w in trial),
                  sum(w.wall_s for w in trial), last.memory, last.worker_memory, True)


def _paid(cur: Window, before: Window) -> bool:
    if cur.kind in ("grow", "prefetch"):
        return cur.rate > before.rate * (1 + GAIN)
    return (cur.wait_share < min(before.wait_share + WAIT_SLACK, STARVED)
            and cur.rate >= before.rate * HOLD)


def _close(cur: Window, before: Window) -> bool:
    """A trial's window missed its mark by what one window's noise could explain."""
    if _paid(cur, before):
        return False
    if cur.kind in ("grow", "prefetch"):
        return cur.rate > before.rate
    return cur.wait_share < STARVED and cur.rate >= before.rate * CLOSE


def _judge(cur: Window, before: Window, *, final: bool) -> Verdict | None:
    """Undo a trial that did not pay (the rejected setting is never tried again); a window too
    close to call, unless ``final``, asks for one more."""
    if _paid(cur, before):
        return None
    if not final and _close(cur, before):
        return Verdict(None, "keep", f"{cur.knobs.label()} against {before.knobs.label()}: "
                       f"{cur.rate:,.1f} vs {before.rate:,.1f} batches/s, too close to call "
                       "on one window: one more")
    if cur.kind in ("grow", "prefetch"):
        return Verdict(before.knobs, "revert", f"{cur.knobs.label()} gave {cur.rate:,.1f} "
                       f"batches/s vs {before.rate:,.1f} with {before.knobs.label()}: no gain, "
                       "back")
    return Verdict(before.knobs, "revert", f"{cur.knobs.label()} let the loop wait "
                   f"{100 * cur.wait_share:.0f}% ({cur.rate:,.1f} batches/s vs "
                   f"{before.rate:,.1f}): back to {before.knobs.label()}")


def _fits(cur: Window, up: Knobs, bounds: Bounds) -> bool:
    """``up`` is predicted to stay in the memory budget (measured per-worker memory)."""
    if bounds.memory_budget is None or cur.memory is None:
        return True
    k = cur.knobs.num_workers
    per = cur.worker_memory or 0
    main = cur.memory - k * per
    return main + up.num_workers * per <= bounds.memory_budget


def _memory(cur: Window, bounds: Bounds) -> Verdict | None:
    budget = bounds.memory_budget
    if budget is None or cur.memory is None or cur.memory <= budget:
        return None
    k = cur.knobs.num_workers
    per = max(cur.worker_memory or 0, 1)
    main = cur.memory - k * per
    fit = max(min((budget - main) // per, k - 1), 0)
    return Verdict(Knobs(fit, cur.knobs.prefetch_factor if fit else None), "memory",
                   f"{cur.knobs.label()} holds {cur.memory / 2**20:,.0f} MiB, over the "
                   f"{budget / 2**20:,.0f} MiB budget: {fit} workers fit")
