"""curation tables (revaluation sweeps, contradiction dismissals).

* ``sweeps`` / ``sweep_items``: a revaluation sweep (the V4 retriever proposal, change 4 option B) and
  every decision taken in it, written as it is made so a sweep survives a restart.
* ``contradiction_dismissals``: "keep both" decisions, so a group of memories that
  legitimately coexist is not raised again (until a new memory joins it).
* Two indexes on ``memories``: a partial covering index over the active
  entity/attribute/value triples (the contradiction scan is one ordered index scan,
  not O(n²)), and ``(source_session, created_at)`` for a memory's session neighbours.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

ACTIVE_TRIPLE = (
    "valid_until IS NULL AND superseded_by IS NULL AND deleted_at IS NULL "
    "AND entity IS NOT NULL AND attribute IS NOT NULL AND value IS NOT NULL"
)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "sweeps",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("band_lo", sa.Float, nullable=False),
        sa.Column("band_hi", sa.Float, nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("user_id", sa.String(200)),
        sa.Column("type", sa.String(32)),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("population", sa.BigInteger),
        sa.Column("finished_at", sa.DateTime),
        sa.Column("note", sa.Text),
    )
    op.create_index("ix_sweeps_created", "sweeps", ["created_at"])
    op.create_table(
        "sweep_items",
        sa.Column(
            "sweep_id", sa.String(32), sa.ForeignKey("sweeps.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("pos", sa.Integer, primary_key=True),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("importance_before", sa.Float, nullable=False),
        sa.Column("decision", sa.String(16)),
        sa.Column("importance_after", sa.Float),
        sa.Column("note", sa.Text),
        sa.Column("decided_at", sa.DateTime),
        sa.Column("decided_by", sa.String(32)),
        sa.Column("event_id", Seq),
    )
    op.create_index("ix_sweep_items_memory", "sweep_items", ["memory_id"])
    op.create_table(
        "contradiction_dismissals",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("entity", sa.String(200), nullable=False),
        sa.Column("attribute", sa.String(200), nullable=False),
        sa.Column("member_seqs", sa.Text, nullable=False),
        sa.Column("member_ids", sa.Text, nullable=False),
        sa.Column("norm_values", sa.Text, nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("note", sa.Text),
    )
    op.create_index(
        "ix_contradiction_dismissals_key", "contradiction_dismissals",
        ["user_id", "entity", "attribute"],
    )

    # SQLite: with value, type, created_at and the status columns (all NULL here, so
    # nearly free) the scan reads only the index (rowid comes with every entry).
    # PostgreSQL btree entries are limited to ~2.7 kB and value may be 10k characters.
    cols = ["user_id", "entity", "attribute"]
    if dialect == "sqlite":
        cols += ["value", "type", "created_at", "valid_until", "superseded_by", "deleted_at"]
    op.create_index(
        "ix_memories_active_triple", "memories", cols,
        sqlite_where=sa.text(ACTIVE_TRIPLE), postgresql_where=sa.text(ACTIVE_TRIPLE),
    )
    op.create_index(
        "ix_memories_session_created", "memories", ["source_session", "created_at"]
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
