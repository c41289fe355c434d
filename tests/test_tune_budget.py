"""Limits (memory budget, CPU caps, torchrun), memory prediction and trial plan sizing."""

from __future__ import annotations

from dataclasses import replace

from tune_helpers import MiB, killed_at, result

from loadertune.config import LoaderConfig
from loadertune.machine import MachineInfo
from loadertune.trial import TrialPlan
from loadertune.tuning.budget import limits_for, memory_model
from loadertune.tuning.plans import plan_for
from loadertune.tuning.probe import ItemProbe

GiB = 2**30


def machine(**changes: object) -> MachineInfo:
    base = MachineInfo(hostname="h", platform="Linux", python="3.11", torch="2.13",
                       cpu_model="cpu", logical_cpus=8, physical_cpus=4, affinity_cpus=8,
                       cgroup_cpu_quota=None, usable_cpus=8.0, memory_total=32 * GiB,
                       memory_available=20 * GiB, shm_total=None, shm_free=None,
                       start_method="fork", accelerator=None, local_world_size=1)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_default_memory_budget_is_80_percent_of_available() -> None:
    lim = limits_for(machine())
    assert lim.memory_budget == int(20 * GiB * 0.8)
    assert lim.cpu_workers == 8
    assert lim.worker_cap(latency_bound=False) == 8
    assert lim.worker_cap(latency_bound=True) > 8


def test_cgroup_quota_limits_workers_and_says_so() -> None:
    lim = limits_for(machine(cgroup_cpu_quota=2.5, usable_cpus=2.5))
    assert lim.cpu_workers == 2
    assert any("quota" in n for n in lim.notes)


def test_torchrun_divides_the_machine_between_local_ranks() -> None:
    lim = limits_for(machine(local_world_size=4, usable_cpus=2.0))
    assert lim.cpu_workers == 2
    assert lim.memory_budget == int(20 * GiB * 0.8 / 4)
    assert any("LOCAL_WORLD_SIZE=4" in n for n in lim.notes)


def test_max_workers_and_explicit_budget() -> None:
    lim = limits_for(machine(), memory_budget=3 * GiB, max_workers=3)
    assert lim.memory_budget == 3 * GiB
    assert lim.worker_cap(latency_bound=True) == 3


def test_memory_model_before_and_after_workers_are_measured() -> None:
    w0 = result(LoaderConfig(batch_size=8), 100.0, main=300 * MiB)
    model = memory_model([w0], "fork")
    assert model.main == 300 * MiB and not model.measured
    assert model.predict(2) == 300 * MiB + 2 * 16 * MiB  # the fork floor per worker
    w2 = result(LoaderConfig(num_workers=2, batch_size=8, persistent_workers=True), 150.0,
                main=300 * MiB, per_worker=50 * MiB)
    model = memory_model([w0, w2], "fork")
    assert model.measured and model.per_worker >= 50 * MiB
    assert "4 workers need" in model.explain(4)


def test_memory_model_projects_copy_on_read_growth() -> None:
    w0 = result(LoaderConfig(batch_size=8), 100.0, main=1000 * MiB)
    w2 = result(LoaderConfig(num_workers=2, batch_size=8, persistent_workers=True), 150.0,
                main=1000 * MiB, per_worker=66 * MiB)
    # 100 batches of 8 = 400 items per worker: 10 % of a 4,000-item dataset
    grown = memory_model([w0, w2], "fork", dataset_len=4000)
    flat = memory_model([w0, w2], "fork", dataset_len=None)
    assert grown.growth > 0
    assert grown.per_worker > flat.per_worker
    assert grown.per_worker <= 66 * MiB + 1000 * MiB


def test_memory_that_does_not_grow_with_reading_is_not_projected() -> None:
    """w1 read twice the items w2's workers did, yet holds the same: a cache built on first
    use, not copy-on-read; so no growth is projected over the rest of the dataset."""
    w0 = result(LoaderConfig(batch_size=8), 100.0, main=1000 * MiB)
    w1 = result(LoaderConfig(num_workers=1, batch_size=8, persistent_workers=True), 120.0,
                main=1000 * MiB, per_worker=96 * MiB)
    w2 = result(LoaderConfig(num_workers=2, batch_size=8, persistent_workers=True), 150.0,
                main=1000 * MiB, per_worker=96 * MiB)
    model = memory_model([w0, w1, w2], "fork", dataset_len=4000)
    assert model.growth == 0 and model.per_worker == 96 * MiB
    w1_grew = replace(w1, memory=replace(w1.memory, worker_uss=[200 * MiB]))
    assert memory_model([w0, w1_grew, w2], "fork", dataset_len=4000).growth > 0


def test_a_trial_stopped_before_its_first_batch_shows_memory_does_not_grow() -> None:
    """w8 hit the budget before delivering a batch, its workers already holding what w4's hold
    after 200 items each: the memory came with starting, not with reading."""
    w4 = LoaderConfig(num_workers=4, batch_size=8, persistent_workers=True)
    ok = [result(w4, 900.0, main=150 * MiB, per_worker=96 * MiB),
          result(w4.with_(prefetch_factor=4), 910.0, main=150 * MiB, per_worker=96 * MiB)]
    stopped = killed_at(w4.with_(num_workers=8), 150 * MiB + 8 * 90 * MiB, 150 * MiB)
    assert memory_model([*ok, stopped], "fork", dataset_len=400).growth == 0
    assert memory_model(ok, "fork", dataset_len=400).growth > 0  # no pair tells: assumed
    small = killed_at(w4.with_(num_workers=8), 150 * MiB + 8 * 40 * MiB, 150 * MiB)
    assert memory_model([*ok, small], "fork", dataset_len=400).growth > 0  # it grew after


def test_plan_windows_are_whole_rounds_of_workers() -> None:
    probe = ItemProbe(items=16, wall_s=0.02, cpu_s=0.0004)
    for k in (2, 3, 8, 32):
        config = LoaderConfig(num_workers=k, batch_size=16, persistent_workers=True)
        plan = plan_for(config, [], probe, 2, TrialPlan())
        window = plan.window_for(config)
        assert window % k == 0 and window >= 2 * k


def test_plan_for_slow_items_is_short() -> None:
    probe = ItemProbe(items=4, wall_s=0.5, cpu_s=0.5)
    config = LoaderConfig(num_workers=0, batch_size=16)
    plan = plan_for(config, [], probe, 2, TrialPlan())
    assert plan.window_for(config) == 3 and plan.repeats == 2


def test_probe_classifies_latency() -> None:
    assert ItemProbe(items=8, wall_s=0.02, cpu_s=0.0004).latency_bound
    assert not ItemProbe(items=8, wall_s=0.02, cpu_s=0.019).latency_bound
    assert not ItemProbe(items=8, wall_s=10e-6, cpu_s=0.0).latency_bound  # too fast to matter


def test_probe_judges_cpu_share_against_a_busy_loop_on_a_shared_machine() -> None:
    # The machine gives us 40 % of a core: a CPU-bound item also gets only ~40 %.
    crowded = ItemProbe(items=8, wall_s=0.02, cpu_s=0.008, busy_share=0.4)
    assert crowded.cpu_share == 1.0 and not crowded.latency_bound
    waiting = ItemProbe(items=8, wall_s=0.02, cpu_s=0.0004, busy_share=0.4)
    assert waiting.latency_bound
