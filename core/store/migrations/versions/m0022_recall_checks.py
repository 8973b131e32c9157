"""Recall checks: pinned queries and the memories agents must (not) get back for them.

- ``recall_checks``: one row per check: the user, the query, the expected and the
  forbidden memory ids (JSON lists), who added it and when, ``removed_at`` (a removal
  keeps the row so undo brings it back) and the latest run's verdict (``last_run_at``,
  ``last_passed``, ``last_result``).  Adding and removing are audited in
  ``memory_events`` under the ``check`` stream (``target`` = the check's id).

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0022
Revises: 0021
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recall_checks",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("expect", sa.Text(), nullable=False),
        sa.Column("expect_not", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("created_by", sa.String(32), nullable=False),
        sa.Column("removed_at", sa.DateTime(), nullable=True),
        sa.Column("last_run_at", sa.DateTime(), nullable=True),
        sa.Column("last_passed", sa.Boolean(), nullable=True),
        sa.Column("last_result", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
