"""Agent scope: every memory (and every write-path job) may name the agent that wrote it
and the run it belongs to, as agent frameworks scope memory (``agent_id``, ``run_id``).

Both NULL for every existing row and every operator write; an agent sets them on
``store_memory`` and may scope its reads by them.  One index serves "this user's
memories from this agent" (the MCP tools' and the desk's filter).  Plain Alembic
operations: portable to PostgreSQL.

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("memories", "jobs"):
        op.add_column(table, sa.Column("agent_id", sa.String(200), nullable=True))
        op.add_column(table, sa.Column("run_id", sa.String(200), nullable=True))
    op.create_index("ix_memories_user_agent", "memories", ["user_id", "agent_id"])


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
