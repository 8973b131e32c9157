"""Opening bad, locked, corrupt and too-new stores gives clear errors and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.errors import (
    SchemaOutdatedError,
    SchemaTooNewError,
    StoreCorruptError,
    StoreLockedError,
    StoreOpenError,
)
from memdesk.core.store.db import DRIVER
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.raw_sql import sqlite_file


def test_corrupt_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    data = b"this is not sqlite at all\n" * 100
    bad.write_bytes(data)
    with pytest.raises(StoreCorruptError, match="not a readable"):
        MemoryStore.open(bad)
    assert bad.read_bytes() == data


def test_locked_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    MemoryStore.open(path).close()
    holder = DRIVER.connect(path, isolation_level=None)  # same library: locks are per process
    holder.execute("PRAGMA journal_mode=DELETE")  # WAL would let readers through
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreLockedError, match="locked"):
            MemoryStore.open(path, busy_timeout=0.2)
    finally:
        holder.rollback()
        holder.close()


def test_missing_folder_and_folder_path(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError, match="does not exist"):
        MemoryStore.open(tmp_path / "nope" / "x.db")
    with pytest.raises(StoreOpenError, match="folder"):
        MemoryStore.open(tmp_path)
    with pytest.raises(StoreOpenError, match="no store"):
        MemoryStore.open(tmp_path / "absent.db", create=False)


def test_newer_schema_is_refused(store_path: Path) -> None:
    MemoryStore.open(store_path).close()
    sqlite_file(store_path, "UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(SchemaTooNewError, match="9999"):
        MemoryStore.open(store_path)


def test_foreign_database_is_not_touched(tmp_path: Path) -> None:
    path = sqlite_file(tmp_path / "other.db", "CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(StoreOpenError, match="not a memdesk or Recall store"):
        MemoryStore.open(path)


def test_outdated_schema_without_upgrade_permission(tmp_path: Path) -> None:
    from tests.helpers.recall import make_recall_store

    path = make_recall_store(tmp_path / "recall.db", rows=3)
    with pytest.raises(SchemaOutdatedError, match="db upgrade"):
        MemoryStore.open(path, allow_upgrade=False)
