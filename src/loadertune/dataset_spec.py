"""Moved to `loadertune.pipeline`; these names stay importable from here."""

from loadertune.pipeline.loaded import (
           LoadedDataset,
           check_not_empty,
           is_dataset,
           is_iterable_dataset,
)
from loadertune.pipeline.spec import import_target, load_dataset, resolve_attr, split_spec

__all__ = ["LoadedDataset", "check_not_empty", "import_target", "is_dataset",
           "is_iterable_dataset", "load_dataset", "resolve_attr", "split_spec"]
