"""core/store/schema.py: the refusals and reports of opening, without running migrations.

Files are raw SQLite built in the test (a version table at some revision, a memories
table, planted damage), so every case stops before Alembic runs and takes
milliseconds.  Messages are pinned word for word: they are what an operator reads.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from memdesk.core.errors import (
    SchemaOutdatedError,
    SchemaTooNewError,
    StoreDamagedError,
    StoreForeignError,
    StoreOpenError,
)
from memdesk.core.store import schema
from memdesk.core.store.backup import backup_dir
from memdesk.core.store.check import CheckReport
from memdesk.core.store.db import connect_raw, default_store_path
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.schema import (
    HEAD,
    OpenReport,
    SchemaState,
    damage_message,
    open_engine,
    schema_state,
)
from tests.helpers.store_files import real_store_file

BAD_INDEX = (
    "CREATE INDEX i ON memories(text)",
    "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = 'CREATE INDEX i ON memories(seq)' WHERE name = 'i'",
)


def _db(path: Path, *sql: str, revision: str | None = HEAD, memories: bool = True) -> Path:
    """A real store at ``revision`` (plus ``sql``), or, without a revision, a file with
    no version table: a ``memories`` table of two columns (not Recall's) when asked."""
    if revision is not None and memories:
        return real_store_file(path, *sql, rows=8, revision=revision)
    c = connect_raw(path, read_only=False)
    c.execute("PRAGMA synchronous = OFF")
    c.execute("BEGIN")
    if revision is not None:
        c.execute("CREATE TABLE alembic_version(version_num TEXT)")
        c.execute(f"INSERT INTO alembic_version VALUES ('{revision}')")
    if memories:
        c.execute("CREATE TABLE memories(seq INTEGER PRIMARY KEY, text TEXT)")
        c.executemany("INSERT INTO memories(text) VALUES (?)", [(f"m{n}",) for n in range(8)])
    for s in sql:
        c.execute(s)
    c.execute("COMMIT")
    c.close()
    return path


def test_revision_chain() -> None:
    assert schema.head_revision() == HEAD == "0024"
    assert schema.known_revisions() == {f"{n:04d}" for n in (*range(1, 17), 18, 19, 20, 21, 22,
                                                              23, 24)}


def test_schema_state_needs_upgrade() -> None:
    assert SchemaState("0011", False, "0012").needs_upgrade is True
    assert SchemaState("0012", False, "0012").needs_upgrade is False
    assert SchemaState(None, False, "0012").needs_upgrade is True


# --- OpenReport.message ---------------------------------------------------------------


def test_open_report_messages() -> None:
    damaged = CheckReport("integrity", ("bad",))
    assert OpenReport("u", False, None, None, None, True, damaged).message == \
        "The store is open read-only: the store is damaged: bad"
    assert OpenReport("u", True, None, None, None).message == "Created a new store at u"
    assert OpenReport("u", False, "0003", "0012", Path("/b/x.db")).message == \
        "Upgraded store schema from 0003 to 0012 (backup: /b/x.db)"
    assert OpenReport("u", False, None, "0012", None).message == \
        "Upgraded store schema from unversioned to 0012"
    assert OpenReport("u", False, None, None, None).message is None
    # read_only without a report says nothing of damage
    assert OpenReport("u", False, None, None, None, True, None).message is None


# --- schema_state on engines --------------------------------------------------------


def _engine(path: Path):  # type: ignore[no-untyped-def]
    return create_engine(f"sqlite:///{path}")


def test_schema_state_of_versioned_legacy_empty_and_foreign(tmp_path: Path) -> None:
    cases = {
        "v.db": ({"revision": "0007"}, SchemaState("0007", False, HEAD)),
        "legacy.db": ({"revision": None}, SchemaState("0001", True, HEAD)),
        "empty.db": ({"revision": None, "memories": False}, SchemaState(None, False, HEAD)),
    }
    for name, (kw, want) in cases.items():
        eng = _engine(_db(tmp_path / name, **kw))
        try:
            assert schema_state(eng) == want, name
        finally:
            eng.dispose()


def test_schema_state_empty_version_table_with_memories_is_legacy(tmp_path: Path) -> None:
    eng = _engine(_db(tmp_path / "s.db", "DELETE FROM alembic_version"))
    try:
        assert schema_state(eng) == SchemaState("0001", True, HEAD)
    finally:
        eng.dispose()


def test_schema_state_refusals(tmp_path: Path) -> None:
    eng = _engine(_db(tmp_path / "two.db", "INSERT INTO alembic_version VALUES ('0011')"))
    try:
        with pytest.raises(StoreOpenError) as ei:
            schema_state(eng)
        assert str(ei.value) == \
            f"The store has several schema heads ['{HEAD}', '0011']; cannot open it."
    finally:
        eng.dispose()
    eng = _engine(_db(tmp_path / "other.db", "CREATE TABLE notes(x)", revision=None,
                      memories=False))
    try:
        with pytest.raises(StoreOpenError) as ei:
            schema_state(eng)
        assert str(ei.value) == ("This database holds other tables but no memdesk or Recall "
                                 "store; refusing to add a store to it.")
    finally:
        eng.dispose()


# --- paths ------------------------------------------------------------------------------


def test_a_folder_is_not_opened_as_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreOpenError) as ei:
        MemoryStore.open(tmp_path)
    assert str(ei.value) == f"{tmp_path} is a folder, not a store file."


