"""Memory → New memory… (Ctrl+N): write one memory by hand.

The dialog asks for what the CLI's ``memdesk add`` requires (user, type, text) and the
importance, and the write is the same audited, undoable ``MemoryStore.add`` the CLI
makes, signed by the operator, through the desk's action pipeline (Edit → Undo takes it
back).  Empty fields are refused in the dialog, saying which; what the store refuses
(a text over its limit) is said the one way the desk says failures, and the dialog
stays open with everything typed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.store.records import AddedRecord
from memdesk.core.taxonomy import MemoryType
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.memory_text_edit import MemoryTextEdit
from memdesk.ui.desk.text import elide, fluid, isolate, list_entry, one_line, plain_label
from memdesk.ui.desk.window import DeskWindow


class NewMemoryDialog(QDialog):
    """The form; ``accept`` runs the add and closes only when it went through."""

    def __init__(self, desk: Desk, users: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        self.added: AddedRecord | None = None
        self.setWindowTitle("New memory")
        self.user = QComboBox()
        self.user.setEditable(True)
        for u in users:  # a line break or override must not shape the list
            self.user.addItem(list_entry(u), u)
        self.user.setCurrentIndex(0 if users else -1)
        self.type = QComboBox()
        self.type.addItems([t.value for t in MemoryType])
        self.type.setCurrentText(MemoryType.FACT.value)
        self.text = MemoryTextEdit()
        self.text.setTabChangesFocus(True)
        self.text.setPlaceholderText("What the agent should remember, e.g. "
                                     "\"User prefers tea to coffee.\"")
        self.importance = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.05)
        self.importance.setValue(0.5)
        self.message = fluid(plain_label(""))
        self.message.setObjectName("new-memory-message")
        self.message.setStyleSheet("color: #a40000")
        self.message.hide()
        self.text.refused.connect(self._say)
        form = QFormLayout()
        form.addRow("User", self.user)
        form.addRow("Type", self.type)
        form.addRow("Text", self.text)
        form.addRow("Importance", self.importance)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add memory")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.message)
        lay.addWidget(buttons)
        self.resize(560, 360)

    def _say(self, message: str) -> None:
        self.message.setText(message)
        self.message.show()

    def chosen_user(self) -> str:
        """A listed entry's real user id (the list shows it revealed), else the typed text."""
        text = self.user.currentText()
        i = self.user.findText(text, Qt.MatchFlag.MatchExactly)
        data = self.user.itemData(i) if i >= 0 else None
        return str(data) if data is not None else text.strip()

    def fields(self) -> dict[str, Any]:
        return {"user_id": self.chosen_user(), "type": self.type.currentText(),
                "text": self.text.toPlainText(), "importance": self.importance.value()}

    def accept(self) -> None:
        fields = self.fields()
        missing = [name for name, key in (("user", "user_id"), ("text", "text"))
                   if not str(fields[key]).strip()]
        if missing:
            self._say(f"Fill in the {' and the '.join(missing)}: a memory needs "
                      f"{'them' if len(missing) > 1 else 'it'}.")
            return
        store = self.desk.store

        def done(rec: AddedRecord) -> None:
            self.added = rec

        ok = self.desk.run(Op("Add memory", lambda: store.add(actor="operator", **fields),
                              done, on_error=self._say))
        if ok:
            super().accept()


def ask_new_memory(window: DeskWindow) -> None:
    """Open the dialog over ``window``; the new memory is then shown in Browse."""
    store = window.store
    dlg = NewMemoryDialog(window.desk, store.distinct("user_id", limit=500), window)
    if dlg.exec() and dlg.added is not None:
        rec = dlg.added
        window.statusBar().showMessage(
            f"Added the memory {isolate(elide(one_line(rec.text), 60))} (Ctrl+Z undoes it).",
            10_000)
        window.show_view("browse")
        browser = window.views.get("browse")
        open_memory = getattr(browser, "open_memory", None)
        if open_memory is not None:
            open_memory(rec.id)
