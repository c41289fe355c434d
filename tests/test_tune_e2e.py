"""`tune` end to end on bundled workloads (real trials; assertions robust to a busy machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import loadertune
from loadertune.machine import collect
from loadertune.tuning import TuneResult

TINY = "loadertune.workloads:tiny"
REMOTE = "loadertune.workloads:remote"
MiB = 2**20
SRC = str(Path(__file__).resolve().parents[1] / "src")


def sleepy_step(batch: object) -> None:
    """A training step that waits 20 ms per batch (like a GPU step)."""
    time.sleep(0.02)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("history") / "history.sqlite"


@pytest.fixture(scope="module")
def tiny(store: Path) -> TuneResult:
    return loadertune.tune_detailed(TINY, 64, store=store, fresh=True)


def test_tiny_items_pick_at_most_one_worker(tiny: TuneResult) -> None:
    assert tiny.config.num_workers <= 1
    assert not tiny.from_store and tiny.run_id is not None
    assert tiny.trials and tiny.reason
    assert set(tiny.kwargs) >= {"num_workers", "pin_memory"}
    assert "batch_size" not in tiny.kwargs
    assert tiny.to_dict()["kwargs"] == tiny.kwargs


def test_second_call_is_served_from_the_store(tiny: TuneResult, store: Path) -> None:
    again = loadertune.tune_detailed(TINY, 64, store=store)
    assert again.from_store
    assert again.kwargs == tiny.kwargs
    assert "from history" in again.reason and "fresh" in again.reason
    assert len(again.trials) == len(tiny.trials)
    assert loadertune.tune(TINY, 64, store=store) == tiny.kwargs
    other = loadertune.tune_detailed(TINY, 32, store=store, budget_s=8)  # another request
    assert not other.from_store


def test_memory_budget_below_one_worker_gives_zero_workers(tiny: TuneResult) -> None:
    w0 = next(t for t in tiny.trials if t.config.num_workers == 0)
    budget = w0.memory.total + 4 * MiB  # room for the main process, not for a worker
    # remote storage would want many workers: only the budget can hold it at zero
    result = loadertune.tune_detailed(REMOTE, 8, memory_budget=budget, store=False,
                                      budget_s=60)
    assert result.kwargs["num_workers"] == 0
    assert "memory budget" in result.reason
    assert all(t.config.num_workers == 0 for t in result.trials)


def test_a_step_that_dominates_saturates_the_consumer(store: Path) -> None:
    result = loadertune.tune_detailed(TINY, 64, step=sleepy_step, store=store, fresh=True)
    assert result.config.num_workers == 0
    # the step bounds the loop: the tuner sees the consumer saturated, or the worker trial
    # measures no faster than 0 workers (which of these it reports depends on the run's noise)
    bounded = ("saturated", "throughput dropped", "throughput plateaued")
    assert any(word in result.reason for word in bounded), result.reason
    assert result.trials[0].step_s is not None and result.trials[0].step_s >= 0.015
    seconds = loadertune.tune_detailed(TINY, 64, step=0.02, store=False)
    assert seconds.config.num_workers == 0
    assert any(word in seconds.reason for word in bounded), seconds.reason


def test_remote_storage_picks_more_workers_than_cores() -> None:
    result = loadertune.tune_detailed(REMOTE, 8, store=False, budget_s=60)
    cores = collect().usable_cpus
    assert result.config.num_workers > cores
    assert "latency" in " ".join([result.reason, *result.notes])


def test_bad_arguments_name_the_fix() -> None:
    with pytest.raises(loadertune.ConfigError, match="batch_size"):
        loadertune.tune(TINY, 0, store=False)
    with pytest.raises(loadertune.ConfigError, match="step"):
        loadertune.tune(TINY, 8, step="fast", store=False)  # type: ignore[arg-type]
    # where trials cannot fork (spawn-only platforms) a lambda step cannot travel
    from loadertune.trial import DatasetSource

    with pytest.raises(loadertune.DatasetSpecError, match=r"step \(a function\) cannot be "):
        DatasetSource(dataset=[1, 2], step=lambda b: None, fork=False).check_travel()


def cli(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC, COLUMNS="140")
    return subprocess.run([sys.executable, "-m", "loadertune", *args, "--store", str(store)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_cli_tune_and_history(tiny: TuneResult, store: Path, tmp_path: Path) -> None:
    out = cli("tune", TINY, "-b", "64", "--json", str(tmp_path / "t.json"),
              "--plot", str(tmp_path / "t.png"), store=store)
    assert out.returncode == 0, out.stderr
    assert "DataLoader(dataset, batch_size=64, num_workers=" in out.stdout
    assert "from history" in out.stdout
    assert json.loads((tmp_path / "t.json").read_text())["from_store"] is True
    assert (tmp_path / "t.png").stat().st_size > 0
    listed = cli("history", "--json", store=store)
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert any(r["id"] == tiny.run_id for r in runs)
    shown = cli("history", "show", str(tiny.run_id), store=store)
    assert shown.returncode == 0, shown.stderr
    assert f"run #{tiny.run_id}" in shown.stdout and "w0" in shown.stdout
    missing = cli("history", "show", "9999", store=store)
    assert missing.returncode == 2 and "no run 9999" in missing.stderr


def test_ctrl_c_keeps_finished_trials_and_leaves_no_process(tmp_path: Path) -> None:
    store = tmp_path / "h.sqlite"
    env = dict(os.environ, PYTHONPATH=SRC, COLUMNS="140")
    proc = subprocess.Popen([sys.executable, "-m", "loadertune", "tune", REMOTE, "-b", "8",
                             "--store", str(store), "--plot", str(tmp_path / "p.png")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "✓" in line or "✗" in line:
            break
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(2)  # SIGINT, as Ctrl-C sends
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, "".join(lines) + rest
    assert "interrupted" in rest
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive
    out = cli("history", "--json", store=store)
    [run] = json.loads(out.stdout)
    assert run["status"] == "interrupted" and run["trial_count"] >= 1
