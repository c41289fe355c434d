"""Run every applicable probe; a probe that crashes becomes a warn finding, never a crash."""

from __future__ import annotations

from collections.abc import Callable

from loadertune.doctor.context import DoctorContext
from loadertune.doctor.findings import Finding, Report, warn
from loadertune.doctor.probes import (
    cores,
    cuda,
    fds,
    memory,
    pickling,
    shm,
    startmethod,
    storage,
    threads,
)
from loadertune.errors import LoadertuneError

Probe = Callable[[DoctorContext], list[Finding]]

PROBES: dict[str, Probe] = {
    "startmethod": startmethod.probe,
    "pickling": pickling.probe,
    "cores": cores.probe,
    "memory": memory.probe,
    "shm": shm.probe,
    "fds": fds.probe,
    "threads": threads.probe,
    "cuda": cuda.probe,
    "storage": storage.probe,
}
MACHINE_PROBES = ("startmethod", "cores", "memory", "shm", "fds", "threads", "cuda")


def run_probe(name: str, probe: Probe, ctx: DoctorContext) -> list[Finding]:
    try:
        return probe(ctx)
    except LoadertuneError:
        raise
    except Exception as err:
        return [warn(name, f"{name}.crashed", f"the {name} probe failed",
                     f"{type(err).__name__}: {err}",
                     "this check could not run; please report it with LOADERTUNE_DEBUG=1")]


def run_doctor(ctx: DoctorContext, only: list[str] | None = None) -> Report:
    """All probes (or ``only`` those), in a fixed order."""
    names = only if only else list(PROBES)
    unknown = [n for n in names if n not in PROBES]
    if unknown:
        raise LoadertuneError(f"unknown probe(s) {', '.join(unknown)}; "
                              f"choose from {', '.join(PROBES)}")
    report = Report(target=ctx.target.raw)
    for name in names:
        report.findings.extend(run_probe(name, PROBES[name], ctx))
        report.probes_run.append(name)
    return report