def test_a_missing_store_is_created_only_when_asked(tmp_path: Path) -> None:
    missing = tmp_path / "s.db"
    with pytest.raises(StoreOpenError) as ei:
        MemoryStore.open(missing, create=False)
    assert str(ei.value) == f"There is no store at {missing}."
    assert not missing.exists()
    MemoryStore.open(missing).close()
    assert missing.is_file()
    store = MemoryStore.open(missing, create=False)  # now it exists
    store.close()


def test_a_store_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    deep = tmp_path / "no" / "s.db"
    with pytest.raises(StoreOpenError) as ei:
        MemoryStore.open(deep)
    assert str(ei.value) == f"The folder {tmp_path / 'no'} does not exist."
    assert not (tmp_path / "no").exists()


def test_the_default_store_gets_its_folder(tmp_path: Path) -> None:
    # isolated_profile (conftest) points the user data dir into tmp_path.
    default = default_store_path()
    assert tmp_path in default.parents and not default.parent.exists()
    MemoryStore.open().close()
    assert default.is_file()


# --- open_engine's refusals (before any migration) ------------------------------------


def test_foreign_file_is_refused(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "CREATE TABLE notes(x)", revision=None, memories=False)
    with pytest.raises(StoreForeignError) as ei:
        open_engine(p)
    assert str(ei.value) == (f"{p} is not a memdesk or Recall store (other tables); memdesk "
                             "opens only its own stores. Nothing was changed.")


def test_empty_file_without_create_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    p.write_bytes(b"")
    with pytest.raises(StoreOpenError) as ei:
        open_engine(p, create=False)
    assert str(ei.value) == (f"{p} is empty, not a memdesk store. Nothing was changed (create "
                             "a store with `memdesk add` or File → New store).")
    assert p.read_bytes() == b""


