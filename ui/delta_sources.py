"""Source configuration panel: edit weights, enabled flags, top-k and confidence
thresholds of the delta-memory sources (each edit audited and undoable in the core)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from memdesk.core.delta.contracts import SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import MemdeskError
from memdesk.core.store.records import Changes

from .delta_models import SourcesModel
from .text import error_box, plain_label


class SourcesPanel(QGroupBox):
    """Edits go straight to the store; ``report(changes)`` tells the owner."""

    def __init__(self, delta: DeltaMemory, report: Callable[[Changes], None]) -> None:
        super().__init__("Memory sources")
        self.delta = delta
        self._report = report
        self._undo: list[str] = []  # groups of this panel's edits, newest last
        self.model = SourcesModel(self._commit, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMinimumHeight(140)
        self.normalize = QCheckBox("Normalise weights when composing")
        self.normalize.toggled.connect(self._toggle_normalize)
        self.normalize_now = QPushButton("Normalise stored weights")
        self.normalize_now.clicked.connect(self._normalize_now)
        self.undo_button = QPushButton("Undo last source edit")
        self.undo_button.clicked.connect(self.undo_last)
        self.undo_button.setEnabled(False)
        self.message = plain_label("")
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.normalize)
        row.addStretch(1)
        row.addWidget(self.normalize_now)
        row.addWidget(self.undo_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addLayout(row)
        lay.addWidget(self.message)
        self.reload()

    def reload(self) -> None:
        cfg = self.delta.config()
        self.model.set_rows(cfg.sources, cfg.effective_weights())
        self.table.resizeColumnsToContents()
        self.normalize.blockSignals(True)
        self.normalize.setChecked(cfg.normalize_weights)
        self.normalize.blockSignals(False)
        self.undo_button.setEnabled(bool(self._undo))

    def _commit(self, name: str, field: str, value: Any
                ) -> tuple[Sequence[SourceConfig], dict[str, float]] | None:
        try:
            ch = self.delta.set_source(name, **{field: value})
        except MemdeskError as exc:
            self.message.setText(f"Not saved: {exc}")
            return None
        if ch.group_id:
            self._undo.append(ch.group_id)
            self.message.setText(f"Saved {name}.{field} = {value}")
            self._report(ch)
        self.undo_button.setEnabled(bool(self._undo))
        cfg = self.delta.config()
        return cfg.sources, cfg.effective_weights()

    def _toggle_normalize(self, on: bool) -> None:
        self._run(lambda: self.delta.set_setting("normalize_weights", on), undoable=False)

    def _normalize_now(self) -> None:
        self._run(self.delta.normalize_weights)

    def undo_last(self) -> None:
        if self._undo:
            group = self._undo.pop()
            self._run(lambda: self.delta.undo(group), undoable=False)

    def _run(self, fn: Callable[[], Changes], undoable: bool = True) -> None:
        try:
            ch = fn()
        except MemdeskError as exc:
            error_box(self, "memdesk: sources", str(exc)).open()
            self.reload()
            return
        if undoable and ch.group_id:
            self._undo.append(ch.group_id)
        self.reload()
        self._report(ch)
