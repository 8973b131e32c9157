"""Contradictions view: a queue of contradiction groups and, for the selected one,
side-by-side cards (one per distinct value) with the suggested resolution.

Keyboard: Enter accepts the suggestion · 1–9 keep that card · B keep all (the values
coexist) · E edit a card then keep it · M merge into a new memory · U undo (the same as
Edit → Undo) · ↓/J and ↑/K move in the queue · R rescan.  Resolved groups leave the
queue.  Every resolution is one action on the desk's pipeline and undo stack.

Cards sit in a grid of at most three columns that never scrolls sideways; their labels
wrap and ignore their text's width, so a long value never widens the window.

The scan runs in the background (about a second at 1,000,000 rows) and only when the
view is visible; a group's cards come from one indexed query.  All memory text is shown
as plain text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.curation import contradictions as C
from memdesk.core.curation import contradictions_resolve as CR
from memdesk.core.curation.service import Contradictions
from memdesk.core.errors import MemdeskError
from memdesk.core.store.records import Changed
from memdesk.ui.contradictions.models import ContradictionQueueModel
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.columns import capped_columns
from memdesk.ui.desk.queue_view import QueueView
from memdesk.ui.desk.text import count_of, elide, fluid, isolate, plain_label, reveal

KEYS = ("Enter accept suggestion · 1–9 keep that card · B keep all (not a contradiction) · "
        "E edit then keep · M merge · U undo · ↑↓ / J K move · R rescan")
MAX_CARDS = 9
CARD_COLUMNS = 3
_DIGITS = {getattr(Qt.Key, f"Key_{d}"): d for d in range(1, 10)}


class Card(QFrame):
    """One value of a contradiction, shown by its newest member."""

    def __init__(self, number: int, card: C.Card, suggested: bool) -> None:
        super().__init__()
        self.card = card
        self.setObjectName("contradictionCard")
        border = "2px solid #2f7d4f" if suggested else "1px solid #b8bec6"
        bg = "#f1faf3" if suggested else "#ffffff"
        self.setStyleSheet(f"#contradictionCard {{ border: {border}; border-radius: 6px; "
                           f"background: {bg}; }}")
        self.setMinimumWidth(200)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        m = card.memory
        badges = [f"[{number}]"]
        if suggested:
            badges.append("✔ SUGGESTED")
        if card.newest:
            badges.append("NEWER")
        if card.oldest:
            badges.append("OLDER")
        if card.highest_confidence:
            badges.append("★ HIGHER CONFIDENCE")
        if m.type == "correction":
            badges.append("correction")
        # Wraps: "[2]  OLDER  ★ HIGHER CONFIDENCE" is wider than a card at 1280 px.
        self.badges = fluid(plain_label("  ".join(badges)))
        bf = QFont(self.badges.font())
        bf.setBold(True)
        self.badges.setFont(bf)
        self.value = fluid(plain_label(reveal(elide(m.value or "", 300))))
        vf = QFont(self.value.font())
        vf.setPointSizeF(vf.pointSizeF() * 1.5)
        vf.setBold(True)
        self.value.setFont(vf)
        self.text = fluid(plain_label(reveal(elide(m.text, 600))))
        form = QFormLayout()
        same = len(card.same_value)
        for label, val in (
            ("Confidence", f"{m.confidence:.2f}"),
            ("Importance", f"{m.importance:.2f}"),
            ("Created", f"{m.created_at:%Y-%m-%d %H:%M}"),
            ("Session", reveal(m.source_session or "—")),
            ("Type", m.type),
            ("Same value", f"{same} memor{'y' if same == 1 else 'ies'}"),
        ):
            form.addRow(label, fluid(plain_label(elide(val, 200))))
        lay = QVBoxLayout(self)
        lay.addWidget(self.badges)
        lay.addWidget(self.value)
        lay.addWidget(self.text)
        lay.addLayout(form)
        lay.addStretch(1)


class Editor(QWidget):
    """Inline editor for "edit then keep" and "merge" (Enter applies, Esc cancels)."""

    def __init__(self) -> None:
        super().__init__()
        self.mode = "edit"
        self.heading = plain_label("")
        self.card = QSpinBox(minimum=1, maximum=1)
        self.value = QLineEdit()
        self.text = QLineEdit()
        form = QFormLayout(self)
        form.addRow(self.heading)
        form.addRow("Card", self.card)
        form.addRow("Value", self.value)
        form.addRow("Text", self.text)
        self.hide()

    def open(self, mode: str, detail: C.GroupDetail, index: int) -> None:
        self.mode = mode
        m = detail.cards[index].memory
        self.card.setMaximum(min(len(detail.cards), MAX_CARDS))
        self.card.setValue(index + 1)
        self.card.setEnabled(mode == "edit")
        self.value.setText(m.value or "")
        self.text.setText(m.text)
        self.heading.setText(
            "Edit this card, then keep it (Enter applies, Esc cancels)" if mode == "edit"
            else "Merge: a new memory with this value and text supersedes every member "
                 "(Enter applies, Esc cancels)")
        self.show()
        self.value.setFocus()
        self.value.selectAll()


class ContradictionsView(QueueView):
    """Queue + cards.  Private state: the selected group's detail, and the queue row to
    select after the next scan."""

    refresh_on = Changed.CONTRADICTIONS | Changed.MEMORIES

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        self.service = Contradictions(self.store)
        self.detail: C.GroupDetail | None = None

        self.model = ContradictionQueueModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys belong to the view
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for col in (0, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        capped_columns(self.table, {1: 14, 2: 30}, stretch=3)
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, prev: self._load(cur.row()))

        self.heading = plain_label("")
        hf = QFont(self.heading.font())
        hf.setPointSizeF(hf.pointSizeF() * 1.3)
        hf.setBold(True)
        self.heading.setFont(hf)
        self.suggestion = plain_label("")
        self.suggestion.setWordWrap(True)
        self.suggestion.setObjectName("suggestion")
        self.suggestion.setSizePolicy(QSizePolicy.Policy.Ignored,
                                      QSizePolicy.Policy.Preferred)
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.heading.setWordWrap(True)  # a long user id or entity must not clip the line
        self.cards_host = QWidget()
        host = QVBoxLayout(self.cards_host)
        host.setContentsMargins(0, 0, 0, 0)
        self.cards_grid = QGridLayout()
        host.addLayout(self.cards_grid)
        host.addStretch(1)  # cards keep their natural height, top-aligned
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        # Two cards side by side are wider than a 1024 px window leaves them: scroll
        # sideways rather than cut the second card off.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setWidget(self.cards_host)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.editor = Editor()
        self.status = fluid(plain_label(""))
        keys = fluid(plain_label(KEYS))

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.count)
        ll.addWidget(self.table)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.heading)
        rl.addWidget(self.suggestion)
        rl.addWidget(scroll, 1)
        rl.addWidget(self.editor)
        rl.addWidget(self.status)
        rl.addWidget(keys)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        split.setSizes([460, 940])  # the cards and their keys need the width more
        QVBoxLayout(self).addWidget(split)

    # -- scanning ---------------------------------------------------------------------
    def scan_job(self) -> Callable[[object], list[C.ContradictionGroup]]:
        service = self.service
        return lambda st: service.find()

    def scan_failed(self, exc: object) -> None:
        self.status.setText(f"Scan failed: {exc}")

    def _scanned(self, groups: list[C.ContradictionGroup]) -> None:
        keep = self.detail.key if self.detail else None
        self.model.set_rows(groups)
        self._update_count()
        row = self.model.row_of(keep) if keep else -1
        self._select(row if row >= 0 else self._resume_row)

    def _update_count(self) -> None:
        n = self.model.rowCount()
        corr = sum(1 for i in range(n) if (g := self.model.row_at(i)) and g.kind == "correction")
        self.count.setText(
            f"{count_of(n, 'open contradiction group', 'open contradiction groups')}, "
            f"{count_of(corr, 'unlinked correction', 'unlinked corrections')}")

    # -- selection and cards ----------------------------------------------------------
    def _select(self, row: int) -> None:
        if self.model.rowCount() == 0:
            self._load(-1)
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        idx = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(idx)
        group = self.model.row_at(row)  # a row: ``row`` is within the model
        if self.detail is None or group is None or self.detail.key != group.key:
            self._load(row)

    def current_row(self) -> int:
        return self.table.selectionModel().currentIndex().row()

    def _load(self, row: int) -> None:
        group = self.model.row_at(row)
        self.editor.hide()
        while self.cards_grid.count():
            item = self.cards_grid.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        if group is None:
            self.detail = None
            self.heading.setText("No contradictions left." if self.model.rowCount() == 0
                                 else "")
            self.suggestion.setText("")
            return
        try:
            self.detail = self.service.load(group.key)
        except MemdeskError as exc:
            self.desk.report("Load the contradiction", str(exc))
            return
        d = self.detail
        kind = " — unlinked correction" if group.kind == "correction" else ""
        self.heading.setText(f"{isolate(d.key[0])} · {isolate(d.key[1])} · "
                             f"{isolate(d.key[2])}{kind}")
        s = d.suggestion
        winner = s.winner_id if s else None
        if s is None:
            self.suggestion.setText("Nothing contradicts here any more; press R to rescan.")
        else:
            mark = "⚠ " if s.disagree else ""
            # The reason quotes a value: shown, not obeyed, so it cannot reverse the line.
            self.suggestion.setText(f"{mark}Suggested (Enter): {reveal(s.reason)}")
        shown = d.cards[:MAX_CARDS]
        cols = min(CARD_COLUMNS, max(1, len(shown)))
        for i, card in enumerate(shown):
            self.cards_grid.addWidget(Card(i + 1, card, card.memory.id == winner),
                                      i // cols, i % cols)
        for c in range(CARD_COLUMNS):
            self.cards_grid.setColumnStretch(c, 1 if c < cols else 0)
        if len(d.cards) > MAX_CARDS:
            self.cards_grid.addWidget(fluid(plain_label(
                f"+{len(d.cards) - MAX_CARDS} more values: merge (M) or use the CLI")),
                (len(shown) + cols - 1) // cols, 0, 1, cols)

    # -- keys -------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if self.editor.isVisible():
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.apply_editor()
            elif key == Qt.Key.Key_Escape:
                self.editor.hide()
                self.setFocus()
            else:
                super().keyPressEvent(event)
            return
        if self.queue_key(event):  # ↑↓ / J K, R, U
            return
        if event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.accept_suggestion()
        elif key in _DIGITS:
            self.keep_card(_DIGITS[key] - 1)
        elif key == Qt.Key.Key_B:
            self.keep_all()
        elif key in (Qt.Key.Key_E, Qt.Key.Key_M):
            self.open_editor("edit" if key == Qt.Key.Key_E else "merge")
        else:
            super().keyPressEvent(event)

    # -- resolutions ------------------------------------------------------------------
    def _winner_index(self) -> int:
        d = self.detail
        if d is None or d.suggestion is None:
            return 0
        return next((i for i, c in enumerate(d.cards) if c.memory.id == d.suggestion.winner_id),
                    0)

    def accept_suggestion(self) -> None:
        d = self.detail
        if d is None or d.suggestion is None:
            return
        service = self.service
        winner = d.suggestion.winner_id
        self._resolve(lambda: service.keep(d, winner), "Kept the suggested value")

    def keep_card(self, index: int) -> None:
        d = self.detail
        if d is None or not 0 <= index < min(len(d.cards), MAX_CARDS):
            return
        winner = d.cards[index].memory
        service = self.service
        self._resolve(lambda: service.keep(d, winner.id),
                      f"Kept “{elide(winner.value or '', 40)}”")

    def keep_all(self) -> None:
        d = self.detail
        if d is None:
            return
        service = self.service
        self._resolve(lambda: service.keep_all(d),
                      "Kept all values (not raised again unless a new memory joins)")

    def open_editor(self, mode: str) -> None:
        if self.detail is None or not self.detail.cards:
            return
        self.editor.open(mode, self.detail, self._winner_index())

    def apply_editor(self) -> None:
        d = self.detail
        if d is None:
            return
        ed = self.editor
        value, text = ed.value.text(), ed.text.text()
        service = self.service
        if ed.mode == "edit":
            winner = d.cards[ed.card.value() - 1].memory
            changed_text = text if text != winner.text else None
            self._resolve(lambda: service.edit(d, winner.id, value=value, text_=changed_text),
                          "Edited and kept")
        else:
            self._resolve(lambda: service.merge(d, text_=text, value=value),
                          "Merged into a new memory")

    def _resolve(self, call: Callable[[], CR.Resolution], label: str) -> None:
        """One resolution: one action named after its group (Edit → Undo "Resolve …")."""
        row = self.current_row()
        group = self.model.row_at(row)
        if group is None:
            return

        def done(res: CR.Resolution) -> None:
            self.editor.hide()
            self.setFocus()
            if self.model.row_at(row) is group:
                self.detail = None
                self.model.remove(group.key)
                self._update_count()
            self._resume_row = row
            self.status.setText(f"{label} for {isolate(group.user_id)} · "
                                f"{isolate(group.attribute)}. "
                                "U or Ctrl+Z undoes it.")
            self._select(row)

        self.run(Op(f"Resolve {isolate(group.user_id)} · {isolate(group.attribute)}", call, done,
                    on_error=lambda _msg: self._load(row)))

    def undo(self) -> None:
        """U: the same as Edit → Undo (one undo history for every view)."""
        self.desk.undo_stack.undo()
