"""The duplicates queue: the write path's flags and the operator's "not duplicates".

- ``duplicate_flags``: a new memory the job worker found restating an active one
  (``memdesk.core.write.duplicates``).
- ``duplicate_dismissals``: members an operator said are not duplicates
  (``memdesk.core.curation.duplicates``); in force while its audit group is not undone.

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "duplicate_flags",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("duplicate_of", sa.String(64), nullable=False),
        sa.Column("cosine", sa.Float()),
        sa.Column("same_text", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_duplicate_flags_user", "duplicate_flags", ["user_id", "id"])
    op.create_index("ix_duplicate_flags_memory", "duplicate_flags", ["memory_id"])
    op.create_table(
        "duplicate_dismissals",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("member_seqs", sa.Text(), nullable=False),
        sa.Column("member_ids", sa.Text(), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("note", sa.Text()),
    )
    op.create_index("ix_duplicate_dismissals_user", "duplicate_dismissals", ["user_id"])


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
