"""Replay the blind scores from the repository's history: each blind batch explained by the
code of the commit before its texts entered the corpus.

The blind numbers in the README were tallied as each round came in; this recomputes them
from a full clone, so anyone can check them. For each blind batch it takes the texts as they
were added, extracts `src/` of the commit before (`git archive`, into a temporary folder) and
explains them there in a child process. Per batch and for all it prints:

- first: texts whose first cause the matcher of that day named right;
- +similar: the same where that matcher had no signal of its own (nothing, or only the
  fallback) answered by the similar-reports ranker built from the earlier batches alone,
  the policy `explain` follows today, replayed without looking ahead;
- listed: texts whose cause is anywhere in the list `explain` shows today: the first three
  causes of that day's signals, plus the similar reports' causes after a symptom (or in
  place of nothing), again from the earlier batches alone;
- known: texts whose cause an earlier batch already held, the ceiling of anything that
  learns only from the reports it has seen.

Then the calibration of the confidence of that day's first cause: its Brier score against
whether the cause was right, as the day's code gave it and as capped by the record of the
earlier batches alone (`explain/precision.py`), with both by band of confidence.
`--write-precision` writes the record of all the batches to the package
(src/loadertune/explain/first_precision.json), the data `explain` caps confidences with.
Always exits 0: it measures, it does not gate.

    python benchmarks/explain_first_scores.py [--write-precision]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "explain_corpus"

PRECISION = ROOT / "src" / "loadertune" / "explain" / "first_precision.json"
BANDS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.01)

# run by the commit's own code: the ids it ranks first (older commits had no `ids()`) and
# the confidence of the first
CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from loadertune.explain import explain_text
out = []
for body in json.load(sys.stdin):
    e = explain_text(body)
    try:
        ids = e.ids()
    except AttributeError:
        ids = [e.to_dict().get("cause")]
    d = e.to_dict()
    first = (d.get("causes") or [{}])[0]
    out.append({"ids": [i for i in ids[:3] if i and i != "unknown"],
                "confidence": d.get("confidence", first.get("confidence"))})
print(json.dumps(out))
"""


@dataclass
class Text:
    name: str
    split: str
    cause: str  # as labelled when the text was added
    body: str
    first: list[str]  # ids the code of that day ranked first
    confidence: float  # that day's confidence in the first (0 when it named none)


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout


def blind_files() -> dict[str, list[Path]]:
    """The corpus's blind batches, by name."""
    from loadertune.explain.reports import read_entry

    batches: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(CORPUS.glob("*.txt")):
        split = read_entry(path)[0].get("split", "")
        if split.startswith("blind"):
            batches[split].append(path)
    return dict(sorted(batches.items(), key=lambda kv: int(kv[0][5:])))


def first_added() -> dict[str, str]:
    """The commit that first added each corpus file (repository-relative path -> commit),
    read from one pass over the history."""
    log = git("log", "--format=commit %H", "--name-only", "--no-renames", "--diff-filter=A",
              "--", CORPUS.relative_to(ROOT).as_posix())
    added: dict[str, str] = {}
    commit = ""
    for line in log.splitlines():
        if line.startswith("commit "):
            commit = line.removeprefix("commit ")
        elif line:
            added[line] = commit  # newest first: the oldest addition is written last
    return added


