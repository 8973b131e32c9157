"""Plain value objects the store hands out (no ORM sessions leak to callers)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from memdesk.core.store.query import Status, status_of

DATETIME_FIELDS = frozenset({"created_at", "last_accessed", "valid_until", "deleted_at",
                             "quarantined_at"})


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
    embedding: bytes | None
    entity: str | None
    attribute: str | None
    value: str | None
    valid_until: datetime | None
    layer: str | None
    deleted_at: datetime | None
    seq: int = 0
    quarantined_at: datetime | None = None  # held by the poisoning guard (core/guard/)

    @property
    def status(self) -> Status:
        return status_of(self.deleted_at, self.superseded_by, self.valid_until,
                         self.quarantined_at)

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (embedding reported by size only)."""
        out: dict[str, Any] = {}
        for f in fields(self):
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
    memory_id: str
    actor: str
    action: str
    before: dict[str, Any]
    after: dict[str, Any]
    at: datetime
    group_id: str | None
    undoes: int | None
    undone_by: int | None
    note: str | None


@dataclass(frozen=True)
class Changes:
    """What an operation changed, so views can decide whether to refresh (Anki's OpChanges)."""

    memory_ids: tuple[str, ...] = ()
    event_ids: tuple[int, ...] = ()
    group_id: str | None = None
    memories: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


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
