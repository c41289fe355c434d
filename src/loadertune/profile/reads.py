"""Where workers that mostly wait read from: the page cache or the storage, and what helps.

A trial records what its workers read between warm-up and the end (Linux ``/proc/PID/io``):
the bytes they asked for (``rchar``: read() and the like, page-cache hits included) and the
bytes of those fetched from storage (``read_bytes``). A network file system's reads are not
storage reads here, so "from the page cache" means: not from a local disk.
"""

from __future__ import annotations

from typing import Any

from loadertune.units import format_bytes

WAITING = 0.25   # workers blocked this share of their time (as the tuner's climb judges)
FROM_DISK = 0.5  # this share of the bytes read came from storage: the disk is what they wait on
SOME = 1 << 20   # less than this read per trial is not reading files


def reads_line(result: Any) -> str | None:
    """One line on the reads of ``result``'s workers when they mostly waited; None when they
    did not wait, or the OS does not tell."""
    reads, blocked = getattr(result, "worker_reads", None), getattr(result, "workers_blocked", None)
    if not reads or blocked is None or blocked < WAITING or not result.wall_s:
        return None
    asked, disk = reads["requested"], reads["storage"]
    head = (f"reads ({result.config.label()}): workers blocked {100 * blocked:.0f}% of the "
            f"time and read {format_bytes(asked)}")
    if asked < SOME:
        return (f"{head}: little through read(), so they wait on something else (a network, "
                "a lock, a sleep, a memory-mapped file's page faults); more workers hide it")
    if disk >= FROM_DISK * asked:
        return (f"{head}, {100 * disk / asked:.0f}% of it from storage (missed the page "
                "cache): the disk is the wait. What helps: more workers up to the disk's "
                "queue depth, fewer larger files (shards, tar/webdataset), memory-mapped "
                "arrays (np.load(mmap_mode='r')), faster storage, or caching decoded samples "
                "if they fit in memory")
    return (f"{head}, {100 * (1 - disk / asked):.0f}% of it from the page cache: not the "
            "local disk. The waits are elsewhere (a network file system, a remote store, "
            "a lock, a sleep); a cold cache (the first epoch, a dataset larger than memory) "
            "would read from storage instead")
