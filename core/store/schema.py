"""Opening a store: checks the file, migrates older schemas in place (after a backup)
and refuses schemas newer than this build knows.  Never recreates a store silently.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DatabaseError, OperationalError

from memdesk.core.errors import (
    SchemaOutdatedError,
    SchemaTooNewError,
    StoreCorruptError,
    StoreLockedError,
    StoreOpenError,
)
from memdesk.core.store.db import (
    default_store_path,
    display_url,
    make_engine,
    sqlite_path,
    to_url,
    writer,
)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
LEGACY_REVISION = "0001"  # a Recall store without alembic_version

# The revision chain, kept here so opening a current store does not import Alembic
# (~0.2 s of start-up).  tests/test_migrations.py checks it against the scripts.
REVISIONS = (
    "0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010", "0011",
)
HEAD = REVISIONS[-1]


def _config():  # type: ignore[no-untyped-def]
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

    @property
    def message(self) -> str | None:
        if self.created:
            return f"Created a new store at {self.url}"
        if self.upgraded_to:
            where = f" (backup: {self.backup})" if self.backup else ""
            src = self.upgraded_from or "unversioned"
            return f"Upgraded store schema from {src} to {self.upgraded_to}{where}"
        return None


def translate(exc: BaseException, url: str) -> StoreOpenError:
    """Turn driver errors into the store's own errors with a readable message."""
    url = display_url(url)  # never echo a server password
    text = str(getattr(exc, "orig", exc)).lower()
    if "locked" in text or "busy" in text:
        return StoreLockedError(
            f"The store {url} is locked by another program. Close it or try again."
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreCorruptError(
            f"The file {url} is not a readable memdesk store (it is not a SQLite "
            "database, or it is damaged). Nothing was changed."
        )
    if "unable to open" in text:
        return StoreOpenError(f"Cannot open {url}: the file or its folder is not accessible.")
    return StoreOpenError(f"Cannot open {url}: {getattr(exc, 'orig', exc)}")


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


def _backup(path: Path, revision: str | None) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    dest = path.with_name(f"{path.name}.pre-{revision or 'legacy'}-{stamp}.bak")
    src = sqlite3.connect(str(path))
    try:
        dst = sqlite3.connect(str(dest))
        with dst:
            src.backup(dst)
        dst.close()
    finally:
        src.close()
    return dest


def upgrade(engine: Engine, state: SchemaState) -> None:
    from alembic import command

    cfg = _config()
    with writer(engine).begin() as conn:
        cfg.attributes["connection"] = conn
        if state.legacy:
            command.stamp(cfg, LEGACY_REVISION)
        command.upgrade(cfg, "head")


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


def open_engine(
    db: str | Path | None = None,
    *,
    create: bool = True,
    allow_upgrade: bool = True,
    busy_timeout: float | None = None,
) -> tuple[Engine, OpenReport]:
    """Open (and create or migrate as allowed) the store at ``db``."""
    url = to_url(db)
    shown = display_url(url)
    path = _check_path(url, create)
    existed = path is not None and path.exists() and path.stat().st_size > 0
    engine = make_engine(url, **({} if busy_timeout is None else {"busy_timeout": busy_timeout}))
    try:
        state = schema_state(engine)
        if state.revision is not None and state.revision not in known_revisions():
            raise SchemaTooNewError(
                f"The store {shown} has schema revision {state.revision}, which this memdesk "
                f"does not know (newest known: {state.head}). Update memdesk to open it."
            )
        report = OpenReport(shown, created=False, upgraded_from=None, upgraded_to=None, backup=None)
        if state.revision is None:
            upgrade(engine, state)
            report = OpenReport(shown, True, None, None, None)
        elif state.needs_upgrade:
            if not allow_upgrade:
                raise SchemaOutdatedError(
                    f"The store {shown} has schema {state.revision}; this memdesk needs "
                    f"{state.head}. Run `memdesk db upgrade`."
                )
            backup = _backup(path, state.revision) if (path is not None and existed) else None
            upgrade(engine, state)
            report = OpenReport(shown, False, state.revision, state.head, backup)
        return engine, report
    except (OperationalError, DatabaseError) as exc:
        engine.dispose()
        raise translate(exc, url) from exc
    except BaseException:
        engine.dispose()
        raise
