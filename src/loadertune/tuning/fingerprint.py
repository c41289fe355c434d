"""Fingerprints that decide whether a stored tuning result applies to a new request."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from loadertune.dataset_spec import LoadedDataset
from loadertune.machine import MachineInfo

MAX_ITEMS = 16


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
    cls = type(loaded.dataset)
    collate = loaded.collate_fn
    return {
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "length": loaded.length(),
        "iterable": loaded.iterable,
        "sample": sample_structure(sample) if sample is not None else None,
        "spec": loaded.spec,
        "collate_fn": _name(collate) if collate is not None else None,
    }


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
