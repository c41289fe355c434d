"""The doctor command as a user runs it; the report and runner contracts."""

from __future__ import annotations

import pytest
from _lt import (
    cli,
    doctor_json,
)

from loadertune.doctor import DoctorContext, run_doctor
from loadertune.doctor.findings import Finding, Report, error, ok, warn
from loadertune.doctor.runner import run_probe
from loadertune.errors import LoadertuneError


def test_machine_only_runs_every_machine_probe() -> None:
    rc, report = doctor_json("--no-measure")
    assert report["probes"][:3] == ["startmethod", "pickling", "cores"]
    probes = {f["probe"] for f in report["findings"]}
    assert {"startmethod", "cores", "memory", "shm", "fds", "threads", "cuda"} <= probes
    assert rc == (1 if report["counts"]["error"] else 0)
    assert all(f["fix"] for f in report["findings"] if f["severity"] != "ok")


def test_table_output() -> None:
    result = cli("doctor", "--probe", "cores", extra_env={"COLUMNS": "160"})
    assert result.returncode == 0
    assert "usable CPU" in result.stdout and "ok" in result.stdout


@pytest.mark.parametrize("arg, words", [
    ("missing_script.py", "does not exist"),
    ("no.such.module:ds", "cannot import module"),
    ("plainword", "neither a .py script"),
])
def test_bad_input_is_one_line_exit_2(arg: str, words: str) -> None:
    result = cli("doctor", arg)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr


def test_unknown_probe_is_bad_input() -> None:
    result = cli("doctor", "--probe", "nosuch")
    assert result.returncode == 2 and "unknown probe" in result.stderr


def test_a_crashing_probe_becomes_a_warning() -> None:
    def broken(ctx: DoctorContext) -> list[Finding]:
        raise OSError("cannot read /proc/whatever")

    [finding] = run_probe("broken", broken, DoctorContext())
    assert finding.severity == "warn" and finding.check == "broken.crashed"
    assert "OSError" in finding.evidence
    with pytest.raises(LoadertuneError):
        run_doctor(DoctorContext(), ["nosuch"])


def test_report_worst_and_counts() -> None:
    report = Report("x", [ok("a", "a.ok", "t", "e"), warn("b", "b.w", "t", "e", "f")])
    assert report.worst == "warn" and not report.has_errors
    report.findings.append(error("c", "c.e", "t", "e", "f"))
    assert report.worst == "error" and report.counts() == {"ok": 1, "warn": 1, "error": 1}
    with pytest.raises(ValueError):
        Finding("a", "a.b", "fatal", "t", "e")

