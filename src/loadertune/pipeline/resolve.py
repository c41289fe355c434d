"""Turn what the user names (a Dataset, a DataLoader, a LightningDataModule, or a zero-argument
factory of one) into a `LoadedDataset`."""

from __future__ import annotations

from typing import Any

from loadertune.errors import DatasetSpecError
from loadertune.pipeline.loaded import LoadedDataset, is_dataset
from loadertune.pipeline.rebuild import parts_of

SPLITS = {"train": "train_dataloader", "val": "val_dataloader"}
KINDS = "a Dataset, a DataLoader, a LightningDataModule or a zero-argument function returning one"


def is_loader(obj: object) -> bool:
    from torch.utils.data import DataLoader

    return isinstance(obj, DataLoader)


def is_datamodule(obj: object) -> bool:
    """A LightningDataModule instance or class (found by name: Lightning is optional)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return any(base.__name__ == "LightningDataModule" for base in cls.__mro__)


def check_split(split: str) -> str:
    if split not in SPLITS:
        raise DatasetSpecError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    return split


def resolve(obj: Any, name: str, *, split: str = "train", spec: str | None = None,
            collate_fn: Any = None) -> LoadedDataset:
    """``obj`` as a LoadedDataset; ``name`` is how errors refer to it (the spec, or a type).

    A factory is called once; a DataModule gets ``prepare_data()`` and ``setup("fit")``, then
    its ``train_dataloader()`` (``val_dataloader()`` for ``split="val"``). A ``collate_fn``
    given here applies to a bare dataset only: a loader keeps its own.
    """
    check_split(split)
    made_by_factory = False
    if not (is_dataset(obj) or is_loader(obj) or is_datamodule(obj)):
        if not callable(obj):
            raise DatasetSpecError(f"{name} is a {type(obj).__name__}, not {KINDS}")
        obj = _call_factory(obj, name)
        made_by_factory = True
    if is_datamodule(obj):
        return _from_loader(datamodule_loader(obj, name, split), spec,
                            f"LightningDataModule.{SPLITS[split]}()")
    if is_loader(obj):
        return _from_loader(obj, spec, "DataLoader")
    if is_dataset(obj):
        return LoadedDataset(dataset=obj, collate_fn=collate_fn, spec=spec)
    what = "returned" if made_by_factory else "is"
    raise DatasetSpecError(f"{name} {what} a {type(obj).__name__}, not {KINDS} "
                           "(a dataset needs __getitem__ and __len__, or is an IterableDataset)")


def _call_factory(factory: Any, name: str) -> Any:
    try:
        return factory()
    except TypeError as err:
        raise DatasetSpecError(
            f"{name} must be {KINDS}; calling it with no arguments failed: {err}") from err
    except Exception as err:
        raise DatasetSpecError(f"{name}: the factory raised {type(err).__name__}: {err}") from err


def _from_loader(loader: Any, spec: str | None, origin: str) -> LoadedDataset:
    return LoadedDataset(dataset=loader.dataset, collate_fn=loader.collate_fn, spec=spec,
                         parts=parts_of(loader), origin=origin)


def datamodule_loader(module: Any, name: str, split: str) -> Any:
    """``setup("fit")`` then the split's dataloader method; one clear line for what fails."""
    method = SPLITS[split]
    cls = module if isinstance(module, type) else type(module)
    hook = getattr(cls, method, None)
    if hook is None or getattr(hook, "__qualname__", "").startswith("DataHooks."):
        raise DatasetSpecError(f"{name} is a LightningDataModule ({cls.__name__}) without "
                               f"{method}(); define {method}() to return the DataLoader to tune")
    if isinstance(module, type):
        module = _call_factory(module, name)
    for step, call in (("prepare_data()", module.prepare_data),
                       ('setup("fit")', lambda: module.setup("fit"))):
        try:
            call()
        except Exception as err:
            raise DatasetSpecError(
                f"{name}: {cls.__name__}.{step} raised {type(err).__name__}: {err}") from err
    try:
        loader = getattr(module, method)()
    except Exception as err:
        raise DatasetSpecError(
            f"{name}: {cls.__name__}.{method}() raised {type(err).__name__}: {err}") from err
    if not is_loader(loader):
        raise DatasetSpecError(f"{name}: {cls.__name__}.{method}() returned a "
                               f"{type(loader).__name__}, not one torch DataLoader")
    return loader
