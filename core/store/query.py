"""Filters over the memories table, and the one definition of "active belief state"."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, and_, case, false, literal, or_, true

from memdesk.core.store.fts import match_clause
from memdesk.core.store.models import Memory

M = Memory.__table__.c


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    DELETED = "deleted"
    QUARANTINED = "quarantined"  # an agent's write held for operator review (core/guard/)
    # Kept, shown and searchable in the desk, never recalled or injected (core/store/
    # archive.py).  After deleted and held, before superseded and expired: archiving is
    # the operator's explicit word on the row, so it is what the row says it is.
    ARCHIVED = "archived"
    # Said as a supposition ("imagine I worked at a bank"): kept for the operator, never
    # a belief.  Otherwise live (not superseded, expired, deleted or held).
    HYPOTHETICAL = "hypothetical"


def status_of(deleted_at: object, superseded_by: object, valid_until: object,
              quarantined_at: object = None, framing: object = None,
              archived_at: object = None) -> Status:
    """A row's Status from its lifecycle fields (the Python twin of status_expression)."""
    if deleted_at is not None:
        return Status.DELETED
    if quarantined_at is not None:
        return Status.QUARANTINED
    if archived_at is not None:
        return Status.ARCHIVED
    if superseded_by is not None:
        return Status.SUPERSEDED
    if valid_until is not None:
        return Status.EXPIRED
    if framing is not None:
        return Status.HYPOTHETICAL
    return Status.ACTIVE


def _live() -> ColumnElement[bool]:
    """Not superseded, expired, deleted, held or archived: what a belief or a
    supposition needs to count at all."""
    return and_(M.valid_until.is_(None), M.superseded_by.is_(None), M.deleted_at.is_(None),
                M.quarantined_at.is_(None), M.archived_at.is_(None))


def active_belief_state() -> ColumnElement[bool]:
    """The write-phase design: ``valid_until IS NULL AND superseded_by IS NULL`` (and not
    soft-deleted,
    and not quarantined: an agent's write the guard holds is no belief until approved;
    and not archived: the operator keeps it out of recall until it is unarchived;
    and said as a belief: a hypothetical is kept for the operator, never believed).

    The one definition every reader uses: retrieval, contradiction groups, maintain's
    links and decay, the revaluation sample, the guard's curated check, and the
    ``active`` status of every filter (CLI, desk, MCP)."""
    return and_(_live(), M.framing.is_(None))


def status_clause(status: Status) -> ColumnElement[bool]:
    if status is Status.ACTIVE:
        return active_belief_state()
    if status is Status.HYPOTHETICAL:
        return and_(_live(), M.framing.is_not(None))
    if status is Status.QUARANTINED:
        return and_(M.quarantined_at.is_not(None), M.deleted_at.is_(None))
    if status is Status.ARCHIVED:
        return and_(M.archived_at.is_not(None), M.deleted_at.is_(None),
                    M.quarantined_at.is_(None))
    # Superseded and expired rows that are archived say "archived" (status_of): an
    # agent's "superseded" or "any" listing must not reach them.
    if status is Status.SUPERSEDED:
        return and_(M.superseded_by.is_not(None), M.deleted_at.is_(None),
                    M.archived_at.is_(None))
    if status is Status.EXPIRED:
        return and_(M.valid_until.is_not(None), M.superseded_by.is_(None), M.deleted_at.is_(None),
                    M.archived_at.is_(None))
    return M.deleted_at.is_not(None)


def status_expression() -> ColumnElement[str]:
    """SQL that computes a row's Status, for sorting by status."""
    return case(
        (M.deleted_at.is_not(None), literal(Status.DELETED.value)),
        (M.quarantined_at.is_not(None), literal(Status.QUARANTINED.value)),
        (M.archived_at.is_not(None), literal(Status.ARCHIVED.value)),
        (M.superseded_by.is_not(None), literal(Status.SUPERSEDED.value)),
        (M.valid_until.is_not(None), literal(Status.EXPIRED.value)),
        (M.framing.is_not(None), literal(Status.HYPOTHETICAL.value)),
        else_=literal(Status.ACTIVE.value),
    )


