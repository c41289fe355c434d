"""Labelled real reports: the corpus file format and reading a folder of them.

A report file is a header of ``key: value`` lines (source, cause, split, why, and
``unmatched`` when the text does not carry its cause), a ``---`` line, then the text as
posted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

# the corpus's splits: dev/holdout (every 4th held out) were collected before the matcher was
# written; fresh* and blind* batches after it was frozen, each scored once before any fix
SPLITS = ("dev", "holdout", "fresh", "fresh2", "fresh3",
          *(f"blind{n}" for n in range(1, 86)))


def read_entry(path: Path) -> tuple[dict[str, str], str]:
    """(header fields, text) of one report file."""
    return parse_entry(path.read_text(encoding="utf-8"), str(path))


def parse_entry(content: str, name: str) -> tuple[dict[str, str], str]:
    """(header fields, text) of a report file's ``content`` (``name`` for the error)."""
    head, sep, body = content.partition("\n---\n")
    if not sep:
        raise ValueError(f"{name}: no '---' line between the header and the text")
    return dict(line.split(": ", 1) for line in head.splitlines() if ": " in line), body


def labelled_texts(folder: Path) -> Iterator[tuple[str, str]]:
    """(cause, text) of every report in ``folder`` whose text carries its cause."""
    for path in sorted(folder.glob("*.txt")):
        fields, body = read_entry(path)
        if "unmatched" not in fields:
            yield fields["cause"], body
