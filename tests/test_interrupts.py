"""Ctrl-C, SIGTERM and a killed parent during a real sweep: results kept, nothing left behind."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).parent


def start_bench(tmp_path: Path, *extra: str) -> subprocess.Popen:
    args = [sys.executable, "-m", "loadertune", "bench", "fixture_datasets:squares", "-b", "8",
            "--workers", "0-3", "--batches", "40", "--json", str(tmp_path / "r.json"),
            "--plot", str(tmp_path / "r.png"), *extra]
    return subprocess.Popen(args, cwd=TESTS, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def wait_for_first_result_and_workers(proc: subprocess.Popen) -> list[psutil.Process]:
    """Block until one config is done and the next trial's workers are up; return the tree."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if "✓" in line:
            break
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        tree = psutil.Process(proc.pid).children(recursive=True)
        if len(tree) >= 2:  # the trial process and at least one worker
            return tree
        time.sleep(0.05)
    pytest.fail("the second trial never started its workers")


def assert_all_gone(tree: list[psutil.Process]) -> None:
    _gone, alive = psutil.wait_procs(tree, timeout=10)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_keeps_finished_results_and_kills_the_tree(tmp_path: Path, sig: int,
                                                              code: int) -> None:
    proc = start_bench(tmp_path)
    tree = wait_for_first_result_and_workers(proc)
    os.killpg(proc.pid, sig)  # as a terminal does: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert_all_gone(tree)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] is True
    statuses = [r["status"] for r in data["results"]]
    assert statuses[0] == "ok" and statuses[-1] == "interrupted"
    assert not list(tmp_path.glob(".r.json.*"))  # no half-written temp file


def test_a_killed_parent_takes_its_trial_tree_with_it(tmp_path: Path) -> None:
    proc = start_bench(tmp_path)
    tree = wait_for_first_result_and_workers(proc)
    proc.kill()
    proc.communicate(timeout=30)
    assert_all_gone(tree)  # the trial's watchdog kills its own process group
