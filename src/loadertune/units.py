"""Parse and format sizes, durations and ranges given on the command line."""

from __future__ import annotations

import re

from loadertune.errors import ConfigError

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_FACTORS = {"": 1, "b": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4,
            "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}


def parse_size(text: str, *, of: int) -> int:
    """Bytes from ``"8GiB"``, ``"512MB"``, ``"1.5G"`` or ``"80%"`` (of ``of`` bytes: pass
    ``MachineInfo.memory_room``, the memory this process may use)."""
    stripped = text.strip()
    if stripped.endswith("%"):
        try:
            pct = float(stripped[:-1])
        except ValueError:
            raise ConfigError(f"bad percentage {text!r}; use e.g. 80%") from None
        if not 0 < pct <= 100:
            raise ConfigError(f"percentage {text!r} must be in (0, 100]")
        return int(of * pct / 100)
    match = _SIZE_RE.match(stripped)
    if not match:
        raise ConfigError(f"bad size {text!r}; use e.g. 8GiB, 512MB or 80%")
    number, unit = float(match.group(1)), (match.group(2) or "").lower().rstrip("b")
    if unit in ("k", "m", "g", "t") and match.group(2) and match.group(2)[-1:].lower() != "b":
        unit = unit + "i"  # a bare "8G" means GiB, as in ulimit, docker and free
    value = int(number * _FACTORS[unit])
    if value <= 0:
        raise ConfigError(f"size {text!r} must be > 0")
    return value


def parse_duration(text: str) -> float:
    """Seconds from ``"90"``, ``"90s"``, ``"2m"`` or ``"1h"``."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match:
        raise ConfigError(f"bad duration {text!r}; use e.g. 60s, 2m or 1h")
    value = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    if value <= 0:
        raise ConfigError(f"duration {text!r} must be > 0")
    return value


def parse_int_list(text: str, name: str) -> list[int]:
    """Integers from ``"0-8"``, ``"0-16:4"`` (a step), ``"0,2,4"`` or a mix like ``"0,2-4"``."""
    values: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part)
        if not match:
            raise ConfigError(f"{name} {text!r}: {part!r} is not a number or a range like 0-8")
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        step = int(match.group(3)) if match.group(3) is not None else 1
        if hi < lo:
            raise ConfigError(f"{name} range {part!r} runs backwards; did you mean {hi}-{lo}?")
        if step < 1:
            raise ConfigError(f"{name} range {part!r} needs a step >= 1")
        values.extend(range(lo, hi + 1, step))
    if not values:
        raise ConfigError(f"{name} {text!r} names no value")
    return sorted(set(values))


def parse_choice_list(text: str, name: str, choices: dict[str, object]) -> list[object]:
    """Values from a comma list of named choices, e.g. ``"on,off"``."""
    out: list[object] = []
    for part in text.replace(" ", "").lower().split(","):
        if part not in choices:
            raise ConfigError(f"{name} {part!r} is not one of {', '.join(choices)}")
        value = choices[part]
        if value not in out:
            out.append(value)
    return out


def format_bytes(value: float | None, missing: str = "-") -> str:
    """``1536`` -> ``"1.5 KiB"``; ``missing`` stands for an unknown size."""
    if value is None:
        return missing
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
