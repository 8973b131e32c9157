"""The status bar's counts follow writes made outside the window (the CLI, an agent's
MCP server, another desk) without F5.

Every write to the memories is audited, so the newest audit event's number says
whether anything changed: one read of the events table's primary key, every
``POLL_MS``, off the GUI thread.  It works the same on SQLite and PostgreSQL (SQLite's
``data_version`` is per connection, which a pool of connections cannot compare).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.desk.ops import LatestTask

POLL_MS = 2000


class OutsideChanges(QObject):
    """Calls ``changed`` when the store's newest audit event is not the one last seen."""

    def __init__(self, store: Callable[[], MemoryStore], changed: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._changed = changed
        self._seen: tuple[int, int] | None = None  # (id of the store object, event id)
        self._task = LatestTask(self)
        self._task.finished.connect(self._compare)
        self._task.failed.connect(lambda _exc, _tb: None)  # the next poll tries again
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    def poll(self) -> None:
        if self._task.busy:
            return
        store = self._store()

        def newest(_state: object) -> tuple[int, int]:
            events = store.events(limit=1)
            return id(store), events[0].id if events else 0

        self._task.start(newest)

    def _compare(self, seen: tuple[int, int]) -> None:
        before, self._seen = self._seen, seen
        if before is not None and before[0] == seen[0] and before[1] != seen[1]:
            self._changed()

    def stop(self) -> None:
        self.timer.stop()

    def wait(self, msecs: int = 5000) -> None:
        self._task.wait(msecs)
