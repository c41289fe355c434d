"""AutotuneCallback: a real Lightning ``Trainer.fit`` on slow items, starting with no worker,
changes its loader's settings during fit and finishes, on exactly the plain loader's batches."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

pl = pytest.importorskip("lightning.pytorch")

from loadertune.autotune.lightning import AutotuneCallback  # noqa: E402

EPOCHS = 3


class SlowItems(Dataset):
    """Item i is (i, a feature); each takes a few milliseconds to load, as from slow storage."""

    def __len__(self) -> int:
        return 192

    def __getitem__(self, index: int) -> tuple[int, torch.Tensor]:
        time.sleep(0.005)
        return index, torch.full((2,), float(index))


class Tiny(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)
        self.seen: list[list[int]] = []

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int):  # type: ignore[no-untyped-def]
        index, x = batch
        self.seen.append(index.tolist())
        return self.layer(x).pow(2).mean()

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=1e-3)


def trainer(tmp_path: Path, callbacks: list) -> pl.Trainer:  # type: ignore[type-arg]
    return pl.Trainer(max_epochs=EPOCHS, accelerator="cpu", devices=1, logger=False,
                      enable_checkpointing=False, enable_progress_bar=False,
                      enable_model_summary=False, default_root_dir=tmp_path,
                      callbacks=callbacks)


@pytest.mark.timeout(240)
def test_fit_changes_the_loader_settings_and_finishes(tmp_path: Path) -> None:
    plain = Tiny()
    trainer(tmp_path, []).fit(plain, DataLoader(SlowItems(), batch_size=4))
    callback = AutotuneCallback(store=False, report=False)
    module = Tiny()
    fit = trainer(tmp_path, [callback])
    fit.fit(module, DataLoader(SlowItems(), batch_size=4, num_workers=0))
    assert fit.state.finished and fit.current_epoch == EPOCHS
    [tuned] = callback.loaders
    assert tuned.history, "slow items and no worker: the fit loop waited, so it should grow"
    first = tuned.history[0]
    assert first.before == "w0" and first.kind == "grow" and first.epoch == 1
    assert tuned.knobs.num_workers > 0
    assert fit.train_dataloader is tuned  # Lightning iterated the autotuned loader
    assert module.seen == plain.seen and len(module.seen) == EPOCHS * 48  # the same batches


def test_without_lightning_the_import_says_how_to_install_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import importlib
    import sys

    from loadertune.errors import LoadertuneError

    for name in ("lightning", "lightning.pytorch", "lightning.pytorch.callbacks",
                 "pytorch_lightning", "pytorch_lightning.callbacks"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "loadertune.autotune.lightning")
    with pytest.raises(LoadertuneError, match=r"loadertune\[lightning\]"):
        importlib.import_module("loadertune.autotune.lightning")
    sys.modules.pop("loadertune.autotune.lightning", None)
