"""The detail pane's episode box: the conversation turn behind a memory.

For a unit (a fact, a preference… the extractor made of a turn) it shows the episode it
came from: speaker, session, when it was said, when what it tells of happened, and the
turn's text, with "Open episode".  For an episode it shows the same who and when and
the units extracted from it, each openable (double-click or Enter).  For a memory with
no episode behind it (an operator's add, an import) the box is hidden.

Everything here came from an agent: the turn is shown as plain text in a read-only box
with its hidden characters made visible, the speaker and session are isolated in our
own lines (ui/desk/episode_text.py); nothing is rendered as markup.  The box reads on
the GUI thread like the rest of the pane: a few indexed lookups.

Private state: ``episode`` (the EpisodeInfo shown, None when hidden), ``own`` (whether
the pane's memory is that episode) and ``unit_ids`` (its units, in the table's order).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.errors import NotFoundError
from memdesk.core.store.browse import rows_by_id
from memdesk.core.store.episodes import EPISODE_TYPE, EpisodeInfo, Episodes
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import MemoryRecord
from memdesk.ui.desk.episode_text import event_text, name_text, when_text
from memdesk.ui.desk.table_model import read_only_table
from memdesk.ui.desk.text import (
    count_of,
    display_lines,
    elide,
    fluid,
    hidden_count,
    one_line,
    plain_label,
    reveal,
    tooltip_text,
)

IdRole = Qt.ItemDataRole.UserRole
TURN_PREVIEW_CHARS = 2000  # what the box shows of a long turn ("Open episode" has all)
UNITS_SHOWN = 200  # a turn rarely yields more than a handful


def _item(text: str, memory_id: str, tip: str | None = None) -> QStandardItem:
    it = QStandardItem(text)
    it.setEditable(False)
    it.setData(memory_id, IdRole)
    if tip:
        it.setToolTip(tooltip_text(tip))
    return it


class EpisodePanel(QGroupBox):
    """The episode behind the detail pane's memory; ``open_memory(id)`` asks the
    browser to show another memory (the episode, or one of its units)."""

    open_memory = Signal(str)

    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__("Episode", parent)
        self.setObjectName("detail-episode")
        self.store = store
        self.episodes = Episodes(store)
        self.episode: EpisodeInfo | None = None
        self.own = False
        self.unit_ids: list[str] = []

        self.fields: dict[str, QLabel] = {}
        form = QFormLayout()
        for key, label in (("speaker", "Speaker"), ("session", "Session"),
                           ("said_at", "Said at"), ("happened", "Happened")):
            lab = fluid(plain_label("—"))
            lab.setObjectName(f"episode-{key}")
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = lab
            form.addRow(label, lab)
        self.state = fluid(plain_label(""))  # a deleted (pruned) episode says so
        self.state.setObjectName("episode-state")
        self.state.setStyleSheet("color: #a40000")
        self.state.hide()

        # A unit's source turn, as said.
        self.turn = QPlainTextEdit()
        self.turn.setObjectName("episode-turn")
        self.turn.setReadOnly(True)
        self.turn.setMinimumHeight(60)
        self.turn.setMaximumHeight(120)
        self.turn_note = fluid(plain_label(""))
        self.open_button = QPushButton("Open episode")
        self.open_button.setObjectName("episode-open")
        self.open_button.setToolTip("Show the turn this memory was extracted from")
        self.open_button.clicked.connect(self.open_episode)
        opener = QHBoxLayout()
        opener.addWidget(self.turn_note, 1)
        opener.addWidget(self.open_button)
        self.source_box = QWidget()
        source = QVBoxLayout(self.source_box)
        source.setContentsMargins(0, 0, 0, 0)
        source.addWidget(self.turn)
        source.addLayout(opener)

        # An episode's units.
        self.units_note = fluid(plain_label(""))
        self.units_note.setObjectName("episode-units-note")
        self.units_model = QStandardItemModel(0, 3, self)
        self.units_model.setHorizontalHeaderLabels(["Type", "Status", "Text"])
        self.units_view: QTableView = read_only_table(self.units_model)
        self.units_view.setObjectName("episode-units")
        self.units_view.setMinimumHeight(80)
        self.units_view.setMaximumHeight(180)  # a turn yields a handful: no empty acre
        self.units_view.setMinimumWidth(60)
        self.units_view.activated.connect(self._open_unit)
        self.units_view.doubleClicked.connect(self._open_unit)
        self.units_box = QWidget()
        units = QVBoxLayout(self.units_box)
        units.setContentsMargins(0, 0, 0, 0)
        units.addWidget(self.units_note)
        units.addWidget(self.units_view)

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.state)
        lay.addWidget(self.source_box)
        lay.addWidget(self.units_box)
        self.hide()

    # -- showing ------------------------------------------------------------------
    def show_record(self, rec: MemoryRecord | None) -> None:
        """Show the episode ``rec`` is or came from; hide when there is none."""
        info: EpisodeInfo | None = None
        own = False
        if rec is not None:
            own = rec.type == EPISODE_TYPE
            info = self.episodes.get(rec.id) if own else self.episodes.source_of(rec.id)
        self.episode, self.own = info, own
        self.unit_ids = []
        self.units_model.setRowCount(0)
        if info is None:
            self.hide()
            return
        self.setTitle("Episode: this turn, kept as said" if own
                      else "Episode: the turn this came from")
        self.fields["speaker"].setText(name_text(info.speaker, "not given", 120))
        self.fields["session"].setText(name_text(info.session_id, "not given", 120))
        self.fields["said_at"].setText(
            when_text(info.said_at) if info.said_at is not None
            else "not given (the agent sent no session time)")
        self.fields["happened"].setText(event_text(info))
        self.source_box.setVisible(not own)
        self.units_box.setVisible(own)
        if own:
            self.state.hide()
            self._fill_units(info.id)
        else:
            self._fill_turn(info.id)
        self.show()

    def _fill_turn(self, episode_id: str) -> None:
        try:
            turn = self.store.get(episode_id)
        except NotFoundError:  # purged: the side row outlived it only in an old store
            turn = None
        gone = turn is None or turn.deleted_at is not None
        self.state.setVisible(gone)
        self.state.setText("This episode is deleted (pruned?): Edit → Undo, or open it "
                           "to see it." if turn is not None and gone
                           else "This episode is no longer in the store." if gone else "")
        self.open_button.setEnabled(turn is not None)
        if turn is None:
            self.turn.setPlainText("")
            self.turn_note.setText("")
            return
        text = turn.text
        cut = len(text) > TURN_PREVIEW_CHARS
        # Revealed (hidden characters as ⟨U+XXXX⟩) and broken into display lines, as
        # the pane's own text box: plain text, never markup.
        self.turn.setPlainText(reveal(display_lines(text[:TURN_PREVIEW_CHARS], 200)))
        notes = []
        if cut:
            notes.append(f"The first {TURN_PREVIEW_CHARS:,} of {len(text):,} characters.")
        if hidden := hidden_count(text):
            notes.append(f"{count_of(hidden, 'hidden character', 'hidden characters')} "
                         "shown as ⟨U+XXXX⟩.")
        self.turn_note.setText(" ".join(notes))

    def _fill_units(self, episode_id: str) -> None:
        ids = self.episodes.units_of(episode_id)
        self.unit_ids = ids
        rows = rows_by_id(self.store, ids[:UNITS_SHOWN])
        for mid in ids[:UNITS_SHOWN]:
            r = rows.get(mid)
            if r is None:
                continue
            self.units_model.appendRow([
                _item(r.type, mid), _item(r.status.value, mid),
                _item(one_line(elide(r.text, 160)), mid, reveal(r.text)),
            ])
        if not ids:
            self.units_note.setText("No unit was extracted from this turn: it is kept as "
                                    "said only.")
        else:
            more = f" (the first {UNITS_SHOWN:,} listed)" if len(ids) > UNITS_SHOWN else ""
            self.units_note.setText(
                f"{count_of(len(ids), 'unit', 'units')} extracted from this turn{more}; "
                "double-click or Enter opens one.")
        self.units_view.setVisible(bool(ids))

    # -- opening ------------------------------------------------------------------
    def open_episode(self) -> None:
        if self.episode is not None and not self.own:
            self.open_memory.emit(self.episode.id)

    def _open_unit(self, index: Any) -> None:
        mid = index.data(IdRole)
        if mid:
            self.open_memory.emit(mid)
