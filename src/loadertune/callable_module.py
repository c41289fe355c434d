"""Packages that share their name with their main function (``loadertune.watch``,
``loadertune.autotune``): calling the package calls the function, so ``loadertune.watch(loader)``
and ``loadertune.watch.WatchSummary`` both work whichever way the name was imported."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any


def make_callable(module_name: str, fn: Callable[..., Any]) -> None:
    """Make the (already imported) module ``module_name`` call ``fn`` when called."""

    class _CallableModule(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

    _CallableModule.__call__.__doc__ = fn.__doc__
    sys.modules[module_name].__class__ = _CallableModule
