"""What Lightning and Hugging Face raise or warn about a user's data, produced for real by
the installed libraries: each text is explained by its cause."""

from __future__ import annotations

import dataclasses
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch
from _lt import warnings_text
from torch.utils.data import DataLoader, Dataset

from loadertune.explain import explain_text

pl = pytest.importorskip("lightning.pytorch")


class Squares(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.full((2,), float(index))


class Model(pl.LightningModule):
    """A model whose loaders are whatever the test gives it (none by default)."""

    def __init__(self, **loaders: Callable[[], DataLoader]) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)
        for hook, make in loaders.items():
            setattr(self, hook, make)

    def training_step(self, batch: torch.Tensor, index: int) -> torch.Tensor:
        return self.layer(batch).sum()

    def test_step(self, batch: torch.Tensor, index: int) -> None:
        self.layer(batch)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


@dataclasses.dataclass(frozen=True)
class Box:
    """A frozen dataclass in the batch, as torchgeo's BoundingBox is."""

    corner: torch.Tensor


def with_box(items: list[torch.Tensor]) -> dict[str, object]:
    return {"x": torch.stack(items), "box": Box(torch.zeros(2))}


class BoxModel(Model):
    def training_step(self, batch: dict[str, torch.Tensor], index: int) -> torch.Tensor:
        return self.layer(batch["x"]).sum()


def with_extra(items: list[torch.Tensor]) -> dict[str, torch.Tensor]:
    """A batch whose fields differ in length: the inputs, and one more value than them."""
    return {"x": torch.stack(items), "extra": torch.zeros(len(items) + 1)}


class LoggingModel(BoxModel):
    def training_step(self, batch: dict[str, torch.Tensor], index: int) -> torch.Tensor:
        loss = self.layer(batch["x"]).sum()
        self.log("loss", loss, on_epoch=True)
        return loss


def trainer(root: Path, **options: object) -> pl.Trainer:
    """A one-epoch CPU trainer that logs (as users' do) into ``root``."""
    return pl.Trainer(accelerator="cpu", devices=1, max_epochs=1,
                      logger=pl.loggers.CSVLogger(root), enable_checkpointing=False,
                      enable_progress_bar=False, enable_model_summary=False, **options)


def text_of(run: Callable[[], object]) -> str:
    """The traceback a run raises, or else the warnings it printed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run()
        except Exception:
            return traceback.format_exc()
    return warnings_text(caught)


def loader(n: int, **options: object) -> Callable[[], DataLoader]:
    return lambda: DataLoader(Squares(n), batch_size=2, **options)


class Stream(torch.utils.data.IterableDataset):
    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(torch.ones(4, 2))


def stream() -> DataLoader:
    return DataLoader(Stream(), batch_size=2)


# each case: the run, a phrase of the library's own text, the cause
CASES: dict[str, tuple[Callable[[Path], object], str, str]] = {
    "trainer.test without a test_dataloader": (
        lambda root: trainer(root).test(Model(train_dataloader=loader(4))),
        "`test_dataloader` must be implemented", "lightning_hook_missing"),
    "trainer.fit without a train_dataloader": (
        lambda root: trainer(root).fit(Model()), "`train_dataloader` must be implemented",
        "lightning_hook_missing"),
    "fewer batches than the logging interval": (
        lambda root: trainer(root).fit(Model(train_dataloader=loader(4, num_workers=1))),
        "smaller than the logging interval", "harmless_worker_warning"),
    "a frozen dataclass in the batch": (
        lambda root: trainer(root).fit(BoxModel(train_dataloader=loader(4, collate_fn=with_box))),
        "A frozen dataclass was passed", "frozen_dataclass_batch"),
    "an empty training loader": (
        lambda root: trainer(root).fit(Model(train_dataloader=loader(0))),
        "across ranks is zero", "empty_dataset"),
    "a fraction of the batches of a stream": (
        lambda root: trainer(root, limit_train_batches=0.5).fit(
            Model(train_dataloader=stream)), "must be `1.0` or an int",
        "iterable_dataset_no_len"),
    "a batch whose fields differ in length, logged": (
        lambda root: trainer(root).fit(
            LoggingModel(train_dataloader=loader(4, collate_fn=with_extra))),
        "ambiguous collection", "log_batch_size_ambiguous"),
    "overfitting a shuffled loader": (
        lambda root: trainer(root, overfit_batches=1, log_every_n_steps=1).fit(
            Model(train_dataloader=loader(4, shuffle=True))), "requested to overfit",
        "harmless_worker_warning"),
}


@pytest.mark.parametrize("name", CASES)
def test_lightning_text_is_explained_by_its_cause(name: str, tmp_path: Path) -> None:
    run, phrase, cause = CASES[name]
    text = text_of(lambda: run(tmp_path))
    assert phrase in text
    assert explain_text(text).ids()[0] == cause, (explain_text(text).ids(), text[-400:])


def test_hugging_face_collator_over_unpadded_ids_is_a_size_mismatch() -> None:
    transformers = pytest.importorskip("transformers")
    text = text_of(lambda: transformers.default_data_collator(
        [{"input_ids": [1, 2, 3], "label": 0}, {"input_ids": [4, 5], "label": 1}]))
    assert "expected sequence of length" in text
    assert explain_text(text).ids()[0] == "collate_size_mismatch"


def test_an_emptied_hugging_face_dataset_is_named_empty() -> None:
    datasets = pytest.importorskip("datasets")
    rows = datasets.Dataset.from_dict({"text": ["", ""]}).filter(lambda row: row["text"] != "")
    text = text_of(lambda: rows[0])
    assert "out of bounds for size 0" in text
    assert explain_text(text).ids()[0] == "empty_dataset"
