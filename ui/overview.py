"""Overview: what is in the open store, by status, type and layer (computed off-thread)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.summary import StoreSummary, summarize

from .ops import LatestTask


class OverviewView(QWidget):
    """Counts by status/type/layer; refreshes when told that memories changed."""

    def __init__(self, store: MemoryStore, window: object = None) -> None:
        super().__init__()
        self.store = store
        self._task = LatestTask(self)
        self._task.finished.connect(self._show)
        self.status_box, self.type_box, self.layer_box = (
            QGroupBox("By status"), QGroupBox("By type"), QGroupBox("By layer"),
        )
        row = QHBoxLayout()
        for box in (self.status_box, self.type_box, self.layer_box):
            box.setLayout(QFormLayout())
            row.addWidget(box)
        outer = QVBoxLayout(self)
        self.heading = QLabel("Loading…")
        outer.addWidget(self.heading)
        outer.addLayout(row)
        outer.addStretch(1)
        self.refresh()

    def refresh(self, changes: object = None) -> None:
        self._task.start(lambda state: summarize(self.store))

    def _fill(self, box: QGroupBox, items: dict[str, int]) -> None:
        form: QFormLayout = box.layout()  # type: ignore[assignment]
        while form.rowCount():
            form.removeRow(0)
        for k, v in items.items():
            form.addRow(QLabel(k or "(none)"), QLabel(f"{v:,}"))

    def _show(self, summary: StoreSummary) -> None:
        self.heading.setText(f"{summary.total:,} memories in this store")
        self._fill(self.status_box, summary.by_status)
        self._fill(self.type_box, summary.by_type)
        self._fill(self.layer_box, summary.by_layer)
