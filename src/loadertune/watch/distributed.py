"""Rank awareness: who this process is under torchrun, and gathering every rank's summary."""

from __future__ import annotations

import os
import socket

from loadertune.machine import local_world_size
from loadertune.watch.summary import RankInfo, WatchSummary


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
