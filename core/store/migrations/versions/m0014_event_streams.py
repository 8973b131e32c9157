"""Store-wide and job audit rows get their own home: ``memory_events.stream`` names the
stream each row belongs to (``memory``, ``job``, ``store``), ``target`` the job a job row
is about, and ``memory_id`` is NULL for rows about no memory.

Until now such rows carried the sentinel ``memory_id = '*'`` and a job's id inside its
before/after values; readers had to recognise both.  This revision maps those rows once
(a row naming a ``job_id`` is the job stream's, any other ``*`` row the store's); the
action registry (``memdesk.core.store.actions``) reads ``stream`` from then on.

SQLite cannot drop a NOT NULL in place: the batch operation rebuilds the table (its
rows, ids and indexes are copied as they are).

Revision ID: 0014
Revises: 0013
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_events") as batch:
        batch.alter_column("memory_id", existing_type=sa.String(64), nullable=True)
        batch.add_column(sa.Column("stream", sa.String(16), nullable=False,
                                   server_default="memory"))
        batch.add_column(sa.Column("target", sa.String(64), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.text(
        "SELECT id, before, after FROM memory_events WHERE memory_id = '*'")).all()
    updates = []
    for event_id, before, after in rows:
        values = {**json.loads(after or "{}"), **json.loads(before or "{}")}
        job = values.get("job_id")
        updates.append({"i": event_id, "s": "job" if job else "store",
                        "t": str(job) if job else None})
    if updates:
        conn.execute(sa.text("UPDATE memory_events SET memory_id = NULL, stream = :s, "
                             "target = :t WHERE id = :i"), updates)


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
