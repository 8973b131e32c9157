"""Source configuration panel: edit weights, enabled flags, top-k and confidence
thresholds of the delta-memory sources.  Each edit is one action on the desk's
pipeline (audited in the core, undone from Edit → Undo)."""

from __future__ import annotations

from collections.abc import Sequence
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
from memdesk.ui.delta.models import SourcesModel
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.text import isolate, plain_label


class SourcesPanel(QGroupBox):
    """The sources table and its two weight settings; reloaded by the owning view."""

    def __init__(self, desk: Desk, delta: DeltaMemory) -> None:
        super().__init__("Memory sources")
        self.desk = desk
        self.delta = delta
        self.model = SourcesModel(self._commit, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        # The type ("context_memory") repeats the name in most stores and cost the pane
        # its last two columns at 1280 px: it is in the name's tooltip instead.
        self.table.setColumnHidden(1, True)
        self.table.setMinimumHeight(140)
        self.normalize = QCheckBox("Normalise weights when composing")
        self.normalize.toggled.connect(self._toggle_normalize)
        self.normalize_now = QPushButton("Normalise stored weights")
        self.normalize_now.clicked.connect(self._normalize_now)
        self.message = plain_label("")
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.normalize)
        row.addStretch(1)
        row.addWidget(self.normalize_now)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addLayout(row)
        lay.addWidget(self.message)
        self.reload()

    def reload(self) -> None:
        cfg = self.delta.config()
        self.model.set_rows(cfg.sources, cfg.effective_weights())
        self.table.resizeColumnsToContents()
        # Wide enough for every column without scrolling sideways: the splitter beside
        # the queue would otherwise give the pane only its share of a narrow window.
        header = self.table.horizontalHeader()
        # The columns as just sized to their contents; the last one stretches to fill,
        # so its need is its own hint.
        shown = [c for c in range(header.count()) if not header.isSectionHidden(c)]
        columns = sum(header.sectionSize(c) for c in shown[:-1]) + max(
            header.sectionSizeHint(shown[-1]), self.table.sizeHintForColumn(shown[-1]),
            header.defaultSectionSize())  # a stretched section keeps at least that
        self.table.setMinimumWidth(columns + 2 * self.table.frameWidth() + 4
                                   + self.table.verticalScrollBar().sizeHint().width())
        self.normalize.blockSignals(True)
        self.normalize.setChecked(cfg.normalize_weights)
        self.normalize.blockSignals(False)

    def _commit(self, name: str, field: str, value: Any
                ) -> tuple[Sequence[SourceConfig], dict[str, float]] | None:
        """The model's edit of one cell: one action; the new rows, or None if refused."""
        delta = self.delta
        if not self.desk.run(Op(f"Set {isolate(name)} {field} to {value}",
                                lambda: delta.set_source(name, **{field: value}),
                                lambda _ch: self.message.setText(
                                    f"Saved {isolate(name)}.{field}."))):
            self.message.setText(f"Not saved: {self.desk.last_error}")
            return None
        cfg = delta.config()
        return cfg.sources, cfg.effective_weights()

    def _toggle_normalize(self, on: bool) -> None:
        delta = self.delta
        # A store setting, not a curation action: not on the undo stack.
        self.desk.run(Op("Normalise weights when composing" if on else
                         "Compose with raw weights",
                         lambda: delta.set_setting("normalize_weights", on),
                         undoable=False, on_error=lambda _m: self.reload()))

    def _normalize_now(self) -> None:
        delta = self.delta
        self.desk.run(Op("Normalise stored weights", delta.normalize_weights,
                         on_error=lambda _m: self.reload()))
