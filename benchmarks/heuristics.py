"""The num_workers rules users apply today, computed from this machine's CPU counts."""

from __future__ import annotations

import math
from dataclasses import dataclass

from loadertune.machine import MachineInfo

SHARE_OF_CORES = 0.75  # the middle of the "70-80 % of logical cores" advice


@dataclass(frozen=True)
class Heuristic:
    key: str
    title: str
    rule: str
    num_workers: int


def share_of_cores(logical_cpus: int, share: float = SHARE_OF_CORES) -> int:
    """``floor(share × logical CPUs)``, at least 1."""
    return max(1, math.floor(share * logical_cpus))


def lightning_suggestion(cpus_available: int, local_world_size: int = 1) -> int:
    """PyTorch Lightning's suggested upper bound for num_workers.

    Lightning-AI/pytorch-lightning, ``src/lightning/fabric/utilities/data.py``,
    ``suggested_max_num_workers(local_world_size)``: ``max(1, cpu_count // local_world_size - 1)``
    ("-1 to leave some resources for main process"), where ``cpu_count`` is
    ``_num_cpus_available()`` = ``len(os.sched_getaffinity(0))`` (else ``os.cpu_count()``).
    The Trainer calls it from ``_worker_check`` in
    ``src/lightning/pytorch/trainer/connectors/data_connector.py`` with
    ``trainer.num_devices`` (1 on a CPU-only machine) and warns "does not have many workers
    which may be a bottleneck ... Consider increasing ... to num_workers=<that bound>" when a
    loader has fewer than 2 workers.
    """
    if local_world_size < 1:
        raise ValueError(f"local_world_size must be >= 1, got {local_world_size}")
    return max(1, cpus_available // local_world_size - 1)


def heuristics(machine: MachineInfo) -> list[Heuristic]:
    """num_workers=0, 75 % of logical cores, os.cpu_count() and Lightning's suggestion."""
    logical = machine.logical_cpus
    return [
        Heuristic("zero", "workers=0", "num_workers=0 (torch's default)", 0),
        Heuristic("share", "75% cores", f"floor({SHARE_OF_CORES:g} × {logical} logical CPUs)",
                  share_of_cores(logical)),
        Heuristic("cpu_count", "cpu_count", f"os.cpu_count() = {logical}", logical),
        Heuristic("lightning", "Lightning",
                  f"max(1, {machine.affinity_cpus} affinity CPUs // "
                  f"{machine.local_world_size} device(s) - 1)",
                  lightning_suggestion(machine.affinity_cpus, machine.local_world_size)),
    ]
