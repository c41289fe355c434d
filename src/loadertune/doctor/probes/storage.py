"""Storage: read throughput of the dataset's files and the kind of device they live on."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, ok, warn
from loadertune.machine.cgroups import Mount as Mount
from loadertune.machine.cgroups import parse_mountinfo as parse_mountinfo
from loadertune.pipeline.objwalk import walk

PROBE = "storage"
NETWORK_FS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre", "beegfs",
              "gpfs", "afs", "9p", "davfs", "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse",
              "fuse.goofys", "fuse.rclone", "fuse.juicefs", "fuse.mountpoint-s3", "fuse.blobfuse"}
MEMORY_FS = {"tmpfs", "ramfs"}
MAX_FILES = 200
CHUNK = 1 << 20
MAX_BYTES = 256 << 20
SLOW_MB_S = 100.0
FAST_MB_S = 300.0  # beyond any spinning disk
FAST_FILES_S = 1000.0  # an HDD seeks ~100-200 times a second


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount holding ``path``: the longest mount point that prefixes it (last wins)."""
    best: Mount | None = None
    for m in mounts:
        prefix = m.mount_point.rstrip("/") + "/"
        if (path == m.mount_point or path.startswith(prefix) or m.mount_point == "/") and \
                (best is None or len(m.mount_point) >= len(best.mount_point)):
            best = m
    return best


def classify(mount: Mount | None, rotational: str | None) -> str:
    """"network", "memory", "hdd", "ssd" or "unknown"."""
    if mount is None:
        return "unknown"
    if mount.fstype in NETWORK_FS or (mount.fstype.startswith("fuse.") and \
            mount.fstype not in ("fuse.lxcfs",)):
        return "network"
    if mount.fstype in MEMORY_FS:
        return "memory"
    if rotational is not None:
        return "hdd" if rotational.strip() == "1" else "ssd"
    return "unknown"


def refine(kind: str, result: ReadResult) -> str:
    """Virtual disks (virtio, cloud volumes) often claim to be rotational; trust the reads."""
    if kind == "hdd" and (result.files_s >= FAST_FILES_S or result.mb_s >= FAST_MB_S):
        return "disk (claims rotational, reads fast: likely virtual or cached)"
    return kind


def rotational_flag(device: str) -> str | None:
    """``/sys/dev/block/MAJ:MIN/queue/rotational``, via the parent disk for a partition."""
    base = Path("/sys/dev/block") / device
    for candidate in (base / "queue" / "rotational", base / ".." / "queue" / "rotational"):
        try:
            return candidate.read_text()
        except OSError:
            continue
    return None


def discover_files(root: object, limit: int = MAX_FILES) -> list[Path]:
    """Existing files named by str/Path attributes of the dataset (folders are listed)."""
    files: list[Path] = []
    for node in walk(root):
        if len(files) >= limit:
            break
        if not isinstance(node.obj, (str, os.PathLike)) or (isinstance(node.obj, str) and \
                (len(node.obj) > 4096 or ("/" not in node.obj and "." not in node.obj))):
            continue
        path = Path(node.obj)
        try:
            if path.is_file():
                files.append(path)
            elif path.is_dir():
                for dirpath, _, names in os.walk(path):
                    files.extend(Path(dirpath) / n for n in names[: limit - len(files)])
                    if len(files) >= limit:
                        break
        except OSError:
            continue
    return list(dict.fromkeys(files))[:limit]


@dataclass
class ReadResult:
    files: int
    nbytes: int
    seconds: float

    @property
    def mb_s(self) -> float:
        return self.nbytes / 1e6 / max(self.seconds, 1e-9)

    @property
    def files_s(self) -> float:
        return self.files / max(self.seconds, 1e-9)


def read_test(files: list[Path], time_limit_s: float) -> ReadResult:
    """Read files cold (page cache dropped for each with fadvise) until the limit."""
    started = time.monotonic()
    nbytes = count = 0
    for path in files:
        if time.monotonic() - started > time_limit_s or nbytes > MAX_BYTES:
            break
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            while chunk := os.read(fd, CHUNK):
                nbytes += len(chunk)
                if time.monotonic() - started > time_limit_s:
                    break
            count += 1
        finally:
            os.close(fd)
    return ReadResult(count, nbytes, time.monotonic() - started)


def probe(ctx: DoctorContext) -> list[Finding]:
    loaded = ctx.dataset()
    if loaded is None:
        return []
    files = discover_files(loaded.dataset)
    if not files:
        return [ok(PROBE, "storage.none", "no dataset files found",
                   "no attribute of the dataset names an existing file or folder; storage "
                   "was not measured")]
    try:
        mounts = parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    except OSError:
        mounts = []
    mount = mount_of(str(files[0].resolve()), mounts)
    kind = classify(mount, rotational_flag(mount.device) if mount else None)
    result = read_test(files, ctx.storage_time_limit_s)
    kind = refine(kind, result)
    where = f"{mount.mount_point} ({mount.fstype}, {mount.source})" if mount else "unknown mount"
    evidence = (f"read {result.files} file(s), {result.nbytes / 1e6:.1f} MB in "
                f"{result.seconds:.2f} s: {result.mb_s:.0f} MB/s, {result.files_s:.0f} files/s "
                f"from {where}, {kind}")
    data = {"kind": kind, "mb_s": result.mb_s, "files_s": result.files_s,
            "files": result.files, "bytes": result.nbytes,
            "fstype": mount.fstype if mount else None}
    if kind in ("network", "hdd"):
        return [warn(PROBE, "storage.slow_device", f"dataset files on {kind} storage", evidence,
                     "copy the data to a local SSD or /dev/shm, pack small files into shards "
                     "(tar/WebDataset, LMDB), and use more workers to hide latency", **data)]
    if result.nbytes > 8 << 20 and result.mb_s < SLOW_MB_S and kind != "memory":
        return [warn(PROBE, "storage.slow_read", f"slow reads: {result.mb_s:.0f} MB/s",
                     evidence, "move the data to faster local storage or shard it", **data)]
    return [ok(PROBE, "storage.read",
               f"{result.mb_s:.0f} MB/s, {result.files_s:.0f} files/s ({kind})", evidence,
               **data)]
