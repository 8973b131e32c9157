"""The sweep view's three pages: the start form with the sweeps to resume and what the
sweeps have taught the desk, the review card (one memory at a time, by keyboard alone),
and the report at the end.  Each page acts through the view that holds it, seen as a
``SweepHost`` (ui/sweep/host.py): the pages never import the view.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.curation import sweep
from memdesk.core.errors import MemdeskError
from memdesk.core.taxonomy import MemoryType
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.text import display_lines, fluid, isolate, plain_label, reveal
from memdesk.ui.sweep.buttons import decision_buttons
from memdesk.ui.sweep.host import SweepHost
from memdesk.ui.sweep.learning import LearningPanel, guided_share_box
from memdesk.ui.sweep.models import HistogramModel, NeighbourModel, SweepListModel

ANY = "(any)"
MAX_SHOWN_CHARS = 20_000  # longer texts are cut in the card (the store keeps them whole)
REVIEW_KEYS = (
    "1–9 importance 0.1–0.9 · 0 = 1.0 · K keep · S skip · U undo · N note · Esc pause"
)
_DIGITS = {getattr(Qt.Key, f"Key_{d}"): d for d in range(10)}


class SweepStartPage(QWidget):
    """The form for a new sweep (band, n, user, type, seed) and the sweeps to resume.
    Return starts a sweep; Return on the list resumes the selected one."""

    def __init__(self, view: SweepHost) -> None:
        super().__init__()
        self.view = view
        self.lo = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.01)
        self.hi = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=1.0, singleStep=0.01)
        self.lo.setValue(sweep.DEFAULT_BAND[0])
        self.hi.setValue(sweep.DEFAULT_BAND[1])
        self.n = QSpinBox(minimum=1, maximum=sweep.MAX_N)
        self.n.setValue(sweep.DEFAULT_N)
        self.user = QComboBox(editable=True)
        self.user.addItem(ANY)
        self.type = QComboBox()
        self.type.addItems([ANY, *(t.value for t in MemoryType)])
        self.seed = QLineEdit(placeholderText="random (stored with the sweep)")
        self.guided = guided_share_box()
        self.learning = LearningPanel(view)
        self.start_button = QPushButton("Start sweep  (Enter)")
        self.start_button.clicked.connect(self.view.start_from_form)

        band = QHBoxLayout()
        band.addWidget(self.lo)
        band.addWidget(QLabel("to"))
        band.addWidget(self.hi)
        band.addStretch(1)
        form = QFormLayout()
        # Fields at their own width (a 900 px wide "User" box read as a text area), each
        # wide enough for what it holds.
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        char = self.fontMetrics().averageCharWidth()
        for w, chars in ((self.lo, 8), (self.hi, 8), (self.n, 10), (self.user, 28),
                         (self.type, 28), (self.seed, 32), (self.guided, 10)):
            w.setMinimumWidth(chars * char + 24)
        form.addRow("Importance band", band)
        form.addRow("Memories to review", self.n)
        form.addRow("User", self.user)
        form.addRow("Type", self.type)
        form.addRow("Seed", self.seed)
        form.addRow("Guided share", self.guided)
        form.addRow("", self.start_button)
        new_box = QGroupBox("New revaluation sweep")
        new_box.setLayout(form)
        intro = QLabel(
            "Samples memories uniformly from an importance band (most memories sit at "
            "0.30–0.49, and some of them are foundational) and shows them one at a time "
            "so you can re-decide their importance."
        )
        intro.setWordWrap(True)

        self.sweeps = SweepListModel(self)
        self.table = QTableView()
        self.table.setModel(self.sweeps)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.activated.connect(lambda idx: self.view.resume_row(idx.row()))
        self.resume_button = QPushButton("Resume selected")
        self.resume_button.clicked.connect(
            lambda: self.view.resume_row(self.table.currentIndex().row())
        )
        resume_box = QGroupBox("Unfinished sweeps")
        rl = QVBoxLayout(resume_box)
        self.no_sweeps = plain_label("None: a sweep you pause (Esc) or leave before its last "
                                     "memory waits here to be resumed.")
        self.no_sweeps.setWordWrap(True)
        rl.addWidget(self.no_sweeps)
        rl.addWidget(self.table)
        rl.addWidget(self.resume_button)

        self.status = plain_label("")
        self.status.setWordWrap(True)
        # The page scrolls when the window is short (1280×700 with a frame, 1024×640)
        # rather than squeeze the form's boxes to a few pixels.
        body = QWidget()
        outer = QVBoxLayout(body)
        outer.addWidget(intro)
        # The form and the sweeps to resume side by side: stacked, the page ran past
        # the bottom of a 1280×700 window.
        row = QHBoxLayout()
        row.addWidget(new_box)
        row.addWidget(resume_box, 1)
        outer.addLayout(row, 1)  # a tall window grows the list of sweeps, not the gaps
        outer.addWidget(self.learning)
        outer.addWidget(self.status)
        # Focus given to the page (Ctrl+2) lands in the form: Enter starts the sweep.
        self.setFocusProxy(self.n)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        page = QVBoxLayout(self)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(scroll)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.table.hasFocus():
                self.view.resume_row(self.table.currentIndex().row())
            else:
                self.view.start_from_form()
            return
        super().keyPressEvent(event)

    def chosen_user(self) -> str:
        """A listed entry's real user id (the list shows it revealed), else the typed text."""
        text = self.user.currentText()
        i = self.user.findText(text, Qt.MatchFlag.MatchExactly)
        data = self.user.itemData(i) if i >= 0 else None
        return str(data) if data is not None else text.strip()

    def params(self) -> dict[str, Any]:
        user = self.chosen_user()
        seed_text = self.seed.text().strip()
        if seed_text and not seed_text.isdigit():
            raise MemdeskError(f"The seed must be a whole number, not {seed_text!r}.")
        return dict(
            band=(self.lo.value(), self.hi.value()), n=self.n.value(),
            user=None if user in ("", ANY) else user,
            type=None if self.type.currentText() == ANY else self.type.currentText(),
            seed=int(seed_text) if seed_text else None, guided=self.guided.value(),
        )


