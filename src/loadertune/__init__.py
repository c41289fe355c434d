"""loadertune: measure, tune and debug PyTorch DataLoader settings on your own dataset."""

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError, LoadertuneError
from loadertune.watch import watch as watch

__version__ = "0.1.0"

__all__ = ["ConfigError", "DatasetSpecError", "LoaderConfig", "LoadertuneError", "__version__"]
