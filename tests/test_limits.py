"""The machine's limits: cgroup memory limit and usage (v1, v2) and the default budget from them.

The cgroup files are laid out in a tmp dir as on real machines, with captured mountinfo and
/proc/self/cgroup text; one test sets a real cgroup memory limit where this machine allows it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from _lt import env

from loadertune import machine
from loadertune.machine.cgroups import parse_mountinfo, read_limits
from loadertune.tuning.budget import limits_for

GiB = 2**30
MiB = 2**20

# Captured on this build machine: cgroup v1 hybrid, memory controller in a nested cgroup.
V1_PROC_CGROUP = """\
9:name=systemd:/
4:memory:/process_api/981a401d0d1dcd63ae770e9fe5a401bf
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
"""
V1_MOUNTINFO = """\
23 1 0:22 / /sys rw,nosuid - sysfs sysfs rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
# A Docker container on a cgroup v1 host without a cgroup namespace: the mount's root is the
# container's own cgroup, which /proc/self/cgroup names too.
DOCKER_V1_PROC_CGROUP = "12:memory:/docker/4f1c\n11:cpu,cpuacct:/docker/4f1c\n"
DOCKER_V1_MOUNTINFO = (
    "690 680 0:63 /docker/4f1c /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
    "691 680 0:64 /docker/4f1c /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup "
    "rw,cpu,cpuacct\n")
# The layout a container sees on a cgroup v2 host (cgroup namespace: "0::/").
V2_PROC_CGROUP = "0::/\n"
V2_MOUNTINFO = ("1180 1170 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 "
                "cgroup rw,nsdelegate,memory_recursiveprot\n")


def _proc(tmp: Path, cgroup: str, mountinfo: str) -> Path:
    proc = tmp / "proc" / "self"
    proc.mkdir(parents=True)
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(mountinfo)
    return proc


