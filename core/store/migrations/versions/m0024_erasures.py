"""Proven erasure: the record of every permanent purge (``memdesk forget --purge``).

- ``erasures``: one row per purge: when, by whom, what was asked, the verdict of its
  proof and the erasure receipt (JSON: ids, kinds, hashes of the texts, where they
  were removed from, the proof searches and what still holds them, never the text).
- ``erased_memories``: one row per memory a purge erased (its id, kind and the hash of
  its text), so a later purge, edit or undo of that id says it was erased, and when.

Plain Alembic operations: portable to PostgreSQL.

Revision ID: 0024
Revises: 0023
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "erasures",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("who", sa.Text(), nullable=True),
        sa.Column("erased", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("receipt", sa.Text(), nullable=False),
    )
    op.create_index("ix_erasures_at", "erasures", ["at"])
    op.create_table(
        "erased_memories",
        sa.Column("memory_id", sa.String(64), primary_key=True),
        sa.Column("erasure_id", sa.String(32),
                  sa.ForeignKey("erasures.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("text_sha256", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_erased_memories_erasure", "erased_memories", ["erasure_id"])


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
