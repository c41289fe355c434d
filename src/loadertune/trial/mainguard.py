"""Is loadertune being called from a script's top level, outside ``if __name__ == "__main__":``?

A trial in a fresh interpreter (and a spawn worker) imports the caller's script again so that
classes defined there unpickle; a call at the top level would then run again in every trial.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class UnguardedCall:
    """Where the script calls loadertune at import time."""

    script: str
    line: int

    def message(self) -> str:
        name = os.path.basename(self.script)
        return (f"{name}:{self.line} calls loadertune at the script's top level, outside "
                "`if __name__ == \"__main__\":`; trials (like spawn workers) import the script "
                "again and would call it again in every trial: put the call under the guard")


def unguarded_call() -> UnguardedCall | None:
    """The line of ``__main__``'s top-level code on the current stack when it is not under a
    main guard; None when called from a guard, a function, a notebook or ``python -c``."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or not os.path.isfile(path):
        return None
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>":
            break
        frame = frame.f_back
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError):
        return None
    if any(_is_main_guard(node) and node.lineno <= line <= (node.end_lineno or node.lineno)
           for node in tree.body):
        return None
    return UnguardedCall(path, line)


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    names = {s.id for s in sides if isinstance(s, ast.Name)}
    consts = {s.value for s in sides if isinstance(s, ast.Constant)}
    return names == {"__name__"} and consts == {"__main__"}