def explain_at(commit: str, bodies: list[str]) -> list[dict[str, object]]:
    """The first ids the code of ``commit`` gives each text, and its confidence."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "src"],
                             check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory(prefix="loadertune-replay-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        done = subprocess.run([sys.executable, "-c", CHILD, str(Path(tmp) / "src")],
                              input=json.dumps(bodies), capture_output=True, text=True,
                              check=True)
    return json.loads(done.stdout)


def replay(batches: dict[str, list[Path]]) -> list[Text]:
    """Every blind text, explained by the code it was first scored with."""
    from loadertune.explain.reports import parse_entry

    added = first_added()
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    uncommitted = 0
    for split, paths in batches.items():
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            if rel not in added:
                uncommitted += 1
                continue
            groups[added[rel]].append((split, rel))
    if uncommitted:
        print(f"  {uncommitted} texts not committed yet: left out", file=sys.stderr)
    texts = []
    for n, (commit, members) in enumerate(groups.items(), 1):
        entries = []
        for split, rel in members:
            fields, body = parse_entry(git("show", f"{commit}:{rel}"), f"{commit}:{rel}")
            entries.append((split, Path(rel).stem, fields["cause"], body))
        answers = explain_at(f"{commit}^", [body for *_, body in entries])
        texts += [Text(name, split, cause, body, answer["ids"], answer["confidence"] or 0.0)
                  for (split, name, cause, body), answer in zip(entries, answers, strict=True)]
        print(f"\r  {n}/{len(groups)} imports replayed", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return texts


def with_similar(texts: list[Text]) -> dict[str, tuple[str | None, bool, bool]]:
    """Per text: the answer under today's policy (similar reports where no signal of its own
    named a cause, from a model of the earlier batches), whether its cause is in the list
    shown under that policy, and whether its cause was known."""
    from loadertune.explain import CATALOGUE, normalize
    from loadertune.explain.match import SIGNALS_BEFORE_SIMILAR, SIMILAR_AFTER_SYMPTOM, SYMPTOMS
    from loadertune.explain.reports import SPLITS, read_entry
    from loadertune.explain.similar import Model, similar_causes
    from loadertune.explain.similar_build import build

    corpus = [(f, normalize(body).text) for p in sorted(CORPUS.glob("*.txt"))
              for f, body in [read_entry(p)]]
    fallback = {s.id for s in CATALOGUE if s.fallback}
    ranked = {s.id for s in CATALOGUE if not s.harmless and not s.fallback}
    out = {}
    for split in dict.fromkeys(t.split for t in texts):
        before = set(SPLITS[:SPLITS.index(split)])
        earlier = [(f["cause"], body) for f, body in corpus
                   if f.get("split", "dev") in before and "unmatched" not in f]
        model = Model.from_dict(build(earlier))
        known = {cause for cause, _ in earlier}
        for t in (t for t in texts if t.split == split):
            answer = t.first[0] if t.first else None
            shown = t.first[:SIGNALS_BEFORE_SIMILAR]
            if answer is None or answer in fallback or answer in SYMPTOMS:
                near = [s.cause for s in similar_causes(normalize(t.body).text, ranked, model)]
                if answer in SYMPTOMS:
                    shown += [c for c in near if c not in shown][:SIMILAR_AFTER_SYMPTOM]
                else:
                    answer, shown = (near[0] if near else answer), near + shown
            out[t.name] = (answer, t.cause in shown, t.cause in known)
    return out


def calibration(texts: list[Text]) -> None:
    """Print the Brier score of the day's confidence in its first cause, as given and as
    capped by the record of the earlier batches, overall and by band."""
    from loadertune.explain.precision import ceiling, record_of

    named = [t for t in texts if t.first]
    capped = {}
    for split in dict.fromkeys(t.split for t in named):
        earlier = record_of([(t.first[0], t.cause) for t in named
                             if int(t.split[5:]) < int(split[5:])])
        for t in (t for t in named if t.split == split):
            capped[t.name] = min(t.confidence, ceiling(t.first[0], earlier))
    right = {t.name: float(t.first[0] == t.cause) for t in named}
    for label, conf in (("as given", {t.name: t.confidence for t in named}),
                        ("capped by earlier batches", capped)):
        brier = sum((conf[n] - right[n]) ** 2 for n in conf) / len(conf)
        print(f"calibration, {label}: Brier {brier:.3f} over {len(conf)} first causes")
        for low, high in pairwise(BANDS):
            band = [n for n in conf if low <= conf[n] < high]
            if band:
                print(f"  confidence {low:.2f}-{min(high, 1):.2f}: {len(band):4} texts, "
                      f"mean {sum(conf[n] for n in band) / len(band):.2f}, "
                      f"right {sum(right[n] for n in band) / len(band):.2f}")


def write_precision(texts: list[Text]) -> None:
    """Write the record of every batch's first causes to the package."""
    from loadertune.explain import CATALOGUE
    from loadertune.explain.precision import record_of

    ids = {s.id for s in CATALOGUE}  # a cause renamed since is left out
    record = record_of([(t.first[0], t.cause) for t in texts if t.first and t.first[0] in ids])
    rows = ",\n".join(f"  {json.dumps(cause)}: [{n}, {r}]" for cause, (n, r) in record.items())
    total = sum(n for n, _ in record.values())
    PRECISION.write_text(f'{{"texts": {total}, "causes": {{\n{rows}\n}}}}\n', encoding="utf-8")
    print(f"record of {total} first causes -> {PRECISION}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-precision", action="store_true",
                        help="write the record of first causes to the package")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    if git("rev-parse", "--is-shallow-repository").strip() == "true":
        print("a shallow clone: the replay needs the full history (git fetch --unshallow)")
        return 0
    texts = replay(blind_files())
    today = with_similar(texts)
    totals = [0, 0, 0, 0, 0]
    for split in dict.fromkeys(t.split for t in texts):
        batch = [t for t in texts if t.split == split]
        row = [len(batch), sum(t.first[:1] == [t.cause] for t in batch),
               sum(today[t.name][0] == t.cause for t in batch),
               sum(today[t.name][1] for t in batch), sum(today[t.name][2] for t in batch)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{split:8} first {row[1]:2}/{row[0]:2}  +similar {row[2]:2}/{row[0]:2}  "
              f"listed {row[3]:2}/{row[0]:2}  known {row[4]:2}/{row[0]:2}")
    n, first, similar, listed, known = totals
    print(f"{'all':8} first {first}/{n} ({100 * first / n:.0f} %)  +similar {similar}/{n} "
          f"({100 * similar / n:.0f} %)  listed {listed}/{n} ({100 * listed / n:.0f} %)  "
          f"known {known}/{n} ({100 * known / n:.0f} %)")
    calibration(texts)
    if args.write_precision:
        write_precision(texts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
