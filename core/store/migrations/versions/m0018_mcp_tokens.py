"""Bearer tokens for the shared MCP server over HTTP, and the token on agent provenance.

- ``mcp_tokens``: one row per token the operator created (``memdesk tokens add``, or
  File → Agent tokens… in the desk): its name, the SHA-256 of its secret (never the
  secret: it is shown once, at creation), the users it may act for, its rights (read,
  write, forget), when it was created and revoked.  A revoked row stays: its name is
  not reused and the audit trail keeps meaning something.
- ``job_origins.token``: the name of the token an HTTP write came in with (NULL over
  stdio and on an open loopback server).  The triggers of 0011 keep refusing UPDATE
  and DELETE; adding a nullable column changes no existing row.

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0018
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_tokens",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("secret_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("users", sa.Text(), nullable=False),  # JSON list of user ids
        sa.Column("rights", sa.String(64), nullable=False),  # "read,write,forget"
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
    )
    # SQLite: a plain ADD COLUMN (no batch rebuild, which would copy the table and drop
    # the immutability triggers of 0011).
    op.add_column("job_origins", sa.Column("token", sa.String(64), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
