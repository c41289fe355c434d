"""The workloads the tuner-vs-grid benchmark runs, at quick and at realistic sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loadertune import workloads


@dataclass(frozen=True)
class Case:
    """One bundled workload: factory arguments, batch size and timed-window length."""

    name: str
    quick: dict[str, Any]
    full: dict[str, Any]
    batch: tuple[int, int]  # (quick, full)
    window: tuple[int, int]  # batches per timed window (quick, full); more with many workers
    note: str = field(default="", compare=False)
    memory_mib: tuple[int, int] | None = None  # memory budget (quick, full) in MiB

    def memory_budget(self, quick: bool) -> int | None:
        """The memory budget of every trial and of the tuner, in bytes (None: the default)."""
        if self.memory_mib is None:
            return None
        return (self.memory_mib[0] if quick else self.memory_mib[1]) * 2**20

    def params(self, quick: bool) -> dict[str, Any]:
        return dict(self.quick if quick else self.full)

    def batch_size(self, quick: bool) -> int:
        return self.batch[0] if quick else self.batch[1]

    def batches(self, quick: bool) -> int:
        return self.window[0] if quick else self.window[1]

    def build(self, quick: bool) -> Any:
        """The dataset object (jpeg files are generated into the cache folder once)."""
        return getattr(workloads, self.name)(**self.params(quick))


# --quick keeps each trial to a few seconds (on 2 busy cores a trial's fixed cost, starting
# Python, torch and the workers, is already 1.5-4 s): batches of ~10-50 ms for the slow
# workloads, short windows for the cheap ones. The trial makes every window at least
# 2 × workers × prefetch batches anyway. Full runs use realistic sizes and long windows.
CASES: tuple[Case, ...] = (
    Case("jpeg", {"size": 64}, {"size": 512}, (8, 32), (6, 20), "CPU-bound decode + augment"),
    Case("remote", {"size": 400}, {"size": 2_000}, (4, 16), (4, 20),
         "20 ms sleep per item standing for object-store latency"),
    Case("tiny", {"size": 20_000}, {"size": 100_000}, (64, 64), (20, 400), "IPC-bound"),
    Case("bigtensor", {"size": 32}, {"size": 128}, (1, 4), (6, 20),
         "8 MB items, shared-memory bound"),
    Case("pylist", {"size": 100_000}, {"size": 400_000}, (256, 256), (8, 100),
         "Python list of dicts"),
    Case("pylist_numpy", {"size": 100_000}, {"size": 400_000}, (256, 256), (8, 200),
         "the same data in numpy arrays"),
    Case("iterable", {"size": 20_000}, {"size": 200_000}, (64, 64), (20, 400),
         "sharded IterableDataset"),
    Case("mixed", {"size": 2_000}, {"size": 8_000}, (8, 32), (6, 20),
         "1.5 ms CPU with a heavy tail; 30 % of items also wait 4 ms"),
    Case("worker_cache", {"size": 2_000, "cache_mb": 150}, {"size": 4_000, "cache_mb": 600},
         (8, 32), (4, 20), "a private cache per worker against a memory budget; 4 ms waits",
         memory_mib=(1150, 2400)),
    Case("tokenize", {"size": 2_000, "words": 1_500}, {"size": 8_000, "words": 1_500},
         (16, 64), (6, 20), "pure-Python tokenizer: GIL-bound"),
)


def select(names: str | None) -> list[Case]:
    """The cases named in a comma list (all when None); unknown names raise ValueError."""
    if not names:
        return list(CASES)
    by_name = {c.name: c for c in CASES}
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        raise ValueError(f"unknown workload(s) {', '.join(unknown)}; "
                         f"choose from {', '.join(by_name)}")
    return [by_name[n] for n in wanted]
