"""autotune's memory reader: PSS when due, the last reading otherwise, never blind to the budget."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from loadertune.autotune.memory import MIN_AGE_S, MemoryReader


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def child() -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_pss_is_read_again_only_when_due(child: int) -> None:
    clock = Clock()
    reader = MemoryReader(budget=None, clock=clock)
    pids = [os.getpid(), child]
    first = reader.read(pids)
    assert first is not None and first.total > 0 and first.largest_worker is not None
    assert first.largest_worker < first.total
    clock.t += MIN_AGE_S / 2
    assert reader.read(pids) is first and reader.full_reads == 1
    clock.t += MIN_AGE_S * 200  # long past any cost-based interval
    assert reader.read(pids) is not first and reader.full_reads == 2


def test_new_workers_are_read_at_once(child: int) -> None:
    reader = MemoryReader(budget=None, clock=Clock())
    reader.read([os.getpid()])
    tree = reader.read([os.getpid(), child])
    assert reader.full_reads == 2
    assert tree is not None and tree.largest_worker is not None


def test_rss_over_the_budget_forces_a_pss_reading(child: int) -> None:
    reader = MemoryReader(budget=1, clock=Clock())  # any RSS is over one byte
    pids = [os.getpid(), child]
    reader.read(pids)
    reader.read(pids)
    assert reader.full_reads == 2


def test_a_vanished_process_is_no_reading() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert MemoryReader(budget=None).read([proc.pid]) is None
