"""A `db upgrade` that fails leaves the older store byte-identical: not even its journal
mode changes (it is switched to WAL only once the migration committed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.migrations.versions.m0001_recall_schema import RECALL_SCHEMA


def recall_file(path: Path) -> Path:
    """A small store as Recall writes it (rollback journal, its own schema)."""
    conn = sqlite3.connect(path)
    conn.execute(RECALL_SCHEMA.replace("BYTEA_OR_BLOB", "BLOB"))
    for i in range(20):
        conn.execute("INSERT INTO memories (id, user_id, text, type, importance, confidence, "
                     "created_at, access_count) VALUES (?,?,?,?,?,?,?,?)",
                     (f"r{i}", "alice", f"Recall memory {i}", "fact", 0.5, 0.8,
                      "2025-01-02T10:00:00", 0))
    conn.commit()
    conn.close()
    return path


def test_a_failed_upgrade_changes_not_one_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = recall_file(tmp_path / "recall.db")
    original = path.read_bytes()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("the backup folder is a file: the pre-upgrade backup fails")
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(blocker))
    assert main(["db", "upgrade", "--db", str(path)]) == 3
    assert "Traceback" not in capsys.readouterr().err
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder", "recall.db"]

    # With a usable backup folder the same file upgrades, and only then goes to WAL.
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(tmp_path / "backups"))
    assert main(["db", "upgrade", "--db", str(path)]) == 0
    assert "Upgraded" in capsys.readouterr().out
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 20
    finally:
        conn.close()
