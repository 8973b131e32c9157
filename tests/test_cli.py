"""The memdesk CLI, run as a real subprocess where exit codes and streams matter."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.app.main import main


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memdesk.app.main", *args],
        capture_output=True, text=True, timeout=120,
    )


def test_add_list_show_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["add", "--db", db, "--user", "alice", "--type", "preference", "--text",
                 "User prefers <b>dark</b> mode", "--importance", "0.7", "--layer",
                 "procedural", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["text"] == "User prefers <b>dark</b> mode" and added["layer"] == "procedural"
    assert main(["--db", db, "list", "--json", "--text", "dark"]) == 0  # --db before the command
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [added["id"]]
    assert main(["list", "--db", db, "--count", "--importance", "0.6:0.8"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["show", "--db", db, added["id"], "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["history"][0]["action"] == "add" and shown["history"][0]["actor"] == "agent"


def test_bad_values_exit_2_and_write_nothing(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    rc = main(["add", "--db", db, "--user", "u", "--type", "opinion", "--text", "x"])
    assert rc == 2 and "type" in capsys.readouterr().err
    rc = main(["add", "--db", db, "--user", "u", "--type", "fact", "--text", "x",
               "--importance", "nan"])
    assert rc == 2 and "importance" in capsys.readouterr().err
    assert main(["list", "--db", db, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "0"


def test_store_errors_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 500)
    r = cli("list", "--db", str(bad))
    assert r.returncode == 3 and "not a readable" in r.stderr and "Traceback" not in r.stderr
    r = cli("list", "--db", str(tmp_path / "missing.db"))
    assert r.returncode == 3 and "no store" in r.stderr
    r = cli("list", "--db", str(tmp_path / "no" / "dir.db"))
    assert r.returncode == 3


def test_newer_schema_exit_3(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert main(["add", "--db", str(db), "--user", "u", "--type", "fact", "--text", "t"]) == 0
    conn = sqlite3.connect(db)
    conn.execute("UPDATE alembic_version SET version_num='zzz'")
    conn.commit()
    conn.close()
    r = cli("list", "--db", str(db))
    assert r.returncode == 3 and "zzz" in r.stderr and "Update memdesk" in r.stderr


def test_show_unknown_exit_4(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    main(["add", "--db", db, "--user", "u", "--type", "fact", "--text", "t"])
    capsys.readouterr()
    assert main(["show", "--db", db, "nope"]) == 4


def test_db_info_and_upgrade(tmp_path: Path) -> None:
    from tests.test_migrations import make_recall_store

    db = make_recall_store(tmp_path / "recall.db", rows=4)
    r = cli("db", "upgrade", "--db", str(db))
    assert r.returncode == 0 and "Upgraded store schema from 0001" in r.stdout
    r = cli("db", "info", "--db", str(db), "--json")
    info = json.loads(r.stdout)
    from memdesk.core.store.db import DRIVER, DRIVER_NAME

    assert info["sqlite_library_version"] == DRIVER.sqlite_version
    assert info["sqlite_driver"] == DRIVER_NAME
    assert info["counts"]["total"] == 4 and info["journal_mode"] == "wal"
    r = cli("db", "info", "--db", str(db))
    assert "sqlite_library_version" in r.stdout
    if info["sqlite_wal_reset_bug"]:
        assert "WAL-reset bug" in r.stdout


def test_demo_command(tmp_path: Path) -> None:
    out = tmp_path / "demo.db"
    r = cli("demo", "--out", str(out), "--size", "500", "--seed", "3")
    assert r.returncode == 0, r.stderr
    r = cli("list", "--db", str(out), "--count")
    assert r.stdout.strip() == "500"
    r = cli("demo", "--out", str(out), "--size", "10")
    assert r.returncode == 2 and "--force" in r.stderr
