"""Make ix_memories_superseded_by partial (superseded_by IS NOT NULL).

Almost every row has superseded_by NULL, so after ANALYZE SQLite's planner reads the
full index's statistics as "nearly unique" and uses it for ``superseded_by IS NULL``
— i.e. for every active-belief-state query — walking most of the table through the
index (≈350 ms at 1M rows).  A partial index still serves chain lookups
(``superseded_by = ?`` / ``IN (...)`` imply NOT NULL) and is invisible to IS NULL.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_memories_superseded_by", table_name="memories")
    op.create_index(
        "ix_memories_superseded_by",
        "memories",
        ["superseded_by"],
        sqlite_where=sa.text("superseded_by IS NOT NULL"),
        postgresql_where=sa.text("superseded_by IS NOT NULL"),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ANALYZE memories")


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
