"""This process's cgroup limits (v1 and v2): CPU quota and memory limit.

Parsers take file contents so they can be tested on text captured from real machines;
`read_limits` does the reading (used by `machine.collect` and doctor).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def parse_cgroup_v2_cpu_max(text: str) -> float | None:
    """CPUs allowed by a cgroup v2 ``cpu.max`` line (``"max 100000"`` means no limit)."""
    fields = text.split()
    if len(fields) != 2 or fields[0] == "max":
        return None
    quota, period = int(fields[0]), int(fields[1])
    return quota / period if period > 0 else None


def parse_cgroup_v1_quota(quota_text: str, period_text: str) -> float | None:
    """CPUs allowed by cgroup v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us`` (-1: no limit)."""
    quota, period = int(quota_text.strip()), int(period_text.strip())
    if quota <= 0 or period <= 0:
        return None
    return quota / period


NO_LIMIT = 1 << 60  # v1 reports "no limit" as a huge page-rounded number


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` -> {controller: path}; the v2 unified entry has controller ""."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for controller in controllers.split(",") if controllers else [""]:
            out[controller.removeprefix("name=")] = path
    return out


@dataclass(frozen=True)
class CgroupMount:
    version: int
    root: str
    mount_point: str
    controllers: frozenset[str]


def parse_mountinfo_cgroups(text: str) -> list[CgroupMount]:
    """Cgroup mounts from ``/proc/self/mountinfo``."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, rfields = left.split(), right.split()
        if len(fields) < 5 or len(rfields) < 3:
            continue
        fstype, options = rfields[0], rfields[2]
        if fstype == "cgroup2":
            mounts.append(CgroupMount(2, fields[3], fields[4], frozenset()))
        elif fstype == "cgroup":
            names = {o for o in options.split(",") if o not in ("rw", "ro") and "=" not in o}
            names |= {o.split("=", 1)[1] for o in options.split(",") if o.startswith("name=")}
            mounts.append(CgroupMount(1, fields[3], fields[4], frozenset(names)))
    return mounts


def cgroup_dir(controller: str, proc_cgroup: str, mountinfo: str) -> tuple[int, Path] | None:
    """The (version, folder) holding this process's files for ``controller`` ("cpu", "memory")."""
    paths = parse_proc_cgroup(proc_cgroup)
    for mount in parse_mountinfo_cgroups(mountinfo):
        if mount.version == 1 and controller in mount.controllers and controller in paths:
            return 1, _join(mount, paths[controller])
    for mount in parse_mountinfo_cgroups(mountinfo):
        if mount.version == 2 and "" in paths:
            return 2, _join(mount, paths[""])
    return None


def _join(mount: CgroupMount, path: str) -> Path:
    rel = path[len(mount.root):] if path.startswith(mount.root) and mount.root != "/" else path
    folder = Path(mount.mount_point) / rel.lstrip("/")
    return folder if folder.is_dir() else Path(mount.mount_point)


def parse_memory_limit(text: str) -> int | None:
    """``memory.max`` (v2, "max" = none) or ``memory.limit_in_bytes`` (v1, huge = none)."""
    value = text.strip()
    if not value or value == "max":
        return None
    limit = int(value)
    return None if limit >= NO_LIMIT else limit


@dataclass(frozen=True)
class CgroupLimits:
    version: int | None
    cpu_quota: float | None
    memory_limit: int | None
    memory_usage: int | None
    cpu_dir: str | None
    memory_dir: str | None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _ancestors(folder: Path, top: Path) -> list[Path]:
    out = [folder]
    while folder != top and folder.parent != folder and str(folder).startswith(str(top)):
        folder = folder.parent
        out.append(folder)
    return out


def read_limits(proc: Path = Path("/proc/self")) -> CgroupLimits:
    """CPU quota and memory limit of this process's cgroup, the tightest along its ancestors."""
    pc, mi = _read(proc / "cgroup") or "", _read(proc / "mountinfo") or ""
    quota = mem_limit = mem_usage = None
    version = None
    cpu = cgroup_dir("cpu", pc, mi)
    if cpu is not None:
        version, folder = cpu
        for d in _ancestors(folder, Path("/sys/fs/cgroup")):
            q = None
            if version == 2 and (text := _read(d / "cpu.max")) is not None:
                q = parse_cgroup_v2_cpu_max(text)
            elif version == 1:
                qt, pt = _read(d / "cpu.cfs_quota_us"), _read(d / "cpu.cfs_period_us")
                q = parse_cgroup_v1_quota(qt, pt) if qt and pt else None
            if q is not None:
                quota = q if quota is None else min(quota, q)
    mem = cgroup_dir("memory", pc, mi)
    if mem is not None:
        mversion, mfolder = mem
        limit_name = "memory.max" if mversion == 2 else "memory.limit_in_bytes"
        usage_name = "memory.current" if mversion == 2 else "memory.usage_in_bytes"
        for d in _ancestors(mfolder, Path("/sys/fs/cgroup")):
            text = _read(d / limit_name)
            lim = parse_memory_limit(text) if text else None
            if lim is not None and (mem_limit is None or lim < mem_limit):
                mem_limit = lim
                usage = _read(d / usage_name)
                mem_usage = int(usage) if usage and usage.strip().isdigit() else None
    return CgroupLimits(version, quota, mem_limit, mem_usage,
                        str(cpu[1]) if cpu else None, str(mem[1]) if mem else None)
