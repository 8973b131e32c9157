"""Duplicates view: clusters of memories of one user that restate one another, and for
the selected one its members (which to keep: the suggestion preselected) and the pairs
that joined it with their cosine.

Keyboard: Enter or M merges (keeps the chosen memory, the others are superseded by it)
· N not duplicates (not offered together again) · 1–9 choose the memory to keep ·
↓/J and ↑/K move in the queue · R rescan · U undo (the same as Edit → Undo).  Each
merge or dismissal is one action on the desk's pipeline, run off the GUI thread, and
one undo step.  The scan runs in the background and only while the view is shown.
Every memory text is shown as plain text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.curation.duplicates import Cluster, Duplicates, Outcome
from memdesk.core.store.records import Changed, Changes
from memdesk.core.write.duplicates import (
    AGREE_MARGIN,
    DEFAULT_THRESHOLD,
    MAX_THRESHOLD,
    MIN_THRESHOLD,
)
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.queue_view import QueueView
from memdesk.ui.desk.text import count_of, elide, fluid, isolate, plain_label, tooltip_text

KEYS = ("Enter / M merge into the chosen memory · N not duplicates · 1–9 choose the one "
        "to keep · ↑↓ / J K move · Home / End first / last · R rescan · U undo")
EMPTY = ("No duplicates at similarity {t:.2f}.\n\nMemories of one user that say the same "
         "thing (the same text once case, spacing and punctuation are ignored, or vectors "
         "at least this similar, stating the same value) are listed here to merge. Lower "
         "the threshold to look wider; memories without vectors are compared by text only.")
_DIGITS = {getattr(Qt.Key, f"Key_{d}"): d for d in range(1, 10)}


def _item(text: str) -> QTableWidgetItem:
    it = QTableWidgetItem(text)  # a table item shows its text as plain text
    it.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
    return it


class DuplicatesView(QueueView):
    refresh_on = Changed.MEMORIES | Changed.HISTORY | Changed.SETTINGS

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.service = Duplicates(self.store)
        self.clusters: list[Cluster] = []
        self.cluster: Cluster | None = None
        self.keep_id: str | None = None
        self._follow_store = True  # the box shows the store's threshold until edited
        self.scanned_at = DEFAULT_THRESHOLD  # the threshold of the clusters shown

        self.threshold = QDoubleSpinBox(minimum=MIN_THRESHOLD, maximum=MAX_THRESHOLD,
                                        singleStep=0.01, decimals=2, value=DEFAULT_THRESHOLD)
        self.threshold.setPrefix("similarity ≥ ")
        self.threshold.setToolTip("Cosine at or above which two memories are duplicates "
                                  "(pairs whose stated values agree may be a little lower)")
        self.threshold.editingFinished.connect(self._edited)
        rescan = QPushButton("Rescan")
        rescan.clicked.connect(self.rescan)
        self.save_threshold = QPushButton("Save threshold")
        self.save_threshold.setToolTip(
            "Store this threshold for this store: the queue opens with it, `memdesk "
            "duplicates list` uses it, and the job worker flags new memories that restate "
            "one at it. Audited; Edit → Undo reverts it.")
        self.save_threshold.clicked.connect(self.store_threshold)
        self.queue = QListWidget()
        self.queue.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys belong to the view
        # A cluster is two lines (who, what): rows apart and lined, so each reads as one.
        self.queue.setAlternatingRowColors(True)
        self.queue.setSpacing(2)
        self.queue.currentRowChanged.connect(self._load)
        self.empty = EmptyNote(self.queue, EMPTY.format(t=DEFAULT_THRESHOLD), "duplicatesEmpty")

        self.heading = fluid(plain_label(""))
        self.members = QTableWidget(0, 5)
        self.members.setHorizontalHeaderLabels(["Keep", "Text", "Confidence", "Created",
                                                "New write"])
        self.pairs = QTableWidget(0, 3)
        self.pairs.setHorizontalHeaderLabels(["Memory", "Duplicates", "Cosine"])
        for table, stretch in ((self.members, 1), (self.pairs, 0)):
            table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
            table.verticalHeader().hide()
            table.setWordWrap(False)
            table.horizontalHeader().setSectionResizeMode(
                QHeaderView.ResizeMode.ResizeToContents)
            table.horizontalHeader().setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        self.pairs.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.members.cellClicked.connect(lambda row, _col: self.choose(row))
        self.merge_button = QPushButton("Merge (M)")
        self.merge_button.clicked.connect(self.merge)
        self.dismiss_button = QPushButton("Not duplicates (N)")
        self.dismiss_button.clicked.connect(self.dismiss)
        self.status = fluid(plain_label(""))

        top = QHBoxLayout()
        top.addWidget(self.threshold)
        top.addWidget(rescan)
        top.addWidget(self.save_threshold)
        top.addStretch(1)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addLayout(top)
        ll.addWidget(self.count)
        ll.addWidget(self.queue)
        buttons = QHBoxLayout()
        buttons.addWidget(self.merge_button)
        buttons.addWidget(self.dismiss_button)
        buttons.addStretch(1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.heading)
        rl.addWidget(self.members, 3)
        rl.addWidget(plain_label("Pairs that joined this cluster"))
        rl.addWidget(self.pairs, 2)
        rl.addLayout(buttons)
        rl.addWidget(self.status)
        rl.addWidget(fluid(plain_label(KEYS)))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        split.setSizes([420, 900])
        QVBoxLayout(self).addWidget(split)
        self._show_cluster(None)

    # -- scanning -------------------------------------------------------------------
    def reload(self, changes: Changes) -> None:
        if changes.touches(Changed.SETTINGS):
            self._follow_store = True  # an undo or another window changed the threshold
        self.rescan()

    def _edited(self) -> None:
        self._follow_store = False
        self.rescan()

    def scan_job(self) -> Callable[[object], tuple[float, list[Cluster]]]:
        service = self.service
        asked = None if self._follow_store else self.threshold.value()

        def scan(_st: object) -> tuple[float, list[Cluster]]:
            t = service.threshold() if asked is None else asked
            return t, service.find(threshold=t)

        return scan

    def _scanned(self, result: tuple[float, list[Cluster]]) -> None:
        threshold, clusters = result
        if self._follow_store:
            self.threshold.blockSignals(True)
            self.threshold.setValue(threshold)
            self.threshold.blockSignals(False)
        keep = self.cluster.members[-1].id if self.cluster else None
        self.clusters = clusters
        self.scanned_at = threshold
        self.queue.blockSignals(True)
        self.queue.clear()
        for c in clusters:
            new = " · new write" if c.flagged else ""
            item = QListWidgetItem(f"{isolate(c.user_id)} · "
                                   f"{count_of(len(c.members), 'memory', 'memories')}{new}\n"
                                   f"{elide(c.members[0].text, 80)}")
            item.setToolTip(tooltip_text(c.members[0].text))
            self.queue.addItem(item)
        self.queue.blockSignals(False)
        n = len(clusters)
        self.count.setText(f"{count_of(n, 'cluster', 'clusters')} at similarity ≥ "
                           f"{threshold:.2f} (≥ {threshold - AGREE_MARGIN:.2f} for two "
                           "memories that state the same value)")
        self.empty.set_visible(n == 0, EMPTY.format(t=threshold))
        row = next((i for i, c in enumerate(clusters) if keep in c.member_ids), -1)
        self._select(row if row >= 0 else self._resume_row)

    def store_threshold(self) -> None:
        """Store the box's threshold as the store's (one undoable action)."""
        service, value = self.service, self.threshold.value()

        def done(changes: Changes) -> None:
            self.status.setText(f"Threshold {value:.2f} stored: new writes are flagged at "
                                "it. U or Ctrl+Z undoes it." if changes.event_ids else
                                f"The threshold is {value:.2f} already.")
            self.setFocus()

        self._follow_store = True
        self.run(Op(f"Duplicate threshold {value:.2f}",
                    lambda _st: service.set_threshold(value), done, background=True))

    # -- selection ------------------------------------------------------------------
    def _select(self, row: int) -> None:
        if not self.clusters:
            self._show_cluster(None)
            return
        row = max(0, min(row, len(self.clusters) - 1))
        if self.queue.currentRow() == row:
            self._load(row)
        else:
            self.queue.setCurrentRow(row)

    def _load(self, row: int) -> None:
        self._show_cluster(self.clusters[row] if 0 <= row < len(self.clusters) else None)

    def _show_cluster(self, c: Cluster | None) -> None:
        self.cluster = c
        self.keep_id = c.suggested if c else None
        self.merge_button.setEnabled(c is not None)
        self.dismiss_button.setEnabled(c is not None)
        self.members.setRowCount(0)
        self.pairs.setRowCount(0)
        if c is None:
            self.heading.setText("Nothing to review." if not self.clusters else "")
            return
        # The user id is isolated: an override in it must not reverse the sentence.
        self.heading.setText(f"{isolate(c.user_id)} · {len(c.members)} memories say the same "
                             f"thing (cluster {c.id}). Suggested: keep the newest of the highest "
                             "confidence.")
        self.members.setRowCount(len(c.members))
        for i, m in enumerate(c.members):
            self.members.setItem(i, 1, _item(elide(m.text, 300)))
            self.members.setItem(i, 2, _item(f"{m.confidence:.2f}"))
            self.members.setItem(i, 3, _item(f"{m.created_at:%Y-%m-%d %H:%M}"))
            self.members.setItem(i, 4, _item("new" if m.flagged else ""))
        texts = {m.id: m.text for m in c.members}
        self.pairs.setRowCount(len(c.pairs))
        for i, p in enumerate(c.pairs):
            cos = "same text" if p.same_text else f"{p.cosine:.3f}"
            why = ""
            if not p.same_text and p.cosine is not None and p.cosine < self.scanned_at:
                # Joined below the box's threshold: say why, or it reads as a bug.
                cos += " · same value"
                why = (f"Below {self.scanned_at:.2f}, joined because both state the same "
                       f"value (entity, attribute and value agree): such pairs join from "
                       f"{self.scanned_at - AGREE_MARGIN:.2f}.")
            self.pairs.setItem(i, 0, _item(elide(texts[p.a], 120)))
            self.pairs.setItem(i, 1, _item(elide(texts[p.b], 120)))
            cell = _item(cos)
            if why:
                cell.setToolTip(why)
            self.pairs.setItem(i, 2, cell)
        self._mark_keep()

    def _mark_keep(self) -> None:
        c = self.cluster
        if c is None:
            return
        for i, m in enumerate(c.members):
            label = "✔ keep" if m.id == self.keep_id else ""
            if m.id == c.suggested:
                label += " (suggested)"
            self.members.setItem(i, 0, _item(label.strip()))

    def choose(self, row: int) -> None:
        """Keep the member in ``row`` instead of the suggestion."""
        if self.cluster is not None and 0 <= row < len(self.cluster.members):
            self.keep_id = self.cluster.members[row].id
            self._mark_keep()

    def current_row(self) -> int:
        return self.queue.currentRow()

    # -- keys -----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if self.queue_key(event):  # ↑↓ / J K, R, U
            return
        if event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_M):
            self.merge()
        elif key == Qt.Key.Key_N:
            self.dismiss()
        elif key in _DIGITS:
            self.choose(_DIGITS[key] - 1)
        else:
            super().keyPressEvent(event)

    # -- actions --------------------------------------------------------------------
    def merge(self) -> None:
        c, keep = self.cluster, self.keep_id
        if c is None or keep is None:
            return
        service = self.service
        self._act(f"Merge duplicates of {isolate(c.user_id)}",
                  lambda st: service.merge_cluster(c, keep),
                  f"Merged {count_of(len(c.members) - 1, 'duplicate', 'duplicates')} "
                  "into the one kept.")

    def dismiss(self) -> None:
        c = self.cluster
        if c is None:
            return
        service = self.service
        self._act(f"Not duplicates ({isolate(c.user_id)})",
                  lambda st: service.dismiss(c.member_ids),
                  "Marked as not duplicates: they are not offered together again.")

    def _act(self, name: str, call: Callable[..., Outcome], said: str) -> None:
        row = self.current_row()

        def done(_out: Outcome) -> None:
            self._resume_row = row
            self.status.setText(f"{said} U or Ctrl+Z undoes it.")
            self.setFocus()

        self.run(Op(name, call, done, background=True))
