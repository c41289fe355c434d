"""The user's pipeline: what a DATASET names, loaded, and rebuilt with tuned knobs.

``spec`` imports ``module:attr`` / ``script.py:attr``; ``resolve`` turns a Dataset, DataLoader,
LightningDataModule or factory into a `LoadedDataset`; ``rebuild`` builds the user's loader
again with only num_workers, prefetch_factor, persistent_workers, pin_memory and
multiprocessing_context changed.
"""

from loadertune.pipeline.loaded import (
    DEFAULT_BATCH_SIZE,
    LoadedDataset,
    check_not_empty,
    is_dataset,
    is_iterable_dataset,
    kept_parts_note,
)
from loadertune.pipeline.rebuild import LoaderParts, build_loader, config_of, parts_of, rebuild
from loadertune.pipeline.resolve import is_datamodule, is_loader, resolve
from loadertune.pipeline.spec import import_target, load_dataset, resolve_attr, split_spec

__all__ = ["DEFAULT_BATCH_SIZE", "LoadedDataset", "LoaderParts", "build_loader",
           "check_not_empty", "config_of", "import_target", "is_datamodule", "is_dataset",
           "is_iterable_dataset", "is_loader", "kept_parts_note", "load_dataset", "parts_of",
           "rebuild", "resolve", "resolve_attr", "split_spec"]
