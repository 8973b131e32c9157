"""core/store/identity.py: what each kind of file is identified as, and the exact refusals.

Files are built with raw SQLite in the test (application_id, tables, version rows), so
each case is milliseconds; every identification must leave the file byte-for-byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.errors import StoreCorruptError, StoreOpenError
from memdesk.core.store.db import connect_raw
from memdesk.core.store.identity import (
    APPLICATION_ID,
    RECALL_COLUMNS,
    Identity,
    StoreKind,
    identify,
    read_header,
    stamp_statements,
)
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.store_files import real_store_file

RECALL_DDL = ("CREATE TABLE memories(id TEXT, user_id TEXT, text TEXT, type TEXT, "
              "importance REAL, confidence REAL, created_at TEXT{extra})")


def _db(path: Path, *sql: str, wal: bool = False) -> Path:
    c = connect_raw(path, read_only=False)
    if wal:
        c.execute("PRAGMA journal_mode = WAL")
    c.execute("PRAGMA synchronous = OFF")
    for s in sql:
        c.execute(s)
    c.close()
    return path


def _identify_unchanged(path: Path) -> Identity:
    before = path.read_bytes()
    got = identify(path)
    assert path.read_bytes() == before
    return got


def test_a_store_file_says_mdsk_in_its_header(store: MemoryStore, store_path: Path) -> None:
    # SQLite's application id (header bytes 68-71) is how `file` and memdesk tell a
    # memdesk store from any other SQLite file.
    store.checkpoint()
    assert Path(store_path).read_bytes()[68:72] == b"MDSK"


def test_stamp_statements() -> None:
    assert stamp_statements("0012") == [
        "PRAGMA application_id = 1296323403",
        "PRAGMA user_version = 12",
    ]


def test_read_header_reads_the_first_100_bytes(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(bytes(range(200)))
    assert read_header(p) == bytes(range(100))


# --- files that never reach SQLite ------------------------------------------------------


def test_zero_byte_file_is_empty(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    p.write_bytes(b"")
    assert _identify_unchanged(p) == Identity(StoreKind.EMPTY, detail="the file is empty")


def test_missing_file_cannot_be_read(tmp_path: Path) -> None:
    p = tmp_path / "nope.db"
    with pytest.raises(StoreOpenError) as ei:
        identify(p)
    assert str(ei.value) == f"Cannot read {p}: No such file or directory."
    assert not p.exists()


def test_non_sqlite_file_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "notes.db"
    p.write_bytes(b"hello, this is a text file\n" * 10)
    with pytest.raises(StoreCorruptError) as ei:
        _identify_unchanged(p)
    assert str(ei.value) == (
        f"{p} is not a readable memdesk store: it is not a SQLite database (or its header "
        "is damaged). Nothing was changed.")


def test_sqlite_header_with_garbage_body_is_corrupt(tmp_path: Path) -> None:
    p = tmp_path / "bad.db"
    p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    before = p.read_bytes()
    with pytest.raises(StoreCorruptError) as ei:
        identify(p)
    assert str(ei.value) == (
        f"{p} cannot be read as a memdesk store: file is not a database. The file is damaged "
        "or not a SQLite database. Nothing was changed.")
    assert p.read_bytes() == before


# --- classification ---------------------------------------------------------------------


def test_sqlite_file_without_tables_is_empty(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "PRAGMA user_version = 3")
    assert _identify_unchanged(p) == Identity(
        StoreKind.EMPTY, application_id=0, user_version=3, journal_mode="delete")


def test_stamped_file_without_tables_is_empty(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", f"PRAGMA application_id = {APPLICATION_ID}", wal=True)
    assert _identify_unchanged(p) == Identity(
        StoreKind.EMPTY, application_id=APPLICATION_ID, user_version=0, journal_mode="wal")


def test_other_application_id_is_foreign(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "PRAGMA application_id = 4660", "PRAGMA user_version = 2",
            "CREATE TABLE alembic_version(version_num TEXT)", RECALL_DDL.format(extra=""))
    assert _identify_unchanged(p) == Identity(
        StoreKind.FOREIGN, application_id=0x1234, user_version=2, journal_mode="delete",
        detail="application id 0x1234")


def test_memdesk_store_reports_its_revision(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", f"PRAGMA application_id = {APPLICATION_ID}",
            "PRAGMA user_version = 9", "CREATE TABLE alembic_version(version_num TEXT)",
            "INSERT INTO alembic_version VALUES ('0009')", "CREATE TABLE memories(x)",
            wal=True)
    assert _identify_unchanged(p) == Identity(
        StoreKind.MEMDESK, revision="0009", application_id=APPLICATION_ID, user_version=9,
        journal_mode="wal")


def test_unstamped_memdesk_store_is_still_memdesk(tmp_path: Path) -> None:
    # Stores from before the stamp: application_id 0, a revision memdesk knows and the
    # tables its migrations create.
    p = real_store_file(tmp_path / "s.db", "PRAGMA application_id = 0", revision="0003")
    got = _identify_unchanged(p)
    assert (got.kind, got.revision, got.application_id) == (StoreKind.MEMDESK, "0003", 0)


@pytest.mark.parametrize("revision", ["0003", "0020", "ae1027a6acf2"])
def test_table_names_alone_do_not_make_a_memdesk_store(tmp_path: Path, revision: str) -> None:
    # Another application's Alembic-managed database with a "memories" table.
    p = _db(tmp_path / "s.db", "CREATE TABLE alembic_version(version_num TEXT)",
            f"INSERT INTO alembic_version VALUES ('{revision}')", "CREATE TABLE memories(x)")
    got = _identify_unchanged(p)
    assert (got.kind, got.revision) == (StoreKind.FOREIGN, None)


@pytest.mark.parametrize(("rows", "shown"), [(("a", "b"), "['a', 'b']"), ((), "[]")])
def test_several_or_no_schema_heads_are_refused(tmp_path: Path, rows: tuple, shown: str) -> None:
    p = _db(tmp_path / "s.db", f"PRAGMA application_id = {APPLICATION_ID}",
            "CREATE TABLE alembic_version(version_num TEXT)",
            *[f"INSERT INTO alembic_version VALUES ('{r}')" for r in rows],
            "CREATE TABLE memories(x)")
    with pytest.raises(StoreOpenError) as ei:
        _identify_unchanged(p)
    assert type(ei.value) is StoreOpenError
    assert str(ei.value) == f"The store has schema heads {shown}; cannot open it."


def test_stamped_file_without_version_table_is_damaged(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", f"PRAGMA application_id = {APPLICATION_ID}",
            "CREATE TABLE memories(x)")
    with pytest.raises(StoreCorruptError) as ei:
        _identify_unchanged(p)
    assert str(ei.value) == "The store's version table is missing: it is damaged."


def test_stamped_file_with_only_version_table_is_damaged(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", f"PRAGMA application_id = {APPLICATION_ID}",
            "CREATE TABLE alembic_version(version_num TEXT)")
    with pytest.raises(StoreCorruptError):
        _identify_unchanged(p)


def test_recall_store_is_revision_0001(tmp_path: Path) -> None:
    assert len(RECALL_COLUMNS) == 7
    p = _db(tmp_path / "s.db", RECALL_DDL.format(extra=", extra TEXT"))
    assert _identify_unchanged(p) == Identity(
        StoreKind.RECALL, revision="0001", application_id=0, user_version=0,
        journal_mode="delete")


@pytest.mark.parametrize("missing", sorted(RECALL_COLUMNS))
def test_memories_table_missing_a_recall_column_is_foreign(tmp_path: Path, missing: str) -> None:
    cols = ", ".join(c for c in sorted(RECALL_COLUMNS) if c != missing)
    p = _db(tmp_path / "s.db", f"CREATE TABLE memories({cols})")
    got = _identify_unchanged(p)
    assert (got.kind, got.detail) == (StoreKind.FOREIGN, "its memories table is not Recall's")


def test_other_tables_are_foreign(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "CREATE TABLE notes(x)")
    assert _identify_unchanged(p) == Identity(
        StoreKind.FOREIGN, application_id=0, user_version=0, journal_mode="delete",
        detail="other tables")


def test_version_table_without_memories_is_foreign(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "CREATE TABLE alembic_version(version_num TEXT)",
            "INSERT INTO alembic_version VALUES ('0009')")
    got = _identify_unchanged(p)
    assert (got.kind, got.revision) == (StoreKind.FOREIGN, None)
    assert "not those of a memdesk store" in got.detail


# --- driver failures while identifying -------------------------------------------------


def test_identify_reads_through_a_read_only_connection_with_the_callers_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memdesk.core.store import identity

    seen: list = []
    real = identity.connect_raw

    def spy(path, **kw):  # type: ignore[no-untyped-def]
        seen.append((path, kw))
        return real(path, **kw)

    p = _db(tmp_path / "s.db", "CREATE TABLE notes(x)")
    monkeypatch.setattr(identity, "connect_raw", spy)
    # As long as the open that asks waits for a lock: a process upgrading the store
    # holds it for the length of its migrations.
    assert identify(p, 0.3).kind is StoreKind.FOREIGN
    assert seen == [(p, {"read_only": True, "timeout": 0.3})]


def test_identify_cannot_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memdesk.core.store import identity
    from memdesk.core.store.db import DRIVER

    def refuse(path, **kw):  # type: ignore[no-untyped-def]
        raise DRIVER.OperationalError("unable to open database file")

    p = _db(tmp_path / "s.db", "CREATE TABLE notes(x)")
    monkeypatch.setattr(identity, "connect_raw", refuse)
    with pytest.raises(StoreOpenError) as ei:
        identify(p)
    assert type(ei.value) is StoreOpenError
    assert str(ei.value) == (f"Cannot open {p} to read it: unable to open database file. "
                             "Nothing was changed.")


@pytest.mark.parametrize("raw", ["database is locked", "Database Busy"])
def test_identify_locked_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               raw: str) -> None:
    from memdesk.core.errors import StoreLockedError
    from memdesk.core.store import identity
    from memdesk.core.store.db import DRIVER

    def locked(conn):  # type: ignore[no-untyped-def]
        raise DRIVER.OperationalError(raw)

    p = _db(tmp_path / "s.db", "CREATE TABLE notes(x)")
    monkeypatch.setattr(identity, "_classify", locked)
    with pytest.raises(StoreLockedError) as ei:
        identify(p)
    assert str(ei.value) == f"The store {p} is locked by another program. Close it or try again."


def test_recall_store_with_exactly_recall_columns(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", RECALL_DDL.format(extra=""), "PRAGMA user_version = 4")
    assert _identify_unchanged(p) == Identity(
        StoreKind.RECALL, revision="0001", application_id=0, user_version=4,
        journal_mode="delete")


def test_non_recall_memories_table_keeps_the_pragmas(tmp_path: Path) -> None:
    p = _db(tmp_path / "s.db", "CREATE TABLE memories(x)", "PRAGMA user_version = 6")
    assert _identify_unchanged(p) == Identity(
        StoreKind.FOREIGN, application_id=0, user_version=6, journal_mode="delete",
        detail="its memories table is not Recall's")
