"""Every test must leave no process, /dev/shm file, temp file or file descriptor behind."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.resource_tracker
import multiprocessing.util
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# Start multiprocessing's resource tracker now: the first spawn would start it (a process and a
# pipe kept for the interpreter's life), which is no leak of the test that happened to be first.
multiprocessing.resource_tracker.ensure_running()
# Likewise multiprocessing's per-interpreter temp folder (pymp-*, removed at exit), which the
# first tensor sent through the resource sharer creates.
multiprocessing.util.get_temp_dir()

# A shell without job control starts background jobs with SIGINT ignored, and children inherit
# that: the Ctrl-C tests need the default, as in a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

SHM = Path("/dev/shm")
LEAKY_SHM_PREFIXES = ("torch_", "loadertune", "__KMP_REGISTERED_LIB_")


SINGLETONS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _children() -> set[int]:
    """Live descendants, less multiprocessing's per-interpreter helpers (the resource tracker
    and forkserver that the first spawn/forkserver start leaves for the interpreter's life)."""
    alive = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            if any(s in " ".join(proc.cmdline()) for s in SINGLETONS):
                continue
            alive.add(proc.pid)
        except psutil.Error:
            continue
    return alive


def _strays(tmp: Path) -> set[int]:
    """Processes anywhere on the machine that inherited this test's TMPDIR: trial processes
    and workers that outlived their parent (orphans are no longer our descendants)."""
    found = set()
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if (proc.environ().get("TMPDIR", "").startswith(str(tmp))
                    and proc.status() != psutil.STATUS_ZOMBIE):
                found.add(proc.pid)
        except (psutil.Error, OSError):
            continue
    return found


def _shm() -> set[str]:
    try:
        return {n for n in os.listdir(SHM) if n.startswith(LEAKY_SHM_PREFIXES)}
    except OSError:
        return set()


def _wait_for(check, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if not value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _open_fds() -> int:
    """Open descriptors once multiprocessing has reaped its ended children (it keeps an exited
    worker's Process, and the pipes of its Popen, until its next start or active_children())."""
    multiprocessing.active_children()
    return psutil.Process().num_fds()


def _settle(check, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    """``check()`` as things are; only when it finds something, collect the garbage (a
    DataLoader in a reference cycle keeps its workers, pipes and shared memory until
    collected) and wait for it to clear. A full collection costs about 0.2 s once torch,
    Lightning and transformers are loaded: three per test were 40 % of the suite's time."""
    value = check()
    if not value:
        return value
    gc.collect()
    return _wait_for(check, timeout)


def _fd_targets(before: dict[int, str] | None = None) -> dict[int, str]:
    """Open descriptors and what they point at (Linux), less those in ``before``."""
    found: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return {fd: t for fd, t in found.items() if not before or before.get(fd) != t}


def _fd_owners(fds: set[int]) -> list[str]:
    """What keeps ``fds`` open: the live objects holding each Connection, and each queue
    feeder thread still running (with where it waits), so a leak names its owner."""
    from multiprocessing.connection import Connection

    found = []
    for obj in gc.get_objects():
        if isinstance(obj, Connection) and not obj.closed and obj._handle in fds:
            holders = {type(r).__qualname__ for r in gc.get_referrers(obj)} - {"list"}
            found.append(f"fd {obj._handle} held by {sorted(holders)}")
    frames = sys._current_frames()
    for thread in threading.enumerate():
        if thread.name == "QueueFeederThread" and thread.ident in frames:
            where = traceback.extract_stack(frames[thread.ident])[-2]
            found.append(f"a queue feeder thread alive in {where.name}:{where.lineno}")
    return found


@pytest.fixture(autouse=True)
def no_leaks(tmp_path_factory: pytest.TempPathFactory,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give the test a private TMPDIR; afterwards assert nothing was left behind."""
    tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    children_before = _children()
    shm_before = _shm()
    fds_before = _open_fds()
    fd_set = _fd_targets()
    yield tmp
    leftover = _settle(lambda: _children() - children_before)
    assert not leftover, f"processes left alive: {sorted(leftover)}"
    orphans = _settle(lambda: _strays(tmp))
    assert not orphans, f"orphaned processes of this test still alive: {sorted(orphans)}"
    new_shm = _settle(lambda: _shm() - shm_before)
    assert not new_shm, f"/dev/shm files left behind: {sorted(new_shm)}"
    temp_left = _settle(lambda: [p.name for p in tmp.iterdir()])
    assert not temp_left, f"temp files left behind: {temp_left}"
    fds_after = _settle(lambda: max(_open_fds() - fds_before, 0), 2.0)
    if fds_after:
        left = _fd_targets(fd_set)
        pytest.fail(f"{fds_after} file descriptors left open: {left}; "
                    f"{_fd_owners(set(left)) or 'no Python object holds them'}")
