"""Fingerprints that decide whether a stored tuning result applies to a new request."""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
import sys
import types
from typing import Any

from loadertune.machine import MachineInfo
from loadertune.pipeline.loaded import LoadedDataset
from loadertune.pipeline.objwalk import walk

MAX_ITEMS = 16
MAX_CALLABLES = 32
# Code whose version the machine fingerprint (torch) or the interpreter already pins.
PINNED_PACKAGES = frozenset({"torch", "builtins"}) | frozenset(sys.stdlib_module_names)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def sample_structure(item: Any, depth: int = 0) -> Any:
    """Shapes and dtypes of a sample, JSON-ready: ``[{"tensor": [3, 224, 224], ...}, "int"]``."""
    shape = getattr(item, "shape", None)
    dtype = getattr(item, "dtype", None)
    if shape is not None and dtype is not None:
        kind = "tensor" if type(item).__name__ == "Tensor" else type(item).__name__
        return {kind: [int(s) for s in shape], "dtype": str(dtype)}
    if depth >= 4:
        return type(item).__name__
    if isinstance(item, dict):
        return {str(k): sample_structure(v, depth + 1) for k, v in list(item.items())[:MAX_ITEMS]}
    if isinstance(item, (list, tuple)):
        return [sample_structure(v, depth + 1) for v in list(item)[:MAX_ITEMS]]
    if isinstance(item, (str, bytes)):
        return f"{type(item).__name__}[{len(item)}]"
    return type(item).__name__


def dataset_fingerprint(loaded: LoadedDataset, sample: Any) -> dict[str, Any]:
    """What makes a stored result apply to this dataset: its class, size, sample shapes and
    its code (classes, their modules, transforms, collate_fn), so an edited ``__getitem__``
    or a heavier augmentation is measured again."""
    cls = type(loaded.dataset)
    collate = loaded.collate_fn
    return {
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "length": loaded.length(),
        "iterable": loaded.iterable,
        "sample": sample_structure(sample) if sample is not None else None,
        "spec": loaded.spec,
        "collate_fn": _name(collate) if collate is not None else None,
        "code": code_fingerprint(loaded.dataset, collate),
    }


def code_fingerprint(dataset: Any, collate_fn: Any = None) -> dict[str, Any]:
    """Digests of the dataset's code: each class of its MRO and that class's module (outside
    torch and the standard library), and every callable found on it (transforms...) and the
    collate_fn by qualified name, source digest and, for callable objects, their repr."""
    classes: dict[str, str | None] = {}
    modules: dict[str, str | None] = {}
    for klass in type(dataset).__mro__:
        if _pinned(klass.__module__):
            continue
        classes[f"{klass.__module__}.{klass.__qualname__}"] = _code_digest(klass)
        module = sys.modules.get(klass.__module__)
        if module is not None and klass.__module__ not in modules:
            modules[klass.__module__] = _code_digest(module)
    found: dict[str, dict[str, str | None]] = {}
    if collate_fn is not None:
        found["collate_fn"] = _callable(collate_fn)
    for node in walk(dataset):
        if len(found) >= MAX_CALLABLES:
            break
        if node.depth > 0 and _is_user_callable(node.obj):
            found[node.path] = _callable(node.obj)
    return {"classes": classes, "modules": modules, "callables": found}


def _pinned(module: str) -> bool:
    return module.partition(".")[0] in PINNED_PACKAGES


def _is_user_callable(obj: Any) -> bool:
    if isinstance(obj, (type, types.ModuleType, types.BuiltinFunctionType)):
        return False
    if isinstance(obj, (types.FunctionType, types.MethodType, functools.partial)):
        return True
    return callable(obj) and not _pinned(type(obj).__module__)


def _callable(obj: Any) -> dict[str, str | None]:
    """A callable by qualified name and code digest; an object's repr holds its parameters."""
    target = obj.func if isinstance(obj, functools.partial) else obj
    target = getattr(target, "__func__", target)  # a bound method's function
    plain = isinstance(target, types.FunctionType)
    out: dict[str, str | None] = {
        "name": _name(target) if plain else _name(type(target)),
        "code": _code_digest(target if plain else type(target)),
    }
    if not plain or isinstance(obj, functools.partial):
        try:
            out["repr"] = _ADDRESS.sub("", repr(obj))[:2000]
        except Exception:
            out["repr"] = None
    return out


def _code_digest(obj: Any) -> str | None:
    """A digest of ``obj``'s source, or of its functions' bytecode where there is no source."""
    try:
        return digest(inspect.getsource(obj))
    except (OSError, TypeError):
        pass
    codes = []
    if isinstance(obj, types.FunctionType):
        codes = [obj.__code__]
    elif isinstance(obj, type):
        codes = [v.__code__ for v in vars(obj).values() if isinstance(v, types.FunctionType)]
    return digest([_bytecode(c) for c in codes]) if codes else None


def _bytecode(code: types.CodeType) -> list[Any]:
    consts = [_bytecode(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), consts, list(code.co_names)]


def machine_fingerprint(machine: MachineInfo) -> dict[str, Any]:
    return {**machine.fingerprint(), "local_world_size": machine.local_world_size}


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def step_fingerprint(step: Any) -> Any:
    """A callable step by its qualified name, seconds as a number, None as None."""
    if step is None or isinstance(step, (int, float)):
        return step
    return _name(step)


def digest(data: Any) -> str:
    """A short stable hash of JSON-ready ``data``."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
