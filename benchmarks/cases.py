"""The workloads the tuner-vs-grid benchmark runs, at quick and at realistic sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loadertune import workloads


@dataclass(frozen=True)
class Case:
    """One bundled workload: factory arguments and batch size, quick and full."""

    name: str
    quick: dict[str, Any]
    full: dict[str, Any]
    quick_batch: int
    full_batch: int
    note: str = field(default="", compare=False)

    def params(self, quick: bool) -> dict[str, Any]:
        return dict(self.quick if quick else self.full)

    def batch_size(self, quick: bool) -> int:
        return self.quick_batch if quick else self.full_batch

    def build(self, quick: bool) -> Any:
        """The dataset object (jpeg files are generated into the cache folder once)."""
        return getattr(workloads, self.name)(**self.params(quick))


# Batch sizes keep one batch at roughly 10-100 ms of work, so that a trial, whose timed windows
# hold at least 2 × workers × prefetch batches, stays a few seconds long in --quick.
CASES: tuple[Case, ...] = (
    Case("jpeg", {"size": 64}, {"size": 512}, 8, 32, "CPU-bound decode + augment"),
    Case("remote", {"size": 400}, {"size": 2_000}, 4, 16,
         "20 ms sleep per item standing for object-store latency"),
    Case("tiny", {"size": 20_000}, {"size": 100_000}, 64, 64, "IPC-bound"),
    Case("bigtensor", {"size": 32}, {"size": 128}, 1, 4, "8 MB items, shared-memory bound"),
    Case("pylist", {"size": 100_000}, {"size": 400_000}, 256, 256, "Python list of dicts"),
    Case("pylist_numpy", {"size": 100_000}, {"size": 400_000}, 256, 256, "same data in numpy"),
    Case("iterable", {"size": 20_000}, {"size": 200_000}, 64, 64, "sharded IterableDataset"),
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