class SweepReviewPage(QWidget):
    """One memory at a time: its text, context, session neighbours and the hint."""

    def __init__(self, view: SweepHost) -> None:
        super().__init__()
        self.view = view
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m")
        self.title = plain_label("")
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        font = QFont(self.text.font())
        font.setPointSizeF(max(15.0, font.pointSizeF() * 1.6))
        self.text.setFont(font)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.setMinimumHeight(140)

        self.fields: dict[str, QLabel] = {}
        ctx = QFormLayout()
        for key, label in (("importance", "Importance"), ("confidence", "Confidence"),
                           ("type", "Type · layer"), ("topic", "Topic"), ("user", "User"),
                           ("session", "Source session"), ("created", "Created"),
                           ("status", "Status")):
            self.fields[key] = fluid(plain_label(""))  # long ids wrap, never widen
            ctx.addRow(label, self.fields[key])
        ctx_box = QGroupBox("Context")
        ctx_box.setLayout(ctx)

        self.hint = plain_label("")
        self.hint.setWordWrap(True)
        self.hint.setObjectName("contemplativeHint")
        self.hint.setStyleSheet(
            "#contemplativeHint { background: #fff4c2; color: #4a3b00; padding: 6px; "
            "border: 1px solid #e0c860; border-radius: 4px; }"
        )
        self.neighbours = NeighbourModel(self)
        self.neighbour_list = QListView()
        self.neighbour_list.setModel(self.neighbours)
        self.neighbour_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.neighbour_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.neighbour_list.setWordWrap(True)
        self.neighbour_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.neighbours_empty = EmptyNote(self.neighbour_list, "", "sameSessionEmpty")
        nb_box = QGroupBox("Same session")
        QVBoxLayout(nb_box).addWidget(self.neighbour_list)

        self.note = QLineEdit(placeholderText="Note for the next decision — Enter keeps it, "
                                              "Esc drops it")
        self.note.hide()
        self.note.returnPressed.connect(self._note_done)
        self.pending_note = plain_label("")
        self.status = plain_label("")
        self.status.setWordWrap(True)
        keys = fluid(plain_label(REVIEW_KEYS))
        keys.setAlignment(Qt.AlignmentFlag.AlignCenter)
        buttons, self.decision_buttons = decision_buttons(self)

        side = QVBoxLayout()
        side.addWidget(ctx_box)
        side.addWidget(nb_box, 1)
        main = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(self.text, 1)
        left.addWidget(self.hint)
        main.addLayout(left, 3)
        main.addLayout(side, 2)
        outer = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.progress, 1)
        outer.addLayout(top)
        outer.addLayout(main, 1)
        outer.addWidget(self.pending_note)
        outer.addWidget(self.note)
        outer.addWidget(self.status)
        outer.addLayout(buttons)
        outer.addWidget(keys)

    def show_item(self, state: sweep.SweepState, ctx: sweep.ItemContext) -> None:
        self.progress.setRange(0, state.total)
        self.progress.setValue(state.done)
        self.title.setText(f"Sweep {state.id[:8]} · {state.describe(isolate)} · "
                           f"item {ctx.item.pos + 1}")
        rec = ctx.memory
        if rec is None:
            self.text.setPlainText("(this memory no longer exists; press S to skip it)")
            for lab in self.fields.values():
                lab.setText("")
            self.hint.hide()
            self.neighbours.set_rows([])
            self.neighbours_empty.set_visible(False)
            return
        shown = rec.text if len(rec.text) <= MAX_SHOWN_CHARS else (
            rec.text[:MAX_SHOWN_CHARS] + f"\n… ({len(rec.text) - MAX_SHOWN_CHARS:,} more "
            "characters)")
        # Revealed: an override must not turn "total 0.99" into "99.0 latot", a
        # zero-width space must not pass unseen.  Short display lines: Qt lays out
        # only the visible ones (no 20,000-char line).
        self.text.setPlainText(display_lines(reveal(shown), 200))
        sampled = ctx.item.importance_before
        changed = "" if rec.importance == sampled else f" (was {sampled:.2f} when sampled)"
        f = self.fields
        f["importance"].setText(f"{rec.importance:.2f}{changed}")
        f["confidence"].setText(f"{rec.confidence:.2f}")
        f["type"].setText(f"{rec.type} · {rec.layer or '—'}")
        f["topic"].setText(reveal(rec.topic or "—"))
        f["user"].setText(reveal(rec.user_id))
        f["session"].setText(reveal(rec.source_session or "—"))
        f["created"].setText(f"{rec.created_at:%Y-%m-%d %H:%M}")
        f["status"].setText(rec.status.value + ("" if rec.is_active else
                                                 " — no longer active; S to skip"))
        if ctx.hint is not None:
            self.hint.setText(ctx.hint.explain())
            self.hint.show()
        else:
            self.hint.hide()
        self.neighbours.set_rows(ctx.neighbours)
        self.neighbours_empty.set_visible(
            not ctx.neighbours, "No other memory of this user came from this session."
            if rec.source_session else "This memory does not say which session it came from.")

    # -- keys -----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if self.note.isVisible() and self.note.hasFocus():
            if key == Qt.Key.Key_Escape:
                self._note_cancel()
            return  # Return is handled by returnPressed; other keys belong to the edit
        if event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
            return
        if key in _DIGITS:
            d = _DIGITS[key]
            self.view.decide("revalue", 1.0 if d == 0 else d / 10)
        elif key == Qt.Key.Key_K:
            self.view.decide("keep")
        elif key == Qt.Key.Key_S:
            self.view.decide("skip")
        elif key == Qt.Key.Key_U:
            self.view.undo()
        elif key == Qt.Key.Key_N:
            self.note.show()
            self.note.setFocus()
        elif key == Qt.Key.Key_Escape:
            self.view.pause()
        else:
            super().keyPressEvent(event)

    def _note_done(self) -> None:
        text = self.note.text().strip()
        self.view.pending_note = text or None
        self.pending_note.setText(f"Note: {text}" if text else "")
        self.note.hide()
        self.setFocus()

    def _note_cancel(self) -> None:
        self.note.clear()
        self.note.hide()
        self.setFocus()

    def clear_note(self) -> None:
        self.note.clear()
        self.pending_note.setText("")


