"""Agents: quarantine for the poisoning guard and immutable agent provenance.

- ``memories.quarantined_at``: set while the guard holds an agent's write for review;
  the active belief state requires it NULL.  A partial index serves the review inbox.
- ``ix_memories_active_triple`` (the contradiction scan's covering partial index) is
  rebuilt with ``quarantined_at IS NULL`` in its predicate.
- ``job_origins``: who handed each MCP job over (client, session, source), immutable:
  triggers refuse UPDATE and DELETE (SQLite and PostgreSQL, each under its dialect).
- ``quarantine_reasons``: which guard rule matched a held memory, and on what text.

Plain Alembic operations otherwise: portable to PostgreSQL.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SeqType = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
ACTIVE_TRIPLE = (
    "valid_until IS NULL AND superseded_by IS NULL AND deleted_at IS NULL "
    "AND quarantined_at IS NULL "
    "AND entity IS NOT NULL AND attribute IS NOT NULL AND value IS NOT NULL"
)
IMMUTABLE = "agent provenance (job_origins) is immutable"


def upgrade() -> None:
    op.add_column("memories", sa.Column("quarantined_at", sa.DateTime(), nullable=True))
    op.create_index(
        "ix_memories_quarantined", "memories", ["quarantined_at"],
        sqlite_where=sa.text("quarantined_at IS NOT NULL"),
        postgresql_where=sa.text("quarantined_at IS NOT NULL"),
    )
    # The contradiction scan reads only this partial index (core/curation/contradictions.py);
    # held rows must leave it, and the scan must stay covering.
    op.drop_index("ix_memories_active_triple", table_name="memories")
    cols = ["user_id", "entity", "attribute"]
    if op.get_bind().dialect.name == "sqlite":
        cols += ["value", "type", "created_at", "valid_until", "superseded_by", "deleted_at",
                 "quarantined_at"]
    op.create_index(
        "ix_memories_active_triple", "memories", cols,
        sqlite_where=sa.text(ACTIVE_TRIPLE), postgresql_where=sa.text(ACTIVE_TRIPLE),
    )
    op.create_table(
        "job_origins",
        # No foreign key: provenance outlives a purged job (and must not block the purge).
        sa.Column("job_id", sa.String(32), primary_key=True),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("client_version", sa.String(200)),
        sa.Column("session", sa.String(64), nullable=False),
        sa.Column("transport", sa.String(32), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "quarantine_reasons",
        sa.Column("id", SeqType, primary_key=True, autoincrement=True),
        sa.Column("memory_id", sa.String(64),
                  sa.ForeignKey("memories.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rule_id", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text()),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_quarantine_reasons_memory", "quarantine_reasons", ["memory_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER job_origins_immutable_{verb.lower()} BEFORE {verb} "
                f"ON job_origins BEGIN SELECT RAISE(ABORT, '{IMMUTABLE}'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION memdesk_job_origins_immutable() RETURNS trigger AS $$ "
            f"BEGIN RAISE EXCEPTION '{IMMUTABLE}'; END $$ LANGUAGE plpgsql"
        )
        op.execute(
            "CREATE TRIGGER job_origins_immutable BEFORE UPDATE OR DELETE ON job_origins "
            "FOR EACH ROW EXECUTE FUNCTION memdesk_job_origins_immutable()"
        )


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
