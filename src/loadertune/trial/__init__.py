"""Isolated trials: one DataLoader config measured in a child process with limits."""

from loadertune.trial.plan import TrialPlan
from loadertune.trial.runner import DatasetSource, run_trial

__all__ = ["DatasetSource", "TrialPlan", "run_trial"]
