"""What surrounds a live autotune: its limits, where it starts, the history, the report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from rich.console import Console
from torch.utils.data import DataLoader

from loadertune import machine as machine_facts
from loadertune.autotune.loader import AutotunedLoader, Change
from loadertune.autotune.policy import Bounds
from loadertune.autotune.rebuild import Knobs
from loadertune.errors import ConfigError
from loadertune.pipeline.loaded import LoadedDataset
from loadertune.store import HistoryStore, resolve_store_path
from loadertune.tuning import fingerprint as fp
from loadertune.tuning.budget import budget_bytes, check_max_workers, limits_for

STORE_MAX_AGE = timedelta(days=30)


def bounds_for(memory_budget: int | str | None, max_workers: int | None,
               min_workers: int) -> Bounds:
    """The limits of a live run on this machine (shared between a node's torchrun ranks)."""
    info = machine_facts.collect()
    check_max_workers(max_workers)
    limits = limits_for(info, budget_bytes(memory_budget, info.memory_room), max_workers)
    cap = limits.worker_cap(True)
    if min_workers > cap:
        raise ConfigError(f"min_workers={min_workers} is above the {cap} workers allowed here")
    return Bounds(min_workers=min_workers, max_workers=cap, memory_budget=limits.memory_budget)


@dataclass
class Session:
    """The history record and the report of one autotuned loader."""

    loader: DataLoader
    store: HistoryStore | None
    console: Console | None
    keys: dict[str, Any] = field(default_factory=dict)
    run_id: int | None = None

    def start_knobs(self, start: dict[str, Any] | None, own: Knobs, bounds: Bounds) -> Knobs:
        """``start``, else the last final setting in the history, else the loader's own."""
        if start is None and self.store is not None:
            found = self.store.find(self.keys["request_key"], STORE_MAX_AGE)
            if found is not None:
                start = found.get("kwargs")
                self._say(f"autotune: starting from history run #{found['run_id']}: {start}")
        if start is None:
            return own
        try:
            k = int(start.get("num_workers", 0))
            pf = start.get("prefetch_factor") if k else None
            knobs = Knobs(min(max(k, bounds.min_workers), bounds.max_workers),
                          int(pf) if pf else None)
        except (TypeError, ValueError, AttributeError) as err:
            raise ConfigError(f"start must be DataLoader kwargs like {{'num_workers': 4}}, "
                              f"got {start!r}") from err
        return knobs

    def attach(self, tuned: AutotunedLoader) -> None:
        tuned.on_epoch = self.on_epoch

    def on_change(self, change: Change) -> None:
        self._say(f"autotune: {change.before} → {change.after} at batch {change.batch} of "
                  f"epoch {change.epoch} ({change.kind}): {change.why}")

    def on_epoch(self, tuned: AutotunedLoader) -> None:
        """Store the setting an epoch ended with; say it when the epoch changed it."""
        changed = any(c.epoch == tuned.epochs for c in tuned.history)
        if changed:
            self._say(f"autotune: epoch {tuned.epochs} ended with {tuned.dataloader_line()}")
        if self.store is not None and (changed or self.run_id is None):
            self.run_id = self.store.save(self._record(tuned), **self.keys)

    def _record(self, tuned: AutotunedLoader) -> dict[str, Any]:
        last = tuned.windows[-1] if tuned.windows else None
        rate = last.rate * (self.loader.batch_size or 1) if last else None
        return {"loadertune": "autotune", "stopped_by": "search",
                "dataset": LoadedDataset(self.loader.dataset, None, None).describe(),
                "spec": None, "config": {"batch_size": self.loader.batch_size or 1},
                "kwargs": tuned.config, "samples_per_s": rate, "seconds": tuned.elapsed(),
                "trials": [], "reason": f"live: {len(tuned.history)} changes over "
                f"{tuned.epochs} epochs", "history": [c.to_dict() for c in tuned.history]}

    def _say(self, text: str) -> None:
        if self.console is not None:
            self.console.print(text, highlight=False, soft_wrap=True)


def open_session(loader: DataLoader, store: Any, report: bool) -> Session:
    history = None
    if store is not False:
        history = HistoryStore(resolve_store_path(None if store in (None, True)
                                                  else os.fspath(store)))
    console = Console(stderr=True) if report else None
    session = Session(loader, history, console)
    if history is not None:
        info = machine_facts.collect()
        machine = fp.machine_fingerprint(info)
        dataset = fp.dataset_fingerprint(LoadedDataset(loader.dataset, loader.collate_fn, None),
                                         None)
        request = {"autotune": True, "batch_size": loader.batch_size}
        session.keys = {"request_key": fp.digest({"m": machine, "d": dataset, "r": request}),
                        "machine": machine, "dataset_fp": dataset, "request": request,
                        "machine_key": fp.digest(machine), "dataset_key": fp.digest(dataset)}
    return session
