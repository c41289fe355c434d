"""Reaching `loadertune.watch`: lazily from `import loadertune`, as a function and a module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

SCRIPT = """
import sys
import loadertune
assert "torch" not in sys.modules, "import loadertune must not import torch"
watched = loadertune.watch([1, 2, 3], report=False)
assert list(watched) == [1, 2, 3] and len(watched) == 3
from loadertune import watch
assert list(watch([4], report=False)) == [4]
import loadertune.watch as lw
assert lw.WatchSummary is lw.watcher.WatchSummary and watched.summary().batches == 3
from loadertune.watch import watch as function
assert callable(function) and function.__module__ == "loadertune.watch.watcher"
print("ok")
"""


def test_watch_is_lazy_callable_and_a_package():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_overhead_benchmark_runs_and_writes_json(tmp_path):
    out = tmp_path / "overhead.json"
    bench = SRC.parent / "benchmarks" / "watch_overhead.py"
    proc = subprocess.run(
        [sys.executable, str(bench), "--workers", "0,1", "--rounds", "2", "--batches", "5",
         "--step-ms", "1", "--json", str(out)],
        capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    import json

    runs = json.loads(out.read_text())["runs"]
    assert [r["num_workers"] for r in runs] == [0, 1]
    assert all(len(r["bare_s"]) == len(r["watched_s"]) == 2 for r in runs)
    assert "ratio" in proc.stdout
