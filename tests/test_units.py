import pytest

from loadertune.errors import ConfigError
from loadertune.units import format_bytes, parse_duration, parse_int_list, parse_size


@pytest.mark.parametrize(("text", "value"), [
    ("8GiB", 8 * 2**30), ("8G", 8 * 2**30), ("512MB", 512 * 10**6), ("1.5Gi", int(1.5 * 2**30)),
    ("100", 100), ("50%", 50)])
def test_sizes(text: str, value: int) -> None:
    assert parse_size(text, of=100) == value


@pytest.mark.parametrize("text", ["", "lots", "-1G", "0", "120%", "GiB"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_size(text, of=100)


def test_durations() -> None:
    assert parse_duration("90") == 90
    assert parse_duration("2m") == 120
    assert parse_duration("1.5s") == 1.5
    with pytest.raises(ConfigError):
        parse_duration("soon")


def test_worker_lists() -> None:
    assert parse_int_list("0-3", "w") == [0, 1, 2, 3]
    assert parse_int_list("0,2-4,8-16:4", "w") == [0, 2, 3, 4, 8, 12, 16]
    assert parse_int_list("3,1,3", "w") == [1, 3]


@pytest.mark.parametrize(("text", "message"), [
    ("5-2", "runs backwards; did you mean 2-5"), ("a", "is not a number"), (",", "names no value"),
    ("0-4:0", "step >= 1"), ("-1", "is not a number")])
def test_bad_worker_lists(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_int_list(text, "--workers")


def test_format_bytes() -> None:
    assert format_bytes(None) == "-"
    assert format_bytes(512) == "512 B"
    assert format_bytes(3 * 2**30) == "3.0 GiB"
