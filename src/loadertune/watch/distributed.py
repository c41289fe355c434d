"""Rank awareness: who this process is under torchrun, and gathering every rank's summary."""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from loadertune.machine import local_world_size
from loadertune.watch.summary import RankInfo, WatchSummary

GATHER_TIMEOUT_S = 30.0  # how long a rank's report waits for the other ranks to reach theirs
POLL_S = 0.05
KEY = "loadertune/watch"


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def is_distributed() -> bool:
    """Whether ``torch.distributed`` is available and a process group is initialised."""
    import torch.distributed as dist

    return dist.is_available() and dist.is_initialized()


def rank_info() -> RankInfo:
    """This process's rank, from the process group when there is one, else torchrun's env."""
    rank, world = _env_int("RANK", 0), _env_int("WORLD_SIZE", 1)
    if is_distributed():
        import torch.distributed as dist

        rank, world = dist.get_rank(), dist.get_world_size()
    return RankInfo(rank=rank, world_size=world, local_rank=_env_int("LOCAL_RANK", 0),
                    local_world_size=local_world_size(), hostname=socket.gethostname())


def gather(summary: WatchSummary) -> list[WatchSummary]:
    """Every rank's summary, in rank order, on every rank (a collective: all ranks must call it).

    Outside a process group this is just ``[summary]``. Summaries travel as plain dicts through
    ``all_gather_object``, which works with gloo on CPU and with NCCL.
    """
    if not is_distributed():
        return [summary]
    import torch.distributed as dist

    gathered: list[dict | None] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, summary.to_dict())
    return [WatchSummary.from_dict(d) for d in gathered if d is not None]


def _store() -> Any:
    """The default process group's key-value store (TCPStore under torchrun), or None."""
    from torch.distributed import distributed_c10d

    try:
        return distributed_c10d._get_default_store()
    except (AttributeError, RuntimeError, ValueError):
        return None


def agree_to_gather(timeout_s: float = GATHER_TIMEOUT_S) -> bool:
    """Whether every rank reached this report, so that gathering cannot deadlock.

    Through the process group's store, not a collective: each rank counts its reports, and
    report N of every rank meets under one key. The last rank to arrive decides "gather"; a
    rank that waited ``timeout_s`` for it decides "local". The first decision stored wins
    (``compare_set``) and every rank follows it, so either all ranks gather or none does; a
    rank that never wraps a loader only costs the others ``timeout_s`` once per report.
    """
    import torch.distributed as dist

    store = _store()
    if store is None:
        return False
    rank, world = dist.get_rank(), dist.get_world_size()
    seq = store.add(f"{KEY}/rank{rank}/reports", 1)
    base = f"{KEY}/report{seq}"
    decision = f"{base}/decision"
    if store.add(f"{base}/arrived", 1) >= world:
        return bytes(store.compare_set(decision, "", "gather")) == b"gather"
    deadline = time.monotonic() + timeout_s
    while not store.check([decision]) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    return bytes(store.compare_set(decision, "", "local")) == b"gather"
