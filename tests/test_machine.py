import os

from loadertune import machine


def test_cgroup_v2_parser_on_captured_contents() -> None:
    assert machine.parse_cgroup_v2_cpu_max("max 100000\n") is None
    assert machine.parse_cgroup_v2_cpu_max("150000 100000\n") == 1.5
    assert machine.parse_cgroup_v2_cpu_max("50000 100000") == 0.5


def test_cgroup_v1_parser_on_captured_contents() -> None:
    assert machine.parse_cgroup_v1_quota("-1\n", "100000\n") is None
    assert machine.parse_cgroup_v1_quota("200000\n", "100000\n") == 2.0


def test_cgroup_quota_read_from_a_v2_tree(tmp_path) -> None:
    (tmp_path / "cpu.max").write_text("300000 100000\n")
    assert machine.cgroup_cpu_quota(tmp_path) == 3.0


def test_cgroup_quota_read_from_a_v1_tree(tmp_path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert machine.cgroup_cpu_quota(tmp_path) == 1.0


def test_usable_cpus_takes_the_tightest_limit_and_shares_with_local_ranks() -> None:
    assert machine.usable_cpus(8, None) == 8
    assert machine.usable_cpus(8, 2.5) == 2.5
    assert machine.usable_cpus(8, None, local_world_size=4) == 2


def test_collect_reads_this_machine() -> None:
    info = machine.collect()
    assert 1 <= info.affinity_cpus <= info.logical_cpus == os.cpu_count()
    assert 0 < info.usable_cpus <= info.affinity_cpus
    assert 0 < info.memory_available <= info.memory_total
    assert info.start_method in ("fork", "spawn", "forkserver")
    assert set(info.fingerprint()) <= set(info.to_dict())


def test_affinity_of_one_core_is_seen(tmp_path) -> None:
    import subprocess
    import sys

    code = ("import os; os.sched_setaffinity(0, {0}); from loadertune import machine; "
            "print(machine.collect().usable_cpus)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    quota = machine.cgroup_cpu_quota()  # a quota below one CPU is tighter still
    assert float(out.stdout.strip()) == (1.0 if quota is None else min(1.0, quota))
