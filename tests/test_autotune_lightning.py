"""AutotuneCallback: a real Lightning ``Trainer.fit`` on slow items, starting with no worker,
changes its loader's settings during fit and finishes, on exactly the plain loader's batches;
under torchrun with DDP, Lightning's DistributedSampler still shards and the ranks agree.

This file is also the DDP training script torchrun runs (``python this_file.py OUT_JSON``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

pl = pytest.importorskip("lightning.pytorch")

from _lt import torchrun  # noqa: E402

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


def trainer(tmp_path: Path, callbacks: list, reload: int = 0) -> pl.Trainer:  # type: ignore[type-arg]
    return pl.Trainer(max_epochs=EPOCHS, accelerator="cpu", devices=1, logger=False,
                      enable_checkpointing=False, enable_progress_bar=False,
                      enable_model_summary=False, default_root_dir=tmp_path,
                      callbacks=callbacks, reload_dataloaders_every_n_epochs=reload)


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


class Starts(AutotuneCallback):
    """Records the setting each autotuned loader starts with."""

    starts: list[str]

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        before = list(self.loaders)
        super().on_train_epoch_start(trainer, pl_module)
        if self.loaders != before:
            self.starts = [*getattr(self, "starts", []), self.loaders[0].knobs.label()]


@pytest.mark.timeout(240)
def test_a_loader_lightning_rebuilds_is_wrapped_again_where_the_last_ended(
        tmp_path: Path) -> None:
    class Module(Tiny):
        def train_dataloader(self) -> DataLoader:
            return DataLoader(SlowItems(), batch_size=4)

    callback = Starts(store=False, report=False)
    module = Module()
    fit = trainer(tmp_path, [callback], reload=1)
    fit.fit(module)
    assert fit.state.finished and len(callback.starts) == EPOCHS  # a new loader every epoch
    assert callback.starts[0] == "w0" and callback.starts[1] != "w0"  # it had grown
    [tuned] = callback.loaders
    assert fit.train_dataloader is tuned
    assert [i for b in module.seen for i in b] == list(range(192)) * EPOCHS


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


def ddp(out_json: str) -> None:
    """One torchrun rank of a 2-process DDP fit; Lightning injects the DistributedSampler."""
    callback = AutotuneCallback(store=False, report=False)
    module = Tiny()
    fit = pl.Trainer(max_epochs=EPOCHS, accelerator="cpu", devices=2, strategy="ddp",
                     logger=False, enable_checkpointing=False, enable_progress_bar=False,
                     enable_model_summary=False, callbacks=[callback])
    fit.fit(module, DataLoader(SlowItems(), batch_size=4, shuffle=True))
    [tuned] = callback.loaders
    out = {"seen": module.seen, "finished": fit.state.finished,
           "sampler": type(tuned.sampler).__name__,
           "changes": [[c.epoch, c.batch, c.before, c.after, c.kind] for c in tuned.history]}
    Path(f"{out_json}.{fit.global_rank}").write_text(json.dumps(out))


@pytest.mark.timeout(240)
def test_ddp_under_torchrun_keeps_lightnings_sampler_and_the_ranks_agree(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = torchrun(__file__, str(out), tmp_path=tmp_path, timeout=220)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    first, second = (json.loads(Path(f"{out}.{r}").read_text()) for r in (0, 1))
    assert first["finished"] and second["finished"]
    assert first["sampler"] == "DistributedSampler"
    assert len(first["seen"]) == len(second["seen"]) == EPOCHS * 24  # 192 / 2 ranks / 4
    for epoch in range(EPOCHS):  # each epoch: the ranks share the items, each once
        part = slice(24 * epoch, 24 * (epoch + 1))
        items = [i for b in first["seen"][part] + second["seen"][part] for i in b]
        assert sorted(items) == list(range(192))
    assert first["changes"] and first["changes"] == second["changes"]


if __name__ == "__main__":
    ddp(sys.argv[1])
