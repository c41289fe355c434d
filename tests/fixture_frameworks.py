"""A real LightningDataModule and real Hugging Face datasets (built in memory, no download),
importable as ``fixture_frameworks:NAME``."""

from __future__ import annotations

import datasets
import lightning.pytorch as pl
from fixture_pipelines import Picky, loader_for
from torch.utils.data import DataLoader

VAL_BATCH = 4


class PickyData(pl.LightningDataModule):
    """Train: the picky loader (batch 6); val: a smaller one (batch 4)."""

    def setup(self, stage: str) -> None:
        self.train_set = Picky()
        self.val_set = Picky(32)

    def train_dataloader(self) -> DataLoader:
        return loader_for(self.train_set)

    def val_dataloader(self) -> DataLoader:
        return loader_for(self.val_set, batch_size=VAL_BATCH)


class NoTrainLoader(pl.LightningDataModule):
    def setup(self, stage: str) -> None:
        self.train_set = Picky()


picky_data = PickyData()


def hf_dataset() -> datasets.Dataset:
    table = {"x": [[float(i)] * 4 for i in range(96)], "label": [i % 3 for i in range(96)]}
    return datasets.Dataset.from_dict(table).with_format("torch")


def hf_loader() -> DataLoader:
    return DataLoader(hf_dataset(), batch_size=8, shuffle=True)
