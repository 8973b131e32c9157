"""Archive and unarchive: a memory kept, shown and searchable in the desk, never recalled.

Archiving sets ``memories.archived_at`` (migration 0023); the row leaves the active
belief state (``memdesk.core.store.query``), and with it every reader of that state:
the retrieval channels and their snapshots, fusion, preference injection, the MCP
``retrieve``, the duplicates and contradictions finders and their queues, the
revaluation sweep's sample, decay and maintain.  The desk still lists it (the default
browser filter shows it, marked "archived"; the "Archived" filter lists only those),
full-text search still finds it, and its history stays.

Both actions are declared (``ARCHIVE``, ``UNARCHIVE``), audited in one group per call
(a bulk archive is undone as one) and undone like any memory edit (the field back).
A request that names an unknown, deleted or held memory, or archives an archived one
or unarchives one that is not, changes nothing and says which ids and why: the
operator asked for a state that one of the rows cannot take, and a half-done bulk
action would be harder to read than a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memdesk.core.errors import MemdeskError, NotFoundError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.query import Status
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes, MemoryRecord
from memdesk.core.taxonomy import Actor

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memdesk.core.store.memory_store import MemoryStore

# How many refused ids a message names before it says "and N more".
_NAMED = 5


class ArchiveStateError(MemdeskError):
    """An archive or unarchive the rows' current state refuses; nothing changed."""


def refusal(rec: MemoryRecord, archiving: bool) -> str | None:
    """Why ``rec`` cannot be archived (``archiving``) or unarchived; None: it can."""
    if rec.deleted_at is not None:
        return "is deleted (restore it first: undo its deletion)"
    if rec.quarantined_at is not None:
        return "is held for review (approve or reject it in the Review inbox first)"
    if archiving and rec.archived_at is not None:
        return f"is archived already (since {rec.archived_at:%Y-%m-%d %H:%M} UTC)"
    if not archiving and rec.archived_at is None:
        return "is not archived"
    return None


def _refused_message(verb: str, refused: list[tuple[str, str]]) -> str:
    named = [f"memory {mid} {why}" for mid, why in refused[:_NAMED]]
    more = f"; and {len(refused) - _NAMED} more" if len(refused) > _NAMED else ""
    return f"Nothing was {verb}: " + "; ".join(named) + more + "."


class Archive:
    """The archive façade over one store: cheap to construct."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- reads ------------------------------------------------------------------------
    def count(self) -> int:
        """How many memories are archived (deleted ones not counted)."""
        return self.store.counts()[Status.ARCHIVED.value]

    # -- actions ----------------------------------------------------------------------
    def archive(self, ids: Sequence[str], *, actor: str = Actor.OPERATOR.value,
                note: str | None = None) -> Changes:
        """Archive every memory of ``ids`` in one audited group, or none of them."""
        return self._set(ids, archiving=True, actor=actor, note=note)

    def unarchive(self, ids: Sequence[str], *, actor: str = Actor.OPERATOR.value,
                  note: str | None = None) -> Changes:
        """Bring every memory of ``ids`` back into recall in one audited group, or none."""
        return self._set(ids, archiving=False, actor=actor, note=note)

    def archive_in(self, conn: Connection, rec: MemoryRecord, *, archiving: bool, actor: str,
                   note: str | None, group_id: str | None) -> int | None:
        """Archive or unarchive one checked memory inside ``conn``'s transaction (the
        agents' tools call this after their own checks); the audit event's id."""
        return self.store.apply_in(
            conn, rec.id, {"archived_at": utcnow() if archiving else None}, actor=actor,
            action=acts.ARCHIVE if archiving else acts.UNARCHIVE, group_id=group_id,
            note=note)

    def _set(self, ids: Sequence[str], *, archiving: bool, actor: str,
             note: str | None) -> Changes:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            raise ValidationError("ids", "name at least one memory")
        action = acts.ARCHIVE if archiving else acts.UNARCHIVE
        group = new_id()
        events: list[int] = []
        with self.store.write() as conn:
            self.store.lock_in(conn, wanted)
            records = []
            for mid in wanted:
                try:
                    records.append(self.store.get(mid, conn))
                except NotFoundError:
                    raise NotFoundError(
                        f"No memory with id {mid!r}; nothing was "
                        f"{'archived' if archiving else 'unarchived'}") from None
            refused = [(r.id, why) for r in records
                       if (why := refusal(r, archiving)) is not None]
            if refused:
                raise ArchiveStateError(
                    _refused_message("archived" if archiving else "unarchived", refused))
            for rec in records:
                ev = self.archive_in(conn, rec, archiving=archiving, actor=actor, note=note,
                                     group_id=group)
                if ev is not None:
                    events.append(ev)
        return Changes(tuple(wanted), tuple(events), group,
                       MEMORY_EDIT if events else Changed.NOTHING, action=action)