def _files(folder: Path, **files: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(text)


def test_v2_container_with_a_4_gib_limit(tmp_path: Path) -> None:
    proc = _proc(tmp_path, V2_PROC_CGROUP, V2_MOUNTINFO)
    _files(tmp_path / "sys/fs/cgroup", memory__max=f"{4 * GiB}\n",
           memory__current=f"{1 * GiB}\n", memory__stat=f"anon 123\ninactive_file {256 * MiB}\n",
           cpu__max="200000 100000\n")
    limits = read_limits(proc, root=tmp_path)
    assert limits.version == 2 and limits.cpu_quota == 2.0
    assert limits.memory_limit == 4 * GiB
    # the working set is usage less the inactive page cache the kernel reclaims first
    assert limits.memory_room == 4 * GiB - (1 * GiB - 256 * MiB)


def test_v1_nested_cgroup_takes_the_tightest_ancestor(tmp_path: Path) -> None:
    proc = _proc(tmp_path, V1_PROC_CGROUP, V1_MOUNTINFO)
    mem = tmp_path / "sys/fs/cgroup/memory"
    _files(mem, memory__limit_in_bytes="9223372036854771712\n")  # v1's "no limit", captured
    _files(mem / "process_api", memory__limit_in_bytes=f"{4 * GiB}\n",
           memory__usage_in_bytes=f"{512 * MiB}\n", memory__stat="total_inactive_file 0\n")
    leaf = mem / "process_api/981a401d0d1dcd63ae770e9fe5a401bf"
    _files(leaf, memory__limit_in_bytes="9223372036854771712\n",
           memory__usage_in_bytes=f"{100 * MiB}\n")
    _files(tmp_path / "sys/fs/cgroup/cpu", cpu__cfs_quota_us="-1\n", cpu__cfs_period_us="100000\n")
    limits = read_limits(proc, root=tmp_path)
    assert limits.version == 1 and limits.cpu_quota is None
    assert limits.memory_limit == 4 * GiB and limits.memory_room == 4 * GiB - 512 * MiB
    assert limits.memory_dir == str(leaf)


def test_v1_docker_hierarchical_limit_without_visible_parents(tmp_path: Path) -> None:
    proc = _proc(tmp_path, DOCKER_V1_PROC_CGROUP, DOCKER_V1_MOUNTINFO)
    _files(tmp_path / "sys/fs/cgroup/memory", memory__limit_in_bytes="9223372036854771712\n",
           memory__usage_in_bytes=f"{300 * MiB}\n",
           memory__stat=f"hierarchical_memory_limit {4 * GiB}\ntotal_inactive_file 0\n")
    _files(tmp_path / "sys/fs/cgroup/cpu,cpuacct", cpu__cfs_quota_us="150000\n",
           cpu__cfs_period_us="100000\n")
    limits = read_limits(proc, root=tmp_path)
    assert limits.cpu_quota == 1.5 and limits.memory_limit == 4 * GiB
    assert limits.memory_room == 4 * GiB - 300 * MiB


def test_no_cgroup_files_means_no_limits(tmp_path: Path) -> None:
    proc = tmp_path / "nothing"
    limits = read_limits(proc, root=tmp_path)
    assert (limits.version, limits.cpu_quota, limits.memory_limit) == (None, None, None)
    assert limits.memory_room is None


def test_mountinfo_parser_unescapes_and_keeps_every_mount() -> None:
    mounts = parse_mountinfo(V1_MOUNTINFO + "50 29 0:45 / /mnt/my\\040data rw - nfs4 "
                             "fs1:/export rw,vers=4.2\n")
    assert mounts[-1].mount_point == "/mnt/my data" and mounts[-1].fstype == "nfs4"
    assert [m.fstype for m in mounts].count("cgroup") == 4


def _facts(**changes: object) -> machine.MachineInfo:
    return replace(machine.collect(), **changes)  # type: ignore[arg-type]


def test_default_budget_comes_from_the_tightest_limit() -> None:
    host = _facts(memory_available=64 * GiB, cgroup_memory_limit=4 * GiB,
                  cgroup_memory_room=3 * GiB, local_world_size=1)
    assert host.memory_room == 3 * GiB
    assert machine.default_memory_budget(host) == int(3 * GiB * 0.8) < 4 * GiB
    lim = limits_for(host)
    assert lim.memory_budget == machine.default_memory_budget(host)
    assert any("cgroup" in n for n in lim.notes)
    roomy = replace(host, cgroup_memory_room=None, cgroup_memory_limit=None)
    assert machine.default_memory_budget(roomy) == int(64 * GiB * 0.8)
    small_host = replace(host, memory_available=2 * GiB)
    assert small_host.memory_room == 2 * GiB


@contextlib.contextmanager
def child_cgroup(controller: str, files: dict[str, str]) -> Iterator[Path]:
    """A new cgroup under this process's own for ``controller``, with ``files`` written (v1
    names; v2 ones where the hierarchy is v2); removed afterwards. Skips where it cannot."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("needs root on Linux to create a cgroup")
    limits = read_limits()
    own = limits.memory_dir if controller == "memory" else limits.cpu_dir
    if own is None or not (Path(own) / "cgroup.procs").exists():
        pytest.skip(f"this process has no {controller} cgroup folder it can see")
    child = Path(own) / f"loadertune-test-{uuid.uuid4().hex[:8]}"
    try:
        child.mkdir()
    except OSError as err:
        pytest.skip(f"cannot create a cgroup under {own}: {err}")
    try:
        for name, text in files.items():
            try:
                (child / name).write_text(text)
            except OSError as err:
                pytest.skip(f"cannot write {name} in {child}: {err}")
        yield child
    finally:
        child.rmdir()


def run_in(cgroup: Path, code: str) -> str:
    """Run ``code`` in a fresh interpreter that first moves itself into ``cgroup``."""
    prologue = "import os, sys; open(sys.argv[1], 'w').write(str(os.getpid()))\n"
    out = subprocess.run([sys.executable, "-c", prologue + code, str(cgroup / "cgroup.procs")],
                         capture_output=True, text=True, env=env(), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _v2(controller: str) -> bool:
    limits = read_limits()
    own = limits.memory_dir if controller == "memory" else limits.cpu_dir
    return own is not None and (Path(own) / "cgroup.controllers").exists()


def test_a_real_4_gib_cgroup_limit_caps_the_default_budget() -> None:
    """A process in a child cgroup with a 4 GiB limit: its default budget is below it."""
    name = "memory.max" if _v2("memory") else "memory.limit_in_bytes"
    with child_cgroup("memory", {name: str(4 * GiB)}) as cgroup:
        out = run_in(cgroup, "from loadertune import machine\n"
                             "m = machine.collect()\n"
                             "print(m.cgroup_memory_limit, m.memory_room, "
                             "machine.default_memory_budget(m))")
    limit, room, budget = (int(x) for x in out.split())
    assert limit == 4 * GiB
    assert 0 < budget < room <= 4 * GiB


def test_a_real_cpu_quota_caps_the_usable_cpus() -> None:
    """A process in a child cgroup allowed 1.5 CPUs: the facts and doctor's cores say so."""
    files = ({"cpu.max": "150000 100000"} if _v2("cpu")
             else {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "150000"})
    with child_cgroup("cpu", files) as cgroup:
        out = run_in(cgroup, "import json\nfrom loadertune import machine\n"
                             "from loadertune.doctor import DoctorContext, run_doctor\n"
                             "m = machine.collect()\n"
                             "r = run_doctor(DoctorContext(), ['cores']).to_dict()\n"
                             "print(json.dumps([m.cgroup_cpu_quota, m.usable_cpus, "
                             "m.affinity_cpus, [f['check'] for f in r['findings']]]))")
    quota, usable, affinity, found = json.loads(out)
    assert quota == 1.5 and usable == min(affinity, 1.5)
    assert ("cores.quota" in found) == (affinity > 1.5)


def test_a_container_limit_is_part_of_the_machine_fingerprint() -> None:
    """A result tuned on the roomy host must not be reused inside a 4 GiB container."""
    from loadertune.tuning.fingerprint import digest, machine_fingerprint

    host = _facts(cgroup_memory_limit=None, cgroup_memory_room=None)
    boxed = replace(host, cgroup_memory_limit=4 * GiB, cgroup_memory_room=3 * GiB)
    assert digest(machine_fingerprint(host)) != digest(machine_fingerprint(boxed))
    assert digest(machine_fingerprint(boxed)) == digest(machine_fingerprint(
        replace(boxed, cgroup_memory_room=2 * GiB)))  # usage moves; the limit is the fact
