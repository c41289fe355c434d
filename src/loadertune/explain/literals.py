"""The words a regex cannot match without.

Most signals of the catalogue are absent from any one text: looking for one of the words
each needs (a substring test on the text in lower case) spares the regex search, which is
most of what explaining a text costs.
"""

from __future__ import annotations

import re

try:  # the stdlib's own regex parser and its opcodes: private, so a release may move them
    from re import _constants as sre
    from re import _parser as sre_parse
    REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
except (ImportError, AttributeError):  # then no words are known and every search is made
    sre_parse = None

Words = frozenset[str]
MIN_WORD = 3  # shorter literals are in nearly every text: no use as a filter


def required_words(pattern: str) -> tuple[str, ...]:
    """Lower-case words of which every match of ``pattern`` holds at least one, without
    whitespace (so a text re-wrapped across lines holds them too); empty when none is
    known."""
    if sre_parse is None:
        return ()
    try:
        words = _sequence(list(sre_parse.parse(pattern)))
    except (re.error, AttributeError, TypeError, ValueError, IndexError):
        return ()  # a pattern, or a parse tree of a Python release, this does not know
    return tuple(sorted(words)) if words else ()


def _sequence(items: list[tuple[object, object]]) -> Words | None:
    """The best set of words one of which the sequence needs, or None."""
    needs: list[Words] = []
    run: list[str] = []

    def close() -> None:
        if len(run) >= MIN_WORD:
            needs.append(frozenset(["".join(run).lower()]))
        run.clear()

    for op, arg in items:
        if op is sre.LITERAL and not chr(arg).isspace():  # type: ignore[arg-type]
            run.append(chr(arg))  # type: ignore[arg-type]
            continue
        close()
        need = _item(op, arg)
        if need:
            needs.append(need)
    close()
    return max(needs, key=_strength) if needs else None


def _item(op: object, arg: object) -> Words | None:
    """What one group, alternation or repeat needs; None for anything else."""
    if op is sre.SUBPATTERN:
        return _sequence(list(arg[3]))  # type: ignore[index]
    if op is sre.ATOMIC_GROUP:
        return _sequence(list(arg))  # type: ignore[call-overload]
    if op is sre.BRANCH:
        options = [_sequence(list(branch)) for branch in arg[1]]  # type: ignore[index]
        if any(option is None for option in options):
            return None
        return frozenset().union(*options)  # type: ignore[arg-type]
    if op in REPEATS:
        least, _, body = arg  # type: ignore[misc]
        return _sequence(list(body)) if least >= 1 else None
    return None


def _strength(words: Words) -> tuple[int, int]:
    """The better filter: its shortest word longer, then fewer words."""
    return min(map(len, words)), -len(words)
