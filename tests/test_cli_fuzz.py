"""Bad input never gives a traceback or a hang: one clear line and a non-zero exit."""

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loadertune.cli import main

ident = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
word = st.from_regex(r"[a-z]{1,6}", fullmatch=True)

bad_specs = st.one_of(
    st.from_regex(r"[a-zA-Z0-9_./-]{1,20}", fullmatch=True),          # no colon at all
    ident.map(lambda s: f"no_such_mod_{s}:dataset"),
    ident.map(lambda s: f"fixture_datasets:zz_{s}"),
    ident.map(lambda s: f"/nonexistent/{s}.py:dataset"),
    ident.map(lambda s: f"{s}:"),
    ident.map(lambda s: f":{s}"),
    st.sampled_from(["fixture_datasets:not_a_dataset", "fixture_datasets:empty",
                     "fixture_datasets:broken_factory", "fixture_datasets:collate_fn"]),
)

reversed_range = st.tuples(st.integers(1, 99), st.integers(0, 98)).filter(
    lambda ab: ab[0] > ab[1]).map(lambda ab: f"{ab[0]}-{ab[1]}")
bad_options = st.one_of(
    st.tuples(st.just("--workers"), st.one_of(reversed_range, word, st.just("1-2:0"))),
    st.tuples(st.just("--batch-size"), st.integers(-1000, 0).map(str)),
    st.tuples(st.just("--batch-size"), word),
    st.tuples(st.just("--prefetch"), st.one_of(st.just("0"), word)),
    st.tuples(st.just("--memory-limit"), st.one_of(word, st.just("0"), st.just("150%"))),
    st.tuples(st.just("--timeout"), st.one_of(word, st.just("0"))),
    st.tuples(st.sampled_from(["--pin-memory", "--persistent", "--start-method",
                               "--step-kind"]), word.filter(lambda w: w not in (
        "on", "off", "both", "auto", "true", "false", "fork", "spawn", "cpu", "sleep"))),
    st.tuples(st.sampled_from(["--batches", "--repeats"]), st.integers(-5, 0).map(str)),
    st.tuples(st.just("--step-ms"), st.integers(-100, -1).map(str)),
)


def run_main(argv: list[str], capsys: pytest.CaptureFixture,
             monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["loadertune", *argv])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    code = exc.value.code if isinstance(exc.value.code, int) else 1
    return code, captured.out, captured.err


def assert_clean_refusal(code: int, out: str, err: str) -> None:
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines, "no message on stderr"
    if lines[0].startswith("error:"):
        assert len(lines) == 1, err


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(spec=bad_specs)
def test_bad_dataset_specs(spec: str, capsys, monkeypatch) -> None:
    assert_clean_refusal(*run_main(["bench", spec, "--workers", "0"], capsys, monkeypatch))


@FUZZ
@given(option=bad_options)
def test_bad_option_values(option: tuple[str, str], capsys, monkeypatch) -> None:
    argv = ["bench", "fixture_datasets:squares", option[0], option[1]]
    assert_clean_refusal(*run_main(argv, capsys, monkeypatch))
