"""The local history of tuning runs (SQLite, stdlib ``sqlite3``)."""

from loadertune.store.db import SCHEMA_VERSION, StoreError
from loadertune.store.history import HistoryStore, RunSummary
from loadertune.store.paths import default_store_path, resolve_store_path

__all__ = ["SCHEMA_VERSION", "HistoryStore", "RunSummary", "StoreError", "default_store_path",
           "resolve_store_path"]
