"""Edit → Undo/Redo: QUndoCommands that are thin wrappers over the core's audited undo.

The core keeps undo (Anki-style): every change is an event; ``MemoryStore.undo`` /
``undo_group`` replay an event's ``before`` values as a new event, and redo is simply
undoing that undo.  So a command only remembers the ``Changes`` of the last thing it
applied, and both ``undo()`` and ``redo()`` "undo the last applied change".

A core call can fail (e.g. the fields were changed again since, ``UndoConflictError``).
QUndoCommand has no failure path, so the command reports the error through
``on_error`` and marks itself obsolete, which makes QUndoStack drop it (Qt >= 6.3).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changes
from memdesk.core.undo import undo_changes

Notify = Callable[[Changes], None]
OnError = Callable[[str], None]




class CoreCommand(QUndoCommand):
    """One operator action.  ``do`` performs it (returning core Changes) on first redo."""

    def __init__(self, store: MemoryStore, label: str, do: Callable[[], Changes],
                 notify: Notify, on_error: OnError) -> None:
        super().__init__(label)
        self.store = store
        self._do = do
        self._notify = notify
        self._on_error = on_error
        self.applied: Changes | None = None  # Changes of the latest step (do, undo or redo)
        self.error: str | None = None

    def _run(self, fn: Callable[[], Changes]) -> None:
        try:
            changes = fn()
        except MemdeskError as exc:
            self.error = str(exc)
            self.setObsolete(True)
            self._on_error(self.error)
            return
        self.applied = changes
        if not changes.event_ids:  # the edit changed nothing: keep it off the stack
            self.setObsolete(True)
        self._notify(changes)

    def redo(self) -> None:
        if self.applied is None:
            self._run(self._do)
        else:
            applied = self.applied
            self._run(lambda: undo_changes(self.store, applied))

    def undo(self) -> None:
        if self.applied is not None:
            applied = self.applied
            self._run(lambda: undo_changes(self.store, applied))
