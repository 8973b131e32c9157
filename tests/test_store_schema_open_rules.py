"""core/store/schema.py: the refusals and reports of opening, without running migrations.

Files are raw SQLite built in the test (a version table at some revision, a memories
table, planted damage), so every case stops before Alembic runs and takes
milliseconds.  Messages are pinned word for word: they are what an operator reads.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

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
from memdesk.core.store.db import connect_raw
from memdesk.core.store.schema import (
    HEAD,
    LEGACY_REVISION,
    OpenReport,
    SchemaState,
    damage_message,
    open_engine,
    schema_state,
)

BAD_INDEX = (
    "CREATE INDEX i ON memories(text)",
    "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = 'CREATE INDEX i ON memories(seq)' WHERE name = 'i'",
)


def _db(path: Path, *sql: str, revision: str | None = HEAD, memories: bool = True) -> Path:
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


@pytest.fixture()
def backups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "backups"
    monkeypatch.setenv("MEMDESK_BACKUP_DIR", str(root))
    return root


def test_revision_chain() -> None:
    assert schema.head_revision() == HEAD == "0020"
    assert schema.known_revisions() == {f"{n:04d}" for n in (*range(1, 17), 18, 19, 20)}
    assert LEGACY_REVISION == "0001"


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


# --- compacting after an upgrade ---------------------------------------------------


class _RawConnection:
    """A stand-in for engine.raw_connection(): records what it is asked to run."""

    def __init__(self) -> None:
        self.driver_connection = self
        self.ran: list[str] = []
        self.closed = False

    def execute(self, sql: str) -> None:
        self.ran.append(sql)

    def close(self) -> None:
        self.closed = True


# COMPACT_AFTER is {"0012"}: a SQLite file found below 0012 is VACUUMed once the
# migration is done; a current or new store, an unknown revision and any other
# database (PostgreSQL: "a SQLite file is compacted") are left as they are.  Ids say
# "pg", not "postgresql": mutation runs deselect that word, and this needs no server.
@pytest.mark.parametrize(("dialect", "found", "ran"), [
    ("sqlite", "0011", ["VACUUM"]),
    ("sqlite", "0001", ["VACUUM"]),
    ("sqlite", "0012", []),
    ("sqlite", None, []),
    ("sqlite", "9999", []),
    ("postgresql", "0011", []),
    ("postgresql", None, []),
], ids=["sqlite-0011", "sqlite-0001", "sqlite-head", "sqlite-new", "sqlite-unknown",
        "pg-0011", "pg-new"])
def test_only_an_upgraded_sqlite_file_is_compacted(dialect: str, found: str | None,
                                                   ran: list[str]) -> None:
    raw = _RawConnection()
    engine = SimpleNamespace(dialect=SimpleNamespace(name=dialect), raw_connection=lambda: raw)
    schema._compact_if_needed(engine, found)
    assert raw.ran == ran
    assert raw.closed is bool(ran)


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


def test_locked_revision(tmp_path: Path) -> None:
    for kw, want in (({"revision": "0005"}, "0005"), ({"revision": None}, "0001"),
                     ({"revision": None, "memories": False}, None)):
        eng = _engine(_db(tmp_path / f"{want}.db", **kw))
        try:
            with eng.connect() as c:
                assert schema._locked_revision(c) == want
                assert schema._has_version_table(c) is ("revision" in kw and
                                                        kw["revision"] is not None)
        finally:
            eng.dispose()


# --- paths ------------------------------------------------------------------------------


def test_check_path(tmp_path: Path) -> None:
    assert schema._check_path("postgresql://u@h/db", create=False) is None
    assert schema._check_path("sqlite://", create=False) is None
    with pytest.raises(StoreOpenError) as ei:
        schema._check_path(f"sqlite:///{tmp_path}", create=True)
    assert str(ei.value) == f"{tmp_path} is a folder, not a store file."
    missing = tmp_path / "s.db"
    with pytest.raises(StoreOpenError) as ei:
        schema._check_path(f"sqlite:///{missing}", create=False)
    assert str(ei.value) == f"There is no store at {missing}."
    assert schema._check_path(f"sqlite:///{missing}", create=True) == missing
    deep = tmp_path / "no" / "s.db"
    with pytest.raises(StoreOpenError) as ei:
        schema._check_path(f"sqlite:///{deep}", create=True)
    assert str(ei.value) == f"The folder {tmp_path / 'no'} does not exist."
    assert not (tmp_path / "no").exists()


def test_check_path_creates_the_default_folder(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    default = tmp_path / "data" / "memdesk" / "memories.db"
    monkeypatch.setattr(schema, "default_store_path", lambda: default)
    assert schema._check_path(f"sqlite:///{default}", create=True) == default
    assert default.parent.is_dir() and not default.exists()


def test_existing_file_path_is_returned(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db")
    assert schema._check_path(f"sqlite:///{p}", create=False) == p


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
