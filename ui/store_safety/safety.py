"""Store safety in the GUI: File → Check store / Back up now / Restore…, the banner,
automatic backups, the idle WAL checkpoint, asking before an upgrade, and the
dialog for an edit that conflicts with a newer change.

All store work is a core call (memdesk.core.store.check / backup / wal) run off the
GUI thread through ui.ops; this module only asks, shows and schedules.
``StoreSafety`` keeps one ``AutoBackup`` and one ``IdleCheckpointer`` for the
window's current store, replaced whenever the window switches store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.errors import EditConflictError, MemdeskError, SchemaOutdatedError
from memdesk.core.store.backup import AutoBackup, backup_dir, backup_store, list_backups, restore
from memdesk.core.store.check import check_file
from memdesk.core.store.db import sqlite_info, sqlite_path
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import RECORD_COLUMNS, Changes, MemoryRecord
from memdesk.core.store.wal import IdleCheckpointer, journal_mode
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import elide_middle, error_box

# Opening in the GUI checks for at most this long, so the first rows show within a
# second at 1M rows; an unfinished check then continues in the background.
GUI_OPEN_CHECK_BUDGET_S = 0.25
AUTO_BACKUP_TICK_MS = 60_000  # the policy itself decides (every 30 min while changing)
IDLE_CHECKPOINT_MS = 30_000


def file_of(store: MemoryStore) -> Path | None:
    return sqlite_path(store.url)


def open_store_asking(parent: QWidget | None, path: str | Path | None, *, create: bool,
                      busy_timeout: float) -> MemoryStore:
    """Open a store for the GUI: a damaged store opens read-only (the banner says
    why); an older schema is upgraded only after the operator agrees."""
    try:
        return MemoryStore.open(path, create=create, busy_timeout=busy_timeout,
                                if_damaged="read_only", check_budget=GUI_OPEN_CHECK_BUDGET_S)
    except SchemaOutdatedError as exc:
        if not ask_upgrade(parent, str(exc)):
            raise
    return MemoryStore.open(path, create=create, busy_timeout=busy_timeout,
                            allow_upgrade=True, if_damaged="read_only",
                            check_budget=GUI_OPEN_CHECK_BUDGET_S)


def ask_upgrade(parent: QWidget | None, message: str) -> bool:
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Upgrade the store?")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(message.replace("Run `memdesk db upgrade`", "Upgrade it now?"))
    box.setInformativeText("A backup is written first. Older memdesk versions will not "
                           "open the store afterwards.")
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


def banner_text(store: MemoryStore) -> str | None:
    """What the banner says for ``store`` (None: no banner)."""
    report = store.report
    if report is not None and report.read_only and report.health is not None:
        return ("This store is damaged and open read-only: "
                f"{report.health.summary()}. File → Restore… puts back a backup.")
    info = sqlite_info()
    if store.dialect == "sqlite" and info.wal_reset_bug and journal_mode(store.engine) == "wal":
        return (f"SQLite {info.library_version} has the WAL-reset bug (fixed in 3.51.3): "
                "agents writing while this window is open can, rarely, damage the store. "
                "Install pysqlite3 or a newer Python; automatic backups are on.")
    return None


class ConflictDialog(QDialog):
    """Shows an edit that conflicts with a newer change, field by field, and lets the
    operator keep the stored version or apply theirs on top of it."""

    KEEP, MINE = "keep", "mine"

    def __init__(self, parent: QWidget | None, mine: dict[str, Any], seen: MemoryRecord | None,
                 exc: EditConflictError) -> None:
        super().__init__(parent)
        self.setWindowTitle("The memory changed while you edited it")
        self.choice = self.KEEP
        # The store always raises with the stored record (core.errors cannot name it).
        current = exc.current if isinstance(exc.current, MemoryRecord) else None
        lay = QVBoxLayout(self)
        note = QLabel(f"Someone else changed memory {exc.memory_id} (version {exc.expected} "
                      f"→ {exc.actual}) after you opened it. Compare and choose:")
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setWordWrap(True)
        lay.addWidget(note)
        fields = sorted(set(mine) | self._changed(seen, current))
        self.table = QTableWidget(len(fields), 4)
        self.table.setHorizontalHeaderLabels(["field", "when you opened it", "your edit",
                                              "stored now"])
        for row, name in enumerate(fields):
            cells = [name, self._val(seen, name), str(mine.get(name, "—")),
                     self._val(current, name)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)  # items are plain text
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        lay.addWidget(self.table)
        buttons = QDialogButtonBox()
        self.keep_button = QPushButton("Keep the stored version")
        self.mine_button = QPushButton("Apply my edit on top")
        buttons.addButton(self.keep_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.addButton(self.mine_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.keep_button.clicked.connect(self.reject)
        self.mine_button.clicked.connect(self._mine)
        lay.addWidget(buttons)

    @staticmethod
    def _val(rec: MemoryRecord | None, name: str) -> str:
        v = getattr(rec, name, None) if rec is not None else None
        return "—" if v is None else str(v)

    @staticmethod
    def _changed(a: MemoryRecord | None, b: MemoryRecord | None) -> set[str]:
        if a is None or b is None:
            return set()
        skip = {"version", "embedding", "access_count", "last_accessed"}
        return {k for k in RECORD_COLUMNS
                if k not in skip and getattr(a, k) != getattr(b, k)}

    def _mine(self) -> None:
        self.choice = self.MINE
        self.accept()

    @classmethod
    def ask(cls, parent: QWidget | None, mine: dict[str, Any], seen: MemoryRecord | None,
            exc: EditConflictError) -> str:
        dlg = cls(parent, mine, seen, exc)
        dlg.exec()
        return dlg.choice


@dataclass(frozen=True)
class Conflicted:
    """An edit refused because the memory changed since the operator read it.  Its
    ``changes`` apply nothing but make the views reload the stored row."""

    error: EditConflictError
    changes: Changes


def edit_or_conflict(store: MemoryStore, memory_id: str, fields: dict[str, Any],
                     seen: MemoryRecord | None) -> Changes | Conflicted:
    """``store.update`` based on the version the operator saw (an op's core call: no
    dialog in here).  A conflict comes back as a result, for the op's ``done`` to ask
    about on the GUI thread (:func:`ask_after_conflict`)."""
    version = seen.version if seen is not None and seen.id == memory_id else None
    try:
        return store.update(memory_id, expected_version=version, **fields)
    except EditConflictError as exc:
        return Conflicted(exc, Changes((memory_id,), ()))


def ask_after_conflict(parent: QWidget | None, result: Changes | Conflicted,
                       fields: dict[str, Any], seen: MemoryRecord | None,
                       apply_on_top: Callable[[int], None]) -> None:
    """After the op: if the edit conflicted, show both versions; "Apply my edit on top"
    calls ``apply_on_top(version now stored)``, which runs a new op on the desk."""
    if isinstance(result, Conflicted) and ConflictDialog.ask(
            parent, fields, seen, result.error) == ConflictDialog.MINE:
        apply_on_top(result.error.actual)


class Banner(QFrame):
    """A one-line warning strip above the window's content (plain text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("safetyBanner")
        self.setStyleSheet("#safetyBanner { background: #f6d55c; color: #222; }")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        lay.addWidget(self.label, 1)
        self.hide()

    def show_text(self, text: str | None) -> None:
        self.label.setText(text or "")
        self.setVisible(bool(text))


