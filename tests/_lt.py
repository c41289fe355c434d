"""Helpers for the doctor/explain tests: run the CLI and scripts as real processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parent.parent / "src")


def env(**extra: str) -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = SRC + os.pathsep + out.get("PYTHONPATH", "")
    out.update(extra)
    return out


def run(argv: list[str], timeout: float = 90, extra_env: dict[str, str] | None = None,
        cwd: str | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in its own session; kill the whole group afterwards (no strays)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(**(extra_env or {})), cwd=cwd, start_new_session=True,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is None:
            proc.communicate()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


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


