"""Read path: retrieval records and preference rotation cursors.

``retrievals`` / ``retrieval_items`` record every retrieval (what was returned and
injected, with channel ranks and final score), ``preference_cursors`` keeps the fair
rotation of injected preferences per user.  No new index on memories: every read-path
query is per user, and ``ix_memories_user_valid`` narrows it to that user's rows.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SeqType = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "retrievals",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("channels", sa.String(64), nullable=False),
        sa.Column("k", sa.Integer(), nullable=False),
        sa.Column("injected", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float()),
        sa.Column("dropped", sa.Text()),
        sa.Column("notes", sa.Text()),
    )
    op.create_index("ix_retrievals_at", "retrievals", ["at"])
    op.create_index("ix_retrievals_user_at", "retrievals", ["user_id", "at"])
    op.create_table(
        "retrieval_items",
        sa.Column("id", SeqType, primary_key=True, autoincrement=True),
        sa.Column("retrieval_id", sa.String(64),
                  sa.ForeignKey("retrievals.id", ondelete="CASCADE"), nullable=False),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float()),
        sa.Column("fts_rank", sa.Integer()),
        sa.Column("vector_rank", sa.Integer()),
        sa.Column("graph_rank", sa.Integer()),
    )
    op.create_index("ix_retrieval_items_memory", "retrieval_items", ["memory_id", "retrieval_id"])
    op.create_index("ix_retrieval_items_retrieval", "retrieval_items", ["retrieval_id"])
    op.create_table(
        "preference_cursors",
        sa.Column("user_id", sa.String(200), primary_key=True),
        sa.Column("last_created_at", sa.DateTime()),
        sa.Column("last_seq", SeqType),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
