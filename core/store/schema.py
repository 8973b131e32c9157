"""Opening a store: identify the file read-only, check it, then open it read-write;
migrate older schemas in place only when the caller allows (after a backup) and
refuse schemas newer than this build knows.  Never recreates a store silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DatabaseError, OperationalError

if TYPE_CHECKING:
    from alembic.config import Config

from memdesk.core.errors import (
    SchemaOutdatedError,
    SchemaTooNewError,
    StoreDamagedError,
    StoreForeignError,
    StoreOpenError,
)
from memdesk.core.store.check import OPEN_CHECK_BUDGET_S, CheckReport, open_check
from memdesk.core.store.db import (
    BUSY_TIMEOUT_S,
    connect_raw,
    default_store_path,
    display_url,
    make_engine,
    sqlite_path,
    to_url,
    writer,
)
from memdesk.core.store.identity import Identity, StoreKind, identify, stamp_statements

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
LEGACY_REVISION = "0001"  # a Recall store without alembic_version

# The revision chain, kept here so opening a current store does not import Alembic
# (~0.2 s of start-up).  tests/store/test_migrations.py checks it against the scripts.
REVISIONS = (
    "0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010", "0011",
    "0012", "0013", "0014", "0015", "0016", "0018", "0019", "0020",
    "0021", "0022", "0023", "0024",
)
HEAD = REVISIONS[-1]
MIGRATION_LOCK_KEY = 0x6D656D6465736B  # "memdesk": PostgreSQL advisory lock for upgrades
# Revisions after which a SQLite file is compacted (VACUUM, outside the migration's
# transaction): 0012 drops the 1.5 KB vector from every memories row in place, and
# SQLite does not merge b-tree pages when rows shrink, so without it the table keeps
# its old size and a full-table UPDATE (maintain's decay) still writes every old page.
COMPACT_AFTER = frozenset({"0012"})


def _config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def script_revisions() -> list[str]:
    """The revision chain as Alembic reads it from the migration scripts, oldest first."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(_config())
    return [s.revision for s in reversed(list(scripts.walk_revisions()))]


def head_revision() -> str:
    return HEAD


def known_revisions() -> set[str]:
    return set(REVISIONS)


@dataclass(frozen=True)
class SchemaState:
    revision: str | None  # None: empty database
    legacy: bool  # Recall store with no version table
    head: str

    @property
    def needs_upgrade(self) -> bool:
        return self.revision != self.head


@dataclass(frozen=True)
class OpenReport:
    """What opening did, so the GUI and CLI can say it."""

    url: str
    created: bool
    upgraded_from: str | None
    upgraded_to: str | None
    backup: Path | None
    read_only: bool = False  # damaged: opened read-only (see health)
    health: CheckReport | None = None

    @property
    def message(self) -> str | None:
        if self.read_only and self.health is not None:
            return f"The store is open read-only: {self.health.summary()}"
        if self.created:
            return f"Created a new store at {self.url}"
        if self.upgraded_to:
            where = f" (backup: {self.backup})" if self.backup else ""
            src = self.upgraded_from or "unversioned"
            return f"Upgraded store schema from {src} to {self.upgraded_to}{where}"
        return None


def translate(exc: BaseException, url: str) -> StoreOpenError:
    """Turn driver errors into the store's own errors with a readable message."""
    from memdesk.core.store.faults import translate_driver_error

    return translate_driver_error(exc, display_url(url))  # never echo a password


def schema_state(engine: Engine) -> SchemaState:
    head = head_revision()
    with engine.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        if "alembic_version" in tables:
            revs = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
            if len(revs) > 1:
                raise StoreOpenError(f"The store has several schema heads {revs}; cannot open it.")
            if revs:
                return SchemaState(revs[0], False, head)
        if "memories" in tables:
            return SchemaState(LEGACY_REVISION, True, head)
        if tables:
            raise StoreOpenError(
                "This database holds other tables but no memdesk or Recall store; "
                "refusing to add a store to it."
            )
        return SchemaState(None, False, head)


