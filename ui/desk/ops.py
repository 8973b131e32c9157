"""Background work for the UI: run a core call off the GUI thread, deliver the result
back on it (Anki's CollectionOp / Orange's task state, in small).

A ``TaskState`` is handed to work that wants to report progress or check for cancel;
signals cross threads as queued connections, so callbacks run on the GUI thread.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QRunnable,
    QThreadPool,
    Signal,
    SignalInstance,
    Slot,
)

from memdesk.core.store.faults import as_store_error


def serial_pool() -> QThreadPool:
    """A pool of one thread (work in order) that lives as long as the application.

    Not owned by the view or desk it serves: a pool destroyed with its owner, when
    Python's garbage collector frees that owner while a task runs, waits for the task
    inside the collector with the interpreter lock held, and the task (Python code)
    can never finish: the process hangs, or crashes (both seen in the suite).  Owned by
    the application, a pool is never freed under a running task; its idle thread ends
    by itself (QThreadPool's expiry)."""
    pool = QThreadPool(QCoreApplication.instance())
    pool.setMaxThreadCount(1)
    return pool


class TaskState:
    """Shared between the worker and the GUI: progress out, cancel in."""

    def __init__(self, emitter: _Signals) -> None:
        self._cancel = threading.Event()
        self._emitter = emitter

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def progress(self, done: int, total: int) -> None:
        self._emitter.progress.emit(int(done), int(total))


class _Signals(QObject):
    done = Signal(object)
    failed = Signal(object, str)
    progress = Signal(int, int)


class _Runnable(QRunnable):
    def __init__(self, fn: Callable[[TaskState], Any], signals: _Signals, state: TaskState):
        super().__init__()
        self.fn, self.signals, self.state = fn, signals, state
        self.setAutoDelete(True)

    @Slot()
    def run(self) -> None:
        try:
            result = self.fn(self.state)
        except BaseException as exc:  # delivered to the GUI thread, never swallowed
            # Driver and data errors (damaged page, undecodable text, full disk…) become
            # the store's readable errors, as in the CLI (core.store.faults).
            shown = as_store_error(exc) if isinstance(exc, Exception) else None
            self._emit(self.signals.failed, shown or exc, traceback.format_exc())
            return
        self._emit(self.signals.done, result)

    @staticmethod
    def _emit(signal: SignalInstance, *args: object) -> None:
        # The receiving side may be destroyed (window closed, app quitting): nobody
        # is left to deliver to, and the work itself has finished.
        with contextlib.suppress(RuntimeError):
            signal.emit(*args)


class Task(QObject):
    """One background call.  Keep a reference while it runs (the owner does)."""

    finished = Signal(object)
    failed = Signal(object, str)
    progress = Signal(int, int)

    def __init__(self, fn: Callable[[TaskState], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals = _Signals()
        self.state = TaskState(self._signals)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)
        self._signals.progress.connect(self.progress)
        self._fn = fn
        self.running = False

    def start(self, pool: QThreadPool | None = None) -> Task:
        self.running = True
        (pool or QThreadPool.globalInstance()).start(_Runnable(self._fn, self._signals, self.state))
        return self

    def cancel(self) -> None:
        self.state.cancel()

    def _on_done(self, result: object) -> None:
        self.running = False
        if not self.state.cancelled:
            self.finished.emit(result)

    def _on_failed(self, exc: object, tb: str) -> None:
        self.running = False
        if not self.state.cancelled:
            self.failed.emit(exc, tb)


class LatestTask(QObject):
    """One task slot per view: starting a new task cancels the previous one, and only
    the newest task's result is delivered (as-you-type search, filter changes)."""

    finished = Signal(object)
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._current: Task | None = None
        self._pool = serial_pool()  # not ``QThreadPool(self)``: see serial_pool

    def start(self, fn: Callable[[TaskState], Any]) -> Task:
        if self._current is not None:
            self._current.cancel()
        task = Task(fn, self)
        task.finished.connect(lambda r, t=task: self._deliver(t, r))
        task.failed.connect(lambda e, tb, t=task: self._fail(t, e, tb))
        self._current = task
        return task.start(self._pool)

    @property
    def busy(self) -> bool:
        return self._current is not None and self._current.running

    def _deliver(self, task: Task, result: object) -> None:
        if task is self._current:
            self._current = None
            self.finished.emit(result)
        task.deleteLater()

    def _fail(self, task: Task, exc: object, tb: str) -> None:
        if task is self._current:
            self._current = None
            self.failed.emit(exc, tb)
        task.deleteLater()

    def wait(self, msecs: int = 5000) -> bool:
        return self._pool.waitForDone(msecs)
