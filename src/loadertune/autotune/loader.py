"""`AutotunedLoader`: iterate it like the DataLoader; it retunes workers and prefetch as it goes.

Each epoch's batches are the plain loader's (`feed.EpochOrder`): the same indices in the same
order, drawn from the same random streams. They are served by an inner DataLoader with the
current settings; a change mid-epoch shuts that one down and starts another on the epoch's
remaining batches, so nothing is lost, repeated or reordered. An iterable dataset (whose
sharding depends on num_workers) changes only between epochs.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from torch.utils.data import DataLoader, IterableDataset

from loadertune.autotune.feed import EpochOrder, Feed
from loadertune.autotune.memory import MemoryReader
from loadertune.autotune.policy import Bounds, Verdict, Window, decide
from loadertune.autotune.rebuild import Knobs, close_iterator, inner_loader, start_iterator

if TYPE_CHECKING:
    from loadertune.autotune.distributed import NodeAgreement

WINDOW_BATCHES = 8     # at least this many batches (and one per worker) make a window...
WINDOW_S = 0.5         # ...and at least this long
Policy = Callable[[list[Window], Bounds, frozenset[Knobs]], Verdict]


@dataclass(frozen=True)
class Change:
    """One change of setting: when, from what to what, what was measured, and why."""

    epoch: int
    batch: int               # batches served in this epoch when it happened
    before: str
    after: str
    kind: str                # grow | shrink | prefetch | revert | memory | failed
    why: str
    wait_share: float | None
    batches_per_s: float | None
    at_s: float              # seconds since the first batch was asked for

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Meter:
    """The batches of the current window."""

    knobs: Knobs
    kind: str
    warmup: int
    first: bool = True
    batches: int = 0
    wait_s: float = 0.0
    step_s: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def add(self, wait: float, step: float) -> None:
        if self.warmup > 0:
            self.warmup -= 1
            self.started = time.perf_counter()
            return
        self.batches += 1
        self.wait_s += wait
        self.step_s += step

    def full(self, min_batches: int, min_s: float) -> bool:
        return self.batches >= min_batches and time.perf_counter() - self.started >= min_s


class AutotunedLoader:
    """The user's loader, retuned while it runs; see `loadertune.autotune`."""

    def __init__(self, loader: DataLoader, knobs: Knobs, bounds: Bounds, *,
                 policy: Policy = decide, window_batches: int = WINDOW_BATCHES,
                 window_s: float = WINDOW_S,
                 on_change: Callable[[Change], None] | None = None,
                 sync: NodeAgreement | None = None) -> None:
        self.loader = loader
        self.bounds = bounds
        self._memory_reader = MemoryReader(bounds.memory_budget)
        self.knobs = knobs
        self.policy = policy
        self.window_batches = window_batches
        self.sync = sync  # the node's ranks, agreeing on every window (see distributed.py)
        self.window_s = 0.0 if sync is not None else window_s  # ranks close windows alike
        self.on_change = on_change
        self.history: list[Change] = []
        self.windows: list[Window] = []
        self.rejected: set[Knobs] = set()
        self._order = EpochOrder(loader)
        self._iterable = isinstance(loader.dataset, IterableDataset)
        self._inner: DataLoader | None = None
        self._inner_knobs: Knobs | None = None
        self._feed: Feed | None = None
        self._pending: Verdict | None = None
        self._started: float | None = None
        self._good: Knobs = knobs
        self._kind = "start"
        self._agreed = (knobs, "start")  # with ranks: the setting they last agreed on
        self.on_epoch: Callable[[AutotunedLoader], None] | None = None

    # --- the loader's face ------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.loader)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)

    @property
    def config(self) -> dict[str, Any]:
        """The DataLoader keyword arguments in use now."""
        return self.knobs.kwargs(self.loader)

    @property
    def epochs(self) -> int:
        """Epochs started so far."""
        return self._order.epochs

    def elapsed(self) -> float:
        """Seconds since the first batch was asked for."""
        return time.perf_counter() - (self._started or time.perf_counter())

    def dataloader_line(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.items())
        size = self.loader.batch_size
        return f"DataLoader(dataset, batch_size={size}, {args})"

    def __iter__(self) -> Iterator[Any]:
        return self._epoch()

    def close(self) -> None:
        """Shut the inner loader's workers down (the next epoch starts new ones)."""
        self._drop_inner()

    def __enter__(self) -> AutotunedLoader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown nothing is left to tell
            self._drop_inner()

    # --- one epoch ---------------------------------------------------------------------------
    def _epoch(self) -> Iterator[Any]:
        if self._started is None:
            self._started = time.perf_counter()
        items = self._order.next_epoch(self._iterable)
        if self._pending is not None:  # decided during the last epoch of an iterable dataset
            self._apply(self._pending, 0)
            self._pending = None
        epoch, pos, failed_at = self._order.epochs, 0, -1
        it: Iterator[Any] | None = None
        meter = self._meter()
        clock = time.perf_counter
        try:
            while True:
                t0 = clock()
                try:
                    if it is None:
                        it = self._start(items, pos)
                    batch = next(it)
                except StopIteration:
                    if self.on_epoch is not None:
                        self.on_epoch(self)
                    return
                except Exception as err:  # a worker died, or the dataset raised
                    if pos == failed_at or self.knobs == self._good or self._iterable:
                        raise
                    failed_at = pos
                    self._fail(err, epoch, pos)
                    close_iterator(it)
                    it = None  # with ranks, keep counting: the window closes where theirs do
                    meter = self._meter() if self.sync is None else meter
                    continue
                t1 = clock()
                yield batch
                meter.add(t1 - t0, clock() - t1)
                pos += 1
                if self._pending is None and meter.full(
                        max(self.window_batches, meter.knobs.num_workers), self.window_s):
                    verdict = self._close_window(meter)
                    if verdict.knobs is None or verdict.knobs == meter.knobs:
                        meter = self._meter(first=False)
                    elif self._iterable:
                        self._pending = verdict  # applied when this epoch ends
                        meter = self._meter(first=False)
                    else:
                        if verdict.knobs != self.knobs:  # (a failed rank is there already)
                            self._apply(verdict, pos, epoch)
                            close_iterator(it)
                            it = None
                        self._agreed = (self.knobs, self._kind)
                        meter = self._meter()
        except (Exception, KeyboardInterrupt):
            close_iterator(it)  # Ctrl-C or an error: no worker outlives the loop
            self._drop_inner()
            raise

    def _meter(self, first: bool = True) -> _Meter:
        # with ranks, a rank whose workers failed still counts as the others do until told
        k, kind = self._agreed if self.sync is not None else (self.knobs, self._kind)
        warmup = 1 + k.num_workers if first else 0  # start-up and the first round of batches
        return _Meter(k, kind, warmup, first)

    def _start(self, items: list[Any] | None, pos: int) -> Iterator[Any]:
        """An iterator over the epoch's batches from ``pos`` with the current settings, reusing
        the inner loader (and its persistent workers) when the settings did not change."""
        if self._inner is None or self._inner_knobs != self.knobs:
            self._drop_inner()
            self._feed = None if self._iterable else Feed()
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="This DataLoader will create")
                self._inner = inner_loader(self.loader, self.knobs, self._feed,
                                           self._order.base_seed or 0)
            self._inner_knobs = self.knobs
        if self._feed is not None and items is not None:
            self._feed.items, self._feed.start = items, pos
        with warnings.catch_warnings():  # more workers than cores is the tuner's own choice
            warnings.filterwarnings("ignore", message="This DataLoader will create")
            return start_iterator(self._inner)

    def _drop_inner(self) -> None:
        inner, self._inner, self._inner_knobs = self._inner, None, None
        if inner is None:
            return
        close_iterator(getattr(inner, "_iterator", None))
        inner._iterator = None

    # --- measuring and changing ------------------------------------------------------------
    def _close_window(self, meter: _Meter) -> Verdict:
        memory, worker = self._memory()
        window = Window(meter.knobs, meter.kind, meter.batches, meter.wait_s, meter.step_s,
                        time.perf_counter() - meter.started, memory, worker, meter.first)
        if self.sync is not None:  # the node's window, the same on each of its ranks
            window, failed = self.sync.agree(window, failed=self.knobs != meter.knobs)
            if failed:
                return Verdict(self._good, "revert", f"{meter.knobs.label()} failed on rank "
                               f"{failed[0]}: back to {self._good.label()}, never tried again")
        self.windows.append(window)
        self._good = self.knobs
        return self.policy(self.windows, self.bounds, frozenset(self.rejected))

    def _memory(self) -> tuple[int | None, int | None]:
        """PSS of this process plus the inner loader's workers, and the largest worker's."""
        it = getattr(self._inner, "_iterator", None)
        pids = [os.getpid()] + [p.pid for p in getattr(it, "_workers", []) if p.pid is not None]
        tree = self._memory_reader.read(pids)
        return (tree.total, tree.largest_worker) if tree is not None else (None, None)

    def _apply(self, verdict: Verdict, pos: int, epoch: int | None = None) -> None:
        assert verdict.knobs is not None
        if verdict.kind == "revert":
            self.rejected.add(self.knobs)
        last = self.windows[-1] if self.windows else None
        self._record(Change(epoch or self._order.epochs, pos, self.knobs.label(),
                            verdict.knobs.label(), verdict.kind, verdict.why,
                            last.wait_share if last else None, last.rate if last else None,
                            self.elapsed()))
        self.knobs = verdict.knobs
        self._kind = verdict.kind
        self._agreed = (self.knobs, self._kind)

    def _fail(self, err: BaseException, epoch: int, pos: int) -> None:
        """A setting that broke (a worker killed, out of memory): back to the last good one,
        never to be tried again."""
        self.rejected.add(self.knobs)
        self._drop_inner()
        why = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".strip()
        self._record(Change(epoch, pos, self.knobs.label(), self._good.label(), "failed",
                            f"{why}; back to {self._good.label()}, never tried again", None,
                            None, self.elapsed()))
        self.knobs = self._good
        self._kind = "revert"

    def _record(self, change: Change) -> None:
        self.history.append(change)
        if self.on_change is not None:
            self.on_change(change)
