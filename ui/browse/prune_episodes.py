"""Memory → Prune old episodes…: the operator's bulk removal of old turns, in the desk.

The dialog asks what the CLI's ``memdesk episodes prune`` asks (older than how many
days, whose, and whether to include episodes a retrieval returned or whose units are
still active) and shows the dry run's figure (how many, about how much space) before
anything changes.  The figure is computed off the GUI thread (a ``LatestTask``: each
change of an option starts a new count and the stale one is dropped), so a store with
a million turns never freezes the window; Prune stays disabled until the figure for
exactly the options shown has arrived.  Accepting hands that plan to the browser,
which runs the prune through the desk's action pipeline as one undoable action.

Private state: ``plan`` (the PrunePlan of the options shown, None while counting or
after a failure) and the debounce timer.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.curation.episodes import EpisodePruning, PrunePlan
from memdesk.core.errors import MemdeskError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.text import fluid, list_entry, one_line, plain_label, tooltip_text

DEFAULT_DAYS = 90
DEBOUNCE_MS = 150  # typing "365" counts once, not three times


class PruneEpisodesDialog(QDialog):
    """Options, the dry run's figure, and Prune (accept) once the figure is in."""

    def __init__(self, store: MemoryStore, users: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prune old episodes")
        self.setObjectName("prune-episodes")
        self.pruning = EpisodePruning(store)
        self.plan: PrunePlan | None = None

        self.days = QSpinBox()
        self.days.setRange(0, 36_500)
        self.days.setValue(DEFAULT_DAYS)
        self.days.setSuffix(" days")
        self.days.setToolTip("Episodes said (or, with no session time, stored) more than "
                             "this many days ago")
        self.user = QComboBox()
        self.user.addItem("Every user", None)
        for u in users:  # the store's own strings: one short, visible row each
            self.user.addItem(list_entry(u), u)
            self.user.setItemData(self.user.count() - 1, tooltip_text(one_line(u)),
                                  Qt.ItemDataRole.ToolTipRole)
        self.include_recalled = QCheckBox("Also episodes a retrieval has returned")
        self.include_with_units = QCheckBox(
            "Also episodes whose extracted units are still active")
        self.figure = fluid(plain_label("Counting…"))
        self.figure.setObjectName("prune-figure")
        explain = fluid(plain_label(
            "By default only turns nobody needs go: never returned by a retrieval, and no "
            "unit extracted from them still active. The prune is one action: Edit → Undo "
            "brings every pruned episode back."))

        form = QFormLayout()
        form.addRow("Older than", self.days)
        form.addRow("User", self.user)
        form.addRow("", self.include_recalled)
        form.addRow("", self.include_with_units)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.prune_button: QPushButton = self.buttons.addButton(
            "Prune", QDialogButtonBox.ButtonRole.AcceptRole)
        self.prune_button.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(explain)
        lay.addLayout(form)
        lay.addWidget(self.figure)
        lay.addWidget(self.buttons)
        self.resize(520, self.sizeHint().height())

        self._task = LatestTask(self)
        self._task.finished.connect(self._show_plan)
        self._task.failed.connect(self._show_failure)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.count)
        self.days.valueChanged.connect(self._changed)
        self.user.currentIndexChanged.connect(self._changed)
        self.include_recalled.toggled.connect(self._changed)
        self.include_with_units.toggled.connect(self._changed)
        self.count()

    # -- the dry run --------------------------------------------------------------
    def _changed(self, *_args: object) -> None:
        """An option changed: the figure shown is stale until the new count is in."""
        self.plan = None
        self.prune_button.setEnabled(False)
        self.figure.setText("Counting…")
        self._debounce.start()

    def count(self) -> None:
        """Start the dry run for the options shown (off the GUI thread)."""
        self._debounce.stop()
        self.plan = None
        self.prune_button.setEnabled(False)
        self.figure.setText("Counting…")
        pruning, days = self.pruning, self.days.value()
        user = self.user.currentData()
        recalled = self.include_recalled.isChecked()
        with_units = self.include_with_units.isChecked()

        def work(state: TaskState) -> PrunePlan:
            return pruning.plan(days, user=user, include_recalled=recalled,
                                include_with_units=with_units)

        self._task.start(work)

    def _show_plan(self, plan: PrunePlan) -> None:
        self.plan = plan
        if plan.count:
            self.figure.setText("Would prune " + plan.describe() + ".")
        else:
            self.figure.setText("Nothing to prune: no episode said before "
                                f"{plan.cutoff:%Y-%m-%d} matches these options.")
        self.prune_button.setEnabled(plan.count > 0)

    def _show_failure(self, exc: object, _tb: str) -> None:
        self.plan = None
        self.prune_button.setEnabled(False)
        why = str(exc) if isinstance(exc, MemdeskError) else f"{type(exc).__name__}: {exc}"
        self.figure.setText(f"Could not count the episodes: {why}")

    def wait_idle(self, msecs: int = 5000) -> bool:
        """Wait for the count (tests, closing)."""
        return self._task.wait(msecs)

    def done(self, result: int) -> None:
        self._debounce.stop()
        self._task.wait(5000)  # never leave a count running against a closing dialog
        super().done(result)
