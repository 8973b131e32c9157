"""Review inbox: what the poisoning guard held, one item at a time, by keyboard alone.

Keys (like the sweep): A approve, R reject, E edit the text (Ctrl+Return saves, Esc
cancels), U undo the last action, J / K or the arrow keys move, V reveals a held
secret.  The lane box above the list shows every held memory, the secrets lane (held
for a secret: core/guard/secret_lane.py) or the guard's other holds; a secret's text is
listed masked until the operator reveals it (V, or the Reveal button), and editing
one reveals it.  Every action is one
core call (``memdesk.core.guard.review.Review``) run as an ``Op`` through the desk's pipeline,
so it lands on the one undo stack: Edit → Undo and U undo the same thing.  Each item
shows every reason it is held and where it came from; agent text is plain text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.guard.review import HeldItem, Review
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.columns import capped_columns
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.selection import select_only
from memdesk.ui.desk.table_model import Index, RowsTableModel
from memdesk.ui.desk.text import (
    elide,
    elide_middle,
    isolate,
    one_line,
    plain_label,
    reveal,
    tooltip_text,
)
from memdesk.ui.desk.view import DeskView

KEYS = "A approve · R reject · E edit · U undo · J/K next/previous · V reveal a secret"
LANES = (("all", "All held"), ("secrets", "Secrets lane"), ("guard", "Guard's other holds"))
MAX_SHOWN_CHARS = 20_000
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TIP = Qt.ItemDataRole.ToolTipRole


# What the empty inbox is for: an empty table alone read as a view that never works.
EMPTY = ("Nothing is waiting for review.\n\nAn agent's write lands here when the "
         "poisoning guard holds it: text that reads like an instruction to the agent "
         "(\"ignore all previous instructions\"), a link to follow, hidden characters, or "
         "an attempt to overwrite a memory the operator curated. Approve, edit or reject "
         "each one; nothing held reaches the agents until it is approved.")


class HeldModel(RowsTableModel[HeldItem]):
    """The held memories (``HeldItem``), oldest first."""

    HEADERS = ("Arrived", "User", "Held by", "From", "Text")
    revealed: set[str]  # ids whose secrets the operator revealed (the view's, shared)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid() or role not in (_DISPLAY, _TIP):
            return None
        item: HeldItem = self._rows[index.row()]
        m, col = item.memory, index.column()
        if col == 0:
            return f"{m.created_at:%Y-%m-%d %H:%M}"
        if col == 1:
            return tooltip_text(reveal(m.user_id)) if role == _TIP else one_line(m.user_id)
        if col == 2:
            text = ", ".join(dict.fromkeys(f.rule_id for f in item.findings)) or "—"
            return tooltip_text(item.reasons) if role == _TIP else text
        if col == 3:
            o = item.origin
            width = 2000 if role == _TIP else 30
            text = f"{isolate(elide_middle(o.client_name, width))} · {o.source}" if o else "—"
            return tooltip_text(text) if role == _TIP else text
        text = item.shown_text(m.id in self.revealed)
        return tooltip_text(reveal(text)) if role == _TIP else one_line(elide(text, 120))


class ReviewCard(QWidget):
    """The selected item: text (editable on E), reasons, origin, fields, key help."""

    def __init__(self, view: ReviewView) -> None:
        super().__init__()
        self.view = view
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.installEventFilter(self)
        self.reasons = QPlainTextEdit()
        self.reasons.setReadOnly(True)
        self.reasons.setMaximumHeight(110)
        self.origin = plain_label()
        self.fields = plain_label()
        self.keys = plain_label(KEYS)
        self.status = plain_label()
        self.reveal_button = QPushButton("Reveal secret")
        self.reveal_button.setToolTip("Show the held secret as written (V); it stays held "
                                      "until you approve it")
        self.reveal_button.clicked.connect(lambda: view.toggle_reveal())
        self.reveal_button.hide()
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Why it is held"))
        lay.addWidget(self.reasons)
        text_row = QHBoxLayout()
        text_row.addWidget(QLabel("Text"), 1)
        text_row.addWidget(self.reveal_button)
        lay.addLayout(text_row)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.origin)
        lay.addWidget(self.fields)
        lay.addWidget(self.keys)
        lay.addWidget(self.status)

    @property
    def editing(self) -> bool:
        return not self.text.isReadOnly()

    def show_item(self, item: HeldItem | None) -> None:
        self.stop_editing()
        if item is None:
            self.text.setPlainText("")
            self.reasons.setPlainText("Nothing is waiting for review.")
            self.origin.setText("")
            self.fields.setText("")
            self.reveal_button.hide()
            return
        m = item.memory
        revealed = m.id in self.view.model.revealed
        text = item.shown_text(revealed)
        shown = text if len(text) <= MAX_SHOWN_CHARS else (
            text[:MAX_SHOWN_CHARS] + f"\n… ({len(text) - MAX_SHOWN_CHARS:,} more characters)")
        self.reveal_button.setVisible(bool(item.secret_categories))
        self.reveal_button.setText("Hide secret" if revealed else "Reveal secret")
        self.text.setPlainText(reveal(shown))  # read-only: shown; editing gets it exact
        self.reasons.setPlainText("\n".join(f"• {f.reason}" for f in item.findings)
                                  or "Held for review.")
        o = item.origin
        self.origin.setText(
            f"From {isolate(o.client_name)}"
            f"{' ' + isolate(o.client_version) if o.client_version else ''} "
            f"({o.source}'s words, {o.transport}, session {isolate(o.session[:8])}"
            f"{', token ' + isolate(o.token) if o.token else ''})" if o
            else "From: no agent origin recorded")
        # Agent-written values are isolated: an override in one cannot reorder the line.
        cats = item.secret_categories
        triple = " · ".join(isolate(x if revealed or not cats else item_field(x, item))
                            for x in (m.entity, m.attribute, m.value) if x) or "—"
        self.fields.setText(f"{m.type} · {m.layer or '—'} · user {isolate(m.user_id)} · "
                            f"importance "
                            f"{m.importance:.2f} · confidence {m.confidence:.2f} · {triple}")

    def start_editing(self) -> None:
        item = self.view.current_item()
        if item is None:
            return
        self.view.model.revealed.add(item.memory.id)  # editing a secret shows it
        self.text.setPlainText(item.memory.text)  # the whole text, not the shown cut
        self.text.setReadOnly(False)
        self.text.setFocus()
        self.keys.setText("Editing · Ctrl+Return save · Esc cancel")

    def stop_editing(self) -> None:
        self.text.setReadOnly(True)
        self.keys.setText(KEYS)

    def eventFilter(self, obj: Any, event: Any) -> bool:
        if obj is self.text and self.editing and isinstance(event, QKeyEvent) \
                and event.type() == QKeyEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.show_item(self.view.current_item())
                self.view.table.setFocus()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                    event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self.view.save_edit(self.text.toPlainText())
                return True
        return False


def item_field(value: str, item: HeldItem) -> str:
    """One of a held secret's other fields (the triple's value) as listed: masked."""
    from memdesk.core.guard.secret_lane import shown_text

    return shown_text(value, item.secret_categories)


class ReviewView(DeskView):
    """The inbox.  Private state: the loaded items and which row to select after a load."""

    refresh_on = Changed.MEMORIES  # approving, rejecting and editing change memory rows
    card: ReviewCard  # built after the table, whose signals name it

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self._want_row = 0
        self._load = LatestTask(self)
        self._load.finished.connect(self._loaded)
        self._load.failed.connect(lambda exc, tb: self.card.status.setText(f"Error: {exc}"))

        self.model = HeldModel(self)
        self.model.revealed = set()
        self.lane = QComboBox()
        for key, label in LANES:
            self.lane.addItem(label, key)
        self.lane.setToolTip("Which held memories to list: all, those held for a secret, "
                             "or those the guard's other rules hold")
        self.lane.currentIndexChanged.connect(lambda _i: self.reload())
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # a wrapped date or rule list was cut mid-line
        capped_columns(self.table, {0: 17, 1: 14, 2: 30, 3: 26}, stretch=4)
        self.table.installEventFilter(self)
        self.empty = EmptyNote(self.table, EMPTY, "review-empty")
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self.card.show_item(self.model.row_at(cur.row())))
        self.title = plain_label()
        self.card = ReviewCard(self)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.card)
        split.setSizes([300, 400])
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(QLabel("Lane"))
        top.addWidget(self.lane)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        self.reload(Changes.everything())

    # -- loading ----------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.table.setFocus()

    def reload(self, changes: Changes | None = None) -> None:
        store = self.store
        lane = str(self.lane.currentData() or "all")
        self._load.start(lambda st: Review(store).inbox(lane=lane))

    def _loaded(self, items: list[HeldItem]) -> None:
        self.model.set_rows(items)
        n = len(items)
        where = "" if self.lane.currentData() == "all" else f" ({self.lane.currentText()})"
        self.title.setText(f"{n:,} held for review{where}" if n
                           else f"Nothing is waiting for review{where}")
        self.empty.set_visible(n == 0)
        if n:
            select_only(self.table, min(self._want_row, n - 1))
        else:
            self.card.show_item(None)

    def wait_idle(self, msecs: int = 5000) -> None:
        self._load.wait(msecs)

    # -- actions ----------------------------------------------------------------------
    def current_item(self) -> HeldItem | None:
        return self.model.row_at(self.table.currentIndex().row())

    def _run(self, label: str, fn: Callable[[], Changes], status: str) -> None:
        """One action through the desk (which broadcasts, so this view reloads)."""
        self._want_row = max(self.table.currentIndex().row(), 0)
        if self.run(Op(label, fn, on_error=self.card.status.setText)):
            self.card.status.setText(status)

    def approve(self) -> None:
        item = self.current_item()
        if item is not None:
            mid = item.memory.id
            self._run("Approve held memory", lambda: Review(self.store).approve([mid]),
                      "Approved: it is an active memory now.")

    def reject(self) -> None:
        item = self.current_item()
        if item is not None:
            mid = item.memory.id
            self._run("Reject held memory", lambda: Review(self.store).reject([mid]),
                      "Rejected (U undoes).")

    def save_edit(self, text: str) -> None:
        item = self.current_item()
        if item is None:
            return
        mid = item.memory.id
        self.card.stop_editing()
        if text == item.memory.text:
            self.card.show_item(item)
            self.table.setFocus()
            return
        self._run("Edit held memory", lambda: Review(self.store).edit(mid, text=text),
                  "Edited; still held until you approve it.")
        self.table.setFocus()

    def undo(self) -> None:
        """U: the same as Edit → Undo (the desk's one stack)."""
        stack = self.desk.undo_stack
        if stack.canUndo():
            stack.undo()
            self.card.status.setText("Undone.")

    def toggle_reveal(self) -> None:
        """Show (or mask again) the selected held secret's text (V, the Reveal button)."""
        item = self.current_item()
        if item is None or not item.secret_categories:
            return
        mid = item.memory.id
        if mid in self.model.revealed:
            self.model.revealed.discard(mid)
        else:
            self.model.revealed.add(mid)
        row = self.table.currentIndex().row()
        self.model.dataChanged.emit(self.model.index(row, 0),
                                    self.model.index(row, len(self.model.HEADERS) - 1))
        self.card.show_item(item)

    def step(self, by: int) -> None:
        """Select the item ``by`` rows down (up when negative), within the list."""
        n = self.model.rowCount()
        if n:
            row = min(max(self.table.currentIndex().row() + by, 0), n - 1)
            select_only(self.table, row)

    # -- keys -------------------------------------------------------------------------
    def eventFilter(self, obj: Any, event: Any) -> bool:
        if obj is self.table and isinstance(event, QKeyEvent) \
                and event.type() == QKeyEvent.Type.KeyPress and self.handle_key(event):
            return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.handle_key(event):
            super().keyPressEvent(event)

    def handle_key(self, event: QKeyEvent) -> bool:
        if self.card.editing or event.modifiers() & (
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            return False
        actions: dict[Qt.Key, Callable[[], object]] = {
                   Qt.Key.Key_A: self.approve, Qt.Key.Key_R: self.reject,
                   Qt.Key.Key_E: self.card.start_editing, Qt.Key.Key_U: self.undo,
                   Qt.Key.Key_J: lambda: self.step(1), Qt.Key.Key_K: lambda: self.step(-1),
                   Qt.Key.Key_V: self.toggle_reveal}
        action = actions.get(Qt.Key(event.key()))
        if action is None:
            return False
        action()
        return True