def upgrade(
    engine: Engine, state: SchemaState, path: Path | None = None
) -> tuple[str | None, Path | None]:
    """Migrate to head under the write lock; returns the revision found there (None:
    a new store; HEAD: another process upgraded it meanwhile) and the backup written.

    The revision read before is only a hint: several processes may open an old
    store at once.  BEGIN IMMEDIATE serialises them, and the revision is read again
    inside the lock, so the first migrates and the others find the head and do nothing.
    A backup (core.store.backup) is written inside the same lock, before any change.
    """
    found, backup = _migrate(engine, path)
    _compact_if_needed(engine, found)
    return found, backup


def _compact_if_needed(engine: Engine, found: str | None) -> None:
    if engine.dialect.name != "sqlite" or found is None or found not in REVISIONS:
        return
    if COMPACT_AFTER & set(REVISIONS[REVISIONS.index(found) + 1:]):
        raw = engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert driver is not None  # None only once detached; this one was just checked out
            driver.execute("VACUUM")
        finally:
            raw.close()


def _migrate(engine: Engine, path: Path | None) -> tuple[str | None, Path | None]:
    from alembic import command

    cfg = _config()
    with writer(engine).begin() as conn:
        if conn.dialect.name == "postgresql":
            # PostgreSQL's twin of BEGIN IMMEDIATE here: one migrator at a time per
            # database (released at commit); the others then find the head.
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        found = _locked_revision(conn)
        if found == HEAD:
            return HEAD, None
        backup = None
        if found is not None and path is not None:
            # From a second, read-only connection: SQLite's backup cannot read through
            # a connection that holds a write transaction, and ours keeps other
            # writers out, so the copy is exactly what the migration starts from.
            from memdesk.core.store.backup import backup_store

            backup = backup_store(path, reason=f"pre-{found}").path
        cfg.attributes["connection"] = conn
        if found == LEGACY_REVISION and not _has_version_table(conn):
            command.stamp(cfg, LEGACY_REVISION)
        command.upgrade(cfg, "head")
        if conn.dialect.name == "sqlite":
            for stmt in stamp_statements(HEAD):
                conn.exec_driver_sql(stmt)
        return found, backup


def _has_version_table(conn: Connection) -> bool:
    return "alembic_version" in set(inspect(conn).get_table_names())


def _locked_revision(conn: Connection) -> str | None:
    tables = set(inspect(conn).get_table_names())
    if "alembic_version" in tables:
        rev = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        if rev is not None:
            return str(rev)
    if "memories" in tables:
        return LEGACY_REVISION
    return None


def _check_path(url: str, create: bool) -> Path | None:
    path = sqlite_path(url)
    if path is None:
        return None
    if path.is_dir():
        raise StoreOpenError(f"{path} is a folder, not a store file.")
    if not path.exists():
        if not create:
            raise StoreOpenError(f"There is no store at {path}.")
        if not path.parent.exists():
            if path == default_store_path():
                path.parent.mkdir(parents=True, exist_ok=True)
            else:
                raise StoreOpenError(f"The folder {path.parent} does not exist.")
    return path


def _identify(path: Path, url: str, *, create: bool, allow_upgrade: bool,
              timeout: float = BUSY_TIMEOUT_S) -> Identity:
    """Read-only identification; raises for anything we must not open read-write."""
    ident = identify(path, timeout)
    if ident.kind is StoreKind.FOREIGN:
        raise StoreForeignError(
            f"{path} is not a memdesk or Recall store ({ident.detail}); memdesk opens only "
            "its own stores. Nothing was changed."
        )
    if ident.kind is StoreKind.EMPTY and not create:
        raise StoreOpenError(
            f"{path} is empty, not a memdesk store. Nothing was changed (create a store "
            "with `memdesk add` or File → New store)."
        )
    if ident.revision is not None and ident.revision not in known_revisions():
        raise SchemaTooNewError(
            f"The store {url} has schema revision {ident.revision}, which this memdesk "
            f"does not know (newest known: {HEAD}). Update memdesk to open it."
        )
    if ident.revision is not None and ident.revision != HEAD and not allow_upgrade:
        raise SchemaOutdatedError(
            f"The store {url} has schema {ident.revision}; this memdesk needs {HEAD}. "
            "Nothing was changed. Run `memdesk db upgrade` (a backup is written first)."
        )
    return ident


