"""The catalogue of known DataLoader failures, one module per theme.

Each module holds plain `Signature` data. Add a cause by appending a `Signature` to the
module of its theme (or a new module listed here); ids are a stable contract of
`explain --json`, so never rename one.
"""

from __future__ import annotations

import dataclasses

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
    hugging_face,
    layouts,
    library_messages,
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
from loadertune.explain.signature import Signature, said

RAISED_WEIGHT = 4.0  # a library raised this message: the cause, in its own words
WARNED_WEIGHT = 1.0  # it warned: printed in runs that fail for other reasons too
WORKER_EXCEPTION = "worker_exception"
COLLATE_IDS = frozenset(s.id for s in collate.SIGNATURES)


def with_library_messages(signature: Signature) -> Signature:
    """The entry with what libraries raise and warn about its cause (`library_messages`)
    as signals of their own, which also satisfy its context."""
    said_here = tuple(
        signal for messages, weight in (
            (library_messages.RAISED.get(signature.id), RAISED_WEIGHT),
            (library_messages.WARNED.get(signature.id), WARNED_WEIGHT)) if messages
        for signal in said(messages, weight))
    if not said_here:
        return signature
    # raised inside a worker, the message comes wrapped in the worker's exception; collate's
    # failures keep the order their own signals give them against it (the corpus settles it)
    explains = signature.explains
    if (signature.id in library_messages.RAISED and WORKER_EXCEPTION not in explains
            and signature.id not in COLLATE_IDS):
        explains += (WORKER_EXCEPTION,)
    return dataclasses.replace(
        signature, signals=signature.signals + said_here,
        context=signature.context + said_here if signature.context else (), explains=explains)


ENTRIES: tuple[Signature, ...] = (
    *shm.SIGNATURES, *fds.SIGNATURES, *spawn.SIGNATURES, *devices.SIGNATURES,
    *workers.SIGNATURES, *api.SIGNATURES, *building.SIGNATURES, *data.SIGNATURES,
    *samples.SIGNATURES, *streaming.SIGNATURES, *releases.SIGNATURES, *collate.SIGNATURES,
    *state.SIGNATURES, *frameworks.SIGNATURES, *throughput.SIGNATURES,
    *resources.SIGNATURES, *batches.SIGNATURES, *hugging_face.SIGNATURES, *layouts.SIGNATURES,
    *harmless.SIGNATURES,
)
CATALOGUE: tuple[Signature, ...] = tuple(with_library_messages(s) for s in ENTRIES)


def by_id(cause_id: str) -> Signature | None:
    return next((s for s in CATALOGUE if s.id == cause_id), None)