@dataclass(frozen=True)
class MemoryFilter:
    """Everything an operator can filter by; empty fields do not restrict.

    ``statuses`` empty means every status except deleted and hypothetical (a
    supposition is shown only when asked for by its status); archived rows are shown
    (the desk keeps them in view, marked).  Bands are inclusive.
    """

    text: str = ""
    user_ids: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    layers: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    agent_ids: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()
    importance: tuple[float, float] | None = None
    confidence: tuple[float, float] | None = None
    statuses: tuple[Status, ...] = ()
    created_from: datetime | None = None
    created_to: datetime | None = None
    entity: str | None = None
    attribute: str | None = None
    ids: tuple[str, ...] | None = None
    extra: tuple[Any, ...] = field(default=(), compare=False)  # extra SQL clauses from core callers
    # A query plan hint, not a filter: see fts.match_clause(scan=...).
    text_scan: bool = field(default=False, compare=False)

    def with_(self, **changes: Any) -> MemoryFilter:
        return replace(self, **changes)

    def clauses(self, dialect: str) -> list[ColumnElement[bool]]:
        out: list[ColumnElement[bool]] = []
        if self.text.strip():
            c = match_clause(dialect, M.seq, M.text, self.text, scan=self.text_scan)
            if c is not None:
                out.append(c)
        if self.user_ids:
            out.append(M.user_id.in_(self.user_ids))
        if self.types:
            out.append(M.type.in_(self.types))
        if self.layers:
            layers = [x for x in self.layers if x]
            c = M.layer.in_(layers) if layers else false()
            out.append(or_(c, M.layer.is_(None)) if "" in self.layers else c)
        if self.topics:
            out.append(M.topic.in_(self.topics))
        if self.sessions:
            out.append(M.source_session.in_(self.sessions))
        if self.agent_ids:
            out.append(M.agent_id.in_(self.agent_ids))
        if self.run_ids:
            out.append(M.run_id.in_(self.run_ids))
        if self.importance is not None:
            lo, hi = self.importance
            out.append(M.importance.between(lo, hi))
        if self.confidence is not None:
            lo, hi = self.confidence
            out.append(M.confidence.between(lo, hi))
        if self.statuses:
            out.append(or_(*(status_clause(Status(s)) for s in self.statuses)))
        else:
            out.append(and_(M.deleted_at.is_(None),
                            or_(M.framing.is_(None), M.superseded_by.is_not(None),
                                M.valid_until.is_not(None), M.quarantined_at.is_not(None),
                                M.archived_at.is_not(None))))
        if self.created_from is not None:
            out.append(M.created_at >= self.created_from)
        if self.created_to is not None:
            out.append(M.created_at <= self.created_to)
        if self.entity is not None:
            out.append(M.entity == self.entity)
        if self.attribute is not None:
            out.append(M.attribute == self.attribute)
        if self.ids is not None:
            out.append(M.id.in_(self.ids) if self.ids else false())
        out.extend(self.extra)
        return out or [true()]


SORTABLE = {
    "text": M.text,
    "type": M.type,
    "layer": M.layer,
    "topic": M.topic,
    "importance": M.importance,
    "confidence": M.confidence,
    "user_id": M.user_id,
    "source_session": M.source_session,
    "agent_id": M.agent_id,
    "run_id": M.run_id,
    "created_at": M.created_at,
    "last_accessed": M.last_accessed,
    "access_count": M.access_count,
    "decay_score": M.decay_score,
    "entity": M.entity,
    "status": None,  # computed
    "seq": M.seq,
}
# What a page may be ordered by (the CLI's `list --sort` choices).
SORT_KEYS = tuple(SORTABLE)
