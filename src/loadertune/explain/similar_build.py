"""Build the model of `similar` from labelled reports (the corpus) and write it as JSON.

    python -m loadertune.explain.similar_build tests/explain_corpus
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from loadertune.explain.normalize import normalize
from loadertune.explain.reports import labelled_texts
from loadertune.explain.similar import MODEL_FILE, tokens, weights

MIN_DOCUMENTS = 2  # a word seen in one report only says nothing about its cause
TERMS_PER_CAUSE = 600  # each centroid keeps its heaviest words
DIGITS = 4


def build(reports: Iterable[tuple[str, str]]) -> dict[str, object]:
    """The model of labelled ``(cause, text)`` reports: word weights and one centroid per
    cause (JSON-ready, rounded, so the same reports always give the same file)."""
    labelled = [(cause, tokens(text)) for cause, text in reports]
    seen = Counter(t for _, counts in labelled for t in counts)
    n = len(labelled)
    idf = {t: round(math.log((n + 1) / (c + 1)) + 1, DIGITS)
           for t, c in sorted(seen.items()) if c >= MIN_DOCUMENTS}
    sums: dict[str, Counter[str]] = {}
    for cause, counts in labelled:
        sums.setdefault(cause, Counter()).update(weights(counts, idf))
    centroids = {}
    for cause, total in sorted(sums.items()):
        top = total.most_common(TERMS_PER_CAUSE)
        norm = math.sqrt(sum(v * v for _, v in top)) or 1.0
        centroids[cause] = {t: round(v / norm, DIGITS) for t, v in sorted(top)}
    return {"reports": n, "idf": idf, "centroids": centroids}


def write_model(corpus: Path, out: Path) -> int:
    """Build the model from the normalised texts of the reports in ``corpus``, write it to
    ``out``; the number of reports."""
    model = build((cause, normalize(text).text) for cause, text in labelled_texts(corpus))
    out.write_text(json.dumps(model, sort_keys=True, separators=(",", ":")) + "\n",
                   encoding="utf-8")
    return int(model["reports"])  # type: ignore[call-overload]


if __name__ == "__main__":
    target = Path(__file__).with_name(MODEL_FILE)
    print(f"{write_model(Path(sys.argv[1]), target)} reports -> {target}")
