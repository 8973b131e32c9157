"""The MCP server's access log: one row per tool call.

- ``mcp_access``: when, who (the bearer token's name; ``local`` over stdio and on an
  open loopback server), the transport, the tool, the user it acted for, how many
  memories it returned or changed, the outcome (ok, refused, error) and how long it
  took.  Appended in batches by a background writer (core/guard/access.py), pruned
  after a retention; kept out of ``memory_events`` so reads never grow the audit
  trail that undo and the snapshot cache walk.

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_access",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                  primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("caller", sa.String(64), nullable=False),
        sa.Column("transport", sa.String(32), nullable=False),
        sa.Column("tool", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(200), nullable=True),
        sa.Column("results", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("ms", sa.Float(), nullable=True),
    )
    op.create_index("ix_mcp_access_caller_at", "mcp_access", ["caller", "at"])
    op.create_index("ix_mcp_access_at", "mcp_access", ["at"])


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