class SweepReportPage(QWidget):
    """Counts and the importance distribution before and after."""

    def __init__(self, view: SweepHost) -> None:
        super().__init__()
        self.view = view
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.heading = plain_label("")
        font = QFont(self.heading.font())
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.heading.setFont(font)
        self.counts = plain_label("")
        self.counts.setWordWrap(True)
        self.hist = HistogramModel(self)
        self.table = QTableView()
        self.table.setModel(self.hist)
        self.table.verticalHeader().hide()
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMaximumWidth(360)
        self.plot_box = QVBoxLayout()
        self.plot: Any = None
        row = QHBoxLayout()
        row.addWidget(self.table)
        row.addLayout(self.plot_box, 1)
        keys = plain_label("Enter or Esc: back to sweeps · U: undo the last decision")
        outer = QVBoxLayout(self)
        outer.addWidget(self.heading)
        outer.addWidget(self.counts)
        outer.addLayout(row, 1)
        outer.addWidget(keys)

    def show_report(self, state: sweep.SweepState, rep: sweep.SweepReport) -> None:
        self.heading.setText(f"Sweep {state.id[:8]} finished — {state.describe(isolate)}")
        self.counts.setText(
            f"Rescued (raised): {rep.raised}    Lowered: {rep.lowered}    Kept: {rep.kept}"
            f"    Skipped: {rep.skipped}    Not reviewed: {rep.undecided}\n"
            f"Mean importance {rep.mean_before:.3f} → {rep.mean_after:.3f}"
        )
        self.hist.set_report(rep)
        self._plot(rep)

    def _plot(self, rep: sweep.SweepReport) -> None:
        import pyqtgraph as pg  # heavy: only when a report is shown

        if self.plot is None:
            self.plot = pg.PlotWidget(background="w")
            self.plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.plot.setLabel("bottom", "importance")
            self.plot.setLabel("left", "memories")
            self.plot.addLegend()
            self.plot_box.addWidget(self.plot)
        self.plot.clear()
        centres = [(a + b) / 2 for a, b in zip(rep.bin_edges, rep.bin_edges[1:], strict=False)]
        self.plot.addItem(pg.BarGraphItem(x=[c - 0.022 for c in centres], height=rep.before,
                                          width=0.04, brush="#9aa7b8", name="before"))
        self.plot.addItem(pg.BarGraphItem(x=[c + 0.022 for c in centres], height=rep.after,
                                          width=0.04, brush="#2f7d4f", name="after"))
        self.plot.setXRange(0, 1)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape):
            self.view.pause()
        elif event.key() == Qt.Key.Key_U:
            self.view.undo()
        else:
            super().keyPressEvent(event)
