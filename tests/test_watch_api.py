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
