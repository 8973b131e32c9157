"""What the sweeps have taught the desk, on the sweep view's start page: the band
estimate with its 95 % interval (overall, per type, per source), the guided-sweep
model's state (or why sweeps are still uniform), a button that trains the model and the
calibration off the GUI thread, and the guided share of the next sweep.

Also the one line the review page shows for a guided pick: why the model chose it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from memdesk.core.curation.estimate import BandEstimate, Share
from memdesk.core.curation.guided import ColdStart
from memdesk.core.curation.learning import Guidance
from memdesk.core.curation.mixing import PickInfo
from memdesk.core.curation.service import Calibrations, Sweeps
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Op
from memdesk.ui.desk.ops import LatestTask
from memdesk.ui.desk.text import plain_label

if TYPE_CHECKING:
    from memdesk.ui.sweep.host import SweepHost


def guided_share_box() -> QDoubleSpinBox:
    """The share of the next sweep the guided model picks (0: all uniform)."""
    box = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.1)
    box.setValue(0.5)
    box.setToolTip("Share of items picked by the model trained on your decisions; the "
                   "rest are uniform draws, which keep the band estimate honest. "
                   "All uniform until enough decisions exist.")
    return box


def pick_line(pick: PickInfo | None) -> str:
    """The review page's line about how this item was picked."""
    if pick is None or not pick.guided:
        return ""
    return f"Guided pick (the model expects you may raise it) — {pick.reason}"


def _cell(s: Share) -> str:
    n = f", ≈ {s.memories:,}" if s.memories is not None else ""
    return f"{s.p:.0%} ({s.lo:.0%}–{s.hi:.0%}{n}; n={s.n})"


COMPUTING = "Computing the estimate…"


class LearningPanel(QGroupBox):
    """The estimate and the model's state; Train runs through the desk's pipeline."""

    def __init__(self, view: SweepHost) -> None:
        super().__init__("What your sweeps say about the band")
        self.view = view
        self.headline = plain_label(COMPUTING)  # until the first estimate is in
        self.headline.setWordWrap(True)
        self.headline.setObjectName("bandEstimate")
        self.model_state = plain_label("")
        self.model_state.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Group", "Would be raised", "Would be lowered"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMaximumHeight(160)
        self.train_button = QPushButton("Train on my decisions")
        self.train_button.clicked.connect(self.train)
        row = QHBoxLayout()
        row.addWidget(self.model_state, 1)
        row.addWidget(self.train_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.headline)
        lay.addWidget(self.table)
        lay.addLayout(row)
        self._task = LatestTask(self)
        self._task.finished.connect(self._loaded)
        self._task.failed.connect(lambda exc, _tb: self.headline.setText(str(exc)))

    def reload(self) -> None:
        # Said at once: the first estimate with decisions loads the statistics library
        # (seconds), and a stale or blank line read as "nothing changed".
        self.headline.setText(COMPUTING)
        sweeps = Sweeps(self.view.store)
        self._task.start(lambda st: (sweeps.estimate(), sweeps.guidance()))

    def wait(self, msecs: int = 5000) -> None:
        self._task.wait(msecs)

    def _loaded(self, result: tuple[BandEstimate, Guidance]) -> None:
        est, guidance = result
        self.headline.setText(est.headline()[0].upper() + est.headline()[1:])
        # The core's line names the CLI command; here the button beside it does that.
        self.model_state.setText(guidance.message.replace(" (memdesk sweep train)", ""))
        rows = [(f"type {k}", g) for k, g in sorted(est.by_type.items())]
        rows += [(f"source {k}", g) for k, g in sorted(est.by_source.items())]
        self.table.setRowCount(len(rows))
        for i, (name, g) in enumerate(rows):
            for j, text in enumerate((name, _cell(g.raised), _cell(g.lowered))):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()

    def train(self) -> None:
        store = self.view.store
        self.train_button.setEnabled(False)
        self.model_state.setText("Training on your decisions…")

        def work(_state: Any) -> str:
            out = []
            for label, fn in (("Guided model", lambda: Sweeps(store).train()),
                              ("Calibration", lambda: Calibrations(store).train())):
                try:
                    fn()
                    out.append(f"{label} trained.")
                except ColdStart as exc:
                    out.append(str(exc))
            return " ".join(out)

        self.view.run(Op("Train on sweep decisions", work, self._trained, undoable=False,
                         background=True, changes=lambda _r: Changes(kinds=Changed.SWEEPS),
                         on_error=lambda _m: self.train_button.setEnabled(True)))

    def _trained(self, message: str) -> None:
        self.train_button.setEnabled(True)
        self.view.start.status.setText(message)
        self.reload()


def suggestion_text(store: Any, memory_id: str) -> str:
    """The detail pane's line: the calibrated importance beside the write-time one
    (empty without a calibration, or outside the range the decisions cover)."""
    try:
        found = Calibrations(store).suggest([memory_id])
    except Exception:  # a damaged or foreign store: the pane shows the memory anyway
        return ""
    if not found or found[0].suggested is None:
        return ""
    s = found[0]
    if s.applied and s.current is not None:
        return (f"Calibrated from your sweeps: {s.current:.2f} (write-time "
                f"{s.write_time:.2f}; {s.p_raise:.0%} chance you would raise it; "
                f"source {s.source}; the history's calibrate step undoes it)")
    verdict = "keep" if s.suggested == s.write_time else f"suggested {s.suggested:.2f}"
    return (f"Calibration from your sweeps: {verdict} (write-time {s.write_time:.2f}; "
            f"{s.p_raise:.0%} chance you would raise it; source {s.source})")


def auto_apply_new(desk: Any) -> None:
    """After a job wrote memories: give those of auto-apply sources their calibrated
    importance, off the GUI thread, as one undoable action (Edit → Undo reverts it).
    The job worker calibrates as it stores (``calibrate_at_write``), so this finds only
    memories another writer stored without it.  Nothing runs, and nothing is broadcast,
    while no source has auto-apply on."""
    cals = Calibrations(desk.store)
    if not cals.auto_sources():  # one tiny read; the common case
        return
    desk.run(Op("Auto-apply calibrated importance",
                lambda _st: cals.apply_pending().changes, background=True))
