"""The `loadertune` command as a user runs it: a real subprocess, real files."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def run_cli(*args: str, cwd: Path = TESTS, timeout: float = 300,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "loadertune", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


@pytest.mark.parametrize("spec", ["fixture_datasets:squares", "fixture_datasets:stream"])
def test_bench_writes_table_json_and_png(spec: str, tmp_path: Path) -> None:
    out = run_cli("bench", spec, "-b", "8", "--workers", "0-2", "--batches", "3",
                  "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"))
    assert out.returncode == 0, out.stderr + out.stdout
    assert "samples/s" in out.stdout and "best: DataLoader(dataset, batch_size=8" in out.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert [r["config"]["num_workers"] for r in data["results"]] == [0, 1, 2]
    assert all(r["status"] == "ok" and r["samples_per_s"] > 0 for r in data["results"])
    assert data["results"][2]["memory"]["per_worker"] > 0
    assert {"logical_cpus", "affinity_cpus", "cgroup_cpu_quota", "memory_available",
            "torch", "start_method"} <= set(data["machine"])
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cache = [a for a in data["advice"] if "sample" in a]
    if spec.endswith("stream"):  # an iterable dataset: no items to sample
        assert cache == []
    else:  # the best config read a sample of items, and served it decoded
        [advice] = cache
        assert advice["read_rate"] > 0 and advice["cached_rate"] > 0
        assert advice["text"] in out.stdout.replace("\n", "")


def test_a_script_path_dataset_under_spawn(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\nfrom torch.utils.data import Dataset\n"
        "class Ds(Dataset):\n    def __len__(self): return 64\n"
        "    def __getitem__(self, i): return torch.zeros(3)\n"
        "if __name__ == '__main__':\n    raise SystemExit('training')\n")
    out = run_cli("bench", f"{script}:Ds", "-b", "8", "--workers", "0,1", "--batches", "3",
                  "--start-method", "spawn", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    [report] = (tmp_path / "out").glob("bench-*.json")
    results = json.loads(report.read_text())["results"]
    # a failed config still exits 0 (partial failure): the spawn config itself must have run
    assert [(r["config"]["num_workers"], r["status"]) for r in results] == [(0, "ok"), (1, "ok")]
    assert results[1]["config"]["multiprocessing_context"] == "spawn"
    assert results[1]["samples_per_s"] > 0 and results[1]["memory"]["per_worker"] > 0


def test_when_nothing_could_be_measured_the_exit_code_is_1(tmp_path: Path) -> None:
    args = ("bench", "fixture_datasets:raising", "-b", "8", "--workers", "0", "--batches", "3",
            "--out", str(tmp_path))
    out = run_cli(*args)
    assert out.returncode == 1
    assert "ValueError at index 37: corrupt record 37" in out.stdout


def test_partial_failure_exits_0_unless_strict(tmp_path: Path) -> None:
    args = ("bench", "fixture_datasets:killing", "-b", "4", "--workers", "0,1", "--batches", "3",
            "--out", str(tmp_path))
    out = run_cli(*args)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "worker 0 killed by signal 9 (SIGKILL)" in out.stdout
    assert run_cli(*args, "--strict").returncode == 1


def test_a_user_step_function_runs_as_the_consumer(tmp_path: Path) -> None:
    log = tmp_path / "steps.log"
    out = run_cli("bench", "fixture_datasets:squares", "-b", "8", "--workers", "0,1",
                  "--batches", "3", "--step", "fixture_datasets:counting_step",
                  "--json", str(tmp_path / "r.json"), "--out", str(tmp_path),
                  env={"LOADERTUNE_TEST_STEP_LOG": str(log)})
    assert out.returncode == 0, out.stderr + out.stdout
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    assert all(r["status"] == "ok" and r["step_s"] is not None for r in results)
    calls = log.read_text().split()
    # the step saw every timed batch: 2 configs × at least 3 windows × 3 batches, 8 items each
    assert len(calls) >= 2 * 3 * 3 and set(calls) == {"8"}


BAD_INPUT = [
    (["fixture_datasets:squares", "--step", "fixture_datasets:not_a_dataset"], "not a function"),
    (["fixture_datasets:squares", "--step", "fixture_datasets:no_step"], "no attribute"),
    (["no_such_module_xyz:ds"], "cannot import module"),
    (["fixture_datasets:not_a_dataset"], "not a Dataset"),
    (["fixture_datasets:empty"], "is empty"),
    (["fixture_datasets:squares", "--workers", "5-2"], "runs backwards"),
    (["fixture_datasets:squares", "--batch-size", "0"], "--batch-size must be >= 1"),
    (["fixture_datasets:squares", "--workers", "0-100000"], "use at most"),
    (["fixture_datasets:with_handle", "--workers", "1", "--start-method", "spawn"],
     "dataset.log (a TextIOWrapper) cannot be pickled"),
    (["fixture_datasets:squares", "--prefetch", "0"], "--prefetch values must be >= 1"),
    (["fixture_datasets:squares", "--memory-limit", "lots"], "bad size 'lots'"),
    (["fixture_datasets:squares", "--step-kind", "gpu"], "--step-kind must be one of"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_gets_one_line_and_exit_2(args: list[str], message: str,
                                            tmp_path: Path) -> None:
    out = run_cli("bench", *args, "--out", str(tmp_path), timeout=60)
    assert out.returncode == 2, out.stderr + out.stdout
    assert "Traceback" not in out.stderr + out.stdout
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert not list(tmp_path.iterdir())  # nothing written


def test_usage_errors_are_not_tracebacks() -> None:
    out = run_cli("bench", timeout=60)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "Missing argument" in out.stderr


def test_demo_runs_end_to_end(tmp_path: Path) -> None:
    out = run_cli("demo", "--max-workers", "1", "--out", str(tmp_path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert (tmp_path / "demo.json").exists() and (tmp_path / "demo.png").exists()
    assert "JpegDataset" in out.stdout
