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

Always exits 0: it measures, it does not gate.

    python benchmarks/explain_first_scores.py
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "explain_corpus"

# run by the commit's own code: the ids it ranks first (older commits had no `ids()`)
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
    out.append([i for i in ids[:3] if i and i != "unknown"])
print(json.dumps(out))
"""


@dataclass
class Text:
    name: str
    split: str
    cause: str  # as labelled when the text was added
    body: str
    first: list[str]  # ids the code of that day ranked first


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


def explain_at(commit: str, bodies: list[str]) -> list[list[str]]:
    """The first ids the code of ``commit`` gives each text."""
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
        texts += [Text(name, split, cause, body, first)
                  for (split, name, cause, body), first in zip(entries, answers, strict=True)]
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


def main() -> int:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
