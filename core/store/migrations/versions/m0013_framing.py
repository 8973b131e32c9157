"""How a memory was said: ``memories.framing`` (NULL, or "hypothetical"); and which
memories an operator curated, cheaply.

A supposition ("Imagine I worked at a bank …") is kept for the operator, at the
write-phase design's capped confidence, but it is no belief: the active belief state
(core/store/query.py) leaves out every row whose framing is set.  NULL for every
existing row, so the upgrade adds the column in place and rewrites nothing; no index:
every reader already filters on other columns first, and the NULL test rides along.

``ix_memory_events_operator``: a partial index on ``memory_events(memory_id)`` over the
operator's events only.  A memory is curated once an operator acted on it; the worker
and ``maintain`` ask that of many memories at once, and the audit log holds an "add"
(and more) for every memory, so a full index would be as large as the log while this
one holds only the operator's few rows.

``ix_memories_active_triple`` (the contradiction scan's covering partial index) is
rebuilt with ``framing IS NULL`` in its predicate: a hypothetical forms no
contradiction group ("works_at: a bank ≠ Acme" is a supposition against a belief).

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

ACTIVE_TRIPLE = (
    "valid_until IS NULL AND superseded_by IS NULL AND deleted_at IS NULL "
    "AND quarantined_at IS NULL AND framing IS NULL "
    "AND entity IS NOT NULL AND attribute IS NOT NULL AND value IS NOT NULL"
)


def upgrade() -> None:
    op.add_column("memories", sa.Column("framing", sa.String(32), nullable=True))
    op.create_index("ix_memory_events_operator", "memory_events", ["memory_id"],
                    sqlite_where=sa.text("actor = 'operator'"),
                    postgresql_where=sa.text("actor = 'operator'"))
    op.drop_index("ix_memories_active_triple", table_name="memories")
    cols = ["user_id", "entity", "attribute"]
    if op.get_bind().dialect.name == "sqlite":
        cols += ["value", "type", "created_at", "valid_until", "superseded_by", "deleted_at",
                 "quarantined_at", "framing"]
    op.create_index(
        "ix_memories_active_triple", "memories", cols,
        sqlite_where=sa.text(ACTIVE_TRIPLE), postgresql_where=sa.text(ACTIVE_TRIPLE),
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
