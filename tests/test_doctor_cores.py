"""Cores: a real one-CPU affinity, and cgroup parsers on file contents captured from machines."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _lt import (
    checks,
    doctor_here,
    doctor_json,
)

from loadertune.doctor.probes.cores import workers_that_fit
from loadertune.machine.cgroups import (
    cgroup_dir,
    parse_memory_limit,
    parse_mountinfo_cgroups,
    parse_proc_cgroup,
    read_limits,
)

# Captured on this build machine (cgroup v1 hybrid, Debian 12, kernel 6.18).
V1_PROC_CGROUP = """\
9:name=systemd:/
8:pids:/
7:blkio:/
6:freezer:/
5:devices:/
4:memory:/process_api/a3feda3384b33ab7ef3204ec6c48b440
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
"""
V1_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
# The layout a Docker container sees on a cgroup v2 host (no v2 host here to capture from):
# /proc/self/cgroup is "0::/" and the container's cgroup is mounted at /sys/fs/cgroup.
V2_PROC_CGROUP = "0::/\n"
V2_MOUNTINFO = ("1180 1170 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 "
                "cgroup rw,nsdelegate,memory_recursiveprot\n")


def test_v1_parsers_on_captured_text() -> None:
    paths = parse_proc_cgroup(V1_PROC_CGROUP)
    assert paths["memory"] == "/process_api/a3feda3384b33ab7ef3204ec6c48b440"
    assert paths["systemd"] == "/" and paths[""] == "/"
    mounts = parse_mountinfo_cgroups(V1_MOUNTINFO)
    assert {m.mount_point for m in mounts if m.version == 1} >= {"/sys/fs/cgroup/cpu",
                                                                  "/sys/fs/cgroup/memory"}
    version, folder, _ = cgroup_dir("cpu", V1_PROC_CGROUP, V1_MOUNTINFO)
    assert version == 1 and str(folder) == "/sys/fs/cgroup/cpu"


def test_v2_container_limits_read_through_a_captured_tree(tmp_path: Path) -> None:
    cg = tmp_path / "cg"
    cg.mkdir()
    (cg / "cpu.max").write_text("150000 100000\n")
    (cg / "memory.max").write_text("2147483648\n")
    (cg / "memory.current").write_text("104857600\n")
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(V2_PROC_CGROUP)
    (proc / "mountinfo").write_text(V2_MOUNTINFO.replace("/sys/fs/cgroup", str(cg), 1))
    limits = read_limits(proc)
    assert limits.version == 2
    assert limits.cpu_quota == pytest.approx(1.5)
    assert limits.memory_limit == 2 * 2**30 and limits.memory_usage == 100 * 2**20
    (cg / "cpu.max").write_text("max 100000\n")
    assert read_limits(proc).cpu_quota is None


def test_v1_quota_and_memory_limit_text() -> None:
    assert parse_memory_limit("9223372036854771712\n") is None  # v1 "no limit" (captured)
    assert parse_memory_limit("max\n") is None
    assert parse_memory_limit("536870912\n") == 512 * 2**20
    assert workers_that_fit(1.5) == 1 and workers_that_fit(8) == 7


def test_one_cpu_affinity_is_reported() -> None:
    if shutil.which("taskset") is None:
        pytest.skip("taskset is not installed")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("this process already runs on one CPU")
    _, report = doctor_json("--probe", "cores", prefix=["taskset", "-c", "0"])
    [finding] = checks(report, "cores.affinity")
    assert finding["severity"] == "warn"
    assert finding["data"]["affinity"] == 1
    assert checks(report, "cores.summary")[0]["data"]["workers_fit"] == 1


def _usable() -> int:
    from loadertune.machine import collect, usable_cpus_int

    return usable_cpus_int(collect())


def test_more_workers_than_fit_warns() -> None:
    report = doctor_here(None, ["cores"], num_workers=2 * _usable() + 1)
    [finding] = checks(report, "cores.too_many_workers")
    assert finding["severity"] == "warn" and "tune" in finding["fix"]


def test_as_many_workers_as_cores_is_a_note_not_a_warning() -> None:
    cores = _usable()  # affinity, capped by a CPU quota
    if cores < 2:
        pytest.skip(f"needs 2 usable CPUs, this process has {cores}")
    report = doctor_here(None, ["cores"], num_workers=cores)
    [finding] = checks(report, "cores.too_many_workers")
    assert finding["severity"] == "ok"
    assert f"num_workers={cores - 1}" in finding["evidence"]
