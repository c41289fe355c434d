"""Resolve a DATASET argument (``module:attr`` or ``path/script.py:attr``) to a dataset."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loadertune.errors import DatasetSpecError


@dataclass
class LoadedDataset:
    """A dataset with the collate_fn found beside it and the spec it came from."""

    dataset: Any
    collate_fn: Any | None
    spec: str | None

    @property
    def iterable(self) -> bool:
        return is_iterable_dataset(self.dataset)

    def length(self) -> int | None:
        """``len(dataset)`` when it has one, else None."""
        try:
            return len(self.dataset)
        except TypeError:
            return None

    def describe(self) -> str:
        cls = type(self.dataset)
        n = self.length()
        kind = "iterable" if self.iterable else "map-style"
        size = f", {n} items" if n is not None else ""
        return f"{cls.__module__}.{cls.__qualname__} ({kind}{size})"


def is_iterable_dataset(obj: object) -> bool:
    from torch.utils.data import IterableDataset

    return isinstance(obj, IterableDataset)


def is_dataset(obj: object) -> bool:
    """True for anything a DataLoader accepts as a dataset."""
    from torch.utils.data import Dataset

    if isinstance(obj, Dataset) or is_iterable_dataset(obj):
        return True
    return hasattr(obj, "__getitem__") and hasattr(obj, "__len__") and not isinstance(obj, type)


def split_spec(spec: str) -> tuple[str, str]:
    """``"pkg.mod:attr"`` -> ``("pkg.mod", "attr")``; a Windows drive colon is not a separator."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr or not attr.replace(".", "_").isidentifier():
        raise DatasetSpecError(
            f"DATASET {spec!r} is not of the form module:attr or path/script.py:attr "
            "(attr names a Dataset or a function that returns one)"
        )
    return target, attr


def import_target(target: str) -> Any:
    """Import a module by dotted name or by script path; the script's folder goes on sys.path."""
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).expanduser().resolve()
        if not path.is_file():
            raise DatasetSpecError(f"script {target!r} does not exist")
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        # Import under its own name so that spawn workers can import it again to unpickle.
        name = path.stem
        existing = sys.modules.get(name)
        if existing is not None and getattr(existing, "__file__", None) == str(path):
            return existing
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise DatasetSpecError(f"cannot import {target!r} as a Python script")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException as err:
            sys.modules.pop(name, None)
            raise DatasetSpecError(_import_failure(target, err)) from err
        return module
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as err:
        raise DatasetSpecError(
            f"cannot import module {target!r}: {err} (is it installed, or run from its folder?)"
        ) from err
    except BaseException as err:
        raise DatasetSpecError(_import_failure(target, err)) from err


def _import_failure(target: str, err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return (f"importing {target!r} called sys.exit({err.code}); put the script's "
                "training code under `if __name__ == \"__main__\":`")
    if isinstance(err, KeyboardInterrupt):
        raise err
    return f"importing {target!r} failed: {type(err).__name__}: {err}"


def resolve_attr(module: Any, attr: str, spec: str) -> Any:
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = sorted(n for n in dir(module) if not n.startswith("_"))
            hint = f"; it has: {', '.join(names[:12])}" if names else ""
            raise DatasetSpecError(f"{spec!r}: module has no attribute {attr!r}{hint}") from None
    return obj


def load_dataset(spec: str) -> LoadedDataset:
    """Import ``spec``; return its dataset (calling a factory) and any ``collate_fn`` beside it."""
    target, attr = split_spec(spec)
    module = import_target(target)
    obj = resolve_attr(module, attr, spec)
    if not is_dataset(obj):
        if not callable(obj):
            raise DatasetSpecError(
                f"{spec!r} is a {type(obj).__name__}, not a Dataset or a function returning one"
            )
        try:
            obj = obj()
        except TypeError as err:
            raise DatasetSpecError(
                f"{spec!r} must be a Dataset or a zero-argument factory; calling it failed: {err}"
            ) from err
        except Exception as err:
            raise DatasetSpecError(
                f"{spec!r}: the factory raised {type(err).__name__}: {err}"
            ) from err
        if not is_dataset(obj):
            raise DatasetSpecError(
                f"{spec!r} returned a {type(obj).__name__}, not a Dataset "
                "(needs __getitem__ and __len__, or an IterableDataset)"
            )
    collate_fn = getattr(module, "collate_fn", None)
    if collate_fn is not None and not callable(collate_fn):
        collate_fn = None
    return LoadedDataset(dataset=obj, collate_fn=collate_fn, spec=spec)


def check_not_empty(loaded: LoadedDataset) -> None:
    """Raise when a map-style dataset has no items (an iterable one is checked while loading)."""
    n = loaded.length()
    if n == 0:
        raise DatasetSpecError(f"dataset {loaded.describe()} is empty: it has no items to load")
