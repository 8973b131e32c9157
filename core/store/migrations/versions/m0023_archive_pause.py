"""Archive and pause: a memory kept but never recalled, a token stopped but not revoked.

- ``memories.archived_at``: when the memory was archived (NULL: not archived).  An
  archived memory is kept, shown and searchable in the desk, and is no part of the
  active belief state, so no retrieval channel, injection or curation queue sees it
  (core/store/query.py).  A partial index: almost every row is NULL.
- ``ix_memories_active_triple`` (the contradiction scan's covering partial index) is
  rebuilt with ``archived_at IS NULL`` in its predicate (and, on SQLite, among its
  columns): an archived memory forms no contradiction group.
- ``mcp_tokens.paused_at``: when the operator paused the token (NULL: not paused).  A
  paused token keeps its secret; its calls are refused until it is resumed.

Plain ADD COLUMN (nullable, no default): SQLite adds them without copying the tables.
Portable to PostgreSQL.

Revision ID: 0023
Revises: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


ACTIVE_TRIPLE = (
    "valid_until IS NULL AND superseded_by IS NULL AND deleted_at IS NULL "
    "AND quarantined_at IS NULL AND framing IS NULL AND archived_at IS NULL "
    "AND entity IS NOT NULL AND attribute IS NOT NULL AND value IS NOT NULL"
)


def upgrade() -> None:
    op.add_column("memories", sa.Column("archived_at", sa.DateTime(), nullable=True))
    op.create_index("ix_memories_archived", "memories", ["archived_at"],
                    sqlite_where=sa.text("archived_at IS NOT NULL"),
                    postgresql_where=sa.text("archived_at IS NOT NULL"))
    op.drop_index("ix_memories_active_triple", table_name="memories")
    cols = ["user_id", "entity", "attribute"]
    if op.get_bind().dialect.name == "sqlite":
        cols += ["value", "type", "created_at", "valid_until", "superseded_by", "deleted_at",
                 "quarantined_at", "framing", "archived_at"]
    op.create_index(
        "ix_memories_active_triple", "memories", cols,
        sqlite_where=sa.text(ACTIVE_TRIPLE), postgresql_where=sa.text(ACTIVE_TRIPLE),
    )
    op.add_column("mcp_tokens", sa.Column("paused_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
