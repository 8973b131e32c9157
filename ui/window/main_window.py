"""The main window: a sidebar of views (saved filters under Browse), a stack of them,
menus where every action has a shortcut (ui/window/menus.py), and a status bar naming
the open store, its row counts and whether Ollama and embeddings are available.

The window owns one ``Desk`` (store, settings, action pipeline, undo stack).  Views come
from ``memdesk.ui.desk.views.VIEWS``; each is built from the desk and keeps the ``View``
contract: after every action the window passes its ``Changes`` to each built view whose
``refresh_on`` kinds it touches.  Action failures are shown one way: a plain-text
message box.  Opening another store rebuilds every view for it and closes the old one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal, SignalInstance
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QStandardItem,
    QStandardItemModel,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMenu,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QWidget,
)

from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.store.records import Changed, Changes
from memdesk.core.write import availability
from memdesk.ui.browse.filters import builtin_filters, filter_from_dict, filter_to_dict
from memdesk.ui.desk.actions import Desk
from memdesk.ui.desk.lazy_views import LazyViews, shutdown
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import ElidedLabel, error_box, plain_label, tooltip_text
from memdesk.ui.desk.views import VIEWS, ViewSpec
from memdesk.ui.jobs.write_service import WriteService
from memdesk.ui.store_safety.opener import OPEN_BUSY_TIMEOUT_S, is_temporary, open_store, store_path
from memdesk.ui.window.menus import BROWSE, WindowMenus
from memdesk.ui.window.settings import Settings, SettingsDialog

if TYPE_CHECKING:
    from memdesk.ui.browse.browser import BrowserView
    from memdesk.ui.window.demo_builder import DemoBuilder
    from memdesk.ui.window.fit import ScreenFit

KindRole = Qt.ItemDataRole.UserRole  # "view" | "filter" | "saved"
KeyRole = Qt.ItemDataRole.UserRole + 1  # view key or filter name
__all__ = ["OPEN_BUSY_TIMEOUT_S", "MainWindow"]


class MainWindow(WindowMenus):
    """Owns the desk (open store, action pipeline, undo stack) and the views."""

    store_changed = Signal(object)  # the new MemoryStore

    def __init__(self, store: MemoryStore, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.desk = Desk(store, self.settings, self)
        self.demo_path: Path | None = None  # set by the app; default: the user data dir
        self.resize(1440, 860)
        self.views = LazyViews(self._build_view)
        self._view_actions: list[QAction] = []
        self._builder: DemoBuilder | None = None
        self._fit: ScreenFit | None = None

        self.sidebar_model = QStandardItemModel(self)
        self.sidebar = QTreeView()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setModel(self.sidebar_model)
        self.sidebar.setHeaderHidden(True)
        self.sidebar.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sidebar.setMinimumWidth(140)  # with the views', the window fits 1024 px
        self.sidebar.setMaximumWidth(260)
        self.sidebar.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.sidebar.customContextMenuRequested.connect(self._sidebar_menu)
        self.stack = QStackedWidget()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sidebar)
        split.addWidget(self.stack)
        split.setStretchFactor(1, 1)
        split.setSizes([190, 1250])
        self.setCentralWidget(split)

        self.store_label = ElidedLabel()  # a long path keeps its file name in view
        self.counts_label = QLabel("")
        # Nothing in the desk calls Ollama yet: probe it only when asked (Help menu) or
        # when the operator changes its host, never at every start.
        self.ollama_label = QLabel("Ollama: not checked")
        self.ollama_label.setToolTip("Help → Check Ollama (Ctrl+Shift+H)")
        vectors = availability.embedding_vectors()
        self.embed_label = QLabel("Embeddings: available" if vectors.ok else "Embeddings: off")
        self.embed_label.setToolTip(tooltip_text(vectors.detail))
        self.progress_label = QLabel("")
        self.statusBar().addWidget(self.store_label, 1)
        for w in (self.progress_label, self.counts_label, self.ollama_label, self.embed_label):
            w.setContentsMargins(10, 0, 10, 0)  # the permanent labels would otherwise touch
            self.statusBar().addPermanentWidget(w)
        self._counts = LatestTask(self)
        self._counts.finished.connect(self._show_counts)
        self._counts.failed.connect(lambda exc, _tb: self.counts_label.setText("counts: —"))
        self._ollama = LatestTask(self)
        self._ollama.finished.connect(self._show_ollama)
        from memdesk.ui.window.outside_changes import OutsideChanges

        self.outside = OutsideChanges(lambda: self.store, self.refresh_counts, self)
        # The write path: job worker thread, job counts, vector backfill.
        self.write_service = WriteService(self.desk, self)
        self.statusBar().addPermanentWidget(self.write_service.label)
        self.store_changed.connect(self.write_service.start_worker)

        self._build_menus()
        self.desk.changed.connect(self._on_changed)
        self.desk.failed.connect(self._on_failed)
        self.desk.busy.connect(lambda name: self.progress_label.setText(f"{name}…"))
        self.desk.progress.connect(self._on_progress)
        self.desk.idle.connect(lambda: self.progress_label.setText(""))
        self.sidebar.selectionModel().currentChanged.connect(self._on_sidebar)
        self._install(store)
        from memdesk.ui.store_safety.safety import StoreSafety

        self.safety = StoreSafety(self)  # File → Check/Back up/Restore, banner, backups
        from memdesk.ui.checks.watch import ChecksWatcher

        # The recall checks run after every bulk action, and after a restore.
        self.checks_watch = ChecksWatcher(self.desk, self)
        self.store_changed.connect(self.checks_watch.store_opened)
        self.safety.restored.connect(self.checks_watch.restored)

    @property
    def store(self) -> MemoryStore:
        return self.desk.store

    @property
    def undo_stack(self) -> QUndoStack:
        return self.desk.undo_stack

    @property
    def changed(self) -> SignalInstance:
        """Every action's Changes (the desk's broadcast)."""
        return self.desk.changed

    # -- views and sidebar --------------------------------------------------------
    def _install(self, store: MemoryStore) -> None:
        """Build every view for ``store`` (used at start and when switching stores)."""
        self.desk.set_store(store)  # clears the undo stack: it refers to the old store
        for spec in VIEWS:
            placeholder = QWidget()
            self.views.add(spec, placeholder)
            self.stack.addWidget(placeholder)
        path = store_path(store)
        self.setWindowTitle(f"memdesk — {path}")
        self.store_label.setText(path)
        if store.engine.url.database and not is_temporary(path):
            self.settings.add_recent(str(Path(path).resolve()))
        self._fill_sidebar()
        self._fill_view_menu()
        self._fill_memory_menu()
        self._fill_recent()
        self.refresh_counts()
        if store.report and store.report.message:
            # In the store label, not a temporary message painted over it.
            self.store_label.setText(f"{path} · {store.report.message}")
        self.store_changed.emit(store)

    def _build_view(self, spec: ViewSpec, placeholder: QWidget) -> QWidget:
        """Build one view for the open store, in the stack slot of its placeholder."""
        try:
            widget = spec.factory(self.desk)
        except Exception as exc:  # one broken view must not keep the store from opening
            widget = plain_label(f"The {spec.title} view could not open this store:\n"
                                 f"{type(exc).__name__}: {exc}")
            widget.setWordWrap(True)
            widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
        index = self.stack.indexOf(placeholder)
        current = self.stack.currentWidget() is placeholder
        self.stack.insertWidget(index, widget)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        if current:
            self.stack.setCurrentWidget(widget)
        return widget

    def set_store(self, store: MemoryStore) -> None:
        old, old_views = self.store, self.views.slots()
        self.views = LazyViews(self._build_view)
        for w in old_views:
            shutdown(w)
            self.stack.removeWidget(w)
            w.setParent(None)
            w.deleteLater()
        self._install(store)
        if old is not store:
            old.close()

    def _fill_sidebar(self) -> None:
        m = self.sidebar_model
        m.clear()
        for spec in VIEWS:
            if spec.key not in self.views:
                continue
            item = QStandardItem(spec.title)
            item.setData("view", KindRole)
            item.setData(spec.key, KeyRole)
            item.setToolTip(f"{spec.title} ({spec.shortcut})")
            m.appendRow(item)
            if spec.key == BROWSE:
                for name in builtin_filters(self.settings.low_confidence):
                    child = QStandardItem(name)
                    child.setData("filter", KindRole)
                    child.setData(name, KeyRole)
                    item.appendRow(child)
                for name in self.settings.saved_filters:
                    child = QStandardItem(name)  # operator-typed: the view renders plain text
                    child.setData("saved", KindRole)
                    child.setData(name, KeyRole)
                    child.setToolTip(tooltip_text(f"Saved filter: {name}"))
                    item.appendRow(child)
        self.sidebar.expandAll()
        self.review.update_badge()
        if m.rowCount():
            self.sidebar.setCurrentIndex(m.index(0, 0))

    def _on_sidebar(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        kind, key = current.data(KindRole), current.data(KeyRole)
        if kind == "view":
            self.stack.setCurrentWidget(self.views[key])
            return
        flt = self.saved_filter(kind, key)
        browser = self.browser()
        if flt is not None and browser is not None:
            self.stack.setCurrentWidget(browser)
            browser.apply_filter(flt)

    def browser(self) -> BrowserView | None:
        """The Browse view (built on first use), which saved filters drive."""
        from memdesk.ui.browse.browser import (
            BrowserView,  # built first anyway; imported here for isinstance
        )

        view = self.views.get(BROWSE)
        return view if isinstance(view, BrowserView) else None

    def saved_filter(self, kind: str, name: str) -> MemoryFilter | None:
        if kind == "filter":
            return builtin_filters(self.settings.low_confidence).get(name)
        if kind == "saved":
            data = self.settings.saved_filters.get(name)
            return filter_from_dict(data) if data is not None else None
        return None

    def show_view(self, key: str) -> None:
        m = self.sidebar_model
        for r in range(m.rowCount()):
            if m.item(r).data(KeyRole) == key:
                self.sidebar.setCurrentIndex(m.index(r, 0))
                return
        raise KeyError(key)

    def sidebar_item(self, key: str) -> QStandardItem | None:
        """The sidebar's top-level item of view ``key`` (None if it has none)."""
        m = self.sidebar_model
        return next((m.item(r) for r in range(m.rowCount())
                     if m.item(r).data(KeyRole) == key), None)

    def show_filter(self, name: str) -> None:
        """Select a saved (built-in or operator) filter in the sidebar."""
        m = self.sidebar_model
        for r in range(m.rowCount()):
            parent = m.item(r)
            for c in range(parent.rowCount()):
                if parent.child(c).data(KeyRole) == name:
                    self.sidebar.setCurrentIndex(parent.child(c).index())
                    return
        raise KeyError(name)

    def _sidebar_menu(self, pos: QPoint) -> None:
        idx = self.sidebar.indexAt(pos)
        if idx.isValid() and idx.data(KindRole) == "saved":
            menu = QMenu(self)
            menu.addAction(self.delete_filter_action)
            menu.exec(self.sidebar.viewport().mapToGlobal(pos))

    def ask_save_filter(self) -> None:
        browser = self.browser()
        if browser is None:
            return
        name, ok = QInputDialog.getText(self, "Save filter", "Name for the current filter:")
        if ok and name.strip():
            self.save_filter(name.strip(), browser.filters.current())

    def save_filter(self, name: str, flt: MemoryFilter) -> None:
        self.settings.save_filter(name, filter_to_dict(flt))
        self._fill_sidebar()
        self.show_filter(name)

    def delete_current_filter(self) -> None:
        idx = self.sidebar.currentIndex()
        if idx.isValid() and idx.data(KindRole) == "saved":
            self.settings.delete_filter(idx.data(KeyRole))
            self._fill_sidebar()
            self.show_view(BROWSE)

    # -- stores -------------------------------------------------------------------
    def confirm_leave(self, question: str) -> bool:
        if not self.views.is_built(BROWSE):  # no pane, so no edit
            return True
        browser = self.browser()
        return browser is None or browser.leave_edit(question)

    def show_error(self, title: str, message: str) -> None:
        error_box(self, title, message).exec()

    def open_path(self, path: str | Path, *, create: bool = False, ask: bool = True) -> bool:
        """Open the store at ``path`` and switch to it; a dialog (not a traceback) if not.
        An edit not applied yet is asked about first (``ask``; not when the open store
        is already closed, as after a restore); False when the operator stays."""
        if ask and not self.confirm_leave("Apply it, discard it, or stay in this store?"):
            return False
        try:
            store = open_store(path, create=create)
        except MemdeskError as exc:
            self.show_error("Cannot open the store", str(exc))
            return False
        self.set_store(store)
        return True

    def ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open store", str(Path(store_path(self.store)).parent),
            "memdesk stores (*.db *.sqlite *.sqlite3);;All files (*)",
        )
        if path:
            self.open_path(path, create=False)

    def ask_new(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "New store", str(Path(store_path(self.store)).parent / "memories.db"),
            "memdesk stores (*.db);;All files (*)",
        )
        if not path:
            return
        if Path(path).exists() and Path(path).stat().st_size > 0:
            self.show_error("New store", f"{path} already exists; use Open store… instead.")
            return
        self.open_path(path, create=True)

    def _open_built_demo(self, path: str | Path) -> None:
        self.open_path(path, create=False)
        if self._builder is not None:
            self.write_service.embed_demo(self._builder.built_now)

    def open_demo(self) -> None:
        from memdesk.ui.window.demo_builder import DemoBuilder

        # Asked before the build, not after it: the operator's answer must not wait
        # for a minute of generating.
        if not self.confirm_leave("Apply it, discard it, or stay in this store?"):
            return
        self._builder = DemoBuilder(self, self.demo_path)
        self._builder.ready.connect(self._open_built_demo)
        self._builder.failed.connect(lambda msg: self.show_error("Demo store", msg))
        self._builder.start()

    def edit_settings(self) -> None:
        host, low = self.settings.ollama_host, self.settings.low_confidence
        dlg = SettingsDialog(self.settings, self)
        if dlg.exec():
            if self.settings.low_confidence != low:  # the built-in filters' names change
                shown = self.sidebar.currentIndex()
                kind, key = shown.data(KindRole), shown.data(KeyRole)
                self._fill_sidebar()  # selects Browse: the operator stays where they were
                if kind == "view":
                    self.show_view(key)
            if self.settings.ollama_host != host:  # the operator wants to know about it
                self.check_services()
            self.write_service.start_worker()  # the Ollama host may have changed

    # -- status bar ---------------------------------------------------------------
    def refresh_counts(self) -> None:
        store = self.store
        self._counts.start(lambda state: store.counts())

    def _show_counts(self, counts: dict[str, int]) -> None:
        self.counts_label.setText(
            f"active {counts['active']:,} · superseded {counts['superseded']:,} · "
            f"total {counts['total']:,}"
        )
        self.review.set_held(counts.get("quarantined", 0))

    def check_services(self) -> None:
        """Probe the Ollama server in the background (never on the GUI thread)."""
        host = self.settings.ollama_host
        self.ollama_label.setText("Ollama: checking…")
        self._ollama.start(lambda state: availability.ollama(host))

    def _show_ollama(self, result: availability.Availability) -> None:
        self.ollama_label.setText("Ollama: available" if result.ok else "Ollama: not reachable")
        self.ollama_label.setToolTip(tooltip_text(result.detail))

    def _on_progress(self, done: int, total: int) -> None:
        text = self.progress_label.text().split(" (")[0]
        self.progress_label.setText(f"{text} ({done:,} / {total:,})" if total else text)

    def _on_failed(self, name: str, message: str) -> None:
        """The one way an action's failure is shown: a plain-text box, window-modal."""
        self.statusBar().showMessage(f"{name}: failed", 10_000)
        error_box(self, f"memdesk: {name}", message).open()

    # -- broadcast --------------------------------------------------------------------
    def _on_changed(self, changes: Changes) -> None:
        """The status bar's counts; the desk routes the change to the views that show
        its kinds (``Desk.attach``)."""
        if changes.touches(Changed.MEMORIES):
            self.refresh_counts()

    def wait_idle(self, msecs: int = 5000) -> None:
        """Let background work finish (before closing, and in tests)."""
        self.desk.wait_idle(msecs)
        for view in self.views.values():
            shutdown(view, msecs)
        self._counts.wait(msecs)
        self._ollama.wait(msecs)
        self.outside.wait(msecs)
        self.review.wait(msecs)
        self.write_service.wait_idle(msecs)
        if hasattr(self, "safety"):  # a backup or check in flight
            self.safety.wait(msecs)
        if hasattr(self, "checks_watch"):
            self.checks_watch.wait(msecs)

    def fit_to_screen(self) -> None:
        """Fit the screen's free room, frame included, now and once the window manager
        has framed the window (the app calls it when it shows the window)."""
        from memdesk.ui.window.fit import ScreenFit

        self._fit = ScreenFit(self)
        self._fit.start()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.isVisible() and not self.confirm_leave("Apply it, discard it, or keep "
                                                       "memdesk open?"):
            event.ignore()
            return
        self.settings.sync()
        self.review.stop()  # no poll may start after this
        self.outside.stop()
        # A backfill (the new demo's vectors) stops after the batch in hand; loading the
        # model cannot be interrupted, so wait for it rather than let the thread outlive
        # the window (Qt aborts the process when a pool thread raises at exit).
        self.write_service.stop_embedding()
        self.desk.wait_idle(60_000)
        self.wait_idle()  # results must not arrive after their receivers are deleted
        self.checks_watch.close_dialog()
        self.write_service.shutdown()
        super().closeEvent(event)
