"""Windows/macOS: the smoke check that runs loadertune without POSIX-only modules can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _lt import env

SMOKE = Path(__file__).resolve().parent.parent / "scripts" / "smoke_no_posix.py"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env(), timeout=120)


def test_smoke_imports_every_module_and_every_help(tmp_path: Path) -> None:
    # importing Lightning may make torch's (empty) inductor cache folder in TMPDIR: keep it
    # out of the folder the leak check reads, it is torch's, not a leak of ours
    out = subprocess.run([sys.executable, str(SMOKE)], capture_output=True, text=True,
                         env=env(TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor")),
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "--help pages shown" in out.stdout


def test_smoke_guard_refuses_posix_modules_to_loadertune_code_only() -> None:
    code = f"""
import runpy, sys
smoke = runpy.run_path({str(SMOKE)!r}, run_name="smoke")
smoke["make_posix_unavailable"]()
ours = {{"__name__": "loadertune.fake"}}
try:
    exec("import resource", ours)
    print("resource imported")
except ImportError as err:
    print("refused:", err)
try:
    exec("import signal; signal.SIGKILL", ours)
    print("SIGKILL present")
except AttributeError:
    print("no SIGKILL")
exec("import fcntl", {{"__name__": "somebody_else"}})
print("others may")
"""
    out = _python(code)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("refused: resource is POSIX-only")
    assert lines[1:] == ["no SIGKILL", "others may"]
