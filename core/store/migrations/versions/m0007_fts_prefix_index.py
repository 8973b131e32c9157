"""Rebuild the FTS5 index with prefix indexes for 1-, 2- and 3-character prefixes.

The browser searches as you type, so the last word is a prefix query, and short
prefixes (``p*``, ``b*``) make FTS5 merge the doclists of every term they expand to:
40 ms per query at 1M rows, paid again by every keystroke's page and count.  With
``prefix='1 2 3'`` those lookups read a precomputed list (``p*``: 38 → 2 ms for a
capped count; ``"b" "bold" "b"*``: 43 → 0.1 ms).  Longer prefixes were already fast.
The rebuild takes about 20 s at 1,000,000 rows, once.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

FTS_TABLE = (
    "CREATE VIRTUAL TABLE memories_fts USING fts5(text, content='memories', "
    "content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')"
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    from memdesk.core.store.migrations.versions.m0002_memdesk_v1 import FTS_TRIGGERS

    for trigger in ("memories_fts_ai", "memories_fts_ad", "memories_fts_au"):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute("DROP TABLE IF EXISTS memories_fts")
    op.execute(FTS_TABLE)
    for stmt in FTS_TRIGGERS:  # the same sync triggers as before
        op.execute(stmt)
    op.execute("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')")


def downgrade() -> None:
    raise NotImplementedError("memdesk does not downgrade stores; restore the pre-upgrade backup")
