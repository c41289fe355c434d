"""`tune` / `tune_detailed`: resolve the arguments, serve from history or search, store."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from loadertune import machine as machine_facts
from loadertune.bench import resolve_batch_size, source_for
from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError
from loadertune.machine import MachineInfo
from loadertune.pipeline import LoadedDataset, check_not_empty, kept_parts_note, load_dataset
from loadertune.pipeline.preflight import check_picklable, check_rebuild
from loadertune.store import HistoryStore, resolve_store_path
from loadertune.trial import DatasetSource, TrialPlan
from loadertune.trial.sampler import process_memory
from loadertune.tuning import fingerprint as fp
from loadertune.tuning.budget import Limits, budget_bytes, check_max_workers, limits_for
from loadertune.tuning.cache import advise_cache, sample_length
from loadertune.tuning.probe import ItemProbe, ProbeOutcome, probe_in_trial
from loadertune.tuning.recommend import recommend
from loadertune.tuning.result import TuneResult
from loadertune.tuning.strategy import Space
from loadertune.tuning.threads import advise_threads
from loadertune.tuning.tuner import Callbacks, search

STORE_MAX_AGE = timedelta(days=30)
Step = Callable[[Any], Any] | float | int | None
StoreArg = str | os.PathLike[str] | bool | None


@dataclass
class Prepared:
    """Everything resolved before the search: what to load, where, under which limits."""

    source: DatasetSource
    loaded: LoadedDataset
    machine: MachineInfo
    batch_size: int
    limits: Limits
    start_method: str | None
    plan: TrialPlan
    fingerprints: dict[str, Any]
    request_key: str
    probed: ProbeOutcome

    def search_space(self, probe: ItemProbe, handover: float | None) -> Space:
        """The space to search, once the probe has told latency-bound from CPU-bound."""
        return Space(handover_s=handover,
                     batch_size=self.batch_size, limits=self.limits,
                     latency_bound=probe.latency_bound,
                     accelerator=self.machine.accelerator is not None,
                     start_method=self.start_method,
                     worker_start_method=self.start_method or self.machine.start_method,
                     # a trial's main process as the probe's measured it; else this one
                     main_estimate=self.probed.main_pss or _own_memory(),
                     dataset_len=self.loaded.length(),
                     loader_uss=self.probed.loader_uss,
                     item_wall_s=probe.wall_s if probe.items else None,
                     item_cpu_share=probe.cpu_share if probe.items else None)


def _step_plan(step: Step, step_kind: str) -> tuple[Callable[[Any], Any] | None, TrialPlan]:
    if step is None:
        return None, TrialPlan()
    if callable(step):
        return step, TrialPlan()
    if isinstance(step, bool) or not isinstance(step, (int, float)) or step < 0:
        raise ConfigError(f"step must be a callable taking a batch, a number of seconds >= 0 "
                          f"or None, got {step!r}")
    return None, TrialPlan(step_ms=float(step) * 1000.0, step_kind=step_kind)


def _source(dataset: Any, collate_fn: Any, step: Callable[[Any], Any] | None,
            split: str) -> tuple[DatasetSource, LoadedDataset]:
    if isinstance(dataset, str) and (step is not None or collate_fn is not None):
        loaded = load_dataset(dataset, split)
        if collate_fn is not None and loaded.parts is None:
            loaded = LoadedDataset(dataset=loaded.dataset, collate_fn=collate_fn, spec=dataset)
        # The step (and a collate_fn given here) travel pickled with the dataset.
        return DatasetSource(dataset=loaded.dataset, collate_fn=loaded.collate_fn,
                             step=step, parts=loaded.parts), loaded
    return source_for(dataset, collate_fn, step, split)


def _batch_size(loaded: LoadedDataset, batch_size: int | None, default: int | None) -> int:
    if batch_size is None and loaded.batch_size is None:
        if default is None:
            raise ConfigError(f"batch_size is needed to tune {loaded.describe()}: only a "
                              "DataLoader or a LightningDataModule brings its own")
        batch_size = default
    return resolve_batch_size(loaded, batch_size)


def prepare(dataset: Any, batch_size: int | None, *, step: Step = None,
            memory_budget: int | str | None, max_workers: int | None, collate_fn: Any,
            start_method: str | None, step_kind: str = "cpu", machine: MachineInfo | None = None,
            split: str = "train", default_batch_size: int | None = None,
            trial_timeout_s: float | None = None) -> Prepared:
    """Check the arguments, load the dataset, probe its first items in a trial process and
    fingerprint the request (no search yet).

    ``batch_size`` None takes the user's loader's, else ``default_batch_size`` (None: a bare
    dataset needs one); ``trial_timeout_s`` limits each trial (the probe's too).
    """
    if batch_size is not None and (isinstance(batch_size, bool) or
                                   not isinstance(batch_size, int) or batch_size < 1):
        raise ConfigError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    check_max_workers(max_workers)
    machine = machine or machine_facts.collect()
    budget = budget_bytes(memory_budget, machine.memory_room)
    user_step, plan = _step_plan(step, step_kind)
    source, loaded = _source(dataset, collate_fn, user_step, split)
    batch_size = _batch_size(loaded, batch_size, default_batch_size)
    check_not_empty(loaded)
    limits = limits_for(machine, budget, max_workers)
    one_worker = [LoaderConfig(num_workers=1, batch_size=batch_size,
                               multiprocessing_context=start_method)]
    check_picklable(loaded, one_worker)
    check_rebuild(loaded, one_worker)
    plan = TrialPlan(step_ms=plan.step_ms, step_kind=plan.step_kind,
                     memory_limit=limits.memory_budget,
                     timeout_s=trial_timeout_s or TrialPlan.timeout_s)
    source.check_travel()
    probed = probe_in_trial(source, batch_size, plan, loaded.describe())
    fps = {
        "machine": fp.machine_fingerprint(machine),
        "dataset": {**fp.dataset_fingerprint(loaded, None), "sample": probed.sample},
        "request": {"batch_size": batch_size, "step": fp.step_fingerprint(step),
                    "step_kind": step_kind if isinstance(step, (int, float)) else None,
                    "memory_budget": memory_budget if memory_budget is None
                    else str(memory_budget), "max_workers": max_workers,
                    "start_method": start_method},
    }
    if loaded.parts is not None:  # a bare dataset's key stays what it was
        fps["request"]["loader"] = fp_loader(loaded)
    return Prepared(source=source, loaded=loaded, machine=machine, batch_size=batch_size,
                    limits=limits, start_method=start_method, plan=plan, fingerprints=fps,
                    request_key=fp.digest(fps), probed=probed)


def fp_loader(loaded: LoadedDataset) -> dict[str, Any]:
    """The user's loader parts by type (a different sampler is a different request)."""
    assert loaded.parts is not None
    return {"origin": loaded.origin, "drop_last": loaded.parts.drop_last,
            **{name: type(obj).__qualname__ for name, obj in loaded.parts.named_parts()}}


def _own_memory() -> int:
    mem = process_memory(os.getpid())
    return mem.pss or mem.rss if mem is not None else 0


def _store(store: StoreArg) -> HistoryStore | None:
    if store is False:
        return None
    return HistoryStore(resolve_store_path(None if store is True else store))


def run_tune(dataset: Any, batch_size: int | None = None, *, step: Step = None,
             budget_s: float | None = None, memory_budget: int | str | None = None,
             max_workers: int | None = None, collate_fn: Any = None,
             start_method: str | None = None, store: StoreArg = None, fresh: bool = False,
             step_kind: str = "cpu", callbacks: Callbacks | None = None, split: str = "train",
             default_batch_size: int | None = None,
             trial_timeout_s: float | None = None, advise: bool = False) -> TuneResult:
    """`tune_detailed` that returns (stores, and marks) an interrupted search instead of
    raising, so a caller can show what finished; ``default_batch_size`` applies to a bare
    dataset when ``batch_size`` is None (the CLI's default); ``advise`` adds the measured
    thread advice (`loadertune.tuning.threads`, one more trial) to the notes."""
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    if budget_s is not None and budget_s <= 0:
        raise ConfigError(f"budget_s must be > 0 seconds, got {budget_s!r}")
    prep = prepare(dataset, batch_size, step=step, memory_budget=memory_budget,
                   max_workers=max_workers, collate_fn=collate_fn, start_method=start_method,
                   step_kind=step_kind, split=split, default_batch_size=default_batch_size,
                   trial_timeout_s=trial_timeout_s)
    history = _store(store)
    if history is not None and not fresh:
        stored = history.find(prep.request_key, STORE_MAX_AGE)
        if stored is not None:
            return _served(stored, time.monotonic() - started, history.path)
    probe, handover = prep.probed.probe, prep.probed.handover_s
    space = prep.search_space(probe, handover)
    outcome = search(prep.source, space, prep.plan, probe, budget_s=budget_s,
                     started=started, callbacks=callbacks)
    rec = recommend(space, outcome.trials)
    notes = list(rec.notes)
    if space.latency_bound and not any(t.config.num_workers == 0 for t in outcome.trials):
        notes.insert(0, f"num_workers=0 not measured: {probe.describe()}, so one process "
                     f"loads at most ~{1 / probe.wall_s:,.0f} samples/s")
    elif probe.items:
        notes.insert(0, f"probe: {probe.describe()}")
    notes.extend(space.limits.notes)
    interrupt = outcome.interrupt
    if advise and outcome.stopped_by != "interrupted":
        chosen = next((t for t in outcome.trials if t.ok and t.config == rec.config), None)
        length = sample_length(prep.loaded)
        try:
            for advice in (
                    advise_threads(prep.source, chosen, prep.plan, prep.machine.usable_cpus),
                    advise_cache(prep.source, chosen, prep.plan, length,
                                 space.limits.memory_budget)):
                if advice is not None:
                    notes.append(advice.text)
        except KeyboardInterrupt as err:  # what was measured is kept and stored
            interrupt = err
            notes.append("advice not measured: interrupted")
    if prep.loaded.parts is not None:
        notes.append(kept_parts_note(prep.loaded))
    reason = rec.reason
    if outcome.stopped_by == "budget" and outcome.budget_note:
        reason = f"{outcome.budget_note}; best so far kept (the search was at: {reason})"
    elif outcome.stopped_by == "interrupted":
        reason = f"interrupted after {len(outcome.trials)} trials; best so far kept"
    result = TuneResult(
        kwargs=rec.config.to_kwargs(include_batch_size=False), config=rec.config,
        trials=outcome.trials, reason=reason, seconds=time.monotonic() - started,
        notes=notes, dataset=prep.loaded.describe(), spec=prep.loaded.spec,
        machine=prep.machine, plan=prep.plan,
        probe={**probe.to_dict(), "handover_s": handover,
               "loader_uss": prep.probed.loader_uss, "main_pss": prep.probed.main_pss},
        stopped_by=outcome.stopped_by, started_at=started_at,
        fingerprints={**prep.fingerprints, "request_key": prep.request_key},
        interrupt=interrupt)
    if history is not None and outcome.trials:
        result.run_id = history.save(
            result.to_dict(), request_key=prep.request_key, machine=prep.fingerprints["machine"],
            dataset_fp=prep.fingerprints["dataset"], request=prep.fingerprints["request"],
            machine_key=fp.digest(prep.fingerprints["machine"]),
            dataset_key=fp.digest(prep.fingerprints["dataset"]))
    return result


def _served(stored: dict[str, Any], seconds: float, path: Path) -> TuneResult:
    result = TuneResult.from_dict(stored)
    took = result.seconds
    result.from_store = True
    result.seconds = seconds
    result.reason = (f"from history: run #{result.run_id} of {result.started_at} (measured in "
                     f"{took:.0f} s, stored in {path}); pass fresh=True / --fresh to "
                     f"re-measure. It stopped because: {result.reason}")
    return result


def tune_detailed(dataset: Any, batch_size: int | None = None, *, step: Step = None,
                  budget_s: float | None = None, memory_budget: int | str | None = None,
                  max_workers: int | None = None, collate_fn: Any = None,
                  start_method: str | None = None, store: StoreArg = None,
                  fresh: bool = False, split: str = "train") -> TuneResult:
    """Search DataLoader settings for ``dataset`` on this machine; the result with evidence.

    ``dataset`` is a spec string ("module:attr"), a Dataset, a DataLoader or a
    LightningDataModule (``split`` "train" or "val" picks its loader); a loader is measured as
    it is, with only the tuned knobs changed, and brings its batch size (``batch_size`` is
    needed for a bare dataset only). ``step`` a callable run on each
    batch, a number of seconds per batch (burnt on the CPU) or None; ``memory_budget`` bytes
    or a string like "8GiB" / "80%" (default: 80 % of available memory); ``store`` a history
    file path (default: the user's cache dir, ``LOADERTUNE_STORE``) or False for none;
    ``fresh`` re-measures even when history holds a result. Ctrl-C stores what finished and
    raises KeyboardInterrupt.
    """
    result = run_tune(dataset, batch_size, step=step, budget_s=budget_s,
                      memory_budget=memory_budget, max_workers=max_workers,
                      collate_fn=collate_fn, start_method=start_method, store=store,
                      fresh=fresh, split=split)
    if result.interrupt is not None:
        raise result.interrupt
    return result


def tune(dataset: Any, batch_size: int | None = None, *, step: Step = None,
         budget_s: float | None = None, memory_budget: int | str | None = None,
         max_workers: int | None = None, collate_fn: Any = None,
         start_method: str | None = None, store: StoreArg = None, fresh: bool = False,
         split: str = "train") -> dict[str, Any]:
    """DataLoader keyword arguments (without batch_size) tuned for ``dataset`` here.

    ``loader = DataLoader(dataset, batch_size=B, **loadertune.tune(dataset, B))``; for a
    DataLoader, `loadertune.tuned(loader)` builds the tuned one. See `tune_detailed` for the
    arguments and for the evidence.
    """
    return dict(tune_detailed(dataset, batch_size, step=step, budget_s=budget_s,
                              memory_budget=memory_budget, max_workers=max_workers,
                              collate_fn=collate_fn, start_method=start_method, store=store,
                              fresh=fresh, split=split).kwargs)
