"""Overview: what is in the open store, by status, type and layer (computed off-thread)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QVBoxLayout

from memdesk.core.store.records import Changed, Changes
from memdesk.core.store.summary import StoreSummary, summarize
from memdesk.ui.desk.actions import Desk
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import count_of, plain_label
from memdesk.ui.desk.view import DeskView


class OverviewView(DeskView):
    """Counts by status/type/layer; re-summarises when memories changed (when shown)."""

    refresh_on = Changed.MEMORIES

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
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
        self.heading = plain_label("Loading…")
        outer.addWidget(self.heading)
        outer.addLayout(row)
        outer.addStretch(1)
        self.reload(Changes.everything())

    def reload(self, changes: Changes) -> None:
        store = self.store
        self._task.start(lambda state: summarize(store))

    def wait_idle(self, msecs: int = 5000) -> None:
        self._task.wait(msecs)

    def _fill(self, box: QGroupBox, items: dict[str, int]) -> None:
        form = box.layout()
        assert isinstance(form, QFormLayout)  # every box here is built with one
        while form.rowCount():
            form.removeRow(0)
        for k, v in items.items():
            form.addRow(plain_label(k or "(none)"), plain_label(f"{v:,}"))

    def _show(self, summary: StoreSummary) -> None:
        self.heading.setText(f"{count_of(summary.total, 'memory', 'memories')} in this store")
        self._fill(self.status_box, summary.by_status)
        self._fill(self.type_box, summary.by_type)
        self._fill(self.layer_box, summary.by_layer)
