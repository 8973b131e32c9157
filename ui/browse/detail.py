"""The browser's detail pane: one memory's fields, triple, provenance, supersede chain and
audit history, with an edit form.

The pane never writes: "Apply" emits ``apply_requested(memory_id, fields)`` with only the
fields the operator changed, and the browser turns that into an undoable core call.  If
the core rejects a value the form keeps what was typed (nothing is lost).

Long texts are shown progressively: the form holds at most ``TEXT_PREVIEW_CHARS``
characters (read-only when the text is longer) and "Show all" opens a read-only viewer
whose display lines are at most ``VIEW_LINE_CHARS`` long, so Qt lays out only what is
on screen; a text without spaces never freezes the GUI thread.  Labels wrap and ignore
their text's width, so a long user id never pushes Apply out of the pane.

Private state: ``record`` (the MemoryRecord shown, None when nothing or many are
selected) and whether the form holds only the first part of its text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import (
    QKeySequence,
    QShortcut,
    QStandardItem,
    QStandardItemModel,
    QTextOption,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.errors import NotFoundError
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.store.records import EventRecord, MemoryRecord
from memdesk.core.taxonomy import Layer, MemoryType
from memdesk.ui.browse.episode_panel import EpisodePanel
from memdesk.ui.browse.text_viewer import TextViewer
from memdesk.ui.desk.memory_text_edit import MemoryTextEdit
from memdesk.ui.desk.table_model import read_only_table
from memdesk.ui.desk.text import (
    display_lines,
    elide,
    fluid,
    hidden_count,
    plain_label,
    reveal,
    tooltip_text,
)
from memdesk.ui.sweep.learning import suggestion_text

IdRole = Qt.ItemDataRole.UserRole
TEXT_PREVIEW_CHARS = 4000  # what the form shows of a longer text


def _when(v: Any) -> str:
    return v.strftime("%Y-%m-%d %H:%M:%S") if v is not None else "—"


def _item(text: str, memory_id: str | None = None, tip: str | None = None) -> QStandardItem:
    it = QStandardItem(text)
    it.setEditable(False)
    if memory_id:
        it.setData(memory_id, IdRole)
    if tip:
        it.setToolTip(tooltip_text(tip))
    return it


def describe_event(ev: EventRecord) -> str:
    """One line per event: which fields went from what to what."""
    if ev.action == acts.ADD.name:
        return "created"
    parts = []
    for k in sorted(set(ev.before) | set(ev.after)):
        b, a = ev.before.get(k), ev.after.get(k)
        parts.append(f"{k}: {elide(str(b), 40) if b is not None else '∅'} → "
                     f"{elide(str(a), 40) if a is not None else '∅'}")
    return "; ".join(parts)


def recall_text(store: MemoryStore, memory_id: str) -> str:
    """How often and when agents recalled this memory (the read path's records)."""
    from memdesk.core.read.recorder import recall_of

    s = recall_of(store, memory_id)
    if s is None:
        return "—"
    if not s.count:
        return "never (no retrieval returned or injected it)"
    return (f"{s.count:,}× ({s.as_result:,} as a result, {s.as_preference:,} injected); "
            f"first {_when(s.first)}, last {_when(s.last)}")


class DetailPane(QWidget):
    """Shows and edits one memory."""

    apply_requested = Signal(str, dict)
    open_memory = Signal(str)

    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.record: MemoryRecord | None = None
        self.text_is_partial = False
        self.viewer: TextViewer | None = None

        self.heading = fluid(plain_label("Select a memory to see its details."))
        self.text = MemoryTextEdit()
        self.text.setTabChangesFocus(True)
        self.text.setMinimumHeight(70)
        self.text.setMaximumHeight(140)
        self.type = QComboBox()
        self.type.addItems([t.value for t in MemoryType])
        self.layer = QComboBox()
        self.layer.addItem("(none)", "")
        for x in Layer:
            self.layer.addItem(x.value, x.value)
        self.topic = QLineEdit()
        self.importance = self._score()
        self.confidence = self._score()
        self.entity, self.attribute, self.value = QLineEdit(), QLineEdit(), QLineEdit()
        for w, ph in ((self.entity, "entity"), (self.attribute, "attribute"),
                      (self.value, "value")):
            w.setPlaceholderText(ph)

        edit = QGroupBox("Memory")
        form = QFormLayout(edit)
        form.addRow("Text", self.text)
        # Why a paste was not taken (over the store's limit): said beside the box.
        self.input_note = fluid(plain_label(""))
        self.input_note.setObjectName("detail-input-note")
        self.input_note.setStyleSheet("color: #a40000")
        self.input_note.hide()
        self.text.refused.connect(self._say_refused)
        self.text.textChanged.connect(self.input_note.hide)
        form.addRow("", self.input_note)
        self.partial_note = fluid(plain_label(""))
        self.show_all_button = QPushButton("Show all")
        self.show_all_button.clicked.connect(self.show_all_text)
        partial = QHBoxLayout()
        partial.addWidget(self.partial_note, 1)
        partial.addWidget(self.show_all_button)
        self.partial_row = QWidget()
        self.partial_row.setLayout(partial)
        self.partial_row.hide()
        form.addRow("", self.partial_row)
        # Invisible and direction-control characters are shown, not obeyed: the editor
        # keeps the stored text exactly; this line says what hides in it.
        self.hidden_note = fluid(plain_label(""))
        self.hidden_note.setObjectName("detail-hidden-characters")
        self.hidden_note.setStyleSheet("color: #a40000")
        self.hidden_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hidden_note.hide()
        form.addRow("", self.hidden_note)
        # One field per row: side-by-side pairs made the form wider than the pane at
        # 1280 px, and the scroll area (no horizontal bar) cut Apply off.
        form.addRow("Type", self.type)
        form.addRow("Layer", self.layer)
        form.addRow("Topic", self.topic)
        form.addRow("Importance", self.importance)
        # The calibration learned from sweep decisions, beside the write-time value.
        self.suggested = fluid(plain_label(""))
        self.suggested.setObjectName("detail-suggested-importance")
        form.addRow("", self.suggested)
        form.addRow("Confidence", self.confidence)
        # One row each: side by side, a third of the pane cut "primary_database" to
        # "primary_dat" at the default size.
        for label, w in (("Entity", self.entity), ("Attribute", self.attribute),
                         ("Value", self.value)):
            w.setMinimumWidth(40)
            form.addRow(label, w)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Apply the edit (Ctrl+Return); Ctrl+Z undoes it")
        self.apply_button.clicked.connect(self.request_apply)
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.reload)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.apply_button)
        form.addRow(buttons)

        prov = QGroupBox("Provenance")
        pform = QFormLayout(prov)
        self.facts: dict[str, QLabel] = {}
        for key, label in (("id", "Id"), ("status", "Status"), ("user_id", "User"),
                           ("source_session", "Session"), ("agent_id", "Agent"),
                           ("run_id", "Agent run"), ("created_at", "Created"),
                           ("last_accessed", "Last accessed"), ("access_count", "Accesses"),
                           ("decay_score", "Decay score"), ("valid_until", "Valid until"),
                           ("deleted_at", "Deleted"), ("embedding", "Embedding"),
                           ("recalled", "Recalled"),
                           ("extracted_by", "Extracted by")):
            lab = fluid(plain_label("—"))
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.facts[key] = lab
            if key == "id":
                # On a row of its own (full width): an id is 32 characters without a
                # space, and a label column beside it would widen the narrow pane.
                pform.addRow(QLabel(label))
                pform.addRow(self._id_field())
                continue
            pform.addRow(label, lab)

        self.chain_model = QStandardItemModel(0, 3, self)
        self.chain_model.setHorizontalHeaderLabels(["Relation", "Created", "Text"])
        self.chain_view = self._table(self.chain_model)
        self.chain_view.activated.connect(self._open_chain)
        self.chain_view.doubleClicked.connect(self._open_chain)
        chain = QGroupBox("Supersede chain (double-click or Enter to open)")
        QVBoxLayout(chain).addWidget(self.chain_view)

        self.history_model = QStandardItemModel(0, 4, self)
        self.history_model.setHorizontalHeaderLabels(["When", "Actor", "Action", "Change"])
        self.history_view = self._table(self.history_model)
        history = QGroupBox("Audit history")
        QVBoxLayout(history).addWidget(self.history_view)

        # The conversation turn behind this memory (hidden when there is none).
        self.episode = EpisodePanel(store)
        self.episode.open_memory.connect(self.open_memory)

        body = QWidget()
        lay = QVBoxLayout(body)
        lay.addWidget(self.heading)
        for box in (edit, self.episode, prov, chain, history):
            lay.addWidget(box)
        lay.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        # The pane is narrow: wrap and shrink rather than scroll sideways.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        # The splitter may not squeeze the pane below what its form needs: content
        # narrower than its minimum would be cut at the right (Apply included).
        self.setMinimumWidth(body.minimumSizeHint().width()
                             + scroll.verticalScrollBar().sizeHint().width() + 4)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        sc = QShortcut(QKeySequence("Ctrl+Return"), self)
        sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sc.activated.connect(self.request_apply)
        self._set_enabled(False)

    def _say_refused(self, message: str) -> None:
        self.input_note.setText(message)
        self.input_note.show()

    def _id_field(self) -> QPlainTextEdit:
        """The id never wraps at a space (it has none) and must never be cut: a
        read-only, selectable box that breaks it anywhere onto a second line when the
        pane is narrow, instead of widening the pane past its scroll area."""
        self.id_field = QPlainTextEdit()
        self.id_field.setObjectName("detail-id")
        self.id_field.setReadOnly(True)
        self.id_field.setFrameShape(QFrame.Shape.NoFrame)
        self.id_field.setStyleSheet("background: transparent")
        self.id_field.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.id_field.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.id_field.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.id_field.setMinimumWidth(60)
        line = self.id_field.fontMetrics().lineSpacing()
        self.id_field.setFixedHeight(2 * line + 10)
        return self.id_field

    @staticmethod
    def _score() -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(0.0, 1.0)
        box.setDecimals(3)
        box.setSingleStep(0.05)
        return box

    @staticmethod
    def _table(model: QStandardItemModel) -> QTableView:
        view = read_only_table(model)
        view.setMinimumHeight(90)
        view.setMinimumWidth(60)
        return view

    def _set_enabled(self, on: bool) -> None:
        for w in (self.text, self.type, self.layer, self.topic, self.importance,
                  self.confidence, self.entity, self.attribute, self.value,
                  self.apply_button, self.revert_button):
            w.setEnabled(on)

    # -- showing ----------------------------------------------------------------
    def show_memory(self, memory_id: str | None, selected: int = 1) -> None:
        """Show ``memory_id`` (None: nothing, or ``selected`` rows for bulk actions)."""
        rec = None
        if memory_id is not None:
            try:
                rec = self.store.get(memory_id)
            except NotFoundError:
                rec = None
        self.record = rec
        self.input_note.hide()
        self._set_enabled(rec is not None and selected == 1)
        if rec is None or selected != 1:
            self.heading.setText(
                f"{selected:,} memories selected — bulk actions are in the Memory menu."
                if selected > 1 else "Select a memory to see its details."
            )
            self._clear_form()
            self.chain_model.setRowCount(0)
            self.history_model.setRowCount(0)
            self.id_field.clear()
            self.hidden_note.hide()
            self.episode.show_record(None)
            return
        self.heading.setText(f"{rec.type} · {rec.status.value} · {elide(rec.id, 80)}")
        self._fill_form(rec)
        self._fill_facts(rec)
        self._fill_chain(rec)
        self._fill_history(rec)
        self.episode.show_record(rec)

    def reload(self) -> None:
        self.show_memory(self.record.id if self.record else None)

    def _clear_form(self) -> None:
        """No memory's values when none is shown (the last one's read as the selection's)."""
        self.text.setReadOnly(False)
        self.text.clear()
        self.text_is_partial = False
        self.partial_row.hide()
        for box in (self.topic, self.entity, self.attribute, self.value):
            box.clear()
            box.setToolTip("")
        self.type.setCurrentIndex(-1)
        self.layer.setCurrentIndex(-1)
        for spin in (self.importance, self.confidence):
            spin.setSpecialValueText(" ")  # shown at the minimum: blank, not 0.000
            spin.setValue(spin.minimum())
        self.suggested.hide()
        for lab in self.facts.values():
            lab.setText("—")

    def _fill_form(self, rec: MemoryRecord) -> None:
        self.text_is_partial = len(rec.text) > TEXT_PREVIEW_CHARS
        if self.text_is_partial:
            # Only the first part is laid out; the text cannot be edited here, so it
            # is shown revealed.
            self.text.setPlainText(display_lines(reveal(rec.text[:TEXT_PREVIEW_CHARS]), 200))
            self.partial_note.setText(
                f"Showing the first {TEXT_PREVIEW_CHARS:,} of {len(rec.text):,} characters "
                "(read-only here; the other fields can be edited).")
        else:
            self.text.setPlainText(rec.text)
        self.text.setReadOnly(self.text_is_partial)
        self.partial_row.setVisible(self.text_is_partial)
        self._note_hidden(rec)
        self.type.setCurrentText(rec.type)
        self.layer.setCurrentIndex(max(0, self.layer.findData(rec.layer or "")))
        self.topic.setText(rec.topic or "")
        for spin in (self.importance, self.confidence):
            spin.setSpecialValueText("")
        self.importance.setValue(rec.importance)
        self.suggested.setText(suggestion_text(self.store, rec.id))
        self.suggested.setVisible(bool(self.suggested.text()))
        self.confidence.setValue(rec.confidence)
        for box, v in ((self.topic, rec.topic), (self.entity, rec.entity),
                       (self.attribute, rec.attribute), (self.value, rec.value)):
            box.setText(v or "")
            # A long value shows its start (not its tail) and whole in the tooltip.
            box.setCursorPosition(0)
            box.setToolTip(tooltip_text(reveal(v)) if v else "")

    def _note_hidden(self, rec: MemoryRecord) -> None:
        """The editors hold each field exactly (what Apply writes back); this line shows
        every field that hides something, revealed, so nothing passes unseen."""
        fields = (("Text", rec.text[:TEXT_PREVIEW_CHARS]), ("Topic", rec.topic or ""),
                  ("Entity", rec.entity or ""), ("Attribute", rec.attribute or ""),
                  ("Value", rec.value or ""))
        hiding = [(name, v, hidden_count(v)) for name, v in fields if v]
        total = sum(n for _, _, n in hiding)
        self.hidden_note.setVisible(total > 0)
        if not total:
            return
        shown = "\n".join(f"{name}: {reveal(v)}" for name, v, n in hiding if n)
        self.hidden_note.setText(
            f"This memory holds {total:,} invisible or direction-control character"
            f"{'s' if total != 1 else ''}, shown here:\n{shown}")

    def _fill_facts(self, rec: MemoryRecord) -> None:
        vals = {
            "id": rec.id, "status": rec.status.value, "user_id": rec.user_id,
            "source_session": rec.source_session or "—", "agent_id": rec.agent_id or "—",
            "run_id": rec.run_id or "—", "created_at": _when(rec.created_at),
            "last_accessed": _when(rec.last_accessed), "access_count": f"{rec.access_count:,}",
            "decay_score": "—" if rec.decay_score is None else f"{rec.decay_score:.3f}",
            "valid_until": _when(rec.valid_until), "deleted_at": _when(rec.deleted_at),
            "embedding": f"{len(rec.embedding) // 4} dims" if rec.embedding else "none",
            "extracted_by": self._provenance(rec.id),
        }
        vals["recalled"] = recall_text(self.store, rec.id)
        if rec.archived_at is not None and rec.status is Status.ARCHIVED:
            vals["status"] = (f"archived {_when(rec.archived_at)}: kept and shown here, "
                              "never recalled or injected (Memory → Unarchive)")
        for k, v in vals.items():
            self.facts[k].setText(reveal(elide(v, 300)))
        self.id_field.setPlainText(rec.id)
        self.id_field.setToolTip(tooltip_text(rec.id))

    def _provenance(self, memory_id: str) -> str:
        """Which extractor and model wrote this memory; plain text."""
        from memdesk.core.write.provenance import provenance

        p = provenance(self.store, memory_id)
        return p.describe() if p else "— (added directly, not extracted)"

    def _fill_chain(self, rec: MemoryRecord) -> None:
        older, newer = self.store.chain(rec.id)
        self.chain_model.setRowCount(0)
        for relation, items in (("replaced", older), ("replaced by", newer)):
            for r in items:
                self.chain_model.appendRow([
                    _item(relation, r.id), _item(_when(r.created_at), r.id),
                    _item(elide(r.text, 120), r.id, r.text),
                ])
        if not older and not newer:
            self.chain_model.appendRow([_item("—"), _item(""), _item("not part of a chain")])

    def _fill_history(self, rec: MemoryRecord) -> None:
        self.history_model.setRowCount(0)
        for ev in self.store.events(rec.id, limit=200):
            change = describe_event(ev)
            if ev.undone_by is not None:
                change += f"  (undone by #{ev.undone_by})"
            self.history_model.appendRow([
                _item(_when(ev.at)), _item(ev.actor), _item(ev.action),
                _item(change, tip=change + (f"\n{ev.note}" if ev.note else "")),
            ])

    def show_all_text(self) -> None:
        rec = self.record
        if rec is None:
            return
        self.viewer = TextViewer(f"memdesk: memory {elide(rec.id, 40)}", rec.text, self)
        self.viewer.open()

    def _open_chain(self, index: Any) -> None:
        mid = index.data(IdRole)
        if mid:
            self.open_memory.emit(mid)

    # -- editing ----------------------------------------------------------------
    def edited_fields(self) -> dict[str, Any]:
        """The fields whose widgets differ from the shown record."""
        rec = self.record
        if rec is None:
            return {}
        want: dict[str, Any] = {
            "text": rec.text if self.text_is_partial else self.text.toPlainText(),
            "type": self.type.currentText(),
            "layer": self.layer.currentData() or None,
            "topic": self.topic.text().strip() or None,
            "entity": self.entity.text().strip() or None,
            "attribute": self.attribute.text().strip() or None,
            "value": self.value.text().strip() or None,
        }
        # A box that still holds the stored value is no edit, even when the stored value
        # is not what stripping gives (the demo's " lisbon "): it would otherwise read
        # as an unsaved edit the moment it is shown, and leaving it would ask to apply.
        boxes = {"topic": self.topic, "entity": self.entity, "attribute": self.attribute,
                 "value": self.value}
        out = {k: v for k, v in want.items() if v != getattr(rec, k)
               and not (k in boxes and boxes[k].text() == (getattr(rec, k) or ""))}
        for k, box in (("importance", self.importance), ("confidence", self.confidence)):
            if abs(box.value() - getattr(rec, k)) > 0.0005:  # spin boxes hold 3 decimals
                out[k] = box.value()
        return out

    def has_unsaved(self) -> bool:
        """Whether the form holds a typed edit that Apply has not sent yet."""
        return self.record is not None and self.apply_button.isEnabled() and bool(
            self.edited_fields())

    def request_apply(self) -> None:
        fields = self.edited_fields()
        if self.record is not None and fields:
            self.apply_requested.emit(self.record.id, fields)
