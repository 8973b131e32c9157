"""browser indexes for SQL sorting.

The memory browser pages with keyset queries ``ORDER BY <column>, seq`` (core/browse.py);
without an index on the sort column every page is a full scan and sort (0.2–1 s on
1,000,000 rows, measured), with one it is a few milliseconds.  0002 already indexes
type, importance, created_at and user_id; 0003 (curation) adds
``(source_session, created_at)``, which also serves the session sort.  These cover the
remaining browser columns.  ``text`` is the largest (about 13% of the file at 1M rows)
but without it sorting by text costs ~330 ms per page.  Building all of them on a
1,000,000-row store takes about 5 s, once.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

BROWSER_INDEXES = {
    "ix_memories_confidence": ["confidence"],
    "ix_memories_last_accessed": ["last_accessed"],
    "ix_memories_access_count": ["access_count"],
    "ix_memories_topic": ["topic"],
    "ix_memories_layer": ["layer"],
    "ix_memories_text": ["text"],
}


def upgrade() -> None:
    existing = sa.inspect(op.get_bind()).get_indexes("memories")
    have = {ix["name"] for ix in existing}
    leading = {ix["column_names"][0] for ix in existing if ix["column_names"]}
    wanted = dict(BROWSER_INDEXES)
    if "source_session" not in leading:  # 0003's (source_session, created_at) serves too
        wanted["ix_memories_source_session"] = ["source_session"]
    for name, cols in wanted.items():
        if name not in have:
            op.create_index(name, "memories", cols)


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
