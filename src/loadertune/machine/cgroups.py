"""The one reader of this process's cgroup limits (v1 and v2) and of ``/proc/self/mountinfo``.

Parsers take file contents so they can be tested on text captured from real machines;
`read_limits` does the reading (for `machine.collect`, which bench, tune, doctor and watch
use). Everything here is Linux; elsewhere the files are missing and every limit is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

NO_LIMIT = 1 << 60  # v1 reports "no limit" as a huge page-rounded number


@dataclass(frozen=True)
class Mount:
    """One line of ``/proc/self/mountinfo``."""

    root: str         # the folder of the filesystem mounted here ("/" for the whole of it)
    mount_point: str
    fstype: str
    source: str
    device: str       # "major:minor"
    options: str      # the filesystem's own options (cgroup v1: its controllers)


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal (``\\040``)."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def parse_mountinfo(text: str) -> list[Mount]:
    """Every mount in ``/proc/self/mountinfo`` text, in order (later mounts hide earlier)."""
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if sep and len(fields) >= 5 and len(rfields) >= 2:
            out.append(Mount(root=_unescape(fields[3]), mount_point=_unescape(fields[4]),
                             fstype=rfields[0], source=_unescape(rfields[1]), device=fields[2],
                             options=rfields[2] if len(rfields) >= 3 else ""))
    return out


@dataclass(frozen=True)
class CgroupMount:
    version: int
    root: str
    mount_point: str
    controllers: frozenset[str]


def parse_mountinfo_cgroups(text: str) -> list[CgroupMount]:
    """Cgroup mounts from ``/proc/self/mountinfo`` text (v1 with their controllers)."""
    mounts = []
    for m in parse_mountinfo(text):
        if m.fstype == "cgroup2":
            mounts.append(CgroupMount(2, m.root, m.mount_point, frozenset()))
        elif m.fstype == "cgroup":
            opts = m.options.split(",")
            names = {o for o in opts if o not in ("rw", "ro") and "=" not in o}
            names |= {o.split("=", 1)[1] for o in opts if o.startswith("name=")}
            mounts.append(CgroupMount(1, m.root, m.mount_point, frozenset(names)))
    return mounts


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


def parse_memory_limit(text: str) -> int | None:
    """``memory.max`` (v2, "max" = none) or ``memory.limit_in_bytes`` (v1, huge = none)."""
    value = text.strip()
    if not value or value == "max":
        return None
    limit = int(value)
    return None if limit >= NO_LIMIT else limit


def parse_memory_stat(text: str) -> dict[str, int]:
    """``memory.stat`` -> {key: value}."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[key] = int(value)
    return out


@dataclass(frozen=True)
class CgroupLimits:
    """This process's cgroup limits; None where there is none (or no cgroups at all)."""

    version: int | None
    cpu_quota: float | None
    memory_limit: int | None
    memory_usage: int | None       # the cgroup's charge, page cache included
    cpu_dir: str | None
    memory_dir: str | None
    memory_inactive_file: int = 0  # page cache the kernel reclaims before it OOM-kills

    @property
    def memory_room(self) -> int | None:
        """Bytes the cgroup may still use: limit - working set (usage less inactive page cache,
        as the kubelet counts it), or None without a memory limit."""
        if self.memory_limit is None:
            return None
        working = max((self.memory_usage or 0) - self.memory_inactive_file, 0)
        return max(self.memory_limit - working, 0)


def cgroup_dir(controller: str, proc_cgroup: str, mountinfo: str,
               root: Path = Path("/")) -> tuple[int, Path, Path] | None:
    """(version, this process's folder, the mount's folder) for ``controller`` ("cpu",
    "memory"); ``root`` prefixes mount points (a copied tree in tests)."""
    paths = parse_proc_cgroup(proc_cgroup)
    mounts = parse_mountinfo_cgroups(mountinfo)
    for mount in mounts:
        if mount.version == 1 and controller in mount.controllers and controller in paths:
            return 1, *_join(mount, paths[controller], root)
    for mount in mounts:
        if mount.version == 2 and "" in paths:
            return 2, *_join(mount, paths[""], root)
    return None


def _join(mount: CgroupMount, path: str, root: Path) -> tuple[Path, Path]:
    top = root / mount.mount_point.lstrip("/")
    rel = path[len(mount.root):] if path.startswith(mount.root) and mount.root != "/" else path
    folder = top / rel.lstrip("/")
    return (folder if folder.is_dir() else top), top


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _ancestors(folder: Path, top: Path) -> list[Path]:
    """``folder`` and its parents up to the mount's folder ``top``."""
    out = [folder]
    while folder != top and top in folder.parents:
        folder = folder.parent
        out.append(folder)
    return out


def read_cpu_quota(folder: Path, version: int) -> float | None:
    """The CPU quota set in one cgroup folder, or None."""
    try:
        if version == 2:
            text = _read(folder / "cpu.max")
            return parse_cgroup_v2_cpu_max(text) if text else None
        qt, pt = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
        return parse_cgroup_v1_quota(qt, pt) if qt and pt else None
    except ValueError:
        return None


def _memory(folder: Path, top: Path, version: int) -> tuple[int | None, int | None, int]:
    """(limit, usage, inactive page cache) of the tightest memory limit along the ancestors."""
    limit_name = "memory.max" if version == 2 else "memory.limit_in_bytes"
    usage_name = "memory.current" if version == 2 else "memory.usage_in_bytes"
    best: tuple[int | None, int | None, int] = (None, None, 0)
    for d in _ancestors(folder, top):
        text = _read(d / limit_name)
        try:
            limits = [parse_memory_limit(text)] if text else []
        except ValueError:
            limits = []
        stat = parse_memory_stat(_read(d / "memory.stat") or "")
        if version == 1:  # the hierarchy's limit, even where the parents are not visible
            limits.append(parse_memory_limit(str(stat.get("hierarchical_memory_limit", ""))))
        for lim in limits:
            if lim is not None and (best[0] is None or lim < best[0]):
                usage = (_read(d / usage_name) or "").strip()
                inactive = stat.get("inactive_file" if version == 2 else "total_inactive_file",
                                    stat.get("inactive_file", 0))
                best = (lim, int(usage) if usage.isdigit() else None, inactive)
    return best


def read_limits(proc: Path = Path("/proc/self"), root: Path = Path("/")) -> CgroupLimits:
    """CPU quota and memory limit of this process's cgroup, the tightest along its ancestors.

    ``proc`` holds ``cgroup`` and ``mountinfo``; ``root`` prefixes the mount points.
    """
    pc, mi = _read(proc / "cgroup") or "", _read(proc / "mountinfo") or ""
    quota = None
    version = None
    cpu = cgroup_dir("cpu", pc, mi, root)
    if cpu is not None:
        version, folder, top = cpu
        for d in _ancestors(folder, top):
            q = read_cpu_quota(d, version)
            if q is not None:
                quota = q if quota is None else min(quota, q)
    mem = cgroup_dir("memory", pc, mi, root)
    mem_limit, mem_usage, inactive = _memory(mem[1], mem[2], mem[0]) if mem else (None, None, 0)
    if version is None and mem is not None:
        version = mem[0]
    return CgroupLimits(version, quota, mem_limit, mem_usage,
                        str(cpu[1]) if cpu else None, str(mem[1]) if mem else None,
                        memory_inactive_file=inactive)
