"""The one action pipeline: every operator action in every view runs through ``Desk.run``.

An action is an ``Op``: a readable name ("Resolve bob · preferred_tool") around one core
call.  ``Desk.run(op)``

1. runs the call (on a worker thread when ``op.background``, with progress shown by
   the window; otherwise at once — a single small transaction),
2. on success records it on the one ``QUndoStack`` (Edit → Undo and the label the
   action registry declares, ``memdesk.core.store.actions``), broadcasts
   its ``Changes`` on ``Desk.changed`` (each view refreshes if it shows those kinds)
   and calls the view's ``done`` follow-up,
3. on failure emits ``Desk.failed(name, message)``, which the window shows one way.

Undo and redo are the core's generic undo (``memdesk.core.undo.generic.undo_changes``): undo
reverts the action's audit group; redo reverts that undo.  So a command only keeps the
``Changes`` of the last step it applied (Anki keeps undo in the core the same way; the
commands are thin, as Orange's are).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changes
from memdesk.core.undo.generic import undo_changes
from memdesk.ui.desk.ops import Task, TaskState, serial_pool

R = TypeVar("R")


def _as_changes(result: object) -> Changes:
    """The Changes of a core result: a Changes itself, or a result carrying ``changes``."""
    if isinstance(result, Changes):
        return result
    changes = getattr(result, "changes", None)
    if isinstance(changes, Changes):
        return changes
    raise TypeError(f"{type(result).__name__} carries no Changes")


@dataclass
class Op(Generic[R]):
    """One operator action: a name for Edit → Undo, one core call, and what to do after.

    ``call`` runs the core call; a background op gets the worker's ``TaskState`` (for
    progress and cancel) and must not touch widgets.  ``done`` runs on the GUI thread
    with the call's result.
    """

    name: str
    call: Callable[[], R] | Callable[[TaskState], R]
    done: Callable[[R], None] | None = None
    undoable: bool = True
    background: bool = False
    # What changed, from the result; default: the result is (or carries) Changes.
    changes: Callable[[R], Changes] | None = None
    # The view's recovery after a failure (e.g. reload what went stale).  Showing the
    # message is not its job: the desk reports every failure the same way.
    on_error: Callable[[str], None] | None = None


class ActionCommand(QUndoCommand):
    """An applied action on the undo stack.  Its first ``redo`` (QUndoStack.push calls
    it) does nothing: the action ran already; later ones revert the undo."""

    def __init__(self, desk: Desk, name: str, applied: Changes) -> None:
        # Menu texts treat "&" as a mnemonic marker; names can carry stored text.
        super().__init__(name.replace("&", "&&"))
        self.desk = desk
        self.applied = applied  # the Changes of the latest step (action, undo or redo)
        self._pushed = False

    def _revert(self) -> None:
        try:
            self.applied = undo_changes(self.desk.store, self.applied)
        except MemdeskError as exc:
            self.setObsolete(True)  # QUndoStack drops it: it can no longer be replayed
            self.desk.report(self.text().replace("&&", "&"), str(exc))
            return
        self.desk.changed.emit(self.applied)

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True
            return
        self._revert()

    def undo(self) -> None:
        self._revert()


class Desk(QObject):
    """What every view is wired to: the open store, the settings, the action pipeline
    and the undo stack.  The window owns one; a test can build one without a window.
    """

    changed = Signal(object)  # Changes, after every action, undo and redo
    failed = Signal(str, str)  # (action name, message): the window shows it
    busy = Signal(str)  # a background action started (its name)
    progress = Signal(int, int)  # its progress (done, total)
    idle = Signal()  # no background action runs any more

    def __init__(self, store: MemoryStore, settings: Any = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.settings = settings
        self.undo_stack = QUndoStack(self)
        self.last_error: str | None = None
        self._running: list[Task] = []
        # Writes go one at a time: a second write would only wait on SQLite's lock.
        # The pool is the application's, not the desk's (ui/desk/ops.serial_pool).
        self._pool = serial_pool()
        self._views: dict[int, Any] = {}  # attached views by id(), in attach order
        self.changed.connect(self._route)

    def set_store(self, store: MemoryStore) -> None:
        """Switch to another store; the undo history refers to the old one's events and
        the attached views to the old store."""
        self.wait_idle()
        self.undo_stack.clear()
        self._views.clear()
        self.store = store

    # -- broadcasting -------------------------------------------------------------------
    def attach(self, view: Any) -> None:
        """Route broadcasts to ``view`` (a ``memdesk.ui.desk.view.View``) from now on: it is
        refreshed only by changes that touch its ``refresh_on`` kinds."""
        key = id(view)
        self._views[key] = view
        view.destroyed.connect(lambda *_args, k=key: self._views.pop(k, None))

    def _route(self, changes: Changes) -> None:
        for view in list(self._views.values()):
            if changes.touches(view.refresh_on):
                view.refresh(changes)

    # -- running ------------------------------------------------------------------------
    def run(self, op: Op[Any]) -> bool:
        """Run ``op``; False when it failed at once (a background op returns True when
        started: its outcome arrives later)."""
        self.last_error = None
        if not op.background:
            try:
                # ``background`` says which of its two signatures ``call`` has.
                result = cast(Callable[[], Any], op.call)()
            except MemdeskError as exc:
                self._fail(op, str(exc))
                return False
            self._finish(op, result)
            return True
        task = Task(cast(Callable[[TaskState], Any], op.call), self)
        task.finished.connect(lambda result, t=task: self._task_done(t, op, result))
        task.failed.connect(lambda exc, tb, t=task: self._task_failed(t, op, exc, tb))
        task.progress.connect(self.progress)
        self._running.append(task)
        self.busy.emit(op.name)
        task.start(self._pool)
        return True

    def _finish(self, op: Op[Any], result: object) -> None:
        changes = op.changes(result) if op.changes is not None else _as_changes(result)
        if op.undoable and changes.undoable:
            # Edit → Undo says what the registry declares ("Undo soft-delete of 3
            # memories"); an action the core did not name keeps the op's own name.
            label = changes.label() or op.name
            self.undo_stack.push(ActionCommand(self, label, changes))
        self.changed.emit(changes)
        if op.done is not None:
            op.done(result)

    def _task_done(self, task: Task, op: Op[Any], result: object) -> None:
        self._forget(task)
        self._finish(op, result)

    def _task_failed(self, task: Task, op: Op[Any], exc: object, tb: str) -> None:
        self._forget(task)
        if isinstance(exc, MemdeskError):
            self._fail(op, str(exc))
        else:  # a bug: say so, with the traceback for the report, but keep running
            self._fail(op, f"Unexpected error: {type(exc).__name__}: {exc}\n\n{tb}")

    def _fail(self, op: Op[Any], message: str) -> None:
        self.report(op.name, message)
        if op.on_error is not None:
            op.on_error(message)

    def _forget(self, task: Task) -> None:
        if task in self._running:
            self._running.remove(task)
        task.deleteLater()
        if not self._running:
            self.idle.emit()

    @property
    def running(self) -> bool:
        return bool(self._running)

    def report(self, name: str, message: str) -> None:
        """The one way an action's failure reaches the operator."""
        self.last_error = message
        self.failed.emit(name, message)

    def wait_idle(self, msecs: int = 5000) -> bool:
        return self._pool.waitForDone(msecs)
