import fixture_datasets as fx

from loadertune import machine
from loadertune.bench import bench
from loadertune.bench.sweep import Grid, same_kind
from loadertune.config import LoaderConfig
from loadertune.trial import TrialPlan

PLAN = TrialPlan(batches=4, repeats=3, timeout_s=60)


def test_grid_has_one_config_without_workers_and_no_duplicates() -> None:
    grid = Grid(batch_size=8, workers=(2, 0, 1), prefetch=(2, 4), persistent=(True, False))
    configs = grid.configs()
    assert [c.num_workers for c in configs] == [0, 1, 1, 1, 1, 2, 2, 2, 2]
    assert len(set(configs)) == len(configs)


def test_same_kind_ignores_only_the_worker_count() -> None:
    a = LoaderConfig(num_workers=1, batch_size=8, prefetch_factor=2)
    assert same_kind(a, a.with_(num_workers=4))
    assert not same_kind(a, a.with_(num_workers=4, prefetch_factor=4))
    assert same_kind(LoaderConfig(batch_size=8), a)


def test_a_sweep_over_0_to_2_workers_measures_each_config() -> None:
    sweep = bench("fixture_datasets:squares", Grid(batch_size=8, workers=(0, 1, 2)), PLAN)
    assert [r.config.num_workers for r in sweep.results] == [0, 1, 2]
    for r in sweep.results:
        assert r.ok, r.failure
        assert r.samples_per_s and r.samples_per_s > 0
        assert len(r.memory.worker_rss) == r.config.num_workers
    assert sweep.baseline() is sweep.results[0]
    assert sweep.best() in sweep.results
    data = sweep.to_dict()
    assert data["machine"]["logical_cpus"] >= 1 and len(data["results"]) == 3


def test_a_failing_config_does_not_stop_the_sweep() -> None:
    sweep = bench(fx.Raising(bad_index=3), Grid(batch_size=4, workers=(0, 1)), PLAN)
    assert len(sweep.results) == 2
    assert all(r.failure and r.failure.kind == "exception" for r in sweep.results)
    assert sweep.best() is None


def test_after_a_memory_wall_larger_configs_of_the_same_kind_are_skipped() -> None:
    plan = TrialPlan(batches=50, repeats=3, timeout_s=60, memory_limit=500 * 2**20)
    info = machine.collect()
    sweep = bench(fx.Growing(mb_per_item=8), Grid(batch_size=4, workers=(1, 2, 3)), plan,
                  machine=info)
    kinds = [r.failure.kind if r.failure else "ok" for r in sweep.results]
    assert kinds[0] == "memory_limit"
    assert kinds[1:] == ["skipped", "skipped"]
    assert "w1 pf2 persist already exceeded the memory budget" in sweep.results[1].failure.message
