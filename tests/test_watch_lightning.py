"""The optional Lightning callback, driven through its hooks (Lightning itself is not needed)."""

from __future__ import annotations

import importlib
import io
import sys
import time
import types

import pytest
from rich.console import Console
from torch.utils.data import DataLoader

from loadertune.errors import LoadertuneError


@pytest.fixture
def fake_lightning(monkeypatch):
    """A stand-in for ``lightning.pytorch.callbacks`` with a plain ``Callback`` base."""
    callbacks = types.ModuleType("lightning.pytorch.callbacks")
    callbacks.Callback = type("Callback", (), {})
    for name in ("lightning", "lightning.pytorch"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "lightning.pytorch.callbacks", callbacks)
    monkeypatch.delitem(sys.modules, "loadertune.watch.lightning", raising=False)
    yield importlib.import_module("loadertune.watch.lightning")
    sys.modules.pop("loadertune.watch.lightning", None)


def test_callback_times_batches_from_the_hooks_and_reports_at_the_end(fake_lightning):
    out = Console(file=io.StringIO(), width=120)
    callback = fake_lightning.WatchCallback(console=out)
    trainer = types.SimpleNamespace(train_dataloader=DataLoader(list(range(8)), batch_size=2))
    for _epoch in range(2):
        callback.on_train_epoch_start(trainer, None)
        for i in range(4):
            time.sleep(0.002)  # the data wait
            callback.on_train_batch_start(trainer, None, None, i)
            time.sleep(0.001)  # the step
            callback.on_train_batch_end(trainer, None, None, None, i)
        callback.on_train_epoch_end(trainer, None)
    callback.on_train_end(trainer, None)
    summary = callback.summary()
    assert summary.batches == 8 and summary.passes == 2
    assert summary.wait_s > 0 and summary.step_s > 0
    assert "verdict:" in out.file.getvalue() and "Lightning" in summary.worker_note


def test_without_lightning_the_import_says_how_to_install_it(monkeypatch):
    for name in ("lightning", "lightning.pytorch", "lightning.pytorch.callbacks",
                 "pytorch_lightning", "pytorch_lightning.callbacks"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "loadertune.watch.lightning", raising=False)
    with pytest.raises(LoadertuneError, match="pip install lightning"):
        importlib.import_module("loadertune.watch.lightning")
    sys.modules.pop("loadertune.watch.lightning", None)
