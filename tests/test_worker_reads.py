"""What workers read, from the page cache or from storage: real files, real workers, Linux's
own counters; and the line that says which, and what helps."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from torch.utils.data import Dataset
from tune_helpers import result

from loadertune.config import LoaderConfig
from loadertune.profile.reads import reads_line
from loadertune.trial import DatasetSource, TrialPlan, run_trial

PLAN = TrialPlan(batches=8, repeats=3, timeout_s=90, profile=False)
SIZE = 256 * 1024
linux = pytest.mark.skipif(not Path("/proc/self/io").exists(),
                           reason="read counters come from Linux's /proc/PID/io")


class Files(Dataset):
    """Each item reads one file whole; ``cold`` drops the file from the page cache first."""

    def __init__(self, root: Path, count: int, cold: bool) -> None:
        self.paths, self.cold = [], cold
        for i in range(count):
            path = root / f"{i}.bin"
            with open(path, "wb") as fh:
                fh.write(os.urandom(SIZE))
                fh.flush()
                os.fsync(fh.fileno())  # clean pages: the kernel may drop them when told
            self.paths.append(path)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        with open(self.paths[index], "rb") as fh:
            if self.cold:
                os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            data = fh.read()
        return torch.tensor(len(data))


@linux
@pytest.mark.parametrize("cold", [False, True])
def test_a_trial_counts_what_its_workers_read_and_from_where(tmp_path: Path, cold: bool) -> None:
    dataset = Files(tmp_path, 96, cold)
    config = LoaderConfig(num_workers=2, batch_size=2, persistent_workers=True)
    r = run_trial(DatasetSource(dataset=dataset), config, PLAN)
    assert r.ok, r.failure
    reads = r.worker_reads
    assert reads is not None and reads["requested"] >= 4 * SIZE  # timed batches read files
    if cold:
        assert reads["storage"] >= reads["requested"] // 2, reads
    else:
        assert reads["storage"] <= reads["requested"] // 4, reads


def test_the_line_names_the_page_cache_or_the_disk_and_only_when_workers_wait() -> None:
    base = replace(result(LoaderConfig(num_workers=4, batch_size=8, persistent_workers=True),
                          100.0), workers_blocked=0.8)
    disk = replace(base, worker_reads={"requested": 100 << 20, "storage": 90 << 20})
    assert "90% of it from storage" in (reads_line(disk) or "")
    cached = replace(base, worker_reads={"requested": 100 << 20, "storage": 0})
    assert "100% of it from the page cache" in (reads_line(cached) or "")
    little = replace(base, worker_reads={"requested": 1000, "storage": 0})
    assert "something else" in (reads_line(little) or "")
    assert reads_line(replace(disk, workers_blocked=0.1)) is None  # busy, not waiting
    assert reads_line(replace(base, worker_reads=None)) is None  # the OS did not tell
