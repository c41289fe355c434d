"""The SQLite history: round trip, schema version, path resolution, concurrent writers."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from tune_helpers import result

from loadertune.config import LoaderConfig
from loadertune.machine import collect
from loadertune.store import HistoryStore, StoreError, default_store_path, resolve_store_path
from loadertune.store.db import SCHEMA_VERSION, connect
from loadertune.tuning.result import TuneResult


def tune_result(rate: float = 123.0) -> TuneResult:
    config = LoaderConfig(num_workers=2, batch_size=8, persistent_workers=True)
    trials = [result(LoaderConfig(batch_size=8), 50.0), result(config, rate)]
    return TuneResult(kwargs=config.to_kwargs(include_batch_size=False), config=config,
                      trials=trials, reason="synthetic", seconds=3.0, dataset="ds",
                      spec="pkg:ds", machine=collect())


def save(store: HistoryStore, res: TuneResult, key: str = "k1") -> int:
    return store.save(res.to_dict(), request_key=key, machine={"cpu": "x"},
                      dataset_fp={"class": "ds"}, request={"batch_size": 8},
                      machine_key="m1", dataset_key="d1")


def test_round_trip(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite")
    original = tune_result()
    run_id = save(store, original)
    found = store.find("k1")
    assert found is not None and found["run_id"] == run_id
    back = TuneResult.from_dict(found)
    assert back.config == original.config
    assert back.kwargs == original.kwargs
    assert [t.samples_per_s for t in back.trials] == [t.samples_per_s for t in original.trials]
    assert back.machine == original.machine
    assert store.find("other") is None
    [summary] = store.runs()
    assert summary.id == run_id and summary.trial_count == 2
    shown = store.get(run_id)
    assert shown["machine_fingerprint"] == {"cpu": "x"} and shown["stored_trials"] == 2
    with pytest.raises(StoreError, match="no run 999"):
        store.get(999)


def test_interrupted_runs_are_kept_but_not_served(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite")
    res = tune_result()
    res.stopped_by = "interrupted"
    save(store, res)
    assert store.find("k1") is None
    assert store.runs()[0].status == "interrupted"


def test_wal_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    conn = connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer loadertune"):
        connect(path)


def test_a_file_that_is_not_a_store_names_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="--store"):
        HistoryStore(path).runs()


def test_store_path_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOADERTUNE_STORE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_store_path() == tmp_path / "cache" / "loadertune" / "history.sqlite"
    monkeypatch.setenv("LOADERTUNE_STORE", str(tmp_path / "env.sqlite"))
    assert default_store_path() == tmp_path / "env.sqlite"
    assert resolve_store_path(tmp_path / "x.sqlite") == tmp_path / "x.sqlite"


def _writer(path: str, worker: int, runs: int) -> None:
    store = HistoryStore(Path(path))
    for i in range(runs):
        save(store, tune_result(rate=float(worker * 1000 + i)), key=f"w{worker}")


def test_concurrent_writers_do_not_corrupt_the_store(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(path), w, 8)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = HistoryStore(path)
    runs = store.runs()
    assert len(runs) == 32
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 64
    conn.close()
    for w in range(4):
        found = store.find(f"w{w}")
        assert found is not None
