"""What the parent sends a trial process, and the events the trial process sends back."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loadertune.config import LoaderConfig
from loadertune.trial.plan import TrialPlan


@dataclass
class TrialJob:
    """Everything a fresh interpreter needs to run one trial.

    The dataset comes either as a spec string (imported again in the child, so it is built
    there exactly as the user's script builds it; ``split`` picks a DataModule's loader) or as
    pickled bytes of ``(dataset, collate_fn, step, parts)`` (a callable step given with a spec
    travels there too; ``parts`` are the user's loader's, see `loadertune.pipeline`);
    ``preparation`` is multiprocessing's description of the
    parent's ``__main__`` so classes defined in a user's script unpickle as under spawn.
    """

    config: LoaderConfig
    plan: TrialPlan
    spec: str | None
    payload: bytes | None
    sys_path: list[str]
    preparation: dict[str, Any] | None
    step_spec: str | None = None
    split: str = "train"
    task: str = "measure"  # or "probe": time the first items (see loadertune.tuning.probe)


class EventWriter:
    """Writes one JSON object per line to a pipe; a vanished reader calls ``on_broken``."""

    def __init__(self, fd: int, on_broken: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.on_broken = on_broken
        self._lock = threading.Lock()  # the hang watch sends from its own thread

    def send(self, event: str, **fields: Any) -> None:
        line = json.dumps({"e": event, **fields}, default=str) + "\n"
        data = line.encode()
        try:
            with self._lock:
                while data:
                    written = os.write(self.fd, data)
                    data = data[written:]
        except OSError:
            if self.on_broken is not None:
                self.on_broken()
            os._exit(3)


class EventReader:
    """Splits bytes read from the event pipe into decoded events."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        events = []
        for line in lines:
            if line.strip():
                try:
                    events.append(json.loads(line))
                except ValueError:
                    continue
        return events
