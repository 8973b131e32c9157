"""Fixtures of the store tests (the suite-wide ones are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def old_store(backend: str, tmp_path: Path,
              request: pytest.FixtureRequest) -> Iterator[tuple[Path | str, str]]:
    """Where a test builds a store at an older revision, as (what ``MemoryStore.open``
    takes, the SQLAlchemy URL to build it with): an empty file, or on PostgreSQL an empty
    database (dropped afterwards)."""
    if backend == "sqlite":
        yield tmp_path / "old.db", f"sqlite:///{tmp_path / 'old.db'}"
        return
    server = request.getfixturevalue("pg_server")
    url = server.new_database(prefix="old")
    yield url, url
    server.drop_database(url)


@pytest.fixture
def backups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own backups folder (``MEMDESK_BACKUP_DIR``), not yet created."""
    folder = tmp_path / "backups"
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(folder))
    return folder
