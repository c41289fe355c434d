"""loadertune: measure, tune and debug PyTorch DataLoader settings on your own dataset."""

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError, LoadertuneError
from loadertune.tuning import TuneResult, tune, tune_detailed

__version__ = "0.1.0"

__all__ = ["ConfigError", "DatasetSpecError", "LoaderConfig", "LoadertuneError", "TuneResult",
           "__version__", "tune", "tune_detailed"]
