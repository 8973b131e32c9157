"""Rows every store fixture holds (the lifecycle rows) and closing a store; the fixtures
themselves are in tests/conftest.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memdesk.core.store.memory_store import MemoryStore

# The demo stores' last day (the shared 3,000-row demo store ends here).
DEMO_END = datetime(2026, 11, 1)


@dataclass(frozen=True)
class Lifecycle:
    """Ids of the rows ``add_lifecycle_rows`` wrote, by what they are."""

    active: str  # active, has a topic; value "Acme Corp" for (user, "employer")
    active_no_topic: str  # active with topic NULL; same value spelt differently
    superseded: str  # superseded by ``active``; value "Superseded Ltd"
    expired: str  # valid_until in the past, not superseded; value "Expired Inc"
    deleted: str  # soft-deleted; value "Deleted GmbH"
    deleted_no_topic: str  # soft-deleted and topic NULL
    expired_only_user: str  # another user's only conflicting value is expired
    expired_only_user_active: str

    @property
    def inactive(self) -> tuple[str, ...]:
        return (self.superseded, self.expired, self.deleted, self.deleted_no_topic,
                self.expired_only_user)

    @property
    def all(self) -> tuple[str, ...]:
        return (self.active, self.active_no_topic, self.expired_only_user_active, *self.inactive)


LIFECYCLE_ROWS = 8  # rows add_lifecycle_rows writes
LIFECYCLE_DELETED = 2
LIFECYCLE_EXPIRED = 2  # expired and not superseded
LIFECYCLE_SUPERSEDED = 1
# The word every lifecycle row's text contains (and no demo row does).
LIFECYCLE_WORD = "zephyrkite"


def add_lifecycle_rows(s: MemoryStore, user: str, other_user: str, at: datetime) -> Lifecycle:
    """Rows outside the active belief state (superseded, expired, soft-deleted) and rows
    with a NULL topic, all about one word and one entity+attribute, so that every query
    of the active state meets them and must leave them out.  Inactive rows carry values
    that would make contradictions if they counted."""

    def add(text: str, value: str, topic: str | None, who: str = user, days: int = 0) -> str:
        return s.add(user_id=who, text=f"{text} {LIFECYCLE_WORD}", type="fact", topic=topic,
                     entity="user", attribute="employer", value=value, layer="semantic",
                     importance=0.45, confidence=0.8,
                     created_at=at + timedelta(days=days)).id

    active = add("User is employed by Acme Corp", "Acme Corp", "work", days=3)
    active_nt = add("User still works for ACME corp", "  acme  corp", None, days=4)
    superseded = add("User is employed by Superseded Ltd", "Superseded Ltd", "work", days=1)
    s.supersede(superseded, active)
    expired = add("User was employed by Expired Inc", "Expired Inc", "work", days=2)
    s.update(expired, valid_until=at + timedelta(days=2, hours=1))
    deleted = add("User is employed by Deleted GmbH", "Deleted GmbH", "work", days=5)
    s.soft_delete(deleted)
    deleted_nt = add("User is employed by Deleted Twice", "Deleted Twice", None, days=6)
    s.soft_delete(deleted_nt)
    other_active = add("Other user employed by Initech", "Initech", "work", other_user, 1)
    other_expired = add("Other user was employed by Hooli", "Hooli", "work", other_user, 2)
    s.update(other_expired, valid_until=at + timedelta(days=2, hours=1))
    return Lifecycle(active, active_nt, superseded, expired, deleted, deleted_nt,
                     other_expired, other_active)


def close_store(s: MemoryStore) -> None:
    """Close ``s``; the store lets its retrieval recorder (a background writer) finish
    first, so no record opens a connection after close (PostgreSQL's driver warns about
    that, and warnings are errors here)."""
    s.close()
