"""The sampling profiler in a trial's workers: where worker time goes, in the result and JSON."""

import json
from pathlib import Path

import fixture_profile as fp
import pytest
from test_cli_bench import run_cli

from loadertune.config import LoaderConfig
from loadertune.profile.summary import merge, profile_line
from loadertune.trial import DatasetSource, TrialPlan, run_trial

PLAN = TrialPlan(batches=4, repeats=3, timeout_s=90)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_cpu_heavy_datasets_top_frame_is_its_own_function(workers: int) -> None:
    cfg = LoaderConfig(num_workers=workers, batch_size=8)
    r = run_trial(DatasetSource(dataset=fp.Heavy(work=20_000)), cfg, PLAN)
    assert r.ok, r.failure
    assert r.profile, "no profile came back"
    top = r.profile[0]
    assert top["part"] == "own" and top["frame"].endswith(" spin"), r.profile
    assert "fixture_profile.py:" in top["frame"]
    assert top["share"] == max(e["share"] for e in r.profile)
    assert 0 < sum(e["share"] for e in r.profile) <= 1 + 1e-9
    assert top["cpu_share"] is not None and top["cpu_share"] > 0


def test_profiling_off_leaves_no_profile() -> None:
    plan = TrialPlan(batches=4, repeats=3, timeout_s=90, profile=False)
    r = run_trial(DatasetSource(spec="fixture_profile:heavy"), LoaderConfig(num_workers=1,
                                                                            batch_size=8), plan)
    assert r.ok, r.failure
    assert r.profile is None


def test_bench_json_has_a_profile_naming_the_datasets_file_and_a_report_line(
        tmp_path: Path) -> None:
    out = run_cli("bench", "fixture_profile:heavy", "-b", "8", "--workers", "1", "--batches",
                  "3", "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"))
    assert out.returncode == 0, out.stderr + out.stdout
    result = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert any("fixture_profile.py:" in e["frame"] for e in result["profile"]), result
    assert {"frame", "under", "part", "share", "cpu_share"} <= set(result["profile"][0])
    line = next(ln for ln in out.stdout.splitlines() if "where worker time goes:" in ln)
    assert "fixture_profile.py:" in line and "(w1" in line


def test_the_line_names_own_frames_the_library_under_them_and_the_machinery() -> None:
    files = [{"entries": [
        ["src/ds.py:28 __getitem__", "numpy/_core/numeric.py:9 tanh", "own", 6.0, 5.0],
        ["src/ds.py:28 __getitem__", "src/ds.py:28 __getitem__", "own", 0.1, 0.1],
        [None, "torch/utils/data/_utils/collate.py:214 collate", "collate", 2.0, 2.0],
        [None, "multiprocessing/queues.py:94 put", "hand-over", 1.0, None],
        [None, "selectors.py:415 select", "idle", 0.9, 0.0]]}]
    profile = merge(files)
    assert profile[0]["frame"] == "src/ds.py:28 __getitem__"
    assert profile[0]["under"] == "numpy/_core/numeric.py:9 tanh"
    assert profile[0]["cpu_share"] == pytest.approx(0.5)
    assert next(e for e in profile if e["part"] == "hand-over")["cpu_share"] is None
    assert profile_line(profile) == ("where worker time goes: 60 % ds.py:28 __getitem__ → "
                                     "numpy tanh, 20 % collate, 10 % hand-over, "
                                     "9 % idle (waiting for indices)")
