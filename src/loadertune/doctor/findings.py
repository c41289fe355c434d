"""Findings: what a probe saw, how bad it is, and the fix."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from loadertune.units import format_bytes

SEVERITIES = ("ok", "warn", "error")


@dataclass(frozen=True)
class Finding:
    """One observation of one probe.

    ``probe`` is a stable id of the probe group (e.g. ``"shm"``), ``check`` a stable id of the
    condition within it (e.g. ``"shm.too_small"``); ``evidence`` is what was measured or read,
    ``fix`` what to do (empty for ``ok``); ``where`` a ``file:line`` when the finding points
    into a script; ``data`` the raw numbers for ``--json``.
    """

    probe: str
    check: str
    severity: str
    title: str
    evidence: str
    fix: str = ""
    where: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {self.severity!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def ok(probe: str, check: str, title: str, evidence: str, **data: Any) -> Finding:
    return Finding(probe, check, "ok", title, evidence, data=data)


def warn(probe: str, check: str, title: str, evidence: str, fix: str,
         where: str | None = None, **data: Any) -> Finding:
    return Finding(probe, check, "warn", title, evidence, fix, where, data)


def error(probe: str, check: str, title: str, evidence: str, fix: str,
          where: str | None = None, **data: Any) -> Finding:
    return Finding(probe, check, "error", title, evidence, fix, where, data)


@dataclass
class Report:
    """All findings of one doctor run, in probe order."""

    target: str | None
    findings: list[Finding] = field(default_factory=list)
    probes_run: list[str] = field(default_factory=list)

    @property
    def worst(self) -> str:
        levels = [SEVERITIES.index(f.severity) for f in self.findings]
        return SEVERITIES[max(levels)] if levels else "ok"

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    def by_check(self, check: str) -> list[Finding]:
        return [f for f in self.findings if f.check == check]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "worst": self.worst,
            "counts": self.counts(),
            "probes": self.probes_run,
            "findings": [f.to_dict() for f in self.findings],
        }


def human_bytes(n: float | None) -> str:
    return format_bytes(n, missing="unknown")
