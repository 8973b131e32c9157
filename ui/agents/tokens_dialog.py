"""File → Agent tokens…: create, pause, resume and revoke the MCP server's bearer tokens
from the desk.  Pause keeps the secret and refuses the token's calls until Resume.

The same façade as ``memdesk tokens`` (memdesk.core.guard.tokens): a new token's
secret is shown once, in this dialog, and never stored; revoking asks first.  Both are
one small audited write each, done directly (no background op: there is nothing long
to wait for), and broadcast as history changes so an open history view refreshes.

Each token's last call and its calls of the last 24 hours come from the MCP server's
access log (memdesk.core.guard.access: index seeks per token), and the table below
lists the latest calls of the selected token — or of every caller, ``local`` (stdio,
no token) included, when none is selected — with the tool, the user and the outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.errors import MemdeskError
from memdesk.core.guard import access, tokens
from memdesk.core.store.records import Changes
from memdesk.ui.desk.selection import select_only

COLUMNS = ("Name", "Users", "Rights", "State", "Created", "Last call", "Calls (24 h)")
CALL_COLUMNS = ("When (UTC)", "Caller", "Tool", "User", "Outcome", "Memories", "ms")
RECENT_CALLS = 200


class TokensDialog(QDialog):
    """The store's tokens, a form to create one, and Revoke for the selected one."""

    def __init__(self, store: Any, parent: QWidget | None = None,
                 on_changed: Callable[[Changes], None] | None = None,
                 confirm: Callable[[str], bool] | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.on_changed = on_changed or (lambda _c: None)
        self.confirm = confirm or self._ask
        self.setWindowTitle("Agent tokens")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.itemSelectionChanged.connect(self.show_calls)
        self.calls = QTableWidget(0, len(CALL_COLUMNS))
        self.calls.setHorizontalHeaderLabels(CALL_COLUMNS)
        self.calls.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.calls_label = QLabel("")
        self.calls_label.setTextFormat(Qt.TextFormat.PlainText)
        self.revoke_button = QPushButton("Revoke selected…")
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.infos: dict[str, tokens.TokenInfo] = {}  # the listed tokens, by name
        # One button: Pause for an active token, Resume for a paused one.
        self.pause_button = QPushButton("Pause selected")
        self.pause_button.setToolTip("Refuse the token's calls until it is resumed; its "
                                     "secret stays valid (a call already running finishes)")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.table.itemSelectionChanged.connect(self._pause_label)

        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. alices-assistant")
        self.users = QLineEdit()
        self.users.setPlaceholderText("user ids, comma-separated")
        self.rights = {r: QCheckBox(r) for r in tokens.RIGHTS}
        for r in ("read", "write"):
            self.rights[r].setChecked(True)
        rights_row = QHBoxLayout()
        for box in self.rights.values():
            rights_row.addWidget(box)
        self.create_button = QPushButton("Create token")
        self.create_button.clicked.connect(self.create_token)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Users", self.users)
        form.addRow("Rights", rights_row)
        form.addRow("", self.create_button)

        self.secret = QLineEdit()
        self.secret.setReadOnly(True)
        self.secret.setPlaceholderText("a new token's secret appears here, once")
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        row = QHBoxLayout()
        row.addWidget(self.pause_button)
        row.addWidget(self.revoke_button)
        lay.addLayout(row)
        lay.addLayout(form)
        lay.addWidget(self.secret)
        lay.addWidget(self.message)
        lay.addWidget(self.calls_label)
        lay.addWidget(self.calls)
        lay.addWidget(buttons)
        self.setMinimumWidth(640)
        # Room for the two tables where the screen has it (at its 640 px minimum both
        # were a few rows of cut columns); never more than the screen.
        room = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(1000, room.width() - 40), min(680, room.height() - 60))
        self.reload()

    def reload(self) -> None:
        items = tokens.list_tokens(self.store)
        self.infos = {t.name: t for t in items}
        used = self._usage([t.name for t in items])
        self.table.setRowCount(len(items))
        for row, t in enumerate(items):
            state = (f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else
                     f"paused {t.paused_at:%Y-%m-%d %H:%M}" if t.paused_at else "active")
            u = used.get(t.name)
            last = f"{u.last_at:%Y-%m-%d %H:%M}" if u and u.last_at else "never"
            day = (f"{u.day} ({u.day_refused} refused)" if u and u.day_refused
                   else str(u.day if u else 0))
            for col, value in enumerate((t.name, ", ".join(t.users), ", ".join(t.rights),
                                         state, f"{t.created_at:%Y-%m-%d %H:%M}", last,
                                         day)):
                self.table.setItem(row, col, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        self.show_calls()
        self._pause_label()

    def _pause_label(self) -> None:
        info = self.infos.get(self.selected_name() or "")
        self.pause_button.setText("Resume selected" if info is not None and info.paused
                                  else "Pause selected")
        self.pause_button.setEnabled(info is not None and info.active)

    def toggle_pause(self) -> None:
        """Pause the selected token, or resume it if it is paused (audited, at once)."""
        info = self.infos.get(self.selected_name() or "")
        if info is None:
            self.message.setText("Select a token to pause or resume.")
            return
        try:
            fn = tokens.resume_token if info.paused else tokens.pause_token
            changes = fn(self.store, info.name)
        except MemdeskError as exc:  # revoked meanwhile, a locked store
            self.message.setText(str(exc))
            self.reload()
            return
        self.message.setText(
            f"Token {info.name!r} resumed: its next call goes through." if info.paused else
            f"Token {info.name!r} paused: its calls are refused until you resume it.")
        self.reload()
        self._select(info.name)
        self.on_changed(changes)

    def _select(self, name: str) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.text() == name:
                select_only(self.table, row)
                return

    def _usage(self, names: list[str]) -> dict[str, access.Usage]:
        try:
            return access.usage(self.store, names)
        except MemdeskError as exc:  # a locked store: the tokens still show
            self.message.setText(f"The access log cannot be read right now: {exc}")
            return {}

    def show_calls(self) -> None:
        """The latest calls of the selected token, or of every caller."""
        name = self.selected_name()
        try:
            calls = access.recent_calls(self.store, name, RECENT_CALLS)
        except MemdeskError as exc:
            self.message.setText(f"The access log cannot be read right now: {exc}")
            calls = []
        who = f"token {name!r}" if name else "every caller ('local': no token)"
        self.calls_label.setText(f"Latest calls of {who}: {len(calls)}"
                                 + (f" (the last {RECENT_CALLS})"
                                    if len(calls) == RECENT_CALLS else ""))
        self.calls.setRowCount(len(calls))
        for row, c in enumerate(calls):
            values = (f"{c.at:%Y-%m-%d %H:%M:%S}", c.caller, c.tool, c.user_id or "",
                      c.outcome, "" if c.results is None else str(c.results),
                      "" if c.ms is None else f"{c.ms:.1f}")
            for col, value in enumerate(values):
                self.calls.setItem(row, col, QTableWidgetItem(value))
        self.calls.resizeColumnsToContents()

    def create_token(self) -> None:
        users = [u.strip() for u in self.users.text().split(",") if u.strip()]
        rights = [r for r, box in self.rights.items() if box.isChecked()]
        try:
            issued = tokens.add_token(self.store, self.name.text().strip(), users, rights)
        except MemdeskError as exc:  # bad name, no users, unknown right, a locked store
            self.message.setText(str(exc))
            return
        self.secret.setText(issued.secret)
        self.secret.selectAll()
        QGuiApplication.clipboard().setText(issued.secret)
        self.message.setText(
            f"Token {issued.token.name!r} created and its secret copied to the clipboard. "
            "Give it to the agent now (Authorization: Bearer <secret>): it is not stored "
            "and cannot be shown again.")
        self.name.clear()
        self.reload()
        self.on_changed(issued.changes)

    def selected_name(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return item.text() if item else None

    def revoke_selected(self) -> None:
        name = self.selected_name()
        if name is None:
            self.message.setText("Select a token to revoke.")
            return
        if not self.confirm(name):
            return
        try:
            changes = tokens.revoke_token(self.store, name)
        except MemdeskError as exc:
            self.message.setText(str(exc))
            return
        self.message.setText(f"Token {name!r} revoked: its next request is refused.")
        self.reload()
        self.on_changed(changes)

    def _ask(self, name: str) -> bool:
        answer = QMessageBox.question(
            self, "Revoke token",
            f"Revoke token {name!r}? Agents using it are refused from their next call. "
            "A revoked token cannot be restored (create a new one).")
        return answer == QMessageBox.StandardButton.Yes


def add_to_file_menu(window: Any, menu: QMenu, before: QAction | None = None) -> QAction:
    """The window's hook: File → Agent tokens…"""
    action = QAction("Agent tokens…", window)
    action.setShortcut(QKeySequence("Ctrl+Alt+T"))
    action.setStatusTip("Create and revoke bearer tokens for the MCP server over HTTP")

    def show() -> None:
        TokensDialog(window.store, window, on_changed=window.desk.changed.emit).exec()

    action.triggered.connect(lambda _=False: show())
    if before is None:
        menu.addAction(action)
    else:
        menu.insertAction(before, action)
    return action
