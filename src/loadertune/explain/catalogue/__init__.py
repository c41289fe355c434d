"""The catalogue of known DataLoader failures, one module per theme.

Each module holds plain `Signature` data. Add a cause by appending a `Signature` to the
module of its theme (or a new module listed here); ids are a stable contract of
`explain --json`, so never rename one.
"""

from __future__ import annotations

from loadertune.explain.catalogue import (
    api,
    batches,
    building,
    collate,
    data,
    devices,
    fds,
    frameworks,
    harmless,
    releases,
    resources,
    samples,
    shm,
    spawn,
    state,
    streaming,
    throughput,
    workers,
)
from loadertune.explain.signature import Signature

CATALOGUE: tuple[Signature, ...] = (
    *shm.SIGNATURES, *fds.SIGNATURES, *spawn.SIGNATURES, *devices.SIGNATURES,
    *workers.SIGNATURES, *api.SIGNATURES, *building.SIGNATURES, *data.SIGNATURES,
    *samples.SIGNATURES, *streaming.SIGNATURES, *releases.SIGNATURES, *collate.SIGNATURES,
    *state.SIGNATURES, *frameworks.SIGNATURES, *throughput.SIGNATURES,
    *resources.SIGNATURES, *batches.SIGNATURES,
    *harmless.SIGNATURES,
)


def by_id(cause_id: str) -> Signature | None:
    return next((s for s in CATALOGUE if s.id == cause_id), None)
