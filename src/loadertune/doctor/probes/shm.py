"""/dev/shm: size and free space vs batches in flight; kernel.shmmax / shmall."""

from __future__ import annotations

import sys
from pathlib import Path

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, error, human_bytes, ok, warn
from loadertune.machine import shm_usage

PROBE = "shm"
DOCKER_DEFAULT = 64 * 2**20
SMALL = 512 * 2**20
PAGE = 4096
FIX = ("give the container more shared memory: `docker run --shm-size=8g ...` (or "
       "`--ipc=host`), in Kubernetes mount an emptyDir with medium: Memory at /dev/shm; "
       "or lower num_workers × prefetch_factor × batch_size")


def parse_sysctl_int(text: str) -> int | None:
    try:
        return int(text.strip().split()[0])
    except (ValueError, IndexError):
        return None


def shm_need(sample_bytes: int, batch_size: int, prefetch: int, workers: int) -> int:
    """Shared memory held by batches in flight: one batch per prefetch slot per worker."""
    return sample_bytes * batch_size * prefetch * max(workers, 1)


def probe(ctx: DoctorContext) -> list[Finding]:
    total, free = shm_usage()
    findings: list[Finding] = []
    if (total is None or free is None) and not sys.platform.startswith("linux"):
        return [ok(PROBE, "shm.none", f"no /dev/shm on {sys.platform}",
                   "torch passes worker batches through the platform's own shared memory "
                   "here, with no /dev/shm size to check")]
    if total is None or free is None:
        return [warn(PROBE, "shm.missing", "no /dev/shm", "/dev/shm cannot be read",
                     "mount a tmpfs at /dev/shm; torch's workers pass batches through it")]
    data: dict = {"shm_total": total, "shm_free": free}
    sample = ctx.sample()
    need = None
    if sample is not None:
        need = shm_need(sample.nbytes, ctx.batch_size, ctx.prefetch_factor, ctx.workers)
        data.update(need=need, sample_bytes=sample.nbytes)
    base = f"/dev/shm: {human_bytes(total)} total, {human_bytes(free)} free"
    if need is not None:
        base += (f"; batches in flight need about {human_bytes(need)} (item "
                 f"{human_bytes(sample.nbytes) if sample else '?'} × batch {ctx.batch_size} × "
                 f"prefetch {ctx.prefetch_factor} × {ctx.workers} workers)")
    if need is not None and need > free:
        findings.append(error(PROBE, "shm.too_small", "/dev/shm too small for the batches",
                              base + "; workers will fail with 'No space left on device' or "
                              "'Bus error'", FIX, **data))
    elif total <= DOCKER_DEFAULT * 1.05 or (free < SMALL and need is None):
        findings.append(warn(PROBE, "shm.too_small",
                             f"/dev/shm is only {human_bytes(total)}",
                             base + ("; this is Docker's 64 MB default" if total <=
                                     DOCKER_DEFAULT * 1.05 else ""), FIX, **data))
    elif need is not None and need > free / 2:
        findings.append(warn(PROBE, "shm.tight", "/dev/shm more than half used by batches",
                             base, FIX, **data))
    else:
        findings.append(ok(PROBE, "shm.size", f"/dev/shm {human_bytes(free)} free", base,
                           **data))
    findings.extend(sysv_limits(Path("/proc/sys/kernel"), need))
    return findings


def sysv_limits(folder: Path, need: int | None) -> list[Finding]:
    """kernel.shmmax (bytes per segment) and kernel.shmall (pages in total)."""
    try:
        shmmax = parse_sysctl_int((folder / "shmmax").read_text())
        shmall = parse_sysctl_int((folder / "shmall").read_text())
    except OSError:
        return []
    if shmmax is None or shmall is None:
        return []
    data = {"shmmax": shmmax, "shmall_pages": shmall}
    evidence = (f"kernel.shmmax={shmmax} ({_limit(shmmax)} per segment), "
                f"kernel.shmall={shmall} pages ({_limit(shmall * PAGE)})")
    if need is not None and (shmmax < need or shmall * PAGE < need):
        return [warn(PROBE, "shm.sysv", "System V shared-memory limits are low",
                     evidence + f", below the {human_bytes(need)} batches in flight need; "
                     "torch itself uses POSIX shm (/dev/shm), but libraries using System V "
                     "segments will fail",
                     f"sysctl -w kernel.shmmax={need * 2} kernel.shmall={need * 2 // PAGE}",
                     **data)]
    return [ok(PROBE, "shm.sysv", "System V shared-memory limits", evidence, **data)]


def _limit(n: int) -> str:
    return "unlimited" if n >= 1 << 62 else human_bytes(n)
