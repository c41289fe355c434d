"""Does `loadertune explain` keep its answer when a corpus text is distorted the way real
posts are?

Each corpus text is rewritten in ways scraped and retyped posts differ from a terminal
(HTML entities, typographic quotes, markdown-escaped underscores, lines re-wrapped at 60
columns, all lower case, only the exception lines kept, a non-breaking space or zero-width
character between words) and explained again; the share of entries that keep their
established cause is printed per distortion. A text the matcher never saw differs from the
corpus in these ways, so a drop here is a drop on unseen texts. Always exits 0.

    python benchmarks/explain_robustness.py            # the share per distortion
    python benchmarks/explain_robustness.py --show html  # the entries html loses
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explain_corpus import CORPUS, read_entry


def _rewrap(text: str) -> str:
    return "\n".join(textwrap.fill(line, 60, break_on_hyphens=False) if line.strip() else line
                     for line in text.split("\n"))


def _exceptions_only(text: str) -> str:
    pattern = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b")
    return "\n".join(line for line in text.split("\n") if pattern.search(line))


DISTORTIONS: dict[str, Callable[[str], str]] = {
    "html": lambda t: html.escape(t, quote=True),
    "quotes": lambda t: t.replace("'", "\u2019").replace('"', "\u201c"),
    "markdown": lambda t: t.replace("_", "\\_"),
    "rewrap60": _rewrap,
    "lower": str.lower,
    "exceptions": _exceptions_only,
    "nbsp": lambda t: t.replace(" ", "\u00a0", 40).replace("er", "er\u200b", 5),
}


def main(argv: list[str] | None = None) -> int:
    from loadertune.explain import explain_text

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=DISTORTIONS, help="list the entries this one loses")
    args = parser.parse_args(argv)
    entries = [(p.stem, *read_entry(p)) for p in sorted(CORPUS.glob("*.txt"))]
    names = [args.show] if args.show else list(DISTORTIONS)
    for name in names:
        distort = DISTORTIONS[name]
        kept, lost = 0, []
        for stem, fields, body in entries:
            got = explain_text(distort(body)).to_dict()["cause"]
            if got == fields["cause"]:
                kept += 1
            else:
                lost.append((stem, fields["cause"], got))
        print(f"{name:11} {kept}/{len(entries)} ({100 * kept / len(entries):.0f} %)")
        if args.show:
            for stem, expected, got in lost:
                print(f"  {stem:52} expected {expected:26} got {got}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    sys.exit(main())
