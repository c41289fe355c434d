"""Import a DATASET argument (``module:attr`` or ``path/script.py:attr``) and resolve it."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from loadertune.errors import DatasetSpecError
from loadertune.pipeline.loaded import LoadedDataset
from loadertune.pipeline.resolve import check_split, resolve


def split_spec(spec: str) -> tuple[str, str]:
    """``"pkg.mod:attr"`` -> ``("pkg.mod", "attr")``; a Windows drive colon is not a separator."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr or not attr.replace(".", "_").isidentifier():
        raise DatasetSpecError(
            f"DATASET {spec!r} is not of the form module:attr or path/script.py:attr "
            "(attr names a Dataset, a DataLoader, a LightningDataModule or a function "
            "returning one)"
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


def load_dataset(spec: str, split: str = "train") -> LoadedDataset:
    """Import ``spec`` and resolve what it names (see `resolve`); a bare dataset also gets a
    ``collate_fn`` defined beside it in the module."""
    check_split(split)
    target, attr = split_spec(spec)
    module = import_target(target)
    obj = resolve_attr(module, attr, spec)
    collate_fn = getattr(module, "collate_fn", None)
    if collate_fn is not None and not callable(collate_fn):
        collate_fn = None
    return resolve(obj, repr(spec), split=split, spec=spec, collate_fn=collate_fn)
