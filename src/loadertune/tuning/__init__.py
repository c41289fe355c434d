"""Adaptive tuning of DataLoader settings: strategy (pure), budget, tuner loop, result."""

from loadertune.tuning.api import run_tune, tune, tune_detailed
from loadertune.tuning.result import TuneResult
from loadertune.tuning.tuned import tuned

__all__ = ["TuneResult", "run_tune", "tune", "tune_detailed", "tuned"]
