"""Working memory (the memory-types decision record): the current session's context, kept in process
memory only and never written to the store.

Units the router finds session-scoped ("for this task", "for now") land here, keyed by
(user, session).  Each session keeps its most recent ``PER_SESSION`` units; the oldest
sessions are dropped beyond ``MAX_SESSIONS`` so a long-running worker stays bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass
from datetime import datetime

from memdesk.core.ids import utcnow
from memdesk.core.write.units import Unit

PER_SESSION = 50
MAX_SESSIONS = 1_000


@dataclass(frozen=True)
class WorkingItem:
    unit: Unit
    at: datetime


class WorkingMemory:
    """Per-session units in memory.  Thread-safe (the GUI's worker thread writes here)."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[tuple[str, str | None], deque[WorkingItem]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, user_id: str, session_id: str | None, unit: Unit) -> None:
        key = (user_id, session_id)
        with self._lock:
            items = self._sessions.pop(key, None) or deque(maxlen=PER_SESSION)
            items.append(WorkingItem(unit, utcnow()))
            self._sessions[key] = items
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)

    def get(self, user_id: str, session_id: str | None) -> list[WorkingItem]:
        with self._lock:
            return list(self._sessions.get((user_id, session_id), ()))

    def end_session(self, user_id: str, session_id: str | None) -> None:
        with self._lock:
            self._sessions.pop((user_id, session_id), None)


_default = WorkingMemory()


def working_memory() -> WorkingMemory:
    """The process's working memory."""
    return _default
