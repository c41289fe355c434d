"""Runs and their trials in the history store: save one, find a reusable one, list, show."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from loadertune.store.db import StoreError, connect, transaction

REUSABLE = ("search",)  # runs that finished their search may be served again


@dataclass(frozen=True)
class RunSummary:
    """One row of ``loadertune history``."""

    id: int
    created_at: str
    kind: str
    status: str
    dataset: str
    spec: str | None
    batch_size: int
    kwargs: dict[str, Any]
    samples_per_s: float | None
    seconds: float
    trial_count: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class HistoryStore:
    """The SQLite history at ``path``; each call opens, works in a transaction and closes,
    so several processes can share the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _open(self) -> sqlite3.Connection:
        return connect(self.path)

    def save(self, result: dict[str, Any], *, request_key: str, machine: dict[str, Any],
             dataset_fp: dict[str, Any], request: dict[str, Any], machine_key: str,
             dataset_key: str) -> int:
        """Store a run (``TuneResult.to_dict()``) and its trials atomically; returns its id."""
        created = datetime.now(UTC).isoformat(timespec="seconds")
        trials = result.get("trials") or []
        conn = self._open()
        try:
            with transaction(conn):
                conn.execute("INSERT OR REPLACE INTO machines(key, data) VALUES (?, ?)",
                             (machine_key, _json(machine)))
                conn.execute("INSERT OR REPLACE INTO datasets(key, data) VALUES (?, ?)",
                             (dataset_key, _json(dataset_fp)))
                cur = conn.execute(
                    "INSERT INTO runs(created_at, kind, status, request_key, machine_key, "
                    "dataset_key, dataset, spec, batch_size, request, kwargs, samples_per_s, "
                    "seconds, trial_count, reason, result) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (created, result.get("loadertune", "tune"), result.get("stopped_by", "search"),
                     request_key, machine_key, dataset_key, result.get("dataset", ""),
                     result.get("spec"), int(result["config"]["batch_size"]), _json(request),
                     _json(result.get("kwargs")), result.get("samples_per_s"),
                     float(result.get("seconds", 0.0)), len(trials), result.get("reason", ""),
                     _json(result)))
                run_id = int(cur.lastrowid or 0)
                conn.executemany(
                    "INSERT INTO trials(run_id, idx, label, num_workers, prefetch_factor, "
                    "pin_memory, persistent_workers, status, samples_per_s, spread, "
                    "memory_total, wall_s, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, i, t["label"], t["config"]["num_workers"],
                      t["config"]["prefetch_factor"], int(t["config"]["pin_memory"]),
                      int(t["config"]["persistent_workers"]), t["status"], t["samples_per_s"],
                      t["spread"], (t.get("memory") or {}).get("total"), t["wall_s"], _json(t))
                     for i, t in enumerate(trials)])
        finally:
            conn.close()
        return run_id

    def find(self, request_key: str, max_age: timedelta | None = None) -> dict[str, Any] | None:
        """The newest finished run for ``request_key`` (no older than ``max_age``), with its
        ``run_id`` and ``created_at`` filled in; None when there is none."""
        conn = self._open()
        try:
            rows = conn.execute(
                "SELECT id, created_at, result FROM runs WHERE request_key = ? AND status IN "
                f"({', '.join('?' for _ in REUSABLE)}) ORDER BY created_at DESC, id DESC LIMIT 1",
                (request_key, *REUSABLE)).fetchall()
        finally:
            conn.close()
        if not rows:
            return None
        row = rows[0]
        if max_age is not None:
            created = datetime.fromisoformat(row["created_at"])
            if datetime.now(UTC) - created > max_age:
                return None
        data = json.loads(row["result"])
        data["run_id"] = int(row["id"])
        data["created_at"] = row["created_at"]
        return data

    def runs(self, limit: int | None = None) -> list[RunSummary]:
        """Runs, newest first."""
        conn = self._open()
        try:
            sql = ("SELECT id, created_at, kind, status, dataset, spec, batch_size, kwargs, "
                   "samples_per_s, seconds, trial_count, reason FROM runs ORDER BY id DESC")
            rows = conn.execute(sql + (" LIMIT ?" if limit else ""),
                                (limit,) if limit else ()).fetchall()
        finally:
            conn.close()
        return [RunSummary(id=r["id"], created_at=r["created_at"], kind=r["kind"],
                           status=r["status"], dataset=r["dataset"], spec=r["spec"],
                           batch_size=r["batch_size"], kwargs=json.loads(r["kwargs"]),
                           samples_per_s=r["samples_per_s"], seconds=r["seconds"],
                           trial_count=r["trial_count"], reason=r["reason"]) for r in rows]

    def get(self, run_id: int) -> dict[str, Any]:
        """One run's full record, with the machine and dataset fingerprints it ran on."""
        conn = self._open()
        try:
            row = conn.execute(
                "SELECT runs.id, runs.created_at, runs.result, runs.request, machines.data AS m, "
                "datasets.data AS d FROM runs JOIN machines ON machines.key = runs.machine_key "
                "JOIN datasets ON datasets.key = runs.dataset_key WHERE runs.id = ?",
                (run_id,)).fetchone()
            count = conn.execute("SELECT COUNT(*) FROM trials WHERE run_id = ?",
                                 (run_id,)).fetchone()[0]
        finally:
            conn.close()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.path}; `loadertune history` lists them")
        data = json.loads(row["result"])
        data.update(run_id=int(row["id"]), created_at=row["created_at"],
                    request=json.loads(row["request"]), machine_fingerprint=json.loads(row["m"]),
                    dataset_fingerprint=json.loads(row["d"]), stored_trials=count)
        return data


def _json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str)
