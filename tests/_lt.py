"""Helpers for the doctor/explain tests: run the CLI and scripts as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from loadertune.trial.supervisor import run_supervised

SRC = str(Path(__file__).resolve().parent.parent / "src")


def env(**extra: str) -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = SRC + os.pathsep + out.get("PYTHONPATH", "")
    out.update(extra)
    return out


def run(argv: list[str], timeout: float = 90, extra_env: dict[str, str] | None = None,
        cwd: str | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in its own session under the one supervisor; its whole tree is killed
    afterwards (no strays). Past ``timeout`` it raises, as `subprocess.run` does."""
    done = run_supervised(argv, timeout=timeout, input=stdin, env=env(**(extra_env or {})),
                          cwd=cwd)
    if done.timed_out:
        raise subprocess.TimeoutExpired(argv, timeout, done.stdout, done.stderr)
    return subprocess.CompletedProcess(argv, done.returncode, done.stdout, done.stderr)


def torchrun(script: Path | str, *args: str, tmp_path: Path, timeout: float,
             extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``script`` under torchrun with 2 ranks on this machine, in a session of its own whose
    whole tree is killed afterwards (ranks that deadlock fail the test, not outlive it)."""
    extra = {"OMP_NUM_THREADS": "1", "COLUMNS": "200", "TMPDIR": str(tmp_path),
             **(extra_env or {})}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
           str(script), *args]
    return run(cmd, timeout=timeout, extra_env=extra, cwd=str(tmp_path))


def cli(*args: str, prefix: list[str] | None = None, **kw: Any) -> subprocess.CompletedProcess:
    return run([*(prefix or []), sys.executable, "-m", "loadertune", *args], **kw)


def doctor_json(*args: str, **kw: Any) -> tuple[int, dict]:
    result = cli("doctor", *args, "--json", **kw)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def checks(report: dict, check: str) -> list[dict]:
    return [f for f in report["findings"] if f["check"] == check]


def doctor_here(target: str | None, probes: list[str], **options: Any) -> dict:
    """Run probes in this process (for conditions that need no process of their own)."""
    from loadertune.doctor import DoctorContext, parse_target, run_doctor

    ctx = DoctorContext(target=parse_target(target), **options)
    return run_doctor(ctx, probes).to_dict()


def warnings_text(caught: list[warnings.WarningMessage]) -> str:
    """Recorded warnings as Python prints them (the text a user pastes)."""
    return "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
                   for w in caught)