def file_menu(window: Any) -> Any:
    """The menu holding File → Settings… (None if the window has none)."""
    anchor = getattr(window, "settings_action", None)
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is not None and anchor in menu.actions():
            return menu
    return None


class StoreSafety(QObject):
    """Attaches the safety features to a MainWindow (one per window)."""

    restored = Signal(object)  # the restore's report, once the backup is open

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.banner = Banner()
        central = window.takeCentralWidget()
        holder = QWidget()
        lay = QVBoxLayout(holder)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.banner)
        lay.addWidget(central, 1)
        window.setCentralWidget(holder)
        self.task = LatestTask(self)  # check / backup / restore: one at a time
        self._done: Any = None
        self.task.finished.connect(lambda result: self._done and self._done(result))
        self.task.failed.connect(self._failed)
        self.background = LatestTask(self)  # automatic backups and checkpoints
        self.auto: AutoBackup | None = None
        self.idle: IdleCheckpointer | None = None
        self.last_message = ""
        self._add_actions()
        self._backup_timer = QTimer(self)
        self._backup_timer.timeout.connect(self.auto_backup)
        self._backup_timer.start(AUTO_BACKUP_TICK_MS)
        self._idle_timer = QTimer(self)
        self._idle_timer.timeout.connect(self.idle_checkpoint)
        self._idle_timer.start(IDLE_CHECKPOINT_MS)
        window.store_changed.connect(self.on_store)
        self.on_store(window.store)

    def _add_actions(self) -> None:
        w = self.window
        menu = file_menu(w)
        self.check_action = QAction("Check store", w)
        self.backup_action = QAction("Back up now", w)
        self.restore_action = QAction("Restore…", w)
        for action, keys in ((self.check_action, "Ctrl+Shift+K"),
                             (self.backup_action, "Ctrl+Shift+B"),
                             (self.restore_action, "Ctrl+Shift+J")):
            action.setShortcut(QKeySequence(keys))
        self.check_action.triggered.connect(lambda _=False: self.check())
        self.backup_action.triggered.connect(lambda _=False: self.back_up())
        self.restore_action.triggered.connect(lambda _=False: self.ask_restore())
        if menu is not None:
            before = w.settings_action
            for a in (self.check_action, self.backup_action, self.restore_action):
                menu.insertAction(before, a)
            menu.insertSeparator(before)

    def wait(self, msecs: int = 5000) -> None:
        """Let a running check, backup or checkpoint finish (before closing)."""
        self.task.wait(msecs)
        self.background.wait(msecs)

    # -- store switching ------------------------------------------------------------
    def on_store(self, store: MemoryStore) -> None:
        path = file_of(store)
        self.banner.show_text(banner_text(store))
        self.auto = AutoBackup(path) if path is not None else None
        self.idle = IdleCheckpointer(path) if path is not None else None
        for a in (self.check_action, self.backup_action, self.restore_action):
            a.setEnabled(path is not None)
        read_only = bool(store.report and store.report.read_only)
        if self.auto is not None and not read_only:
            self.auto_backup(reason="open")
        health = store.report.health if store.report else None
        if path is not None and health is not None and not health.complete:
            self._run(lambda _s: check_file(path, level="quick"), self._background_checked)

    def _background_checked(self, report: Any) -> None:
        if report.damaged:
            self.banner.show_text(f"This store is damaged: {report.summary()}. Stop editing; "
                                  "File → Restore… puts back a backup.")

    # -- actions --------------------------------------------------------------------
    def _run(self, fn: Any, done: Any) -> None:
        self._done = done
        self.task.start(fn)

    def _failed(self, exc: object, _tb: str) -> None:
        self._say("Store safety", str(exc), error=True)

    def _say(self, title: str, text: str, *, error: bool = False) -> None:
        self.last_message = text
        # Cut in the middle: a path keeps its file name (it was cut mid-filename).
        self.window.statusBar().showMessage(elide_middle(text.splitlines()[0], 90), 10_000)
        if error:
            error_box(self.window, title, text).open()

    def check(self) -> None:
        path = file_of(self.window.store)
        if path is None:
            return
        self._say("Check store", "Checking the store…")
        self._run(lambda _s: check_file(path, level="full"), self._checked)

    def _checked(self, report: Any) -> None:
        if report.damaged:
            self.banner.show_text(f"This store is damaged: {report.summary()}. "
                                  "File → Restore… puts back a backup.")
            self._say("Check store", "\n".join([report.summary(), *report.problems]), error=True)
        else:
            self._say("Check store", report.summary().capitalize() + ".")

    def back_up(self) -> None:
        path = file_of(self.window.store)
        if path is None:
            return
        self._say("Back up", "Backing up…")
        self._run(lambda _s: backup_store(path, reason="manual"),
                  lambda info: self._say("Back up", f"Backed up to {info.path}"))

    def auto_backup(self, reason: str = "auto") -> None:
        auto = self.auto
        if auto is None or self.background.busy or not auto.due():
            return
        self.background.start(lambda _s: auto.maybe(reason))

    def before_risky(self, reason: str) -> None:
        """A backup before a migration, bulk action, merge or restore (synchronous:
        the risky operation must not start before it is done)."""
        if self.auto is not None:
            self.auto.before_risky(reason)

    def idle_checkpoint(self) -> None:
        idle = self.idle
        if idle is None or self.background.busy or self.task.busy:
            return
        self.background.start(lambda _s: idle.tick())

    def ask_restore(self) -> None:
        path = file_of(self.window.store)
        if path is None:
            return
        backups = list_backups(path)
        if not backups:
            self._say("Restore", f"There are no backups of this store in {backup_dir(path)}.",
                      error=True)
            return
        labels = [f"{b.when:%Y-%m-%d %H:%M:%S} UTC · {b.reason} · {b.size / 1e6:.1f} MB"
                  for b in backups]
        label, ok = QInputDialog.getItem(self.window, "Restore a backup",
                                         "Replace the store with this backup (the current "
                                         "file is kept aside):", labels, 0, False)
        # The restore reopens the store: an edit not applied yet is asked about first.
        if ok and self.window.confirm_leave("Apply it, discard it, or keep this store?"):
            self.restore(path, backups[labels.index(label)].path)

    def restore(self, path: Path, backup: Path) -> None:
        """Check the backup off the GUI thread, then swap (see ``_swap``)."""
        self._say("Restore", "Checking the backup…")
        self._run(lambda _s: check_file(backup, level="full"),
                  lambda checked: self._swap(path, backup, checked))

    def _swap(self, path: Path, backup: Path, checked: Any) -> None:
        """Close the store and put the backup in place, on the GUI thread: between the
        two nothing may reopen the store — the job worker and the views' polls would,
        and their writes would go into the replaced file (restore refuses a store with
        connections open, this process's included).  The swap is two file copies."""
        window = self.window
        service = getattr(window, "write_service", None)
        if service is not None:
            service.stop_worker()  # after the job in hand
        window.wait_idle()
        self.background.wait(10_000)  # an automatic backup or checkpoint
        window.store.close()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            report = restore(path, backup, checked=checked)
        except MemdeskError as exc:
            window.open_path(path, ask=False)  # the store as it was, worker restarted
            self._say("Restore", str(exc), error=True)
            return
        finally:
            QApplication.restoreOverrideCursor()
        self._restored(report)

    def _restored(self, report: Any) -> None:
        self.window.open_path(report.store, ask=False)
        self.restored.emit(report)  # the recall checks run against it (ui/checks/watch.py)
        aside = f" The previous file was kept as {report.set_aside}." if report.set_aside else ""
        self._say("Restore", f"Restored from {report.backup}.{aside}")
