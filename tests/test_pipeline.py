"""`loadertune.pipeline`: what a DATASET names, and the user's loader rebuilt with new knobs."""

from __future__ import annotations

import pytest
import torch
from fixture_frameworks import VAL_BATCH, hf_dataset, hf_loader
from fixture_pipelines import BATCH, EvenSampler, Picky, collate_records, make_loader
from torch.utils.data import BatchSampler, DataLoader

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError
from loadertune.pipeline import config_of, load_dataset, parts_of, rebuild, resolve
from loadertune.pipeline.rebuild import check_batch_size

WORKERS2 = LoaderConfig(num_workers=2, batch_size=BATCH, prefetch_factor=3,
                        persistent_workers=True)


def batches(loader: DataLoader) -> list[list[int]]:
    return [b["index"].tolist() for b in loader]


def test_rebuild_changes_only_the_tuned_knobs() -> None:
    generator = torch.Generator().manual_seed(3)
    original = DataLoader(Picky(), batch_size=BATCH, sampler=EvenSampler(128),
                          collate_fn=collate_records, drop_last=True, generator=generator,
                          worker_init_fn=make_loader().worker_init_fn, timeout=30)
    new = rebuild(original, WORKERS2)
    assert (new.num_workers, new.prefetch_factor, new.persistent_workers) == (2, 3, True)
    assert new.dataset is original.dataset and new.sampler is original.sampler
    assert new.collate_fn is collate_records and new.worker_init_fn is original.worker_init_fn
    assert new.generator is generator and new.drop_last and new.timeout == 30
    assert new.batch_size == BATCH
    # real workers: they only load after the user's worker_init_fn ran, odd indices would raise
    in_main = rebuild(original, LoaderConfig(num_workers=0, batch_size=BATCH))
    assert in_main.timeout == 0  # torch allows a timeout with workers only
    assert batches(new) == batches(in_main) == [list(range(i, i + 12, 2))
                                                for i in range(0, 120, 12)]
    assert config_of(new) == WORKERS2


def test_a_batch_sampler_is_kept_and_a_new_batch_size_refused() -> None:
    own = BatchSampler(EvenSampler(40), batch_size=4, drop_last=False)
    loader = DataLoader(Picky(40), batch_sampler=own, collate_fn=collate_records)
    parts = parts_of(loader)
    assert parts.batch_sampler is own and parts.effective_batch_size() == 4
    assert batches(rebuild(loader, LoaderConfig(num_workers=0, batch_size=99)))[0] == [0, 2, 4, 6]
    with pytest.raises(ConfigError, match="its own batch_sampler"):
        check_batch_size(parts, 8)


@pytest.mark.parametrize("spec", ["fixture_pipelines:make_loader",
                                  "fixture_pipelines:picky_loader",
                                  "fixture_frameworks:PickyData",
                                  "fixture_frameworks:picky_data"])
def test_specs_naming_a_loader_or_datamodule(spec: str) -> None:
    loaded = load_dataset(spec)
    assert isinstance(loaded.dataset, Picky) and loaded.batch_size == BATCH
    assert loaded.collate_fn is collate_records and loaded.parts is not None
    assert loaded.parts.drop_last and isinstance(loaded.parts.sampler, EvenSampler)
    assert "from a " in loaded.describe()
    assert loaded.item_indices(3) == [0, 2, 4]


def test_the_val_split_of_a_datamodule() -> None:
    loaded = load_dataset("fixture_frameworks:picky_data", split="val")
    assert loaded.batch_size == VAL_BATCH and len(loaded.dataset) == 32
    assert "val_dataloader()" in loaded.describe()
    with pytest.raises(DatasetSpecError, match="split must be one of train, val"):
        load_dataset("fixture_frameworks:picky_data", split="test")


def test_a_datamodule_without_train_dataloader_is_one_clear_error() -> None:
    with pytest.raises(DatasetSpecError, match=r"NoTrainLoader\) without train_dataloader\(\)"):
        load_dataset("fixture_frameworks:NoTrainLoader")


def test_hugging_face_datasets() -> None:
    bare = resolve(hf_dataset(), "hf")
    assert bare.parts is None and bare.length() == 96
    rows = next(iter(bare.loader(LoaderConfig(num_workers=1, batch_size=5))))
    assert rows["x"].shape == (5, 4) and rows["label"].tolist() == [0, 1, 2, 0, 1]
    loaded = resolve(hf_loader(), "hf loader")
    assert loaded.batch_size == 8 and type(loaded.parts.sampler).__name__ == "RandomSampler"
    got = [b["label"].shape[0] for b in loaded.loader(LoaderConfig(num_workers=2, batch_size=8))]
    assert got == [8] * 12


def test_objects_that_are_no_pipeline_are_named() -> None:
    with pytest.raises(DatasetSpecError, match="is a int, not a Dataset, a DataLoader"):
        resolve(3, "the int given")
    with pytest.raises(DatasetSpecError, match="returned a int"):
        resolve(lambda: 42, "the function given")


def test_watch_takes_a_datamodule() -> None:
    from fixture_frameworks import PickyData

    import loadertune

    watched = loadertune.watch(PickyData(), report=False)
    assert sum(len(b["index"]) for b in watched) == 10 * BATCH
    assert watched.summary().batches == 10
