"""Ctrl-C and SIGTERM both stop long work the same way: as a KeyboardInterrupt."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any


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
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


_DEFERRED = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back for the block; one that arrived is delivered after it.

    Done with Python-level handlers, not ``pthread_sigmask``: the kernel hands a
    process-directed signal to any thread that does not block it (rich's refresh thread,
    for one), and Python then raises in the main thread regardless of the main thread's mask.
    Outside the main thread signals never interrupt, so there is nothing to hold back.
    """
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous: dict[int, Any] = {}
    try:
        for signum in _DEFERRED:
            previous[signum] = signal.signal(signum, hold)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if held:
            signal.raise_signal(held[0])


def exit_code(err: BaseException | None) -> int:
    """130 after Ctrl-C, 143 after SIGTERM."""
    return 143 if isinstance(err, Terminated) else 130
