"""Ranks that change together: autotune under ``torch.distributed`` (torchrun, DDP, Lightning).

Every change is decided by all the ranks of a node at once, from one window they measure
together, so their loaders change at the same batch and no collective is left waiting:

- windows close on batch counts only (no wall-clock minimum), and every rank serves the same
  number of batches per epoch (a ``DistributedSampler`` pads to make it so), so every rank
  closes window N at the same batch;
- at a window's close the ranks of the node gather their window (one ``all_gather`` of a few
  numbers on a gloo group of their own, on the CPU whatever the job's backend) and each
  builds the same node window from it: mean wait and step, the longest wall time, the node's
  memory per rank (its total against the per-rank budget × ranks); the policy is a pure
  function, so every rank reaches the same verdict;
- a rank whose workers failed falls back at once on its own and keeps counting batches; at the
  window's close the others learn of it and fall back too, and the setting is never tried again;
- the limits and the starting setting are rank 0's of the node (broadcast at wrap time); only
  it prints the report and writes the history.

Nodes are tuned apart (one group per node, created by all ranks at wrap time), so a node never
waits for another; a node is named by torchrun's ``GROUP_RANK``, else by its host name.
Every rank must call ``autotune`` on its loader, in the same order on every rank, as with DDP.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import torch

from loadertune.autotune.policy import Bounds, Window
from loadertune.autotune.rebuild import Knobs

TIMEOUT = timedelta(minutes=10)  # a rank that never reaches a window's close fails the others


def is_distributed() -> bool:
    """Whether ``torch.distributed`` is available and a process group is initialised."""
    import torch.distributed as dist

    return dist.is_available() and dist.is_initialized()


def node_name() -> str:
    """This rank's node: torchrun's node rank when set, else the host name."""
    group_rank = os.environ.get("GROUP_RANK")
    return f"node{group_rank}" if group_rank is not None else socket.gethostname()


@dataclass(frozen=True)
class NodeAgreement:
    """The ranks of one node, agreeing on every window of an autotuned loader."""

    group: Any                   # a gloo process group of this node's ranks
    ranks: tuple[int, ...]       # their global ranks
    rank: int                    # this rank's global rank

    @property
    def leader(self) -> int:
        return self.ranks[0]

    @property
    def is_leader(self) -> bool:
        return self.rank == self.leader

    @classmethod
    def create(cls, timeout: timedelta = TIMEOUT) -> NodeAgreement:
        """The groups of every node (a collective: every rank must call it)."""
        import torch.distributed as dist

        world = dist.new_group(backend="gloo", timeout=timeout)
        names: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(names, node_name(), group=world)
        rank, nodes = dist.get_rank(), list(dict.fromkeys(names))
        if len(nodes) == 1:
            return cls(world, tuple(range(len(names))), rank)
        mine: NodeAgreement | None = None
        for node in nodes:  # every rank creates every node's group, in the same order
            ranks = tuple(r for r, n in enumerate(names) if n == node)
            group = dist.new_group(list(ranks), backend="gloo", timeout=timeout)
            if rank in ranks:
                mine = cls(group, ranks, rank)
        assert mine is not None
        return mine

    def share(self, bounds: Bounds, knobs: Knobs) -> tuple[Bounds, Knobs]:
        """The node leader's limits and starting setting, on every rank of the node."""
        import torch.distributed as dist

        box: list[Any] = [bounds, knobs]
        dist.broadcast_object_list(box, src=self.leader, group=self.group)
        return box[0], box[1]

    def agree(self, window: Window, failed: bool) -> tuple[Window, list[int]]:
        """The node's window from every rank's ``window``, and the ranks whose workers failed
        in it (the same answer on every rank of the node)."""
        import torch.distributed as dist

        known = window.memory is not None
        row = torch.tensor([window.wait_s, window.step_s, window.wall_s, window.batches,
                            window.memory or 0, window.worker_memory or 0, known, failed,
                            window.knobs.num_workers, window.knobs.prefetch_factor or 0],
                           dtype=torch.float64)
        rows = [torch.empty_like(row) for _ in self.ranks]
        dist.all_gather(rows, row, group=self.group)
        table = torch.stack(rows)
        if not bool((table[:, 8:] == table[0, 8:]).all()):
            raise RuntimeError(f"autotune: the ranks {list(self.ranks)} measured different "
                               f"settings ({table[:, 8:].tolist()}); they must wrap the same "
                               "loader the same way")
        n = len(self.ranks)
        all_known = bool(table[:, 6].all())
        node = Window(window.knobs, window.kind, int(table[:, 3].max()),
                      float(table[:, 0].sum()) / n, float(table[:, 1].sum()) / n,
                      float(table[:, 2].max()),
                      int(table[:, 4].sum()) // n if all_known else None,
                      int(table[:, 5].max()) if all_known else None, window.first)
        return node, [self.ranks[i] for i in range(n) if table[i, 7]]
