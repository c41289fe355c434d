"""Caching decoded samples is advised only when a trial measured it faster beyond the noise and
the whole decoded dataset fits the memory budget: real trials, real files, real workers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from tune_helpers import MiB, result

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.tuning.cache import advise_cache, decide, sample_indices

PLAN = TrialPlan(batches=6, repeats=3, timeout_s=90, profile=False)
ITEM = 64 * 1024  # bytes of one decoded item


class NpyFiles(Dataset):
    """Each item: a .npy file read from disk and transformed (the decode a cache saves)."""

    def __init__(self, root: Path, count: int) -> None:
        self.paths = []
        for i in range(count):
            path = root / f"{i}.npy"
            np.save(path, np.full(ITEM // 4, i, dtype=np.float32))
            self.paths.append(path)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        array = np.load(self.paths[index])
        for _ in range(20):
            array = np.tanh(array)
        return torch.from_numpy(array)


def test_sample_indices_spread_over_the_dataset() -> None:
    assert sample_indices(5, 10) == (0, 1, 2, 3, 4)
    spread = sample_indices(1000, 4)
    assert spread == (0, 250, 500, 750)


def test_advice_follows_the_gain_the_noise_and_the_room() -> None:
    config = LoaderConfig(num_workers=2, batch_size=8, persistent_workers=True)
    read = result(config, 1000.0, main=200 * MiB)
    cached = result(config, 1500.0, main=210 * MiB)  # 10 MiB more held for 100 items
    fits = decide(read, cached, 100, 1000, room=500 * MiB)
    assert fits.advised and fits.item_bytes == 10 * MiB // 100
    assert fits.dataset_bytes == 1000 * (10 * MiB // 100)
    assert "decode once and keep the samples in memory" in fits.text
    too_big = decide(read, cached, 100, 1000, room=50 * MiB)
    assert not too_big.advised and "more than the" in too_big.text
    same = decide(read, result(config, 1010.0, main=210 * MiB), 100, 1000, room=500 * MiB)
    assert not same.advised and "within the noise" in same.text


def test_a_real_decoding_dataset_is_measured_both_ways(tmp_path: Path) -> None:
    dataset = NpyFiles(tmp_path, 200)
    source = DatasetSource(dataset=dataset)
    best = run_trial(source, LoaderConfig(num_workers=1, batch_size=8, persistent_workers=True),
                     PLAN)
    assert best.ok, best.failure
    trials = []

    def run(*args: object) -> object:
        trials.append(run_trial(*args))  # type: ignore[arg-type]
        return trials[-1]

    advice = advise_cache(source, best, PLAN, len(dataset), 4096 * MiB, run=run)
    assert advice is not None and [t.ok for t in trials] == [True, True]
    assert advice.sample == min(200, 8 * PLAN.batches * 4)
    # the cached trial's processes held the decoded sample: about ITEM bytes per item
    assert advice.item_bytes is not None and ITEM // 2 <= advice.item_bytes <= 4 * ITEM
    assert advice.advised == (advice.gain is not None and advice.gain > advice.noise)
    tight = decide(trials[0], trials[1], advice.sample, len(dataset), room=ITEM)
    assert not tight.advised


def test_nothing_is_measured_for_a_sampler_of_the_users_own_or_without_a_length(
        tmp_path: Path) -> None:
    dataset = NpyFiles(tmp_path, 4)
    best = replace(result(LoaderConfig(num_workers=1, batch_size=2, persistent_workers=True),
                          100.0))

    def never(*args: object) -> object:
        raise AssertionError("no trial expected")

    loader = DataLoader(dataset, batch_size=2, shuffle=True)
    own = DatasetSource(dataset=dataset, parts=_parts(loader))
    assert advise_cache(own, best, PLAN, 4, 4096 * MiB, run=never) is None
    assert advise_cache(DatasetSource(dataset=dataset), best, PLAN, None, 4096 * MiB,
                        run=never) is None


def _parts(loader: DataLoader) -> object:
    from loadertune.pipeline.rebuild import parts_of

    return parts_of(loader)


def test_tune_notes_the_cache_advice_when_asked(tmp_path: Path) -> None:
    from loadertune.tuning.api import run_tune

    result = run_tune(NpyFiles(tmp_path, 120), 8, max_workers=1, store=False, budget_s=60,
                      advise=True)
    [note] = [n for n in result.notes if n.startswith("cache: ")]
    assert result.config.label() in note and "items spread over the dataset" in note
    assert len(result.trials) == len({t.config for t in result.trials})  # not in the trials
