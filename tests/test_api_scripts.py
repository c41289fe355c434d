"""The Python API in a user's script: trials fork and inherit the caller's objects (a Dataset
class defined in ``__main__``, a lambda transform), a spawn-only path names what cannot be
pickled, a script without a main guard is answered in one line, a hanging first item is a
`hang` line within the trial limit."""

from __future__ import annotations

import json
import signal
import tempfile
import textwrap
import threading
from pathlib import Path

import pytest
from _lt import run
from fixture_pipelines import hanging_first
from test_trial_process import _interrupt_when_a_trial_starts

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError
from loadertune.trial import DatasetSource, TrialPlan, run_trial
from loadertune.tuning import run_tune

QUICK = TrialPlan(batches=4, repeats=2, timeout_s=60)

SCRIPT = textwrap.dedent("""\
    import json, sys
    import torch
    from torch.utils.data import Dataset
    import loadertune

    class Scaled(Dataset):
        def __init__(self, transform):
            self.transform = transform
        def __len__(self):
            return 64
        def __getitem__(self, i):
            return self.transform(torch.full((4,), float(i)))

    print("top level ran", flush=True)
    {body}
    """)

GUARDED = """if __name__ == "__main__":
    try:
        kwargs = loadertune.tune(Scaled(lambda x: x * 2), 8, store=False, budget_s=20,
                                 max_workers=1{extra})
    except loadertune.LoadertuneError as err:
        print(err, file=sys.stderr)
        sys.exit(2)
    print(json.dumps(kwargs))
"""


def script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.format(body=body))
    return ["python", str(path)]


def run_script(tmp_path: Path, body: str) -> tuple[int, str, str]:
    import sys

    argv = script(tmp_path, body)
    out = run([sys.executable, *argv[1:]], cwd=str(tmp_path), timeout=180)
    return out.returncode, out.stdout, out.stderr


def test_a_main_defined_dataset_with_a_lambda_is_tuned(tmp_path: Path) -> None:
    code, out, err = run_script(tmp_path, GUARDED.format(extra=""))
    assert code == 0, err + out
    assert out.count("top level ran") == 1  # trials forked: the script never ran again
    kwargs = json.loads(out.strip().splitlines()[-1])
    assert kwargs["num_workers"] in (0, 1)


def test_spawn_workers_name_the_unpicklable_lambda_in_one_line(tmp_path: Path) -> None:
    code, out, err = run_script(tmp_path, GUARDED.format(extra=', start_method="spawn"'))
    assert code == 2, err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "dataset.transform (a function) cannot be pickled" in lines[0]


def test_a_script_without_main_guard_is_answered_not_rerun(tmp_path: Path) -> None:
    body = textwrap.dedent("""\
        from loadertune.trial import DatasetSource, TrialPlan, run_trial
        from loadertune.config import LoaderConfig
        try:
            run_trial(DatasetSource(dataset=Scaled(abs), fork=False),
                      LoaderConfig(batch_size=8), TrialPlan(batches=2, repeats=1))
        except loadertune.LoadertuneError as err:
            print(err, file=sys.stderr)
            sys.exit(2)
        """)
    code, out, err = run_script(tmp_path, body)
    assert code == 2, err + out
    assert out.count("top level ran") == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    source = (tmp_path / "train.py").read_text().splitlines()
    call = next(i for i, ln in enumerate(source, 1) if ln.startswith("    run_trial("))
    assert f"train.py:{call} calls loadertune at the script's top level" in lines[0]


class Doubling:
    """A dataset defined here, holding a lambda: only a forked trial can use it."""

    def __init__(self) -> None:
        self.transform = lambda i: i * 2
        self.log = open(__file__)  # noqa: SIM115  (an open handle does not pickle either)

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> int:
        return self.transform(i)


