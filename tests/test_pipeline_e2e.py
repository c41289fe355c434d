"""A user's own loader (sampler, collate_fn, worker_init_fn, batch size, drop_last) measured by
bench, tune and doctor, by spec on the command line and as objects through the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _lt import cli
from fixture_frameworks import hf_dataset
from fixture_pipelines import BATCH, make_loader

import loadertune
from loadertune.bench import bench
from loadertune.bench.sweep import Grid
from loadertune.errors import DatasetSpecError
from loadertune.trial import TrialPlan
from loadertune.trial.results import TrialResult

TESTS = str(Path(__file__).parent)
PLAN = TrialPlan(batches=4, repeats=2)


def assert_whole_batches(result: dict | TrialResult, batch: int, warmup: int) -> None:
    """Every timed batch held exactly ``batch`` samples: the loader's batch size and
    drop_last were kept (without drop_last the 4 leftover items of each epoch form a batch)."""
    data = result.to_dict() if isinstance(result, TrialResult) else result
    assert data["status"] == "ok", data["failure"]
    assert data["config"]["batch_size"] == batch
    assert data["samples"] == batch * (data["batches"] - warmup) > 0


def warmup_of(data: dict) -> int:
    cfg = data["config"]
    return cfg["num_workers"] * (cfg["prefetch_factor"] or 2) + 2 if cfg["num_workers"] else 2


def test_bench_cli_runs_the_users_loader(tmp_path: Path) -> None:
    out = cli("bench", "fixture_pipelines:make_loader", "--workers", "0,2", "--batches", "4",
              "--repeats", "2", "--json", str(tmp_path / "b.json"), "--out", str(tmp_path),
              cwd=TESTS)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "from a DataLoader" in out.stdout and "batch size 6" in out.stdout
    assert "(sampler, worker_init_fn, collate_fn, drop_last, batch size kept)" in out.stdout
    results = json.loads((tmp_path / "b.json").read_text())["results"]
    assert [r["config"]["num_workers"] for r in results] == [0, 2]
    for r in results:
        assert_whole_batches(r, BATCH, warmup_of(r))


def test_tune_and_doctor_cli_run_the_users_loader(tmp_path: Path) -> None:
    out = cli("tune", "fixture_pipelines:make_loader", "--budget", "20s", "--max-workers", "2",
              "--store", str(tmp_path / "h.sqlite"), "--json", str(tmp_path / "t.json"),
              "--out", str(tmp_path), cwd=TESTS)
    assert out.returncode == 0, out.stderr + out.stdout
    trials = json.loads((tmp_path / "t.json").read_text())["trials"]
    assert trials and all(t["config"]["batch_size"] == BATCH for t in trials)
    assert any(t["status"] == "ok" for t in trials)
    for t in trials:
        if t["status"] == "ok":
            assert t["samples"] % BATCH == 0
    code = cli("doctor", "fixture_pipelines:make_loader", "--probe", "memory", "--probe",
               "pickling", "--json", cwd=TESTS)
    assert code.returncode in (0, 1), code.stderr
    findings = json.loads(code.stdout)["findings"]
    ids = {f["check"] for f in findings}
    assert "memory.max_workers" in ids and "memory.measure_failed" not in ids, findings


def test_bench_cli_on_a_datamodule_val_split(tmp_path: Path) -> None:
    out = cli("bench", "fixture_frameworks:PickyData", "--split", "val", "--workers", "1",
              "--batches", "3", "--repeats", "1", "--json", str(tmp_path / "v.json"),
              "--out", str(tmp_path), cwd=TESTS)
    assert out.returncode == 0, out.stderr + out.stdout
    (result,) = json.loads((tmp_path / "v.json").read_text())["results"]
    assert_whole_batches(result, 4, warmup_of(result))


@pytest.mark.parametrize(("args", "message"), [
    (["fixture_frameworks:NoTrainLoader"], "without train_dataloader()"),
    (["fixture_pipelines:generator_loader", "--start-method", "spawn"],
     "dataset.stream (a generator) cannot be pickled"),
    (["fixture_pipelines:make_loader", "-b", "8", "--split", "test"], "split must be one of"),
    (["fixture_pipelines:mismatched_loader"], "your DataLoader cannot be rebuilt with w1 pf2 "
                                              "persist: ValueError: timeout option should be"),
])
def test_bad_pipelines_are_one_line_and_exit_2(args: list[str], message: str,
                                               tmp_path: Path) -> None:
    out = cli("bench", *args, "--workers", "0,1", "--out", str(tmp_path), cwd=TESTS)
    assert out.returncode == 2, out.stderr + out.stdout
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr, lines


def test_bench_and_tune_api_take_the_loader_object(tmp_path: Path) -> None:
    loader = make_loader()
    sweep = bench(loader, Grid(batch_size=None, workers=(0, 2)), PLAN)
    for r in sweep.results:
        assert_whole_batches(r, BATCH, PLAN.warmup_for(r.config))
    new = loadertune.tuned(loader, store=False, budget_s=15, max_workers=2)
    assert new is not loader and new.dataset is loader.dataset
    assert new.sampler is loader.sampler and new.collate_fn is loader.collate_fn
    assert new.worker_init_fn is loader.worker_init_fn and new.batch_size == BATCH
    assert new.drop_last
    assert [len(b["index"]) for b in new] == [BATCH] * 10


def test_an_unpicklable_loader_through_the_api_is_one_clear_error() -> None:
    from fixture_pipelines import generator_loader

    with pytest.raises(DatasetSpecError, match=r"dataset\.stream \(a generator\) cannot be "
                                               "pickled"):
        bench(generator_loader(), Grid(batch_size=None, workers=(1,),
                                       start_methods=("spawn",)), PLAN)


def test_a_hugging_face_dataset_through_the_api() -> None:
    sweep = bench(hf_dataset(), Grid(batch_size=8, workers=(0, 1)), PLAN)
    for r in sweep.results:
        assert_whole_batches(r, 8, PLAN.warmup_for(r.config))


def test_the_api_takes_a_datamodule_and_needs_a_batch_size_for_a_dataset() -> None:
    from fixture_frameworks import PickyData

    sweep = bench(PickyData(), Grid(batch_size=None, workers=(0,)), PLAN)
    assert_whole_batches(sweep.results[0], BATCH, PLAN.warmup_for(sweep.results[0].config))
    with pytest.raises(loadertune.ConfigError, match="batch_size is needed"):
        loadertune.tune(hf_dataset(), store=False)
