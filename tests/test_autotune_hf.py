"""AutotuneCallback for the Hugging Face Trainer: a real Trainer on slow items (a datasets
transform that sleeps), starting with no worker, changes its loader's settings while it
trains, through accelerate's DataLoaderShard, on exactly the batches it would have seen."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

pytest.importorskip("datasets")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from datasets import Dataset  # noqa: E402

from loadertune.autotune.hf import AutotuneCallback, TunedBase  # noqa: E402

STEPS = 70


class Tiny(torch.nn.Module):
    """A linear model returning ``{"loss": ...}``, recording the items each step saw."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)
        self.seen: list[list[int]] = []
        self.devices: set[str] = set()

    def forward(self, x: torch.Tensor, labels: torch.Tensor, idx: torch.Tensor) -> dict:
        self.seen.append(idx.tolist())
        self.devices.add(str(x.device))
        return {"loss": (self.layer(x).squeeze(1) - labels).pow(2).mean()}


def slow(batch: dict) -> dict:
    """The rows' transform, run when an item is loaded: slow, as from remote storage."""
    time.sleep(0.005 * len(batch["idx"]))
    return {"x": [torch.tensor(v) for v in batch["x"]], "labels": batch["labels"],
            "idx": batch["idx"]}


def train(tmp_path: Path, callbacks: list) -> Tiny:  # type: ignore[type-arg]
    n = 4 * STEPS
    data = Dataset.from_dict({"x": [[float(i), 1.0] for i in range(n)],
                              "labels": [float(i % 7) for i in range(n)],
                              "idx": list(range(n))}).with_transform(slow)
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), max_steps=STEPS, per_device_train_batch_size=4,
        use_cpu=True, report_to=[], save_strategy="no", logging_strategy="no",
        remove_unused_columns=False, dataloader_num_workers=0, seed=5, disable_tqdm=True)
    model = Tiny()
    transformers.Trainer(model=model, args=args, train_dataset=data,
                         callbacks=callbacks).train()
    return model


@pytest.mark.timeout(240)
def test_training_changes_the_loader_settings_through_accelerate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # transformers asks torch for its compile cache folder, made in TMPDIR unless set
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    plain = train(tmp_path, [])
    callback = AutotuneCallback(store=False, report=False)
    model = train(tmp_path, [callback])
    tuned = callback.loader
    assert tuned is not None
    assert tuned.history, "slow items and no worker: the loop waited, so it should grow"
    assert tuned.history[0].before == "w0" and tuned.history[0].kind == "grow"
    assert tuned.knobs.num_workers > 0
    assert len(model.seen) == STEPS and model.seen == plain.seen  # the same batches
    assert model.devices == {"cpu"}  # accelerate still placed them
    assert isinstance(tuned.loader, torch.utils.data.DataLoader)
    assert not isinstance(tuned.loader, TunedBase)


def test_without_transformers_the_import_says_how_to_install_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import importlib
    import sys

    from loadertune.errors import LoadertuneError

    for name in ("transformers", "accelerate", "accelerate.data_loader"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "loadertune.autotune.hf")
    with pytest.raises(LoadertuneError, match=r"loadertune\[hf\]"):
        importlib.import_module("loadertune.autotune.hf")
