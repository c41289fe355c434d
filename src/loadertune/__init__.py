"""loadertune: measure, tune and debug PyTorch DataLoader settings on your own dataset."""

from typing import TYPE_CHECKING, Any

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError, LoadertuneError
from loadertune.tuning import TuneResult, tune, tune_detailed, tuned

__version__ = "0.1.0"

__all__ = ["ConfigError", "DatasetSpecError", "LoaderConfig", "LoadertuneError", "TuneResult",
           "__version__", "tune", "tune_detailed", "tuned"]

if TYPE_CHECKING:
    from loadertune.autotune import autotune as autotune
    from loadertune.watch import watch as watch


def __getattr__(name: str) -> Any:
    """``loadertune.watch`` / ``loadertune.autotune`` on first use: they import torch, which
    ``import loadertune`` avoids."""
    import importlib

    if name == "watch":
        return importlib.import_module("loadertune.watch")  # a module you can call: watch(loader)
    if name == "autotune":
        return importlib.import_module("loadertune.autotune")  # callable: autotune(loader)
    raise AttributeError(f"module 'loadertune' has no attribute {name!r}")
