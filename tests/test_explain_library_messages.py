"""What libraries raise and warn about a user's data (`catalogue.library_messages`): each
message names its cause, alone and inside a worker's traceback, and the ones the installed
Hugging Face libraries really raise are explained by their cause."""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from loadertune.explain import explain_text
from loadertune.explain.catalogue import by_id, library_messages
from loadertune.explain.signature import PLACEHOLDER, said_pattern

RAISED = [(cause, message) for cause, messages in library_messages.RAISED.items()
          for message in messages]
WARNED = [(cause, message) for cause, messages in library_messages.WARNED.items()
          for message in messages]

WORKER = """Traceback (most recent call last):
  File "train.py", line 40, in <module>
    for batch in loader:
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1515, in _next_data
    return self._process_data(data, worker_id)
  File "/opt/venv/lib/python3.11/site-packages/torch/_utils.py", line 750, in reraise
    raise exception
ValueError: Caught ValueError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 349, in _worker_loop
    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 52, in fetch
    data = [self.dataset[idx] for idx in possibly_batched_index]
  File "/home/user/project/data.py", line 31, in __getitem__
    return self.load(self.items[index])
ValueError: {message}
"""  # noqa: E501


def filled(message: str) -> str:
    """The message as printed: each placeholder a value, ``\\n`` a line break."""
    return PLACEHOLDER.sub(lambda m: "\n" if m.group() == "\\n" else "7", message)


def test_every_message_belongs_to_a_cause_of_the_catalogue() -> None:
    ids = {*library_messages.RAISED, *library_messages.WARNED}
    assert [i for i in ids if by_id(i) is None] == []


def test_no_message_is_filed_under_two_causes() -> None:
    causes: dict[str, set[str]] = {}
    for cause, message in RAISED + WARNED:
        causes.setdefault(message, set()).add(cause)
    assert {m: c for m, c in causes.items() if len(c) > 1} == {}


@pytest.mark.parametrize(("cause", "message"), RAISED + WARNED)
def test_a_message_is_matched_by_enough_of_its_own_words(cause: str, message: str) -> None:
    """A pattern of few literal words would take other texts for this cause."""
    literal = "".join(PLACEHOLDER.split(message))
    assert len(literal.strip()) >= 20, message
    assert re.search(said_pattern(message), filled(message))


@pytest.mark.parametrize(("cause", "message"), RAISED)
def test_a_raised_message_names_its_cause(cause: str, message: str) -> None:
    alone = f"ValueError: {filled(message)}"
    assert explain_text(alone).ids()[0] == cause, explain_text(alone).ids()


@pytest.mark.parametrize(("cause", "message"), [
    (c, m) for c, m in RAISED if not c.startswith("collate_")])
def test_a_message_raised_in_a_worker_names_its_cause_before_the_worker(
        cause: str, message: str) -> None:
    text = WORKER.format(message=filled(message))
    assert explain_text(text).ids()[0] == cause, explain_text(text).ids()


@pytest.mark.parametrize(("cause", "message"), WARNED)
def test_a_warning_alone_names_its_cause(cause: str, message: str) -> None:
    text = f"/opt/venv/lib/python3.11/site-packages/lib/x.py:7: UserWarning: {filled(message)}"
    assert cause in explain_text(text).ids()[:3], explain_text(text).ids()


def test_a_warning_does_not_outweigh_the_error_that_failed_the_run() -> None:
    """Trainer prints the columns it drops on every run; the crash is what failed."""
    noise = filled(library_messages.WARNED["trainer_removes_columns"][0])
    crash = ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is "
             "possible that dataloader's workers are out of shared memory. Please try to "
             "raise your shared memory limit.")
    assert explain_text(f"{noise}\n{crash}\n").ids()[0] != "trainer_removes_columns"


def raised(run: Callable[[], object]) -> str:
    try:
        run()
    except Exception:
        return traceback.format_exc()
    raise AssertionError("the library raised nothing")


def no_pad_tokenizer() -> object:
    """A real fast tokenizer without a pad token, as GPT-2's and LLaMA's ship."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    model = tokenizers.models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer)


def datasets_lib() -> object:
    return pytest.importorskip("datasets")


def rows() -> object:
    return datasets_lib().Dataset.from_dict({"text": ["a", "a b"], "label": [0, 1]})


def one_column_less(batch: dict[str, list[object]]) -> dict[str, list[object]]:
    return {"text": batch["text"], "extra": batch["text"][:1]}


def labels_beyond(count: int) -> object:
    datasets = datasets_lib()
    features = datasets.Features({"label": datasets.ClassLabel(num_classes=count)})
    return datasets.Dataset.from_dict({"label": [count + 3]}, features=features)


def missing_frame_column() -> object:
    """pandas (which datasets installs) selecting a column a CSV of another dataset lacks."""
    pandas = pytest.importorskip("pandas")
    return pandas.DataFrame({"smiles": ["C"]})[["sEH_[strep]_tot"]]


def padding_collator() -> object:
    transformers = pytest.importorskip("transformers")
    return transformers.DataCollatorWithPadding(no_pad_tokenizer())


# each case: the run (given a scratch folder), a phrase of the library's own text, the cause
HF_CASES: dict[str, tuple[Callable[[Path], object], str, str]] = {
    "a DataFrame column that is not there": (
        lambda root: missing_frame_column(), "are in the [columns]", "column_not_found"),
    "a removed column that is not there": (
        lambda root: rows().remove_columns("input_ids"), "not in the dataset",
        "column_not_found"),
    "a column read that is not there": (
        lambda root: rows()["input_ids"], "not in the dataset", "column_not_found"),
    "a batched map that returns a shorter column": (
        lambda root: list(rows().to_iterable_dataset().map(one_column_less, batched=True)),
        "Column lengths mismatch", "map_output_length_mismatch"),
    "a label beyond the class count": (
        lambda root: labels_beyond(2), "greater than configured num_classes",
        "label_out_of_range"),
    "a split that leaves no train set": (
        lambda root: rows().train_test_split(test_size=0.9), "train set will be empty",
        "random_split_lengths"),
    "a data folder with no data files": (
        lambda root: datasets_lib().load_dataset(str(root), cache_dir=str(root / ".cache")),
        "doesn't contain any data files", "empty_dataset"),
    "padding with a tokenizer that has no pad token": (
        lambda root: no_pad_tokenizer()(["a", "a b"], padding=True),
        "does not have a padding token", "tokenizer_no_pad_token"),
    "a padding collator over a tokenizer without one": (
        lambda root: padding_collator()([{"input_ids": [0]}, {"input_ids": [0, 1]}]),
        "pad", "tokenizer_no_pad_token"),
    "sequences of different lengths made tensors unpadded": (
        lambda root: no_pad_tokenizer()(["a", "a b"], return_tensors="pt"),
        "Unable to create tensor", "collate_size_mismatch"),
}


@pytest.mark.parametrize("name", HF_CASES)
def test_what_hugging_face_raises_is_explained_by_its_cause(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    run, phrase, cause = HF_CASES[name]
    text = raised(lambda: run(tmp_path))
    assert phrase in text, text[-600:]
    assert explain_text(text).ids()[0] == cause, (explain_text(text).ids(), text[-600:])
