"""Causes of the most similar real reports: a nearest-centroid ranker over labelled texts.

When no catalogue signature matches a text about loading (or only the generic fallback
does), the words of the text are compared with the causes of ~750 real reports that people
posted in public threads (tests/explain_corpus). Each cause is the TF-IDF centroid of its
reports; the text's cosine similarity to each centroid ranks the causes. It is a direction
with a low confidence, not a diagnosis: measured on later batches of reports it never saw,
the top cause is right about a quarter of the time where the catalogue had nothing, and the
right cause is among the first three about half the time (benchmarks/explain_similar.py).

The model is data (similar_reports.json), built from the corpus by `similar_build` and
checked against it by the tests, so it is rebuilt whenever the corpus grows.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

from loadertune.explain.catalogue.common import ABOUT_LOADING

MODEL_FILE = "similar_reports.json"
TOKEN = re.compile(r"[a-z_][a-z0-9_]{2,}")
ENDS = 20_000  # a long log: its opening (the report) and its end (the failure)
# ... and tells of something wrong (a question how to set num_workers is not a failure)
PROBLEM = re.compile(r"(?i)error|exception|traceback|fail|crash|\bbug\b|problem|issue|wrong"
                     r"|hang|hung|stuck|freez|deadlock|slow|speed ?up|bottleneck|killed|leak"
                     r"|memory|\boom\b|warn|duplicat|repeat|same|differ|not work|doesn'?t"
                     r"|does not|cannot|can'?t|unable|never|low\b|idle|waits?\b|错|慢|卡|報錯|失败")
MIN_SIMILARITY = 0.08
NEAR_BEST = 0.6  # a later cause is shown when its similarity is this close to the best
MAX_CAUSES = 3


@dataclass(frozen=True)
class Similar:
    """A cause and how close the text is to its reports (cosine, 0-1), with shared words."""

    cause: str
    similarity: float
    words: tuple[str, ...]


def tokens(text: str) -> Counter[str]:
    """Lower-case words of three or more characters, from both ends of a long text."""
    text = text if len(text) <= 2 * ENDS else text[:ENDS] + "\n" + text[-ENDS:]
    return Counter(TOKEN.findall(text.lower()))


def weights(counts: Counter[str], idf: dict[str, float]) -> dict[str, float]:
    """Unit-length TF-IDF weights (sub-linear term frequency) of the words ``idf`` knows."""
    raw = {t: (1 + math.log(c)) * idf[t] for t, c in counts.items() if t in idf}
    norm = math.sqrt(sum(v * v for v in raw.values())) or 1.0
    return {t: v / norm for t, v in raw.items()}


@dataclass(frozen=True)
class Model:
    """Word weights and cause centroids read from a built model."""

    idf: dict[str, float]
    centroids: dict[str, dict[str, float]]

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Model:
        return cls(data["idf"], data["centroids"])  # type: ignore[arg-type]

    def rank(self, text: str, causes: set[str] | None = None) -> list[Similar]:
        """Every cause (or those in ``causes``) by the text's similarity to its reports."""
        query = weights(tokens(text), self.idf)
        out = []
        for cause, centroid in self.centroids.items():
            if causes is not None and cause not in causes:
                continue
            shared = {t: w * centroid[t] for t, w in query.items() if t in centroid}
            words = tuple(sorted(shared, key=lambda t: -shared[t])[:5])
            out.append(Similar(cause, round(sum(shared.values()), 3), words))
        return sorted(out, key=lambda s: (-s.similarity, s.cause))


@cache
def shipped_model() -> Model:
    """The model built from loadertune's corpus, shipped with the package."""
    data = resources.files("loadertune.explain").joinpath(MODEL_FILE).read_text("utf-8")
    return Model.from_dict(json.loads(data))


def similar_causes(text: str, causes: set[str], model: Model | None = None) -> list[Similar]:
    """The causes (of ``causes``) of the reports most like ``text``, best first: empty when
    the text says nothing of loading (the catalogue's guard), tells of nothing wrong, or
    resembles no report."""
    if not PROBLEM.search(text) or not any(s.compiled.search(text) for s in ABOUT_LOADING):
        return []
    ranked = (model or shipped_model()).rank(text, causes)
    if not ranked or ranked[0].similarity < MIN_SIMILARITY:
        return []
    best = ranked[0].similarity
    return [s for s in ranked[:MAX_CAUSES] if s.similarity >= NEAR_BEST * best]

