"""Per-batch timing of a training loop: how long it waited for data, how long its step took.

The loop is ``t0 = now; batch = next(it); t1 = now; <step>; t0' = now; ...``:

- **wait** of a batch is ``t1 - t0``: the time spent inside the loader's ``__next__``;
- **step** of a batch is ``t0' - t1``: everything the loop body did with it, up to asking for
  the next batch (for the last batch of a pass, up to the request that ends the pass, or to the
  moment the loop broke out).

The recorder keeps two ``array('d')`` buffers (8 bytes a batch, no Python object kept per batch)
and the index of each pass's first batch, whose wait includes worker start-up and is reported
apart from the steady state. The hot path is two ``time.perf_counter`` calls and two appends.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoopTimes:
    """Raw per-batch times of every pass so far, in seconds."""

    waits: array = field(default_factory=lambda: array("d"))
    steps: array = field(default_factory=lambda: array("d"))
    pass_starts: list[int] = field(default_factory=list)
    completed_passes: int = 0

    @property
    def batches(self) -> int:
        return len(self.waits)



def timed(iterator: Iterator[Any], times: LoopTimes,
          on_end: Callable[[bool], None] | None = None) -> Iterator[Any]:
    """Yield ``iterator``'s items, recording each one's wait and the step that follows it.

    A generator, so the per-batch cost is one resume plus two clock reads and two appends. When
    the consumer stops early (``break``, an exception, ``close()``), the last step is closed at
    that moment, so ``len(times.steps) == len(times.waits)`` always holds afterwards. Then
    ``on_end(completed)`` is called, ``completed`` being whether the iterator was exhausted.
    """
    clock = time.perf_counter
    add_wait = times.waits.append
    add_step = times.steps.append
    times.pass_starts.append(len(times.waits))
    got = None  # when the last batch was handed to the loop, until its step is recorded
    completed = False
    try:
        while True:
            t0 = clock()
            if got is not None:
                add_step(t0 - got)
                got = None
            try:
                batch = next(iterator)
            except StopIteration:
                times.completed_passes += 1
                completed = True
                return
            got = clock()
            add_wait(got - t0)
            yield batch
    finally:
        if got is not None:
            add_step(clock() - got)
        if on_end is not None:
            on_end(completed)
