"""A dataset object (not a spec string) can be sent to an isolated trial."""

from __future__ import annotations

import subprocess
import sys

from loadertune.config import LoaderConfig
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.workloads import tiny


def test_a_dataset_object_runs_in_a_trial() -> None:
    # The job carries multiprocessing's preparation data, whose authkey refuses pickling.
    result = run_trial(DatasetSource(dataset=tiny(512)), LoaderConfig(batch_size=32),
                       TrialPlan(batches=2, repeats=2, timeout_s=60))
    assert result.failure is None, result.failure
    assert result.ok and result.samples >= 4 * 32  # more when a noisy window is re-measured


def test_a_dataset_object_from_a_script_read_on_stdin(tmp_path) -> None:
    """``python - < script`` names its main module "<stdin>": no file for the trial to run."""
    script = (
        "from loadertune.config import LoaderConfig\n"
        "from loadertune.trial import DatasetSource, TrialPlan, run_trial\n"
        "from loadertune.workloads import tiny\n"
        "r = run_trial(DatasetSource(dataset=tiny(256)), LoaderConfig(batch_size=32),\n"
        "              TrialPlan(batches=2, repeats=2, timeout_s=60))\n"
        "print('status', r.status, r.failure.message if r.failure else '')\n"
    )
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert "status ok" in done.stdout, done.stdout + done.stderr
