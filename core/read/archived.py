"""Which archived memories a retrieval left out, for the Retrieval inspector.

An archived memory is outside the active belief state, so no channel ever sees it
(core/store/query.py): the retriever cannot say it skipped one.  The inspector asks
here instead, after the dry run: the user's archived memories that hold one of the
query's content words as a whole word (the keyword channel's own test, core/read/
terms.py), so the operator sees "this would have matched, and was left out because it
is archived".  A user has few archived memories; they are read and matched in Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select

from memdesk.core.read import terms as qt
from memdesk.core.store.models import Memory
from memdesk.core.store.query import Status, status_clause

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

M = Memory.__table__.c
SCAN_LIMIT = 5_000  # archived rows of one user read at most (newest first)


@dataclass(frozen=True)
class ArchivedMatch:
    """An archived memory that shares a content word with the query."""

    id: str
    text: str
    type: str
    archived_at: datetime
    words: tuple[str, ...]  # the query's stems it holds

    @property
    def reason(self) -> str:
        return (f"archived {self.archived_at:%Y-%m-%d %H:%M} UTC: kept, never recalled "
                "(Memory → Unarchive brings it back)")


def archived_matches(store: MemoryStore, query: str, user_id: str,
                     limit: int = 50) -> list[ArchivedMatch]:
    """The user's archived memories holding one of ``query``'s content words, those
    holding the most first, then the newest archived."""
    stems = qt.keywords(query)
    if not stems:
        return []
    patterns = [(s, re.compile(qt.word_pattern(s))) for s in stems]
    with store.read() as conn:
        rows = conn.execute(
            select(M.id, M.text, M.type, M.archived_at)
            .where(M.user_id == user_id, status_clause(Status.ARCHIVED))
            .order_by(M.archived_at.desc()).limit(SCAN_LIMIT)).all()
    out: list[ArchivedMatch] = []
    for r in rows:
        text = qt.normalise(r.text)
        words = tuple(s for s, p in patterns if p.search(text))
        if words:
            out.append(ArchivedMatch(r.id, r.text, r.type, r.archived_at, words))
    out.sort(key=lambda m: -len(m.words))  # stable: newest archived first among equals
    return out[:limit]
