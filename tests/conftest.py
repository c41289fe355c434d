"""Every test must leave no process, /dev/shm file, temp file or file descriptor behind."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

SHM = Path("/dev/shm")
LEAKY_SHM_PREFIXES = ("torch_", "loadertune", "__KMP_REGISTERED_LIB_")


def _children() -> set[int]:
    alive = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                alive.add(proc.pid)
        except psutil.Error:
            continue
    return alive


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


@pytest.fixture(autouse=True)
def no_leaks(tmp_path_factory: pytest.TempPathFactory,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give the test a private TMPDIR; afterwards assert nothing was left behind."""
    tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    children_before = _children()
    shm_before = _shm()
    gc.collect()
    fds_before = psutil.Process().num_fds()
    yield tmp
    leftover = _wait_for(lambda: _children() - children_before)
    assert not leftover, f"processes left alive: {sorted(leftover)}"
    new_shm = _wait_for(lambda: _shm() - shm_before)
    assert not new_shm, f"/dev/shm files left behind: {sorted(new_shm)}"
    temp_left = [p.name for p in tmp.iterdir()]
    assert not temp_left, f"temp files left behind: {temp_left}"
    gc.collect()
    fds_after = _wait_for(lambda: max(psutil.Process().num_fds() - fds_before, 0), 2.0)
    assert not fds_after, f"{fds_after} file descriptors left open"
