"""Walk a dataset's object graph (attributes, containers) with limits on size and depth."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_NODES = 20_000
MAX_DEPTH = 6
ITEMS_PER_CONTAINER = 50
LEAF_TYPES = (int, float, complex, bool, str, bytes, bytearray, type(None))


@dataclass
class Node:
    path: str
    obj: Any
    depth: int


def children(obj: Any) -> Iterator[tuple[str, Any]]:
    """Named parts of ``obj``: dict items, sequence items (first few), attributes."""
    if isinstance(obj, dict):
        for i, (k, v) in enumerate(obj.items()):
            if i >= ITEMS_PER_CONTAINER:
                return
            yield f"[{k!r}]", v
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        for i, v in enumerate(obj):
            if i >= ITEMS_PER_CONTAINER:
                return
            yield f"[{i}]", v
        return
    if _is_array(obj) or isinstance(obj, type) or (callable(obj) and not hasattr(obj, "__dict__")):
        return
    attrs = getattr(obj, "__dict__", None)
    if isinstance(attrs, dict):
        yield from ((f".{k}", v) for k, v in attrs.items())
    for slot in getattr(type(obj), "__slots__", ()) or ():
        if isinstance(slot, str) and hasattr(obj, slot):
            yield f".{slot}", getattr(obj, slot)


def _is_array(obj: Any) -> bool:
    return hasattr(obj, "shape") and hasattr(obj, "dtype")


def walk(root: Any, name: str = "dataset") -> Iterator[Node]:
    """Breadth-first nodes reachable from ``root``, each object once."""
    seen: set[int] = set()
    queue = [Node(name, root, 0)]
    count = 0
    while queue and count < MAX_NODES:
        node = queue.pop(0)
        if id(node.obj) in seen:
            continue
        seen.add(id(node.obj))
        count += 1
        yield node
        if node.depth >= MAX_DEPTH or isinstance(node.obj, LEAF_TYPES):
            continue
        try:
            parts = list(children(node.obj))
        except Exception:
            continue
        queue.extend(Node(node.path + key, value, node.depth + 1) for key, value in parts)
