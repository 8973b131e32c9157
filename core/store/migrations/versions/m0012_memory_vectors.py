"""Vectors out of the wide row: ``memories.embedding`` moves to ``memory_vectors``.

SQLite rewrites a whole row on any UPDATE, so the 1.5 KB vector inside every
``memories`` row made ``maintain``'s set-based decay UPDATE rewrite the whole table
into the WAL (1,000,000 rows: minutes).  ``memory_vectors(seq → memories.seq ON DELETE
CASCADE, vector NOT NULL)`` holds only the rows that have a vector; the copy runs in
``seq`` order, so a user's vectors stay as close together as their memories are.

``ALTER TABLE … DROP COLUMN`` (SQLite 3.35+, PostgreSQL) drops the column in place: on
SQLite it rewrites each row under its own rowid, so ``seq`` (the rowid alias the FTS5
external-content index refers to), the indexes and the FTS triggers (which name only
``text``) stay as they are; no table rebuild is needed.  The freed pages stay in the
file until a VACUUM.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

SeqType = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "memory_vectors",
        sa.Column("seq", SeqType, sa.ForeignKey("memories.seq", ondelete="CASCADE"),
                  primary_key=True, autoincrement=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
    )
    op.execute(
        "INSERT INTO memory_vectors (seq, vector) SELECT seq, embedding FROM memories "
        "WHERE embedding IS NOT NULL ORDER BY seq"
    )
    op.execute("ALTER TABLE memories DROP COLUMN embedding")


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
