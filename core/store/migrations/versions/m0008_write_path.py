"""The write path: the job queue, extraction provenance, the embedding model.

``jobs`` holds conversation turns waiting for extraction; ``memory_provenance`` says
which extractor and model produced a memory; ``embedding_space`` records the model name
and dimension of the stored vectors.  Plain Alembic operations: portable to PostgreSQL.

Rows without a layer (a Recall store's, or memdesk's before the router) get the layer
the router gives their type, so a memory's layer is never empty.  The table is copied
here, not imported: a migration must keep doing what it did when it was written.

A store written before this revision may hold vectors already (Recall wrote them);
their model is unknown, so ``embedding_space`` stays empty and memdesk records the
model on the first vector it writes, after checking the existing vectors' dimension.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


# core/write/router.py's ROUTES as of this revision
LAYER_OF_TYPE = {
    "preference": "procedural", "procedure": "procedural", "fact": "semantic",
    "decision": "episodic", "correction": "episodic", "error": "episodic",
    "note": "episodic", "reasoning": "episodic",
}


def upgrade() -> None:
    memories = sa.table("memories", sa.column("type", sa.String), sa.column("layer", sa.String))
    op.execute(
        memories.update()
        .where(memories.c.layer.is_(None))
        .values(layer=sa.case(LAYER_OF_TYPE, value=memories.c.type, else_="episodic"))
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("user_id", sa.String(200), nullable=False),
        sa.Column("session_id", sa.String(200)),
        sa.Column("topic", sa.String(200)),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(200)),
        sa.Column("lease_until", sa.DateTime),
        sa.Column("finished_at", sa.DateTime),
        sa.Column("extractor", sa.String(64)),
        sa.Column("model", sa.String(200)),
        sa.Column("memory_ids", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("log", sa.Text),
    )
    op.create_index("ix_jobs_status_created", "jobs", ["status", "created_at"])
    op.create_table(
        "memory_provenance",
        sa.Column("memory_id", sa.String(64),
                  sa.ForeignKey("memories.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("extractor", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200)),
        sa.Column("job_id", sa.String(32)),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_memory_provenance_job", "memory_provenance", ["job_id"])
    op.create_table(
        "embedding_space",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("dim", sa.Integer, nullable=False),
        sa.Column("recorded_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
