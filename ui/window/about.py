"""Help → About: what this is, which version, and what a bug report needs."""

from __future__ import annotations

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from memdesk.core.store.about import version_text
from memdesk.ui.desk.text import plain_label

SUMMARY = ("A desktop workbench for the long-term memory of AI agents: inspect, curate, "
           "sweep and audit the typed, scored memories agents write and recall.")


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About memdesk")
        title = QLabel("memdesk")
        title.setStyleSheet("font-size: 18pt; font-weight: bold")
        self.details = plain_label(
            version_text() + f"\nQt {qVersion()}, PySide6 {pyside_version}\nLicense: MIT")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        summary = plain_label(SUMMARY)
        summary.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        for w in (title, summary, self.details, buttons):
            lay.addWidget(w)
        self.setMinimumWidth(420)
