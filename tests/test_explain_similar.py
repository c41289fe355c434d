"""explain's fallback on texts no signature places: the causes of the most similar reports."""

from __future__ import annotations

import json
from pathlib import Path

from _lt import cli

from loadertune.explain import explain_text
from loadertune.explain.reports import read_entry
from loadertune.explain.similar import MODEL_FILE, Model, similar_causes, tokens
from loadertune.explain.similar_build import build, write_model

CORPUS = Path(__file__).parent / "explain_corpus"
SHIPPED = Path(__import__("loadertune.explain").explain.__file__).with_name(MODEL_FILE)
# a report told in words that no signature of the catalogue holds
PROSE = ("Training gets slower every epoch. My dataloader reads the images from a NAS, "
         "the GPU waits and the labels look shuffled the same way each time I restart.")


def test_shipped_model_is_the_one_built_from_the_corpus(tmp_path: Path) -> None:
    """Adding a report to the corpus without rebuilding the model fails here."""
    rebuilt = tmp_path / MODEL_FILE
    count = write_model(CORPUS, rebuilt)
    labelled = [p for p in CORPUS.glob("*.txt") if "unmatched" not in read_entry(p)[0]]
    assert count == len(labelled)
    assert json.loads(rebuilt.read_text()) == json.loads(SHIPPED.read_text()), (
        "rebuild it: python -m loadertune.explain.similar_build tests/explain_corpus")


def tiny_model() -> Model:
    return Model.from_dict(build([
        ("slow_storage", "dataloader slow reading images from nfs network disk"),
        ("slow_storage", "loading from the network share nfs is slow, gpu idle"),
        ("numpy_seed_workers", "every worker returns the same random crop augmentation"),
        ("numpy_seed_workers", "same random augmentation in each worker numpy seed"),
        ("harmless_shutdown", "an error printed at shutdown after training finished"),
        ("harmless_shutdown", "training finished, then an error at interpreter shutdown"),
    ]))


def test_similar_causes_rank_the_cause_whose_reports_share_the_words() -> None:
    model = tiny_model()
    every = set(model.centroids)
    found = similar_causes("my dataloader is slow on nfs", every, model)
    assert found[0].cause == "slow_storage" and "nfs" in found[0].words
    assert all(s.cause != "numpy_seed_workers" for s in found)  # far below the best
    found = similar_causes("each worker gives the same random augmentation", every, model)
    assert found[0].cause == "numpy_seed_workers"


def test_similar_causes_are_limited_to_those_asked_for() -> None:
    model = tiny_model()
    text = "an error at shutdown of my dataloader after training finished"
    assert similar_causes(text, set(model.centroids), model)[0].cause == "harmless_shutdown"
    assert all(s.cause != "harmless_shutdown"
               for s in similar_causes(text, {"slow_storage", "numpy_seed_workers"}, model))


def test_no_similar_cause_for_a_text_off_loading_or_like_no_report() -> None:
    model = tiny_model()
    assert similar_causes("ZeroDivisionError: division by zero", set(model.centroids),
                          model) == []
    assert similar_causes("my dataloader: quux zork", set(model.centroids), model) == []


def test_tokens_read_both_ends_of_a_long_log() -> None:
    text = "opening " + "filler " * 20_000 + " closing"
    assert {"opening", "closing"} <= set(tokens(text))


def test_a_text_no_signature_places_gets_similar_reports_with_a_low_confidence() -> None:
    explanation = explain_text(PROSE)
    assert explanation.known and not explanation.by_signals and not explanation.harmless
    assert all(m.similar is not None and m.confidence <= 0.3 for m in explanation.matches)
    confidences = [m.confidence for m in explanation.matches]
    assert confidences == sorted(confidences, reverse=True)
    assert all(line.strip() in PROSE for _, line in explanation.primary.evidence)
    data = explanation.to_dict()
    assert data["causes"][0]["basis"] == "similar reports"
    assert data["suggest"].startswith("loadertune doctor")


def test_a_signature_answer_is_not_replaced_by_similar_reports() -> None:
    text = ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is "
            "possible that dataloader's workers are out of shared memory. Please try to "
            "raise your shared memory limit.")
    explanation = explain_text(text)
    assert explanation.by_signals and explanation.primary.signature.id == "bus_error_shm"
    assert all(m.similar is None for m in explanation.matches)


def test_a_symptom_named_first_gets_similar_causes_to_rule_out_after_the_signals() -> None:
    # a real post: workers that hang on some machines only (an antivirus, found later)
    _, text = read_entry(CORPUS / "1671-pytorch-107775-defender-endpoint-stalls-workers.txt")
    explanation = explain_text(text)
    matches = explanation.matches
    assert explanation.by_signals and matches[0].signature.id == "worker_hang"
    named = [m for m in matches if m.similar is None]
    similar = [m for m in matches if m.similar is not None]
    assert 1 <= len(similar) <= 2
    assert matches.index(similar[0]) == min(len(named), 3)
    assert not {m.signature.id for m in similar} & {m.signature.id for m in named}
    confidences = [m.confidence for m in matches]
    assert confidences == sorted(confidences, reverse=True)
    assert all(c["basis"] == "similar reports" for c in explanation.to_dict()["causes"]
               if c["id"] in {m.signature.id for m in similar})


def test_a_bare_dataloader_error_gets_similar_causes_above_the_fallback() -> None:
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
            "    for batch in loader:\nFluxError: capacitor misaligned in DataLoader\n")
    matches = explain_text(text).matches
    assert matches[0].similar is not None and matches[-1].signature.fallback
    assert matches[-1].confidence <= matches[0].confidence


def test_cli_says_the_answer_is_from_similar_reports_and_exits_1(tmp_path: Path) -> None:
    log = tmp_path / "post.txt"
    log.write_text(PROSE)
    result = cli("explain", str(log), "--no-live")
    assert result.returncode == 1
    assert "no known signature" in result.stdout and "from similar reports" in result.stdout
