"""How often do the causes of the most similar reports name the right cause of a new one?

A time split over the corpus (tests/explain_corpus): each blind batch is ranked by a model
built only from the batches collected before it, as it would have been on the day it came.
Prints top-1 and top-3 hits per batch and for all (harmless and fallback causes are not
ranked: `explain` names those only on their own evidence). Always exits 0: it measures,
it does not gate.

    python benchmarks/explain_similar.py
"""

from __future__ import annotations

import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "explain_corpus"


def main() -> int:
    from loadertune.explain import CATALOGUE, normalize
    from loadertune.explain.reports import read_entry
    from loadertune.explain.similar import Model
    from loadertune.explain.similar_build import build

    entries = [(p.stem, f, normalize(body).text)
               for p in sorted(CORPUS.glob("*.txt")) for f, body in [read_entry(p)]]
    order = ["dev", "holdout", "fresh", "fresh2", "fresh3"]
    order += sorted({f["split"] for _, f, _ in entries} - set(order), key=lambda s: int(s[5:]))
    causes = {s.id for s in CATALOGUE if not s.harmless and not s.fallback}
    totals = [0, 0, 0]
    for split in order[5:]:
        before = set(order[:order.index(split)])
        model = Model.from_dict(build((f["cause"], body) for _, f, body in entries
                                      if f["split"] in before and "unmatched" not in f))
        row = [0, 0, 0]
        for _, fields, body in (e for e in entries if e[1]["split"] == split):
            top = [s.cause for s in model.rank(body, causes)[:3]]
            hit = (1, int(top[:1] == [fields["cause"]]), int(fields["cause"] in top))
            row = [a + b for a, b in zip(row, hit, strict=True)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{split:8} top-1 {row[1]:2}/{row[0]:2}  top-3 {row[2]:2}/{row[0]:2}")
    n, one, three = totals
    print(f"all      top-1 {one}/{n} ({100 * one / n:.0f} %)  "
          f"top-3 {three}/{n} ({100 * three / n:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    sys.exit(main())
