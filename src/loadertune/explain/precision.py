"""How often each cause was right when it was named first on texts the matcher had not seen.

Every blind batch of the corpus was explained by the code of its day before any fix
(`benchmarks/explain_first_scores.py` replays them from the repository's history). For each
cause that code named first, the table keeps how many times it did and how many of those
texts had that cause established. A signal match's confidence is capped at that record, smoothed
towards "no cap" where it is short: measured batch by batch with the record of the earlier
batches only, the cap brings the confidences of the later batches much closer to how often
they were right (benchmarks/README.md). The table is data (first_precision.json), rebuilt
with the replay when the corpus grows:

    python benchmarks/explain_first_scores.py --write-precision
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

PRECISION_FILE = "first_precision.json"
PRIOR = 2  # two imagined right answers: one miss of a cause seldom named caps it at 2/3

Record = dict[str, tuple[int, int]]  # cause id -> (named first, right)


@cache
def shipped_record() -> Record:
    """The record of the blind batches shipped with the package."""
    text = resources.files("loadertune.explain").joinpath(PRECISION_FILE).read_text("utf-8")
    return {cause: (named, right) for cause, (named, right) in json.loads(text)["causes"].items()}


def ceiling(cause: str, record: Record | None = None) -> float:
    """The most confidence the record allows a cause: its smoothed share of right answers
    when named first (1.0 for a cause never named first)."""
    named, right = (shipped_record() if record is None else record).get(cause, (0, 0))
    return (right + PRIOR) / (named + PRIOR)


def record_of(answers: list[tuple[str, str]]) -> Record:
    """The record of ``(cause named first, cause established)`` pairs, by cause."""
    out: dict[str, list[int]] = {}
    for named, established in answers:
        counts = out.setdefault(named, [0, 0])
        counts[0] += 1
        counts[1] += named == established
    return {cause: (n, r) for cause, (n, r) in sorted(out.items())}