def test_a_forked_trial_inherits_what_cannot_be_pickled() -> None:
    data = Doubling()
    try:
        result = run_trial(DatasetSource(dataset=data), LoaderConfig(num_workers=1, batch_size=8),
                           QUICK)
        assert result.ok, result.failure
        assert result.samples == 8 * (result.batches - QUICK.warmup_for(result.config))
        with pytest.raises(DatasetSpecError, match=r"dataset\.(transform|log) \(a "):
            DatasetSource(dataset=data, fork=False).check_travel()
    finally:
        data.log.close()


@pytest.mark.parametrize("attempt", range(2))
def test_ctrl_c_during_a_forked_trial_start_leaves_nothing(attempt: int) -> None:
    thread = _interrupt_when_a_trial_starts(Path(tempfile.gettempdir()))
    try:
        with pytest.raises(KeyboardInterrupt):
            run_trial(DatasetSource(dataset=Doubling.__new__(Doubling)),
                      LoaderConfig(num_workers=1, batch_size=8), QUICK)
            threading.Event().wait(5)  # the trial ended before the signal: wait for it here
    finally:
        thread.join()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_hanging_first_item_is_one_hang_line_within_the_trial_limit(tmp_path: Path) -> None:
    with pytest.raises(DatasetSpecError, match=r"^hang: reading the first items .* 3 s trial"):
        run_tune(hanging_first(), 4, store=False, trial_timeout_s=3)
    import sys

    out = run([sys.executable, "-m", "loadertune", "tune", "fixture_pipelines:hanging_first",
               "-b", "4", "--timeout", "3s", "--store", str(tmp_path / "h.sqlite")],
              cwd=str(Path(__file__).parent), timeout=120)
    assert out.returncode == 2, out.stderr + out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: hang: "), lines


def test_a_bad_step_or_config_still_fails_before_any_trial() -> None:
    with pytest.raises(ConfigError, match="batch_size must be"):
        run_tune(hanging_first(), 0, store=False, trial_timeout_s=3)


def test_a_lambda_step_needs_no_pickling_when_trials_fork() -> None:
    from fixture_datasets import Squares

    seen: list[int] = []
    result = run_tune(Squares(64), 8, step=lambda batch: seen.append(1), store=False,
                      budget_s=10, max_workers=0)
    assert result.trials and all(t.ok for t in result.trials), result.trials
    assert result.trials[0].step_s is not None  # the lambda ran in the forked trial
    assert not seen  # ...not here


NOTEBOOK = textwrap.dedent("""\
    import sys
    import torch
    from torch.utils.data import Dataset
    from loadertune.bench import bench
    from loadertune.errors import LoadertuneError
    from loadertune.bench.sweep import Grid
    from loadertune.trial import DatasetSource, TrialPlan

    class Cells(Dataset):  # defined in __main__, with no file behind it (as in a notebook)
        def __len__(self):
            return 32
        def __getitem__(self, i):
            return torch.tensor([i])

    sweep = bench(Cells(), Grid(batch_size=4, workers=(0, 1)), TrialPlan(batches=3, repeats=1))
    print("statuses", [r.status for r in sweep.results])
    try:
        DatasetSource(dataset=Cells(), fork=False).check_travel()
    except LoadertuneError as err:
        print(err, file=sys.stderr)
    """)


def test_a_notebook_class_is_measured_and_named_where_it_cannot_travel() -> None:
    import sys

    out = run([sys.executable, "-c", NOTEBOOK], timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "statuses ['ok', 'ok']" in out.stdout
    assert "the dataset (Cells) is defined in a notebook or interactive session" in out.stderr


def test_spawn_workers_from_a_script_without_main_guard_are_refused(tmp_path: Path) -> None:
    body = textwrap.dedent("""\
        try:
            loadertune.tune(Scaled(abs), 8, store=False, start_method="spawn")
        except loadertune.LoadertuneError as err:
            print(err, file=sys.stderr)
            sys.exit(2)
        """)
    code, out, err = run_script(tmp_path, body)
    assert code == 2, err + out
    assert out.count("top level ran") == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "outside `if __name__ == \"__main__\":`" in lines[0], lines
