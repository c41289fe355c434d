"""AutotuneCallback for the Hugging Face Trainer: a real Trainer on slow items (a datasets
transform that sleeps), starting with no worker, changes its loader's settings while it
trains, through accelerate's DataLoaderShard, on exactly the batches it would have seen; under
torchrun, accelerate still shards and the ranks change together.

This file is also the training script torchrun runs (``python this_file.py OUT_JSON``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import torch

pytest.importorskip("datasets")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from _lt import torchrun  # noqa: E402
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


def ranks(out_json: str) -> None:
    """One torchrun rank: accelerate shards the 280 rows between the 2 ranks (35 steps an
    epoch each), over 2 epochs."""
    callback = AutotuneCallback(store=False, report=False)
    model = train(Path(out_json).parent, [callback])
    import torch.distributed as dist

    tuned = callback.loader
    assert tuned is not None
    out = {"seen": model.seen, "sampler": type(tuned.batch_sampler).__name__,
           "changes": [[c.epoch, c.batch, c.before, c.after, c.kind] for c in tuned.history]}
    Path(f"{out_json}.{dist.get_rank()}").write_text(json.dumps(out))


@pytest.mark.timeout(240)
def test_under_torchrun_accelerate_still_shards_and_the_ranks_agree(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = torchrun(__file__, str(out), tmp_path=tmp_path, timeout=220,
                    extra_env={"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    first, second = (json.loads(Path(f"{out}.{r}").read_text()) for r in (0, 1))
    assert first["sampler"] == "BatchSamplerShard"
    assert len(first["seen"]) == len(second["seen"]) == STEPS
    for epoch in range(2):  # each epoch: the ranks share the rows, each once
        part = slice(35 * epoch, 35 * (epoch + 1))
        rows = [i for b in first["seen"][part] + second["seen"][part] for i in b]
        assert sorted(rows) == list(range(280))
    assert first["changes"] and first["changes"] == second["changes"]


if __name__ == "__main__":
    ranks(sys.argv[1])
