"""The main window's menu bar: File, Edit, Memory, View, Review and Help, every command
with a shortcut, and the palette and shortcuts windows that list them.

A base of ``MainWindow`` (ui/window/main_window.py), kept apart so the window's file
holds its sidebar, views, stores and status bar; what the menus call on the window is
declared below and defined there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from memdesk.core.store.records import Changes
from memdesk.ui.desk.view import View
from memdesk.ui.desk.views import VIEWS
from memdesk.ui.desk.window import DeskWindow
from memdesk.ui.transfer.import_export import add_to_file_menu

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtGui import QUndoStack
    from PySide6.QtWidgets import QTreeView

    from memdesk.ui.jobs.write_service import WriteService
    from memdesk.ui.window.settings import Settings

BROWSE = "browse"  # the view saved filters drive, whose commands fill the Memory menu


class WindowMenus(DeskWindow):
    """The menus of the main window (``MainWindow`` inherits them)."""

    if TYPE_CHECKING:  # the window's own (MainWindow), which its menus call
        settings: Settings
        write_service: WriteService
        sidebar: QTreeView

        @property
        def undo_stack(self) -> QUndoStack: ...

        def ask_open(self) -> None: ...

        def ask_new(self) -> None: ...

        def open_demo(self) -> None: ...

        def edit_settings(self) -> None: ...

        def ask_save_filter(self) -> None: ...

        def delete_current_filter(self) -> None: ...

        def check_services(self) -> None: ...

        def open_path(self, path: str | Path, *, create: bool = False) -> bool: ...

    # -- menus ------------------------------------------------------------------
    def _action(self, menu: QMenu, text: str,
                shortcut: str | QKeySequence | QKeySequence.StandardKey,
                slot: Callable[[], object]) -> QAction:
        a = QAction(text, self)
        a.setShortcut(QKeySequence(shortcut))
        a.triggered.connect(lambda _=False: slot())
        menu.addAction(a)
        return a

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.open_action = self._action(file, "Open store…", QKeySequence.StandardKey.Open,
                                        self.ask_open)
        # Ctrl+N is "New memory…" (Memory menu): a memory is made far more often.
        self.new_action = self._action(file, "New store…", "Ctrl+Shift+N", self.ask_new)
        self.demo_action = self._action(file, "Open demo store", "Ctrl+Shift+D",
                                        self.open_demo)
        self.recent_menu = file.addMenu("Recent stores")
        file.addSeparator()
        file.addAction(self.write_service.embed_action)
        self.settings_action = self._action(file, "Settings…", "Ctrl+,", self.edit_settings)
        self.transfers = add_to_file_menu(self, file, before=self.settings_action)
        from memdesk.ui.agents.tokens_dialog import add_to_file_menu as add_tokens_action

        self.tokens_action = add_tokens_action(self, file, before=self.settings_action)
        file.addSeparator()
        self.quit_action = self._action(file, "Quit", "Ctrl+Q", self.close)

        edit = bar.addMenu("&Edit")
        self.undo_action = self.undo_stack.createUndoAction(self, "Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        self.palette_action = self._action(edit, "Command palette…", "Ctrl+K",
                                           self.show_palette)
        self.save_filter_action = self._action(edit, "Save current filter…", "Ctrl+Shift+S",
                                               self.ask_save_filter)
        self.delete_filter_action = self._action(edit, "Delete saved filter", "Ctrl+Shift+X",
                                                 self.delete_current_filter)
        self.memory_menu = bar.addMenu("&Memory")
        self.new_memory_action = QAction("New memory…", self)
        self.new_memory_action.setShortcut(QKeySequence("Ctrl+N"))
        self.new_memory_action.triggered.connect(lambda _=False: self.ask_new_memory())
        self.view_menu = bar.addMenu("&View")
        self.refresh_action = QAction("Refresh", self)
        self.refresh_action.setShortcut(QKeySequence.StandardKey.Refresh)
        self.refresh_action.triggered.connect(
            lambda: self.desk.changed.emit(Changes.everything()))
        self.sidebar_action = QAction("Focus sidebar", self)
        self.sidebar_action.setShortcut(QKeySequence("Ctrl+L"))
        self.sidebar_action.triggered.connect(self.sidebar.setFocus)
        from memdesk.ui.review.menu import ReviewMenu

        self.review = ReviewMenu(self, bar.addMenu("&Review"))
        self.statusBar().addPermanentWidget(self.review.label)
        help_ = bar.addMenu("&Help")
        self.shortcuts_action = self._action(help_, "Keyboard shortcuts", "F1",
                                             self.show_shortcuts)
        self.services_action = self._action(help_, "Check Ollama again", "Ctrl+Shift+H",
                                            self.check_services)
        help_.addSeparator()
        self.about_action = self._action(help_, "About memdesk", "Shift+F1", self.show_about)

    def all_actions(self) -> list[QAction]:
        """Every command with a shortcut, for the palette and the shortcuts window."""
        out: list[QAction] = []

        def walk(menu: QMenu) -> None:
            for a in menu.actions():
                if isinstance(sub := a.menu(), QMenu):  # typed QObject; a menu's is a QMenu
                    walk(sub)
                elif not a.isSeparator():
                    out.append(a)

        for a in self.menuBar().actions():
            if isinstance(sub := a.menu(), QMenu):
                walk(sub)
        return out

    def _fill_view_menu(self) -> None:
        self.view_menu.clear()
        for spec in VIEWS:
            if spec.key not in self.views:
                continue
            a = QAction(spec.title, self)
            a.setShortcut(QKeySequence(spec.shortcut))
            a.triggered.connect(lambda _=False, k=spec.key: self.go_to_view(k))
            self.view_menu.addAction(a)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.refresh_action)
        self.view_menu.addAction(self.sidebar_action)

    def go_to_view(self, key: str) -> None:
        """A view's shortcut (Ctrl+2): show it and give it the keyboard, so its keys
        (Enter starts a sweep) work at once instead of going to the sidebar."""
        self.show_view(key)
        view = self.views[key]
        target: QWidget = view
        if view.focusProxy() is None:  # else its first widget that takes Tab focus
            w = view.nextInFocusChain()
            while w is not None and w is not view:
                if (view.isAncestorOf(w) and w.isVisibleTo(view) and w.isEnabled()
                        and w.focusPolicy() & Qt.FocusPolicy.TabFocus):
                    target = w
                    break
                w = w.nextInFocusChain()
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _fill_memory_menu(self) -> None:
        """The Memory menu holds the Browse view's commands (their shortcuts work only
        while a menu or widget holds them)."""
        self.memory_menu.clear()
        self.memory_menu.addAction(self.new_memory_action)  # from every view
        self.memory_menu.addSeparator()
        browser = self.views.get(BROWSE)
        actions: list[QAction] = browser.view_actions() if isinstance(browser, View) else []
        for a in actions:
            self.memory_menu.addAction(a)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for i, path in enumerate(self.settings.recent_stores):
            a = QAction(path.replace("&", "&&"), self)
            if i < 9:
                a.setShortcut(QKeySequence(f"Ctrl+Alt+{i + 1}"))
            a.triggered.connect(lambda _=False, p=path: self.open_path(p, create=False))
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))

    def ask_new_memory(self) -> None:
        from memdesk.ui.browse.new_memory import ask_new_memory

        ask_new_memory(self)

    # -- palette / help -------------------------------------------------------------
    def show_palette(self) -> None:
        from memdesk.ui.window.palette import CommandPalette

        CommandPalette(self.all_actions(), self).exec()

    def show_about(self) -> None:
        from memdesk.ui.window.about import AboutDialog

        AboutDialog(self).exec()

    def show_shortcuts(self) -> None:
        from memdesk.ui.window.palette import ShortcutsDialog

        ShortcutsDialog(self.all_actions(), self).exec()
