"""The words a regex cannot match without (`explain.literals`): every match holds one, and
skipping the searches whose words a text lacks changes no answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loadertune.explain import explain_text
from loadertune.explain.catalogue import CATALOGUE
from loadertune.explain.literals import required_words
from loadertune.explain.reports import read_entry
from loadertune.explain.signature import Signal

CORPUS = sorted((Path(__file__).parent / "explain_corpus").glob("*.txt"))
SIGNALS = [s for entry in CATALOGUE for s in (*entry.signals, *entry.context)]

WORD = st.text("abcXYZ_.:-'", min_size=1, max_size=6)


@st.composite
def literal(draw: st.DrawFn) -> tuple[str, str]:
    word = draw(WORD)
    return re.escape(word), word


@st.composite
def optional(draw: st.DrawFn) -> tuple[str, str]:
    word = draw(WORD)
    return f"(?:{re.escape(word)})?", draw(st.sampled_from([word, ""]))


@st.composite
def gap(draw: st.DrawFn) -> tuple[str, str]:
    return r"(?s:.{1,6}?)", draw(st.text("ab \n", min_size=1, max_size=6))


def node(children: st.SearchStrategy[tuple[str, str]]) -> st.SearchStrategy[tuple[str, str]]:
    """A group of regex parts and a text it matches: in sequence, one of several, or
    repeated. No part matches the empty text and repeats are short: nested repeats of
    parts that may be empty backtrack for minutes."""
    @st.composite
    def sequence(draw: st.DrawFn) -> tuple[str, str]:
        parts = draw(st.lists(children, min_size=1, max_size=4))
        return "".join(p for p, _ in parts), "".join(t for _, t in parts)

    @st.composite
    def branch(draw: st.DrawFn) -> tuple[str, str]:
        parts = draw(st.lists(children, min_size=2, max_size=3))
        chosen = draw(st.sampled_from(parts))
        return "(?:" + "|".join(p for p, _ in parts) + ")", chosen[1]

    @st.composite
    def repeat(draw: st.DrawFn) -> tuple[str, str]:
        pattern, sample = draw(children)
        least = draw(st.integers(1, 2))
        times = draw(st.integers(least, least + 1))
        return f"(?:{pattern}){{{least},{least + 1}}}", sample * times

    return sequence() | branch() | repeat()


REGEX = st.recursive(literal() | optional() | gap() | st.just((r"\s+", " ")), node,
                     max_leaves=12)


@given(REGEX, st.booleans())
@settings(max_examples=400, deadline=None)
def test_every_match_holds_one_of_the_words(regex: tuple[str, str], retyped: bool) -> None:
    pattern, sample = regex
    if retyped:  # the message in another case, found by a pattern that ignores case
        pattern, sample = "(?i)" + pattern, sample.swapcase()
    assert re.fullmatch(pattern, sample)
    words = required_words(pattern)
    assert not words or any(word in sample.lower() for word in words), (pattern, sample, words)


def test_words_are_long_lowercase_and_without_spaces() -> None:
    words = required_words(r"(?is)(?:Caught KeyError).{0,80}?(?:dataset_info\.json|DataLoader)")
    assert words and all(w == w.lower() and len(w) >= 3 and " " not in w for w in words)
    assert required_words(r"\bPR ?#\d+\b") == ()  # nothing long enough is certain to be there


@pytest.mark.parametrize("path", CORPUS[::25], ids=lambda p: p.stem)
def test_skipping_searches_changes_no_answer(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = read_entry(path)[1]
    filtered = explain_text(body)
    monkeypatch.setattr(Signal, "words", ())
    for signal in SIGNALS:
        monkeypatch.delitem(signal.__dict__, "words", raising=False)  # the cached words
    unfiltered = explain_text(body)
    assert filtered.ids() == unfiltered.ids()
    assert [m.confidence for m in filtered.matches] == [m.confidence for m in unfiltered.matches]
