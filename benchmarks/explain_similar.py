"""How often do the causes of the most similar reports name the right cause of a new one?

A time split over the corpus (tests/explain_corpus): each blind batch is ranked by a model
built only from the batches collected before it, as it would have been on the day it came.
Prints top-1 and top-3 hits per batch and for all (harmless and fallback causes are not
ranked: `explain` names those only on their own evidence), for the shipped ranker (one
TF-IDF centroid per cause) and, side by side on the same split, for two rankers it was
measured against: the nearest reports themselves (the sum of a cause's three most similar
reports) and multinomial naive Bayes over the words. Always exits 0: it measures, it does not
gate.

    python benchmarks/explain_similar.py
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "explain_corpus"
NEAREST = 3  # reports per cause summed by the nearest-reports ranker
SMOOTHING = 0.1  # naive Bayes' additive smoothing

Ranker = Callable[[str], list[str]]  # a text's causes, best first
Reports = list[tuple[str, str]]  # (cause, text) of the reports a ranker learns from
Built = dict[str, object]  # similar_build.build of those reports, made once per batch


def nearest_reports(reports: Reports, built: Built, causes: set[str]) -> Ranker:
    """Causes by the summed similarity of their ``NEAREST`` reports most like the text."""
    from loadertune.explain.similar import tokens, weights

    idf: dict[str, float] = built["idf"]  # type: ignore[assignment]
    vectors = [(cause, weights(tokens(text), idf)) for cause, text in reports if cause in causes]

    def rank(text: str) -> list[str]:
        query = weights(tokens(text), idf)
        sims: dict[str, list[float]] = defaultdict(list)
        for cause, vector in vectors:
            sims[cause].append(sum(w * vector.get(t, 0.0) for t, w in query.items()))
        score = {c: sum(sorted(s, reverse=True)[:NEAREST]) for c, s in sims.items()}
        return sorted(score, key=lambda c: -score[c])
    return rank


def naive_bayes(reports: Reports, built: Built, causes: set[str]) -> Ranker:
    """Causes by multinomial naive Bayes over the words each report holds (once each)."""
    from loadertune.explain.similar import tokens

    vocabulary = set(built["idf"])  # type: ignore[call-overload]
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for cause, text in reports:
        counts[cause].update(set(tokens(text)) & vocabulary)
    prior = Counter(cause for cause, _ in reports)

    def rank(text: str) -> list[str]:
        words = set(tokens(text)) & vocabulary
        score = {}
        for cause in (c for c in counts if c in causes):
            total = sum(counts[cause].values()) + SMOOTHING * len(vocabulary)
            score[cause] = math.log(prior[cause]) + sum(
                math.log((counts[cause][w] + SMOOTHING) / total) for w in words)
        return sorted(score, key=lambda c: -score[c])
    return rank


def centroids(reports: Reports, built: Built, causes: set[str]) -> Ranker:
    """The shipped ranker: one TF-IDF centroid per cause."""
    from loadertune.explain.similar import Model

    model = Model.from_dict(built)
    return lambda text: [s.cause for s in model.rank(text, causes)]


def main() -> int:
    from loadertune.explain import CATALOGUE, normalize
    from loadertune.explain.reports import read_entry
    from loadertune.explain.similar_build import build

    entries = [(p.stem, f, normalize(body).text)
               for p in sorted(CORPUS.glob("*.txt")) for f, body in [read_entry(p)]]
    order = ["dev", "holdout", "fresh", "fresh2", "fresh3"]
    order += sorted({f["split"] for _, f, _ in entries} - set(order), key=lambda s: int(s[5:]))
    causes = {s.id for s in CATALOGUE if not s.harmless and not s.fallback}
    rankers = {"centroids": centroids, "nearest reports": nearest_reports,
               "naive Bayes": naive_bayes}
    totals = {name: [0, 0, 0] for name in rankers}
    for split in order[5:]:
        before = set(order[:order.index(split)])
        reports = [(f["cause"], body) for _, f, body in entries
                   if f["split"] in before and "unmatched" not in f]
        batch = [(f["cause"], body) for _, f, body in entries if f["split"] == split]
        built = build(reports)
        for name, make in rankers.items():
            rank = make(reports, built, causes)
            row = [0, 0, 0]
            for cause, body in batch:
                top = rank(body)[:3]
                hit = (1, int(top[:1] == [cause]), int(cause in top))
                row = [a + b for a, b in zip(row, hit, strict=True)]
            totals[name] = [a + b for a, b in zip(totals[name], row, strict=True)]
            if name == "centroids":
                print(f"{split:8} top-1 {row[1]:2}/{row[0]:2}  top-3 {row[2]:2}/{row[0]:2}")
    for name, (n, one, three) in totals.items():
        print(f"{name:16} all: top-1 {one}/{n} ({100 * one / n:.0f} %)  "
              f"top-3 {three}/{n} ({100 * three / n:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    sys.exit(main())
