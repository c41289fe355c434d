"""How often does `loadertune explain` name the established cause of real-world error texts?

Reads tests/explain_corpus/*.txt (a header with source, cause, split, why; then the text as
posted), explains each text and prints one line per entry and the share right per split
(dev, holdout, fresh*, blind*) and for all. Always exits 0: it
measures, it does not gate.

    python benchmarks/explain_corpus.py                 # every entry
    python benchmarks/explain_corpus.py --split dev     # only the dev entries
    python benchmarks/explain_corpus.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from loadertune.explain.reports import SPLITS, read_entry

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "explain_corpus"


@dataclass
class Result:
    name: str
    split: str
    expected: str
    got: str
    confidence: float
    harmless: bool
    unmatched: bool  # the text does not carry its cause (header "unmatched:")

    @property
    def right(self) -> bool:
        return self.got == self.expected


def run(split: str | None) -> list[Result]:
    from loadertune.explain import explain_text

    results = []
    for path in sorted(CORPUS.glob("*.txt")):
        fields, body = read_entry(path)
        if split and fields.get("split") != split:
            continue
        explanation = explain_text(body)
        results.append(Result(path.stem, fields.get("split", "dev"), fields["cause"],
                              explanation.to_dict()["cause"],
                              explanation.to_dict()["confidence"], explanation.harmless,
                              "unmatched" in fields))
    return results


def score(results: list[Result]) -> str:
    right = sum(r.right for r in results)
    return f"{right}/{len(results)} ({100 * right / len(results):.0f} %)" if results else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, help="only this split")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    results = run(args.split)
    for r in results:
        mark = "ok  " if r.right else "MISS"
        print(f"{mark} {r.split:7} {r.name:52} expected {r.expected:26} got {r.got} "
              f"({r.confidence:.2f}{', harmless' if r.harmless else ''})"
              f"{'  [unmatched: the text lacks its cause]' if r.unmatched else ''}")
    print()
    for name in SPLITS:
        print(f"{name:8} {score([r for r in results if r.split == name])}")
    print(f"{'all':8} {score(results)}")
    unknown = [r.name for r in results if r.got == "unknown"]
    print(f"unknown  {len(unknown)}")
    print(f"unmatched {sum(r.unmatched for r in results)} (texts that lack their cause; "
          f"right among them: {sum(r.right for r in results if r.unmatched)})")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(r), "right": r.right} for r in results],
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