def open_engine(
    db: str | Path | None = None,
    *,
    create: bool = True,
    allow_upgrade: bool = False,
    busy_timeout: float | None = None,
    if_damaged: str = "refuse",
    check_budget: float | None = OPEN_CHECK_BUDGET_S,
) -> tuple[Engine, OpenReport]:
    """Open (and create or migrate as allowed) the store at ``db``.

    A SQLite file is identified and checked through a read-only connection first;
    only a healthy memdesk or Recall store is then opened read-write (WAL) and, when
    ``allow_upgrade``, migrated.  ``if_damaged``: "refuse" raises StoreDamagedError,
    "read_only" opens a damaged store read-only (the report says what is wrong).
    ``check_budget``: seconds for the open check (None: unbounded; 0: skip it).
    """
    url = to_url(db)
    shown = display_url(url)
    path = _check_path(url, create)
    timeout = BUSY_TIMEOUT_S if busy_timeout is None else busy_timeout
    health: CheckReport | None = None
    ident: Identity | None = None
    if path is not None and path.exists():
        ident = _identify(path, url, create=create, allow_upgrade=allow_upgrade,
                          timeout=timeout)
        if ident.kind is not StoreKind.EMPTY and check_budget != 0:
            health = _open_check(path, check_budget)
            if health.damaged:
                if if_damaged != "read_only":
                    raise StoreDamagedError(damage_message(url, path, health), health)
                engine = make_engine(url, read_only=True, busy_timeout=timeout)
                return engine, OpenReport(url, False, None, None, None, True, health)
    # An older store is migrated in the journal mode it has: switched to WAL only once
    # the upgrade committed, so a failed upgrade leaves the file exactly as it was.
    migrating = ident is not None and ident.revision is not None and ident.revision != HEAD
    engine = make_engine(url, keep_journal=migrating, busy_timeout=timeout)
    try:
        state = schema_state(engine)
        if state.revision is not None and state.revision not in known_revisions():
            raise SchemaTooNewError(
                f"The store {shown} has schema revision {state.revision}, which this memdesk "
                f"does not know (newest known: {state.head}). Update memdesk to open it."
            )
        report = OpenReport(shown, False, None, None, None, False, health)
        if state.revision is None:
            upgrade(engine, state)
            report = OpenReport(shown, True, None, None, None, False, health)
        elif state.needs_upgrade:
            if not allow_upgrade:
                raise SchemaOutdatedError(
                    f"The store {shown} has schema {state.revision}; this memdesk needs "
                    f"{state.head}. Run `memdesk db upgrade`."
                )
            found, backup = upgrade(engine, state, path)
            if migrating:
                engine.dispose()
                engine = make_engine(url, busy_timeout=timeout)
                engine.connect().close()  # the first connection switches it to WAL
            if found != HEAD:  # another process may have upgraded it while we waited
                report = OpenReport(shown, False, found, HEAD, backup, False, health)
        return engine, report
    except (OperationalError, DatabaseError) as exc:
        engine.dispose()
        raise translate(exc, url) from exc
    except BaseException:
        engine.dispose()
        raise


def _open_check(path: Path, budget: float | None) -> CheckReport:
    conn = connect_raw(path, read_only=True)
    try:
        return open_check(conn, path, budget)
    finally:
        conn.close()


def damage_message(url: str, path: Path | None, health: CheckReport) -> str:
    """What is wrong with a damaged store and the backup to restore, for people."""
    from memdesk.core.store.backup import latest_good_backup

    msg = f"The store {url} is damaged and was not changed: {health.summary()}."
    good = latest_good_backup(path) if path is not None else None
    if good is not None:
        msg += (f"\nThe latest good backup is {good.path} ({good.when:%Y-%m-%d %H:%M} UTC). "
                f"Restore it with: memdesk db restore {good.path} --db {path}")
    else:
        msg += "\nNo backup of it was found; `memdesk db check` lists the damage."
    return msg
