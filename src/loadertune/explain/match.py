"""Match log text against the catalogue; optionally add live probe results from this machine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loadertune.explain.catalogue import CATALOGUE, Signature

MAX_EVIDENCE = 3
MAX_TEXT = 4 * 2**20  # the end of a long log holds the failure


@dataclass
class Match:
    """A signature found in the text, with the lines that show it and values pulled out."""

    signature: Signature
    evidence: list[tuple[int, str]]
    details: dict[str, str] = field(default_factory=dict)
    live: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        s = self.signature
        return {
            "id": s.id, "title": s.title, "cause": s.cause, "confirm": s.confirm,
            "fix": s.fix, "priority": s.priority,
            "evidence": [{"line": n, "text": t} for n, t in self.evidence],
            "details": self.details,
            "live": [f.to_dict() for f in self.live],
        }


@dataclass
class Explanation:
    matches: list[Match]

    @property
    def known(self) -> bool:
        return bool(self.matches)

    @property
    def primary(self) -> Match | None:
        return self.matches[0] if self.matches else None

    def ids(self) -> list[str]:
        return [m.signature.id for m in self.matches]

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": self.known,
            "cause": self.primary.signature.id if self.primary else "unknown",
            "causes": [m.to_dict() for m in self.matches],
            "suggest": None if self.known else "loadertune doctor [SCRIPT.py | DATASET]",
        }


def _line_of(text: str, offset: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text.count("\n", 0, offset) + 1, text[start: end if end >= 0 else len(text)].strip()


def match_signature(signature: Signature, text: str) -> Match | None:
    if signature.compiled_requires and not any(r.search(text) for r in
                                               signature.compiled_requires):
        return None
    evidence: list[tuple[int, str]] = []
    details: dict[str, str] = {}
    for pattern in signature.compiled:
        for i, m in enumerate(pattern.finditer(text)):
            if i >= MAX_EVIDENCE:
                break  # a log can repeat one error thousands of times
            line = _line_of(text, m.start())
            if line not in evidence and len(evidence) < MAX_EVIDENCE:
                evidence.append(line)
            for key, value in m.groupdict().items():
                if value is not None:
                    details.setdefault(key, value.strip())
    return Match(signature, sorted(evidence), details) if evidence else None


def explain_text(text: str) -> Explanation:
    """Every catalogue entry found in ``text``, the most specific cause first."""
    text = text[-MAX_TEXT:]
    matches = [m for s in CATALOGUE if (m := match_signature(s, text)) is not None]
    matches.sort(key=lambda m: (-m.signature.priority, m.evidence[0][0]))
    return Explanation(matches)


def add_live_probes(explanation: Explanation) -> None:
    """Attach this machine's results of the probes each cause names (no dataset needed)."""
    from loadertune.doctor.context import DoctorContext
    from loadertune.doctor.runner import PROBES, run_probe

    ctx = DoctorContext(measure=False)
    cache: dict[str, list[Any]] = {}
    for match in explanation.matches:
        for name in match.signature.probes:
            if name not in PROBES:
                continue
            if name not in cache:
                cache[name] = run_probe(name, PROBES[name], ctx)
            match.live.extend(cache[name])
