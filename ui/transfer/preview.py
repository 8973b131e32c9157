"""File → Import's preview: what the import would do, shown before anything is written,
and the operator's choice — import all, import without the duplicates, or cancel.

The preview itself (core/preview) runs off the GUI thread as a read-only background op
of the desk, followed by the transfers' progress dialog with its Cancel; this module is
the dialog that shows its result.  Memory text in it is revealed (hidden characters as
⟨U+XXXX⟩), as everywhere in the desk.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.ui.desk.text import plain_label, reveal

ALL, WITHOUT_DUPLICATES = "all", "without_duplicates"


class PreviewDialog(QDialog):
    """The preview's summary, its clusters, groups and flagged and bad items, and three
    buttons.  ``choice`` is ``ALL``, ``WITHOUT_DUPLICATES`` or None (cancelled)."""

    def __init__(self, preview: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.choice: str | None = None
        self.setWindowTitle("Import preview")
        self.resize(820, 520)
        self.summary = plain_label("\n".join(preview.lines()))
        self.summary.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        notes = preview.details()
        if preview.guard_count:
            notes.append("The guard screens agents' writes; an import is the operator's own "
                         "and is not held: flagged items would arrive active.")
        self.details.setPlainText(reveal("\n".join(notes)) or "Nothing to point out.")
        buttons = QDialogButtonBox()
        self.import_all = QPushButton(f"Import all ({preview.would_add:,})")
        self.without = QPushButton(
            f"Import without the duplicates ({preview.would_add_without_duplicates:,})")
        self.cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(self.import_all, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.without, QDialogButtonBox.ButtonRole.AcceptRole)
        nothing = preview.empty or not (preview.would_add or preview.would_update)
        self.import_all.setEnabled(not nothing)
        # Only skipping needs the duplicates counted in full (a cancelled preview has not).
        self.without.setEnabled(bool(preview.skip) and not preview.cancelled)
        self.import_all.clicked.connect(lambda: self._choose(ALL))
        self.without.clicked.connect(lambda: self._choose(WITHOUT_DUPLICATES))
        self.cancel.clicked.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.details, 1)
        lay.addWidget(buttons)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()
