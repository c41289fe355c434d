"""Checks before a sweep starts, so bad input fails in a second with one clear line."""

from __future__ import annotations

from collections.abc import Sequence

from loadertune.config import LoaderConfig
from loadertune.errors import ConfigError, DatasetSpecError
from loadertune.machine import MachineInfo
from loadertune.pipeline import LoadedDataset, check_not_empty
from loadertune.pipeline.picklecheck import find_unpicklable
from loadertune.trial.mainguard import unguarded_call
from loadertune.units import format_bytes

# The least memory one more worker costs: a forked worker shares the parent's pages until it
# writes them; a spawned one is a new interpreter that imports torch again.
WORKER_FLOOR_BYTES = {"fork": 16 * 2**20, "spawn": 120 * 2**20, "forkserver": 120 * 2**20}


def check_picklable(loaded: LoadedDataset, configs: Sequence[LoaderConfig]) -> None:
    """Spawn and forkserver workers receive the dataset pickled: fail early if it can't be."""
    methods = {c.start_method for c in configs if c.num_workers > 0}
    needing = sorted(methods & {"spawn", "forkserver"})
    if not needing:
        return
    unguarded = unguarded_call()
    if unguarded is not None:  # each spawn worker would run the call again
        raise ConfigError(unguarded.message())
    worker_init_fn = loaded.parts.worker_init_fn if loaded.parts is not None else None
    for obj, name in ((loaded.dataset, "dataset"), (loaded.collate_fn, "collate_fn"),
                      (worker_init_fn, "worker_init_fn")):
        if obj is None:
            continue
        found = find_unpicklable(obj, name)
        if found is not None:
            raise DatasetSpecError(
                f"{'/'.join(needing)} workers get the {name} pickled, and {found[1]}; "
                "open such resources lazily in __getitem__ or worker_init_fn, use a module-level "
                "function instead of a lambda, or use the fork start method"
            )


def check_rebuild(loaded: LoadedDataset, configs: Sequence[LoaderConfig]) -> None:
    """Build the user's loader with each config once (no worker starts until it is iterated),
    so one that cannot be rebuilt fails now, in one line that names the part."""
    if loaded.parts is None:
        return
    for config in configs:
        try:
            loaded.loader(config)
        except Exception as err:
            raise DatasetSpecError(f"your {loaded.origin} cannot be rebuilt with "
                                   f"{config.label()}: {type(err).__name__}: {err}") from err


def check_memory(configs: Sequence[LoaderConfig], machine: MachineInfo) -> None:
    """Refuse worker counts that cannot fit in available memory even at their smallest."""
    worst = max(configs, key=lambda c: c.num_workers * WORKER_FLOOR_BYTES[c.start_method])
    need = worst.num_workers * WORKER_FLOOR_BYTES[worst.start_method]
    if need > machine.memory_room:
        floor = WORKER_FLOOR_BYTES[worst.start_method]
        most = machine.memory_room // floor
        raise ConfigError(
            f"{worst.num_workers} {worst.start_method} workers need at least "
            f"{format_bytes(need)} (~{format_bytes(floor)} each) but only "
            f"{format_bytes(machine.memory_room)} is available; use at most {most} workers"
        )


def preflight(loaded: LoadedDataset, configs: Sequence[LoaderConfig],
              machine: MachineInfo) -> None:
    """All checks that need no trial: non-empty dataset, picklable under spawn, memory, the
    user's loader rebuilt with every config."""
    check_not_empty(loaded)
    check_memory(configs, machine)
    check_picklable(loaded, configs)
    check_rebuild(loaded, configs)
