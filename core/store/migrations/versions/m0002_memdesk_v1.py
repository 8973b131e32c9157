"""memdesk v1: stable integer key, layer, soft delete, typed timestamps, audit log, FTS.

The Recall table is rebuilt (copy, drop, rename) because SQLite cannot change a
primary key in place; the copy normalises ISO-8601 timestamps to UTC.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

COPY_COLS = (
    "id, user_id, text, type, topic, importance, confidence, source_session, created_at, "
    "last_accessed, access_count, decay_score, superseded_by, embedding, entity, attribute, "
    "value, valid_until"
)


def _ts(col: str, dialect: str) -> str:
    if dialect == "sqlite":
        # strftime understands 'T' separators and +HH:MM offsets and converts to UTC.
        return f"coalesce(strftime('%Y-%m-%d %H:%M:%f', {col}), {col})"
    return f"CAST({col} AS TIMESTAMPTZ) AT TIME ZONE 'UTC'"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        # Old rows may point at rows copied after them; check FKs at commit instead.
        op.execute("PRAGMA defer_foreign_keys = ON")
    # Rename first and create the new table under its final name: dropping an old
    # table that a new table's FK points at would fire ON DELETE SET NULL on the copy.
    op.rename_table("memories", "memories_old")
    if dialect == "postgresql":
        op.execute("ALTER TABLE memories_old DROP CONSTRAINT IF EXISTS memories_pkey")
    op.create_table(
        "memories",
        sa.Column("seq", Seq, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("topic", sa.String(200)),
        sa.Column("importance", sa.Float, nullable=False, server_default="0.5"),
        sa.Column("confidence", sa.Float, nullable=False, server_default="0.8"),
        sa.Column("source_session", sa.String(200)),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("last_accessed", sa.DateTime),
        sa.Column("access_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("decay_score", sa.Float),
        sa.Column(
            "superseded_by",
            sa.String(64),
            sa.ForeignKey("memories.id", ondelete="SET NULL", name="fk_memories_superseded_by"),
        ),
        sa.Column("embedding", sa.LargeBinary),
        sa.Column("entity", sa.String(200)),
        sa.Column("attribute", sa.String(200)),
        sa.Column("value", sa.Text),
        sa.Column("valid_until", sa.DateTime),
        sa.Column("layer", sa.String(32)),
        sa.Column("deleted_at", sa.DateTime),
    )
    select = (
        "id, user_id, text, type, topic, coalesce(importance, 0.5), coalesce(confidence, 0.8), "
        f"source_session, {_ts('created_at', dialect)}, {_ts('last_accessed', dialect)}, "
        "coalesce(access_count, 0), decay_score, superseded_by, embedding, entity, attribute, "
        f"value, {_ts('valid_until', dialect)}"
    )
    order = " ORDER BY rowid" if dialect == "sqlite" else ""
    if dialect == "postgresql":
        op.execute("SET CONSTRAINTS ALL DEFERRED")
    op.execute(f"INSERT INTO memories ({COPY_COLS}) SELECT {select} FROM memories_old{order}")
    op.drop_table("memories_old")

    op.create_index("ix_memories_user_valid", "memories", ["user_id", "valid_until"])
    op.create_index("ix_memories_entity_attr", "memories", ["entity", "attribute"])
    op.create_index("ix_memories_type", "memories", ["type"])
    op.create_index("ix_memories_importance", "memories", ["importance"])
    op.create_index("ix_memories_created_at", "memories", ["created_at"])
    op.create_index("ix_memories_superseded_by", "memories", ["superseded_by"])

    op.create_table(
        "memory_events",
        sa.Column("id", Seq, primary_key=True, autoincrement=True),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("before", sa.Text),
        sa.Column("after", sa.Text),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("group_id", sa.String(64)),
        sa.Column("undoes", Seq),
        sa.Column("undone_by", Seq),
        sa.Column("note", sa.Text),
    )
    op.create_index("ix_memory_events_memory", "memory_events", ["memory_id", "id"])
    op.create_index("ix_memory_events_group", "memory_events", ["group_id"])

    if dialect == "sqlite":
        for stmt in FTS_SQLITE:
            op.execute(stmt)
    elif dialect == "postgresql":
        op.execute(
            "CREATE INDEX ix_memories_text_fts ON memories "
            "USING gin (to_tsvector('simple', text))"
        )


# The triggers that keep memories_fts in step with memories; migration 0007 re-creates
# these same three around its new FTS table.
FTS_TRIGGERS = (
    "CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN "
    "INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text); END",
    "CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN "
    "INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text); END",
    "CREATE TRIGGER memories_fts_au AFTER UPDATE OF text ON memories BEGIN "
    "INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text); "
    "INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text); END",
)
FTS_SQLITE = (
    "CREATE VIRTUAL TABLE memories_fts USING fts5("
    "text, content='memories', content_rowid='seq', tokenize='unicode61 remove_diacritics 2')",
    *FTS_TRIGGERS,
    "INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')",
)


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
