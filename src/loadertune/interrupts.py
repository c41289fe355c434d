"""Ctrl-C and SIGTERM both stop long work the same way: as a KeyboardInterrupt."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM received; handled like Ctrl-C, but the exit code is 143."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises `Terminated` (only from the main thread)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def exit_code(err: BaseException | None) -> int:
    """130 after Ctrl-C, 143 after SIGTERM."""
    return 143 if isinstance(err, Terminated) else 130
