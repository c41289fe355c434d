"""Facts about this machine that decide how many DataLoader workers can run."""

from __future__ import annotations

import math
import os
import platform
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil

from loadertune.machine.cgroups import CgroupLimits, read_cpu_quota, read_limits
from loadertune.machine.cgroups import parse_cgroup_v1_quota as parse_cgroup_v1_quota
from loadertune.machine.cgroups import parse_cgroup_v2_cpu_max as parse_cgroup_v2_cpu_max

CGROUP_ROOT = Path("/sys/fs/cgroup")
DEFAULT_MEMORY_FRACTION = 0.8  # of the memory room: the rest stays with the training step and OS


@dataclass(frozen=True)
class MachineInfo:
    """What the machine offers a DataLoader; every field is measured, not assumed."""

    hostname: str
    platform: str
    python: str
    torch: str
    cpu_model: str
    logical_cpus: int
    physical_cpus: int | None
    affinity_cpus: int
    cgroup_cpu_quota: float | None
    usable_cpus: float
    memory_total: int
    memory_available: int
    shm_total: int | None
    shm_free: int | None
    start_method: str
    accelerator: str | None
    local_world_size: int
    cgroup_memory_limit: int | None = None
    cgroup_memory_room: int | None = None  # the cgroup limit less its working set

    @property
    def memory_room(self) -> int:
        """Bytes this process may still use: the host's available memory, capped by what the
        cgroup's memory limit leaves (a container's limit, not the host's RAM)."""
        if self.cgroup_memory_room is None:
            return self.memory_available
        return min(self.memory_available, self.cgroup_memory_room)

    def memory_room_source(self) -> str:
        """Where :attr:`memory_room` comes from, in words."""
        if self.cgroup_memory_room is not None and \
                self.cgroup_memory_room < self.memory_available:
            from loadertune.units import format_bytes

            return (f"left under the cgroup's {format_bytes(self.cgroup_memory_limit)} memory "
                    "limit")
        return "available on the host"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def fingerprint(self) -> dict[str, Any]:
        """The fields that make measurements comparable across runs."""
        keys = ("cpu_model", "logical_cpus", "usable_cpus", "memory_total", "torch",
                "start_method", "accelerator", "cgroup_memory_limit")
        return {k: getattr(self, k) for k in keys}


def cgroup_cpu_quota(root: Path | None = None) -> float | None:
    """The CPU quota of this process's cgroup in CPUs, or None when there is none.

    By default the process's own cgroup is found (``/proc/self/cgroup``) and the tightest
    quota along its ancestors is taken; ``root`` reads one cgroup folder directly.
    """
    if root is None:
        limits = read_limits()
        if limits.version is not None:
            return limits.cpu_quota
        root = CGROUP_ROOT
    if (root / "cpu.max").exists():
        return read_cpu_quota(root, 2)
    return read_cpu_quota(root / "cpu", 1)


def default_memory_budget(info: MachineInfo, ranks: int = 1) -> int:
    """The default memory budget: 80 % of the memory room, shared by ``ranks`` local ranks."""
    return int(info.memory_room * DEFAULT_MEMORY_FRACTION / max(ranks, 1))


def affinity_cpus() -> int:
    """CPUs this process may run on (``sched_getaffinity``; psutil on Windows), else the count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    try:
        return len(psutil.Process().cpu_affinity()) or os.cpu_count() or 1  # type: ignore[attr-defined]
    except (AttributeError, psutil.Error):  # macOS has no affinity
        return os.cpu_count() or 1


def usable_cpus(affinity: int, quota: float | None, local_world_size: int = 1) -> float:
    """CPUs one process may use: affinity capped by the cgroup quota, shared by local ranks."""
    cpus = float(affinity) if quota is None else min(float(affinity), quota)
    return max(cpus / max(local_world_size, 1), 0.0)


def cpu_model() -> str:
    """The CPU's model name, as the OS reports it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def shm_usage(path: str = "/dev/shm") -> tuple[int | None, int | None]:
    """Total and free bytes of the shared-memory filesystem, or (None, None) without one."""
    try:
        usage = shutil.disk_usage(path)
    except OSError:
        return None, None
    return usage.total, usage.free


def accelerator() -> str | None:
    """The accelerator torch would pin memory for ("cuda", "xpu", "mps"), or None."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    acc = getattr(torch, "accelerator", None)
    if acc is not None and acc.is_available():
        current = acc.current_accelerator()
        return str(current.type) if current is not None else None
    return None


def local_world_size() -> int:
    """How many ranks share this machine (torchrun's LOCAL_WORLD_SIZE), 1 outside torchrun."""
    try:
        return max(int(os.environ.get("LOCAL_WORLD_SIZE", "1")), 1)
    except ValueError:
        return 1


def collect() -> MachineInfo:
    """Measure this machine now."""
    import torch
    import torch.multiprocessing

    limits: CgroupLimits = read_limits()
    quota = limits.cpu_quota
    affinity = affinity_cpus()
    lws = local_world_size()
    mem = psutil.virtual_memory()
    shm_total, shm_free = shm_usage()
    return MachineInfo(
        hostname=platform.node(),
        platform=f"{platform.system()} {platform.release()} {platform.machine()}",
        python=sys.version.split()[0],
        torch=torch.__version__,
        cpu_model=cpu_model(),
        logical_cpus=os.cpu_count() or 1,
        physical_cpus=psutil.cpu_count(logical=False),
        affinity_cpus=affinity,
        cgroup_cpu_quota=quota,
        usable_cpus=usable_cpus(affinity, quota, lws),
        memory_total=mem.total,
        memory_available=mem.available,
        shm_total=shm_total,
        shm_free=shm_free,
        start_method=torch.multiprocessing.get_start_method(allow_none=False),
        accelerator=accelerator(),
        local_world_size=lws,
        cgroup_memory_limit=limits.memory_limit,
        cgroup_memory_room=limits.memory_room,
    )


def usable_cpus_int(info: MachineInfo) -> int:
    """Whole CPUs available to this process, at least 1."""
    return max(1, math.floor(info.usable_cpus + 1e-9))
