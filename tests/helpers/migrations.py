"""Building a store at an older schema revision, for the tests of what upgrades do."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from memdesk.core.store.identity import stamp_statements
from memdesk.core.store.schema import MIGRATIONS_DIR


def upgrade_to(conn: Connection, revision: str) -> None:
    """Run the migrations up to ``revision`` on ``conn`` (inside its transaction)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, revision)


def stamped_upgrade_to(conn: Connection, revision: str) -> None:
    """``upgrade_to``, then the file's stamp (application id, user_version) that memdesk
    writes with every migration: a SQLite store as memdesk left it at ``revision``."""
    upgrade_to(conn, revision)
    for stmt in stamp_statements(revision):
        conn.exec_driver_sql(stmt)
