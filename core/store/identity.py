"""Identify a file before touching it: is it a memdesk store, a Recall store, empty,
or something else?

Everything here reads through a read-only (``mode=ro``) connection, so a file that
turns out to be another application's database, a damaged store or not SQLite at
all is left byte-for-byte as it was.  Stores memdesk creates or upgrades carry
``PRAGMA application_id`` = :data:`APPLICATION_ID` and ``user_version`` = the schema
revision number, set by :func:`stamp` inside the migration's transaction.
"""

from __future__ import annotations

import sqlite3
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from memdesk.core.errors import StoreCorruptError, StoreOpenError
from memdesk.core.store.db import BUSY_TIMEOUT_S, DRIVER, connect_raw

# "MDSK": registered nowhere, but distinct from the values in SQLite's magic.txt.
APPLICATION_ID = 0x4D44534B
SQLITE_MAGIC = b"SQLite format 3\x00"
# The columns every Recall (the write-phase design) memories table has; another application's
# table that happens to be called "memories" lacks some of them.
RECALL_COLUMNS = frozenset(
    {"id", "user_id", "text", "type", "importance", "confidence", "created_at"}
)


class StoreKind(StrEnum):
    MEMDESK = "memdesk"  # ours, at some revision
    RECALL = "recall"  # Recall's schema without a version table (revision 0001)
    EMPTY = "empty"  # zero bytes, or a SQLite file with no tables yet
    FOREIGN = "foreign"  # another application's database


@dataclass(frozen=True)
class Identity:
    """What a file is, read without changing it."""

    kind: StoreKind
    revision: str | None = None
    application_id: int = 0
    user_version: int = 0
    journal_mode: str | None = None
    detail: str = ""


def read_header(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(100)


def identify(path: Path, timeout: float = BUSY_TIMEOUT_S) -> Identity:
    """Classify the file at ``path``; raises StoreCorruptError when SQLite cannot read it.

    ``timeout``: how long to wait for a lock, as long as the open that asks: another
    process upgrading the store holds it for the length of its migrations, and a
    fixed 2 s made a fourth process opening an old store at once give up while the
    first was still migrating it."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            # A named pipe or a device would block the read below, or never end.
            raise StoreOpenError(
                f"{path} is not a regular file (a folder, a named pipe or a device), so it "
                "is not a memdesk store. Nothing was read or changed.")
        size = st.st_size
        header = read_header(path)
    except OSError as exc:
        raise StoreOpenError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    if size == 0:
        return Identity(StoreKind.EMPTY, detail="the file is empty")
    if not header.startswith(SQLITE_MAGIC):
        raise StoreCorruptError(
            f"{path} is not a readable memdesk store: it is not a SQLite database (or its header "
            "is damaged). Nothing was changed."
        )
    try:
        conn = connect_raw(path, read_only=True, timeout=timeout)
    except DRIVER.Error as exc:
        raise StoreOpenError(f"Cannot open {path} to read it: {exc}. Nothing was changed.") from exc
    try:
        return _classify(conn)
    except DRIVER.Error as exc:
        text = str(exc).lower()
        if "locked" in text or "busy" in text:
            from memdesk.core.errors import StoreLockedError

            raise StoreLockedError(
                f"The store {path} is locked by another program. Close it or try again."
            ) from exc
        raise StoreCorruptError(
            f"{path} cannot be read as a memdesk store: {exc}. The file is damaged or not "
            "a SQLite database. Nothing was changed."
        ) from exc
    finally:
        conn.close()


def _user_tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(r[0]).startswith("sqlite_")}


def _classify(conn: sqlite3.Connection) -> Identity:
    """memdesk's stores are told by their application id, or — for stores an older
    memdesk made before it set one — by a revision memdesk knows *and* every table that
    revision's migrations create; Recall's by its ``memories`` table alone.  Table names
    alone never make a store: another application may well have an ``alembic_version``
    and a ``memories`` table."""
    from memdesk.core.store.schemacheck import reference

    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    user_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    tables = _user_tables(conn)
    common = dict(application_id=app_id, user_version=user_version, journal_mode=journal)
    if app_id not in (0, APPLICATION_ID):
        return Identity(StoreKind.FOREIGN, detail=f"application id {app_id:#x}", **common)
    revs = ([str(r[0]) for r in conn.execute("SELECT version_num FROM alembic_version")]
            if "alembic_version" in tables else [])
    if app_id == APPLICATION_ID:
        if "alembic_version" in tables and "memories" in tables:
            if len(revs) != 1:
                raise StoreOpenError(f"The store has schema heads {revs}; cannot open it.")
            return Identity(StoreKind.MEMDESK, revision=revs[0], **common)
        if not tables:
            return Identity(StoreKind.EMPTY, **common)
        raise StoreCorruptError("The store's version table is missing: it is damaged.")
    if "alembic_version" in tables:
        expected = reference(revs[0]) if len(revs) == 1 else None
        needed = {name for kind, name in expected or () if kind == "table"}
        if expected is not None and revs[0] != "0001" and needed <= tables:
            return Identity(StoreKind.MEMDESK, revision=revs[0], **common)
        shown = ", ".join(revs) or "none"
        return Identity(StoreKind.FOREIGN, detail=(
            f"no memdesk application id, and its version table (revision {shown}) and "
            "tables are not those of a memdesk store"), **common)
    if "memories" in tables:
        cols = {r[1] for r in conn.execute("PRAGMA table_info(memories)")}
        if not cols >= RECALL_COLUMNS:
            return Identity(StoreKind.FOREIGN, detail="its memories table is not Recall's",
                            **common)
        if tables - {"memories"}:
            return Identity(StoreKind.FOREIGN, detail=(
                "a memories table like Recall's beside other tables "
                f"({', '.join(sorted(tables - {'memories'})[:5])})"), **common)
        return Identity(StoreKind.RECALL, revision="0001", **common)
    if tables:
        return Identity(StoreKind.FOREIGN, detail="other tables", **common)
    return Identity(StoreKind.EMPTY, **common)


def stamp_statements(revision: str) -> list[str]:
    """The PRAGMAs that mark a store as memdesk's at ``revision`` (run in its transaction)."""
    return [
        f"PRAGMA application_id = {APPLICATION_ID}",
        f"PRAGMA user_version = {int(revision)}",
    ]
