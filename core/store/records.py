"""Plain value objects the store hands out (no ORM sessions leak to callers)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from enum import Flag, auto
from typing import TYPE_CHECKING, Any

from memdesk.core.store.query import Status, status_of

if TYPE_CHECKING:  # actions.py builds on Changed below
    from typing import TypeAlias

    from sqlalchemy import Row

    from memdesk.core.store.actions import Action

    # A result row of any shape (SQLAlchemy types a row by its columns' types); for
    # annotations only: import it under TYPE_CHECKING.
    AnyRow: TypeAlias = Row[*tuple[Any, ...]]

DATETIME_FIELDS = frozenset({"created_at", "last_accessed", "valid_until", "deleted_at",
                             "quarantined_at", "archived_at"})


@dataclass(frozen=True)
class MemoryRecord:
    id: str
    user_id: str
    text: str
    type: str
    topic: str | None
    importance: float
    confidence: float
    source_session: str | None
    created_at: datetime
    last_accessed: datetime | None
    access_count: int
    decay_score: float | None
    superseded_by: str | None
    embedding: bytes | None  # from memory_vectors (core/store/vectors.py), not the row
    entity: str | None
    attribute: str | None
    value: str | None
    valid_until: datetime | None
    layer: str | None
    deleted_at: datetime | None
    seq: int = 0
    quarantined_at: datetime | None = None  # held by the poisoning guard (core/guard/)
    framing: str | None = None  # "hypothetical": kept, never a belief (migration 0013)
    agent_id: str | None = None  # the agent that wrote it (migration 0019)
    run_id: str | None = None  # the agent's run it belongs to
    archived_at: datetime | None = None  # kept, never recalled (core/store/archive.py)
    # Bumped on every change; pass to update(expected_version=...).  Not part of
    # equality: two records with the same content are equal whatever their history.
    version: int = field(default=1, compare=False)

    @property
    def status(self) -> Status:
        return status_of(self.deleted_at, self.superseded_by, self.valid_until,
                         self.quarantined_at, self.framing, self.archived_at)

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (embedding reported by size only)."""
        out: dict[str, Any] = {}
        for f in fields(MemoryRecord):  # a subclass's extras (AddedRecord.changes) are not data
            v = getattr(self, f.name)
            if f.name == "embedding":
                out["embedding_dims"] = (len(v) // 4) if v else None
                continue
            out[f.name] = v.isoformat() if isinstance(v, datetime) else v
        out["status"] = self.status.value
        return out


RECORD_COLUMNS = tuple(f.name for f in fields(MemoryRecord))


@dataclass(frozen=True)
class EventRecord:
    id: int
    memory_id: str | None  # None: a job's or a store-wide row (``stream``)
    actor: str
    action: str
    before: dict[str, Any]
    after: dict[str, Any]
    at: datetime
    group_id: str | None
    undoes: int | None
    undone_by: int | None
    note: str | None
    stream: str = "memory"  # memdesk.core.store.actions.Stream
    target: str | None = None  # the job a job row is about


class Changed(Flag):
    """Which kinds of things an operation changed (Anki's OpChanges flags).

    Each view refreshes only on the kinds it shows: the browser on MEMORIES, the
    detail pane's history on HISTORY, the sweep view on SWEEPS, and so on.
    """

    NOTHING = 0
    MEMORIES = auto()  # memory rows: fields or status
    HISTORY = auto()  # memory audit events (every memory action writes some)
    SWEEPS = auto()  # revaluation sweeps and their decisions
    CONTRADICTIONS = auto()  # resolutions and dismissals of contradiction groups
    SOURCES = auto()  # delta-memory source configuration
    SNAPSHOTS = auto()  # delta-memory snapshots and their diffs
    REVIEWS = auto()  # drift reviews of flagged diffs
    SETTINGS = auto()  # store-level settings (delta memory's, the duplicate threshold)
    JOBS = auto()  # write-path jobs (queued, done, failed, retried)
    CHECKS = auto()  # recall checks: added, removed, or run (their last results)
    DELTA = SOURCES | SNAPSHOTS | REVIEWS | SETTINGS  # anything of delta memory
    ALL = (MEMORIES | HISTORY | SWEEPS | CONTRADICTIONS | SOURCES | SNAPSHOTS | REVIEWS
           | SETTINGS | JOBS | CHECKS)


MEMORY_EDIT = Changed.MEMORIES | Changed.HISTORY


@dataclass(frozen=True)
class Changes:
    """What an operation changed, so views can decide whether to refresh.

    ``kinds`` says which kinds of things changed; the id tuples say which ones, so a
    view can patch rows in place.  ``group_id`` names the audit group that
    ``memdesk.core.undo.generic.undo_changes`` undoes (single-event actions have only
    ``event_ids``).
    """

    memory_ids: tuple[str, ...] = ()
    event_ids: tuple[int, ...] = ()
    group_id: str | None = None
    kinds: Changed = MEMORY_EDIT
    sources: tuple[str, ...] = ()  # delta source names
    diff_ids: tuple[int, ...] = ()  # delta diffs whose review changed
    # The declared action (memdesk.core.store.actions) when one made these changes:
    # its undo label is what Edit → Undo shows.
    action: Action | None = None
    # Rows that did not exist before (an add, an import): a table showing a filtered
    # list must fetch them, not only refresh rows it has.
    new_memory_ids: tuple[str, ...] = ()

    def with_action(self, action: Action) -> Changes:
        return replace(self, action=action)

    @classmethod
    def everything(cls) -> Changes:
        """"Something may have changed anywhere" (View → Refresh, another store)."""
        return cls(kinds=Changed.ALL)

    @property
    def memories(self) -> bool:
        return Changed.MEMORIES in self.kinds

    def touches(self, kinds: Changed) -> bool:
        """Whether any of ``kinds`` changed."""
        return bool(self.kinds & kinds)

    @property
    def undoable(self) -> bool:
        if self.action is not None and not self.action.undoable:
            return False  # a record in the history (a purge, a token revocation)
        return self.group_id is not None or len(self.event_ids) == 1

    @property
    def undo_event(self) -> int | None:
        """The event number ``memdesk undo N`` takes back (single-event actions)."""
        return self.event_ids[0] if len(self.event_ids) == 1 else None

    @property
    def count(self) -> int:
        """How many things the action changed (for its label): its audit events when it
        has them (a bulk edit that left some rows as they were counts the others; a
        supersede counts the memory retired, not its replacement), else what it names."""
        return len(self.event_ids or self.memory_ids or self.sources or self.diff_ids) or 1

    @property
    def target(self) -> str | None:
        """A short name of the one thing changed when it has one (memory ids do not:
        they are long and say nothing to a reader)."""
        if not self.memory_ids and len(self.sources) == 1 and not self.diff_ids:
            return self.sources[0]
        if not self.memory_ids and len(self.diff_ids) == 1:
            return f"#{self.diff_ids[0]}"
        return None

    def label(self) -> str | None:
        """"soft-delete of 3 memories", from the declared action; None if none."""
        return self.action.label(self.count, self.target) if self.action else None

    def undo_label(self) -> str | None:
        """"Undo soft-delete of 3 memories"; None when no declared action made these."""
        label = self.label()
        return f"Undo {label}" if label else None


@dataclass(frozen=True, eq=False)
class AddedRecord(MemoryRecord):
    """The record ``MemoryStore.add`` returns: the new memory, carrying the action's
    ``Changes`` (its event number for ``memdesk undo``, the new row).  Equal to the
    plain record of the same memory."""

    changes: Changes = field(default_factory=Changes, compare=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryRecord):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name)
                   for f in fields(MemoryRecord) if f.compare)

    __hash__ = MemoryRecord.__hash__


def encode_values(values: dict[str, Any]) -> str:
    return json.dumps(
        {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in values.items()},
        ensure_ascii=False,
        sort_keys=True,
    )


def decode_values(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    data = json.loads(raw)
    return {
        k: (datetime.fromisoformat(v) if k in DATETIME_FIELDS and isinstance(v, str) else v)
        for k, v in data.items()
    }