def test_unknown_revision_is_too_new(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", revision="0099")
    with pytest.raises(SchemaTooNewError) as ei:
        open_engine(p)
    url = f"sqlite:///{p.resolve()}"
    assert str(ei.value) == (f"The store {url} has schema revision 0099, which this memdesk "
                             f"does not know (newest known: {HEAD}). Update memdesk to open it.")


def test_older_revision_without_upgrade_is_refused(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", revision="0011")
    before = p.read_bytes()
    with pytest.raises(SchemaOutdatedError) as ei:
        open_engine(p)
    url = f"sqlite:///{p.resolve()}"
    assert str(ei.value) == (f"The store {url} has schema 0011; this memdesk needs {HEAD}. "
                             "Nothing was changed. Run `memdesk db upgrade` (a backup is "
                             "written first).")
    assert p.read_bytes() == before


def test_legacy_recall_without_upgrade_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "r.db"
    c = connect_raw(p, read_only=False)
    c.execute("CREATE TABLE memories(id, user_id, text, type, importance, confidence, "
              "created_at)")
    c.close()
    with pytest.raises(SchemaOutdatedError) as ei:
        open_engine(p)
    assert f"has schema 0001; this memdesk needs {HEAD}" in str(ei.value)


def _damaged(tmp_path: Path) -> Path:
    return _db(tmp_path / "s.db", *BAD_INDEX)


def _missing_rows() -> str:
    shown = "; ".join(f"row {n} missing from index i" for n in range(1, 6))
    return f"the store is damaged: {shown} (and 3 more)"


def test_damaged_store_is_refused_with_the_check(tmp_path: Path, backups: Path) -> None:
    p = _damaged(tmp_path)
    before = p.read_bytes()
    with pytest.raises(StoreDamagedError) as ei:
        open_engine(p)
    url = f"sqlite:///{p.resolve()}"
    assert str(ei.value) == (f"The store {url} is damaged and was not changed: "
                             f"{_missing_rows()}.\nNo backup of it was found; "
                             "`memdesk db check` lists the damage.")
    health = ei.value.health
    assert isinstance(health, CheckReport)
    assert (health.level, health.complete, len(health.problems)) == ("integrity", True, 8)
    assert p.read_bytes() == before


def test_damaged_store_can_be_opened_read_only(tmp_path: Path, backups: Path) -> None:
    p = _damaged(tmp_path)
    engine, report = open_engine(p, if_damaged="read_only", busy_timeout=0.5)
    try:
        assert (report.read_only, report.created, report.upgraded_to) == (True, False, None)
        assert report.url == f"sqlite:///{p.resolve()}"
        assert report.health is not None and report.health.damaged
        assert report.message == f"The store is open read-only: {_missing_rows()}"
        with engine.connect() as c:
            assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == 500
            assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "delete"
    finally:
        engine.dispose()
    assert not Path(f"{p}-wal").exists()


def test_check_budget_zero_skips_the_check(tmp_path: Path, backups: Path) -> None:
    p = _damaged(tmp_path)
    engine, report = open_engine(p, check_budget=0)
    try:
        assert report == OpenReport(f"sqlite:///{p.resolve()}", False, None, None, None,
                                    False, None)
        assert report.message is None
    finally:
        engine.dispose()


def test_healthy_current_store_opens_with_its_check(tmp_path: Path, backups: Path) -> None:
    p = _db(tmp_path / "s.db")
    engine, report = open_engine(p, check_budget=None)
    try:
        assert report.health is not None
        assert (report.health.level, report.health.problems, report.health.complete) == \
            ("integrity", (), True)
        assert (report.read_only, report.created, report.upgraded_from) == (False, False, None)
        with engine.connect() as c:
            assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()


# --- damage_message and translate ---------------------------------------------------------


def test_damage_message_names_the_latest_good_backup(tmp_path: Path, backups: Path) -> None:
    store = tmp_path / "s.db"
    folder = backup_dir(store)
    folder.mkdir(parents=True)
    good = _db(folder / "20261101T093000-000000-auto.db")
    (folder / "20261102T093000-000000-auto.db").write_bytes(b"junk" * 100)
    health = CheckReport("integrity", ("bad page",))
    assert damage_message("U", store, health) == (
        "The store U is damaged and was not changed: the store is damaged: bad page."
        f"\nThe latest good backup is {good} (2026-11-01 09:30 UTC). "
        f"Restore it with: memdesk db restore {good} --db {store}")
    assert datetime(2026, 11, 1, 9, 30).strftime("%Y-%m-%d %H:%M") == "2026-11-01 09:30"


def test_damage_message_without_a_path(tmp_path: Path, backups: Path) -> None:
    health = CheckReport("integrity", ("bad page",))
    assert damage_message("U", None, health) == (
        "The store U is damaged and was not changed: the store is damaged: bad page."
        "\nNo backup of it was found; `memdesk db check` lists the damage.")


def test_translate_never_shows_the_password() -> None:
    from memdesk.core.store.db import DRIVER

    err = schema.translate(DRIVER.OperationalError("database is locked"),
                           "postgresql://u:secret@h/db")
    assert str(err) == ("The store postgresql://u:***@h/db is locked by another program. "
                        "Close it or try again.")
