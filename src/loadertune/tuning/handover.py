"""What receiving one batch from a worker costs the main process, at the least.

A worker pickles each batch (tensor storage moves to shared memory) and the main process
unpickles it (maps that memory back). Workers pickle in parallel, but every batch is unpickled
in the one main process. Timing the unpickling here, without the queue, the pipe and the
thread wake-ups, in CPU time (so other processes preempting this one do not inflate it)
gives a lower bound of the main process's cost per batch with workers: when
loading a whole batch without workers is faster than that, no number of workers can win.
"""

from __future__ import annotations

import io
import pickle
import time
from typing import Any

REPEATS = 9


def handover_s(items: list[Any], batch_size: int, collate_fn: Any = None) -> float | None:
    """Least seconds the main process takes to unpickle one collated batch pickled as
    DataLoader workers do; None when it cannot be measured (nothing collates, or pickling
    fails)."""
    if not items:
        return None
    from multiprocessing import resource_sharer

    sharer = getattr(resource_sharer, "_resource_sharer", None)
    was_sharing = getattr(sharer, "_address", None) is not None
    try:
        return _min_unpickle_s(items, batch_size, collate_fn)
    except Exception:
        return None
    finally:
        # Unpickling a tensor as a worker sends it passes its file descriptor through
        # multiprocessing's resource sharer: a thread and a socket this process does not need
        # once measured (unless the caller was already sharing).
        if not was_sharing:
            resource_sharer.stop()


def _min_unpickle_s(items: list[Any], batch_size: int, collate_fn: Any) -> float:
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing  # noqa: F401  (registers tensor reductions)
    from torch.utils.data import default_collate

    batch_items = [items[i % len(items)] for i in range(batch_size)]
    collate = collate_fn or default_collate
    times = []
    for _ in range(REPEATS):
        batch = collate(batch_items)
        buffer = io.BytesIO()
        ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(batch)  # the worker's part
        data = buffer.getvalue()
        started = time.thread_time()  # this thread's CPU: others preempting it do not count
        received = pickle.loads(data)  # the main process's part
        times.append(time.thread_time() - started)
        del received, batch
    return min(times)  # the least is the cost; more is interference
