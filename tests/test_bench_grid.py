"""The default bench grid stays bounded on big machines: log-spaced worker counts."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from loadertune import machine
from loadertune.bench import MAX_DEFAULT_WORKER_COUNTS, default_workers
from loadertune.cli.bench import build_grid


def facts(cores: int) -> machine.MachineInfo:
    return replace(machine.collect(), logical_cpus=cores, affinity_cpus=cores,
                   cgroup_cpu_quota=None, usable_cpus=float(cores), local_world_size=1)


@pytest.mark.parametrize("cores", [2, 16, 64, 128])
def test_default_grid_is_log_spaced_and_bounded(cores: int) -> None:
    counts = default_workers(facts(cores))
    assert list(counts) == sorted(set(counts))
    assert counts[:3] == (0, 1, 2)
    assert cores in counts and counts[-1] == 2 * cores
    assert len(counts) <= MAX_DEFAULT_WORKER_COUNTS
    ratios = [b / a for a, b in itertools.pairwise(counts[1:])]
    assert max(ratios) <= 8  # no big hole between neighbours: log-spaced, not truncated
    grid = build_grid(32, None, "2", "auto", "on", None, facts(cores))
    assert len(grid.configs()) == len(counts)


def test_small_machine_keeps_every_count() -> None:
    assert default_workers(facts(2)) == (0, 1, 2, 3, 4)


def test_a_cpu_quota_sizes_the_grid() -> None:
    quota = replace(facts(64), cgroup_cpu_quota=4.0, usable_cpus=4.0)
    assert default_workers(quota) == (0, 1, 2, 3, 4, 6, 8)
