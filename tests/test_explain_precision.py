"""explain caps each cause's confidence at how often it was right when named first on texts
it had not seen (the blind batches' record, `explain/precision.py`)."""

from __future__ import annotations

from pathlib import Path

from _lt import cli

from loadertune.explain import CATALOGUE, explain_text
from loadertune.explain.match import confidence
from loadertune.explain.precision import ceiling, record_of, shipped_record
from loadertune.explain.reports import read_entry

CORPUS = Path(__file__).parent / "explain_corpus"


def test_record_counts_each_cause_named_first_and_how_often_it_was_right() -> None:
    record = record_of([("a", "a"), ("a", "b"), ("b", "b"), ("a", "a"), ("c", "a")])
    assert record == {"a": (3, 2), "b": (1, 1), "c": (1, 0)}


def test_ceiling_is_the_smoothed_share_right_and_no_cap_without_a_record() -> None:
    record = {"often_wrong": (8, 0), "always_right": (40, 40), "half": (18, 8)}
    assert ceiling("often_wrong", record) == 0.2
    assert ceiling("always_right", record) == 1.0
    assert ceiling("half", record) == 0.5
    assert ceiling("never_named", record) == 1.0


def test_shipped_record_is_well_formed_and_names_catalogue_causes() -> None:
    record = shipped_record()
    ids = {s.id for s in CATALOGUE}
    assert len(record) >= 20
    assert set(record) <= ids
    assert all(0 <= right <= named for named, right in record.values())


def _worker_exception_text() -> str:
    path = next(p for p in sorted(CORPUS.glob("*.txt"))
                if read_entry(p)[0]["cause"] == "worker_exception")
    return read_entry(path)[1]


def test_a_cause_often_wrong_when_named_first_is_shown_with_its_record() -> None:
    """A single worker's exception, named first, was the established cause far less often
    than its signals' score alone would say: the confidence shown is the record's."""
    cap = ceiling("worker_exception")
    assert cap < 0.5, "the record says worker_exception is a symptom more often than not"
    explanation = explain_text(_worker_exception_text())
    first = explanation.primary
    assert first is not None and first.signature.id == "worker_exception"
    total = sum(max(m.score, 0.0) for m in explanation.matches if m.similar is None)
    assert confidence(first.score, total) > cap, "uncapped, the score claims more"
    assert first.confidence == round(cap, 2)
    named, right = shipped_record()["worker_exception"]
    assert first.record == (named, right)
    assert first.to_dict()["record"] == {"named_first": named, "right": right}


def test_cli_says_when_the_record_capped_the_confidence(tmp_path: Path) -> None:
    log = tmp_path / "issue.txt"
    log.write_text(_worker_exception_text(), encoding="utf-8")
    result = cli("explain", str(log), "--no-live", extra_env={"COLUMNS": "100"})
    assert result.returncode == 0, result.stderr
    named, right = shipped_record()["worker_exception"]
    assert f"capped: named first on {named} unseen reports, right {right}" in result.stdout


def test_a_cause_right_whenever_named_first_keeps_its_confidence() -> None:
    record = shipped_record()
    reliable = [c for c, (named, right) in record.items() if named >= 10 and right == named]
    assert reliable, "some cause was right every time it was named first"
    assert all(ceiling(c) > 0.9 for c in reliable)
