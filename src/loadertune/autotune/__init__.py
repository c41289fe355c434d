"""`loadertune.autotune(loader)`: retune num_workers and prefetch_factor inside the live job.

```python
tuned = loadertune.autotune(loader)          # used exactly like the loader
for epoch in range(epochs):
    for batch in tuned:
        step(batch)
print(tuned.config, tuned.history)           # DataLoader kwargs now; each change and why
```

The batches are exactly the plain loader's (see `feed.py`); what changes is how many worker
processes load them and how far ahead. Under ``torch.distributed`` the ranks of a node change
together, at the same batch (see `distributed.py`); every rank must wrap its loader.
"""

from __future__ import annotations

from typing import Any

from torch.utils.data import DataLoader

from loadertune.autotune.loader import AutotunedLoader, Change
from loadertune.autotune.policy import Bounds, Window, decide
from loadertune.autotune.rebuild import Knobs, knobs_of
from loadertune.callable_module import make_callable
from loadertune.errors import ConfigError

__all__ = ["AutotunedLoader", "Bounds", "Change", "Knobs", "Window", "autotune", "decide"]


def autotune(loader: DataLoader, *, memory_budget: int | str | None = None,
             max_workers: int | None = None, min_workers: int = 0,
             start: dict[str, Any] | None = None, store: Any = None,
             report: bool = True, **options: Any) -> AutotunedLoader:
    """Wrap ``loader``; its settings are retuned at safe points while the job runs.

    ``memory_budget`` bytes or "8GiB" / "80%" (default: the machine's default budget, from the
    tightest real limit); ``max_workers`` (default 16 × the usable CPUs, shared between the
    ``torchrun`` ranks of a node); ``start`` DataLoader kwargs to begin with (default: the
    history's last final setting for this dataset and machine, else the loader's own);
    ``store`` a history file, False for none; ``report`` prints each change and the final
    ``DataLoader(...)`` line. Under ``torch.distributed`` (a collective then: call it on every
    rank) the ranks of a node agree on every change, and only the node's first rank reports.
    """
    from loadertune.autotune.distributed import NodeAgreement, is_distributed
    from loadertune.autotune.session import bounds_for, open_session

    if not isinstance(loader, DataLoader):
        raise ConfigError(f"autotune needs a torch DataLoader, got {type(loader).__name__}")
    if not isinstance(min_workers, int) or min_workers < 0:
        raise ConfigError(f"min_workers must be an integer >= 0, got {min_workers!r}")
    bounds = bounds_for(memory_budget, max_workers, min_workers)
    sync = NodeAgreement.create() if is_distributed() else None
    lead = sync is None or sync.is_leader
    session = open_session(loader, store if lead else False, report and lead)
    knobs = session.start_knobs(start, knobs_of(loader), bounds)
    if sync is not None:
        bounds, knobs = sync.share(bounds, knobs)
    tuned = AutotunedLoader(loader, knobs, bounds, on_change=session.on_change, sync=sync,
                            **options)
    session.attach(tuned)
    return tuned


make_callable(__name__, autotune)
