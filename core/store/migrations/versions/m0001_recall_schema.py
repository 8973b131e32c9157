"""Recall's memories table exactly as the write-phase design defines it.

A store written by Recall itself (no alembic_version table) is recognised as this
revision and upgraded in place from here.

Revision ID: 0001
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

RECALL_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL,
    topic TEXT,
    importance REAL DEFAULT 0.5,
    confidence REAL DEFAULT 0.8,
    source_session TEXT,
    created_at TEXT NOT NULL,
    last_accessed TEXT,
    access_count INTEGER DEFAULT 0,
    decay_score REAL,
    superseded_by TEXT,
    embedding BYTEA_OR_BLOB,
    entity TEXT,
    attribute TEXT,
    value TEXT,
    valid_until TEXT
)
"""


def upgrade() -> None:
    blob = "BYTEA" if op.get_bind().dialect.name == "postgresql" else "BLOB"
    op.execute(RECALL_SCHEMA.replace("BYTEA_OR_BLOB", blob))


def downgrade() -> None:
    op.execute("DROP TABLE memories")
