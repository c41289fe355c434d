"""The data a catalogue entry is made of: weighted signals and what they mean.

A `Signal` is one piece of evidence (a regex) looked for in one view of the log: the whole
normalised text, the exception lines, the stack frames, or the frame an exception was raised
in (which code failed: the user's dataset or the loader's collate). A `Signature` adds up the
weights of its signals that are present; the matcher ranks signatures by that score. Entries
are pure data: a new failure is a new `Signature`, the matcher does not change.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from loadertune.explain.literals import required_words

Where = Literal["text", "exception", "frame", "raiser"]


def phrase(text: str) -> str:
    """A regex for ``text`` where any run of whitespace may be a line break and indent."""
    return r"\s+".join(re.escape(word) for word in text.split())


def near(a: str, b: str, within: int) -> str:
    """A regex for ``a`` and ``b`` in either order, at most ``within`` characters apart (across
    lines, any case): evidence told in words rarely keeps one order."""
    gap = rf".{{0,{within}}}?"
    return rf"(?is)(?:{a}){gap}(?:{b})|(?:{b}){gap}(?:{a})"


@dataclass(frozen=True)
class Signal:
    """A regex worth ``weight`` when found (at least ``min_count`` times) in view ``where``.

    ``key`` signals are the ones that can make a signature match on their own; a signature
    with key signals is reported only when one of them is found. A negative weight counts
    against the cause (evidence that points elsewhere).
    """

    pattern: str
    weight: float = 1.0
    where: Where = "text"
    key: bool = False
    min_count: int = 1

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        """The pattern, compiled on first use: a text lacking its `words` never needs it."""
        return re.compile(self.pattern)

    @functools.cached_property
    def ignores_case(self) -> bool:
        return bool(self.compiled.flags & re.IGNORECASE)

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        """Lower-case words one of which any match holds (`literals.required_words`)."""
        return required_words(self.pattern)

    @functools.cached_property
    def folded(self) -> re.Pattern[str]:
        """The pattern in any case, for the message retyped in another case (a title, a
        forum post): weaker evidence. Compiled on first use: most signals never need it."""
        return re.compile(self.pattern, re.IGNORECASE)


def text(pattern: str, weight: float = 1.0, *, key: bool = False,
         min_count: int = 1) -> Signal:
    """A signal looked for anywhere in the normalised text."""
    return Signal(pattern, weight, "text", key, min_count)


def exc(pattern: str, weight: float = 1.0, *, key: bool = False) -> Signal:
    """A signal looked for in the exception lines (``Type: message``)."""
    return Signal(pattern, weight, "exception", key)


def frame(pattern: str, weight: float = 1.0, *, key: bool = False,
          min_count: int = 1) -> Signal:
    """A signal looked for in the stack frames, each written ``path in function``."""
    return Signal(pattern, weight, "frame", key, min_count)


def raised_in(pattern: str, weight: float = 1.0, *, key: bool = False) -> Signal:
    """A signal looked for in the innermost frame of each traceback (``path in function``):
    the code that raised the exception, not the frames that called it."""
    return Signal(pattern, weight, "raiser", key)


# a library's message as its source writes it: placeholders (f-string fields, %-formats)
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[sdrfi]|\\n")
QUOTES = "`'\""
OPTIONAL_QUOTES = str.maketrans({q: f"[{QUOTES}]?" for q in QUOTES})
SAID_PREFIX = 70  # literal characters matched: enough to tell, short enough for a cut-off paste


def said_start(message: str) -> list[str]:
    """The literal pieces of ``message`` between its placeholders, whitespace collapsed, up
    to the first ``SAID_PREFIX`` characters: what of it is looked for."""
    pieces: list[str] = []
    for piece in PLACEHOLDER.split(message):
        literal = " ".join(piece.split())
        # a start of bare punctuation (the quote before a placeholder) would make the search
        # try every offset of the text with a gap before the first word
        if literal and (pieces or re.search(r"\w", literal)):
            pieces.append(literal)
            if sum(map(len, pieces)) >= SAID_PREFIX:
                break
    if not pieces:
        raise ValueError(f"no literal text in message {message!r}")
    return pieces


def said_pattern(message: str) -> str:
    """A regex for ``message`` as a library writes it in its source (``"Column {key} not in
    the dataset"``): its literal words in order (each a `phrase`), each placeholder any
    short run of text, quotes and backticks optional (pastes and markdown drop them), and
    only its start (`said_start`), so a message cut off or changed at its end by another
    release still matches."""
    return r"(?s:.{0,200}?)".join(phrase(piece).translate(OPTIONAL_QUOTES)
                                  for piece in said_start(message))


def said(messages: tuple[str, ...], weight: float, *, key: bool = True) -> tuple[Signal, ...]:
    """A signal for each of ``messages``, written as the library's source writes it (one
    regex each: a literal start lets the search skip ahead, an alternation of them cannot)."""
    return tuple(Signal(said_pattern(m), weight, "text", key) for m in messages)


@dataclass(frozen=True)
class Signature:
    """One known cause: stable ``id``, the signals that show it, and what to do about it.

    ``context``: when given, at least one must be present (they add nothing to the score).
    ``priority`` breaks ties between equal scores: the more specific cause first.
    ``harmless``: the text is noise that did not fail the run. ``fallback``: reported only
    when nothing else matched. ``detail`` is formatted with the values the signals captured
    (named groups) when all of them are present. ``probes`` name the doctor probes whose
    live results help confirm it on this machine. ``explains``: ids of symptoms this cause
    produces (a shared LMDB handle makes workers segfault): when both match, the cause is
    ranked above its symptom whatever their scores.
    """

    id: str
    title: str
    signals: tuple[Signal, ...]
    cause: str
    confirm: str
    fix: str
    priority: int = 50
    harmless: bool = False
    fallback: bool = False
    context: tuple[Signal, ...] = ()
    detail: str = ""
    probes: tuple[str, ...] = ()
    min_score: float = 1.0
    explains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.signals:
            raise ValueError(f"signature {self.id!r} has no signals")
