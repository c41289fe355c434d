"""A dataset object (not a spec string) can be sent to an isolated trial."""

from __future__ import annotations

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.workloads import tiny


def test_a_dataset_object_runs_in_a_trial() -> None:
    # The job carries multiprocessing's preparation data, whose authkey refuses pickling.
    result = run_trial(DatasetSource(dataset=tiny(512)), LoaderConfig(batch_size=32),
                       TrialPlan(batches=2, repeats=2, timeout_s=60))
    assert result.failure is None, result.failure
    assert result.ok and result.samples >= 4 * 32  # more when a noisy window is re-measured
