"""Retrieval inspector: what an agent would recall for a prompt, and why.

The operator types a prompt, picks a user and the channels; the retrieval runs off the
GUI thread as a dry run (nothing is recorded, reinforced or rotated, so looking does
not change what agents see).  Shown side by side: each channel's own ranking (rank and
its score: keyword share, cosine, or the triple it matched), the fused top-k with
every score term, what the relevance floor and the two-per-week rule removed and why,
and the injected preferences.  A result that stands for identical or near-identical
memories says how many ("Same as", listed in its tooltip); a channel that ranked
nothing says why, in a sentence across its table.  Double-click or Enter on any row
opens the memory in the browser.  All memory text is shown as plain text; tooltips are escaped.
Which channels found a result is its rank in each channel's column (empty: that channel
did not find it).  Every result says which conversation turn it is or came from
("Episode": who said it, when, and when what it tells of happened); double-click that
cell to open the episode.

Private state: ``result`` (the last RetrievalResult shown, None before the first run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
)

from memdesk.core.store.records import Changed, Changes
from memdesk.ui.desk.actions import Desk
from memdesk.ui.desk.columns import capped_columns
from memdesk.ui.desk.empty import EmptyNote
from memdesk.ui.desk.episode_text import episode_line, episode_tip
from memdesk.ui.desk.ops import LatestTask, TaskState
from memdesk.ui.desk.table_model import read_only_table
from memdesk.ui.desk.text import (
    count_of,
    elide,
    elide_middle,
    isolate,
    one_line,
    plain_label,
    tooltip_text,
)
from memdesk.ui.desk.view import DeskView

if TYPE_CHECKING:  # the retriever loads on the first run, off the GUI thread
    from memdesk.core.read.archived import ArchivedMatch
    from memdesk.core.read.result import RetrievalResult
    from memdesk.ui.browse.browser import BrowserView
    from memdesk.ui.desk.window import DeskWindow

IdRole = Qt.ItemDataRole.UserRole
USER_WIDTH = 48  # characters of a user id the list shows (the tooltip has all)
CHANNEL_TITLES = (("fts", "Full text"), ("vector", "Vector"), ("graph", "Entity graph"))
RANK_TIP = "This result's rank in the {} channel; empty: that channel did not find it"


def _item(text: str, memory_id: str | None = None, tip: str | None = None,
          number: bool = False) -> QStandardItem:
    it = QStandardItem(text)
    it.setEditable(False)
    if memory_id:
        it.setData(memory_id, IdRole)
    if tip:
        it.setToolTip(tooltip_text(tip))
    if number:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return it


def user_label(user_id: str) -> str:
    """A user id as one short, visible, isolated list entry."""
    # Cut before revealing, so no ⟨U+XXXX⟩ is cut in half.
    shown = one_line(elide_middle(user_id, USER_WIDTH))
    return shown if shown == user_id else isolate(shown)


def _rank(h: Any, channel: str) -> str:
    r = h.ranks.get(channel)
    return "" if r is None else f"#{r}"


def desk_words(line: str) -> str:
    """The retriever's note, which names the CLI's command, as the desk's own: the
    command that does it here is a menu item."""
    return line.replace("run `memdesk embed`",
                        "File → Embed missing vectors…, Ctrl+Shift+V")

class RetrievalView(DeskView):
    """The inspector.  ``open_memory(id)`` asks the window to show a memory.

    When memories change it refreshes its user list and re-runs the last prompt.
    """

    open_memory = Signal(str)
    refresh_on = Changed.MEMORIES

    def __init__(self, desk: Desk) -> None:
        super().__init__(desk)
        store = self.store
        self.result: Any = None
        self._last: tuple[Any, ...] | None = None
        self._task = LatestTask(self)
        self._task.finished.connect(self._show)
        self._task.failed.connect(self._failed)
        self._users = LatestTask(self)
        self._users.finished.connect(self._fill_users)

        self.prompt = QLineEdit()
        self.prompt.setPlaceholderText("A prompt, as an agent would send it")
        self.prompt.returnPressed.connect(self.retrieve)
        self.user = QComboBox()
        self.user.setEditable(True)
        self.user.setMinimumWidth(140)
        # A long user id must not widen the prompt row: the list is as wide as it needs.
        self.user.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.user.setMinimumContentsLength(16)
        if (edit := self.user.lineEdit()) is not None:  # an editable combo has one
            edit.setPlaceholderText("user")
        self.channel_boxes = {c: QCheckBox(t) for c, t in CHANNEL_TITLES}
        for box in self.channel_boxes.values():
            box.setChecked(True)
        self.inject = QCheckBox("Inject preferences")
        self.inject.setChecked(True)
        self.inject.setToolTip("Skipped whenever a channel is switched off (channel isolation)")
        self.k = QSpinBox()
        self.k.setRange(1, 100)
        self.k.setValue(10)
        self.k.setPrefix("k = ")
        self.run_button = QPushButton("Retrieve")
        self.run_button.clicked.connect(self.retrieve)
        # The inspected query and the selected results become a recall check (ui/checks).
        self.pin_button = QPushButton("Pin as a check")
        self.pin_button.setToolTip("The selected fused results must keep coming back for "
                                   "this query and user (Checks view, memdesk checks run)")
        self.pin_button.clicked.connect(self.pin_selected)
        self.pin_dialog: Any = None
        self.status = plain_label("Type a prompt and press Enter.")
        self.status.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.prompt, 3)
        top.addWidget(self.user, 1)
        top.addWidget(self.k)
        top.addWidget(self.run_button)
        top.addWidget(self.pin_button)
        opts = QHBoxLayout()
        for box in self.channel_boxes.values():
            opts.addWidget(box)
        opts.addWidget(self.inject)
        opts.addStretch(1)

        self.channel_models: dict[str, QStandardItemModel] = {}
        self.channel_views: dict[str, QTableView] = {}
        # Why a channel ranked nothing, over its table: wrapped, so it is read whole even
        # in a third of 1280 px (as a row it was cut after thirty characters).
        self.channel_notes: dict[str, EmptyNote] = {}
        per_channel = QSplitter(Qt.Orientation.Horizontal)
        for c, title in CHANNEL_TITLES:
            m = QStandardItemModel(0, 3, self)
            m.setHorizontalHeaderLabels(["Rank", {"fts": "Keyword share", "vector": "Cosine",
                                                  "graph": "Matched"}[c], "Text"])
            v = self._openable(read_only_table(m))
            # A long triple ("one hop: …") must not push the Text column out of the pane.
            capped_columns(v, {0: 5, 1: 22 if c == "graph" else 13}, stretch=2)
            v.setTextElideMode(Qt.TextElideMode.ElideRight)  # prose reads from its start
            group = QGroupBox(title)
            QVBoxLayout(group).addWidget(v)
            per_channel.addWidget(group)
            self.channel_models[c], self.channel_views[c] = m, v
            self.channel_notes[c] = EmptyNote(v, "", f"{c}-empty")

        self.fused = QStandardItemModel(0, 12, self)
        self.fused.setHorizontalHeaderLabels(["#", "Score", "Relevance", "Full text", "Vector",
                                              "Graph", "Importance", "Recency", "Week", "Text",
                                              "Same as", "Episode"])
        self.dropped = QStandardItemModel(0, 7, self)
        self.dropped.setHorizontalHeaderLabels(["Removed by", "Why", "Full text", "Vector",
                                                "Graph", "Text", "Episode"])
        for model, first in ((self.fused, 3), (self.dropped, 2)):
            for i, (_c, title) in enumerate(CHANNEL_TITLES):
                model.setHeaderData(first + i, Qt.Orientation.Horizontal,
                                    RANK_TIP.format(title.lower()),
                                    Qt.ItemDataRole.ToolTipRole)
            model.setHeaderData(model.columnCount() - 1, Qt.Orientation.Horizontal,
                                "The conversation turn this result is, or was extracted "
                                "from: who said it and when (double-click opens it)",
                                Qt.ItemDataRole.ToolTipRole)
        self.prefs = QStandardItemModel(0, 3, self)
        self.prefs.setHorizontalHeaderLabels(["Created", "Type", "Text"])
        self.tabs = QTabWidget()
        self.fused_view = self._openable(read_only_table(self.fused))
        self.dropped_view = self._openable(read_only_table(self.dropped))
        self.prefs_view = self._openable(read_only_table(self.prefs))
        # Scores fit their contents; the text takes the width left and is cut in the
        # middle (whole in its tooltip), so "Same as" after it stays on screen.
        self.fused_view.horizontalHeader().setStretchLastSection(False)
        capped_columns(self.fused_view, {**dict.fromkeys((*range(9), 10), 12), 11: 36},
                       stretch=9)
        capped_columns(self.dropped_view, {0: 16, 1: 50, 2: 9, 3: 9, 4: 9, 6: 36}, stretch=5)
        capped_columns(self.prefs_view, {0: 16, 1: 14}, stretch=2)
        for view in (self.fused_view, self.dropped_view, self.prefs_view):
            view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.addTab(self.fused_view, "Fused results")
        self.tabs.addTab(self.dropped_view, "Removed")
        self.tabs.addTab(self.prefs_view, "Injected preferences")

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(per_channel)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 2)
        outer = QVBoxLayout(self)
        outer.addLayout(top)
        outer.addLayout(opts)
        outer.addWidget(self.status)
        outer.addWidget(split, 1)
        self.open_memory.connect(self._open_in_browser)
        self._users.start(lambda state: store.distinct("user_id"))

    def reload(self, changes: Changes) -> None:
        store = self.store
        self._users.start(lambda state: store.distinct("user_id"))
        if self._last is not None:
            self._start(*self._last)

    def pin_selected(self) -> None:
        """Pin the inspected query, its user and the selected fused results as a check
        (a dialog lists what it will expect first)."""
        from memdesk.ui.checks.pin import pin

        res = self.result
        rows = sorted({i.row() for i in self.fused_view.selectionModel().selectedRows()})
        if res is None or self._last is None or not rows:
            self.status.setText("Retrieve, then select the results the check must expect.")
            return
        picked = [res.results[r] for r in rows if r < len(res.results)]
        _query, _user, k, channels, inject = self._last
        differs = "" if (k, channels, inject) == (10, None, True) else (
            "This inspection used other settings; the check replays the agents' default "
            "(all channels, preferences injected, the top 10).")
        self.pin_dialog = pin(self.desk, res.user_id, res.query,
                              [(h.id, h.text) for h in picked], differs, self)

    def _openable(self, view: QTableView) -> QTableView:
        view.activated.connect(self._activated)
        view.doubleClicked.connect(self._activated)
        return view

    def _fill_users(self, users: list[str]) -> None:
        """One row per user: an id's line breaks, controls and direction overrides are
        shown as ⟨U+XXXX⟩ and isolated, a long id is cut in the middle (whole in the
        tooltip); the entry keeps the real id as its data."""
        chosen = self.selected_user()
        self.user.clear()
        for u in users:
            self.user.addItem(user_label(u), u)
            self.user.setItemData(self.user.count() - 1, tooltip_text(one_line(u)),
                                  Qt.ItemDataRole.ToolTipRole)
        i = self.user.findData(chosen) if chosen else -1
        if i >= 0:
            self.user.setCurrentIndex(i)
        else:
            self.user.setCurrentText(chosen or (user_label(users[0]) if users else ""))

    def selected_user(self) -> str:
        """The user id the combo names: a listed entry's real id, else the typed text."""
        text = self.user.currentText()
        i = self.user.findText(text, Qt.MatchFlag.MatchExactly)
        if i >= 0 and self.user.itemData(i) is not None:
            return str(self.user.itemData(i))
        return text.strip()

    # -- running ------------------------------------------------------------------
    def channels(self) -> tuple[str, ...] | None:
        on = tuple(c for c, box in self.channel_boxes.items() if box.isChecked())
        return None if len(on) == len(self.channel_boxes) else on

    def retrieve(self) -> None:
        query, user = self.prompt.text(), self.selected_user()
        channels, inject, k = self.channels(), self.inject.isChecked(), self.k.value()
        if channels == ():
            self.status.setText("Switch on at least one channel.")
            return
        self._last = (query, user, k, channels, inject)
        self._start(*self._last)

    def _start(self, query: str, user: str, k: int, channels: tuple[str, ...] | None,
               inject: bool) -> None:
        self.status.setText("Retrieving… (the first run loads the embedding model)")
        store = self.store

        def work(state: TaskState) -> tuple[RetrievalResult, list[ArchivedMatch]]:
            from memdesk.core.read.archived import archived_matches
            from memdesk.core.read.retriever import Retriever

            res = Retriever(store).retrieve(query, user, k, channels, inject, dry_run=True)
            # What the agent never sees, shown to the operator with the reason.
            return res, archived_matches(store, query, user)

        self._task.start(work)

    def wait_idle(self, msecs: int = 5000) -> None:
        self._task.wait(msecs)
        self._users.wait(msecs)

    def _failed(self, exc: object, tb: str) -> None:
        from memdesk.core.errors import MemdeskError

        if isinstance(exc, MemdeskError):
            self.status.setText(str(exc))
        else:
            self.status.setText(f"The retrieval failed: {type(exc).__name__}: {exc}")

    # -- showing -------------------------------------------------------------------
    def _show(self, done: tuple[Any, list[ArchivedMatch]]) -> None:
        res, archived = done
        self.result = res
        floor = sum(d.reason == "floor" for d in res.dropped)
        div = sum(d.reason == "diversity" for d in res.dropped)
        found = count_of(len(res.results), "result", "results")
        parts = [f"{found}, {count_of(len(res.preferences), 'preference', 'preferences')} "
                 "injected" if res.injected else f"{found} (injection skipped)",
                 f"{floor} below the relevance floor, {div} held back by the two-per-week rule",
                 f"channels: {', '.join(res.channels)}", f"{res.duration_ms:.0f} ms"]
        self.status.setText(" · ".join(parts)
                            + "".join(f"\nnote: {desk_words(n)}" for n in res.notes))
        for c, m in self.channel_models.items():
            m.setRowCount(0)
            why = desk_words(res.empty_channels.get(c) or "")
            self.channel_notes[c].set_visible(bool(why), f"Nothing ranked: {why}.")
            for h in res.per_channel.get(c, []):
                score = {"fts": h.keyword_share, "vector": h.cosine}.get(c)
                shown = h.graph_via if c == "graph" else ("" if score is None else f"{score:.3f}")
                m.appendRow([_item(_rank(h, c), h.id, number=True),
                             _item(shown or "", h.id, shown if c == "graph" else None),
                             _item(elide(h.text, 160), h.id, h.text)])
        self.fused.setRowCount(0)
        for i, h in enumerate(res.results, 1):
            self.fused.appendRow([
                _item(str(i), h.id, number=True), _item(f"{h.score:.3f}", h.id, number=True),
                _item(f"{h.relevance:.3f}", h.id, number=True), _item(_rank(h, "fts"), h.id),
                _item(_rank(h, "vector"), h.id), _item(_rank(h, "graph"), h.id),
                _item(f"{h.importance:.2f}", h.id, number=True),
                _item(f"{h.recency:.2f}", h.id, number=True), _item(h.week, h.id),
                _item(elide(h.text, 200), h.id, h.text), self._same_as(h), self._episode(h)])
        self.dropped.setRowCount(0)
        for a in archived:  # excluded before any channel: never recalled
            self.dropped.appendRow([
                _item("archived", a.id), _item(a.reason, a.id, a.reason), _item("", a.id),
                _item("", a.id), _item("", a.id), _item(elide(a.text, 200), a.id, a.text),
                _item("", a.id)])
        for d in res.dropped:
            h = d.hit
            self.dropped.appendRow([
                _item("relevance floor" if d.reason == "floor" else "two per week", h.id),
                _item(d.detail, h.id, d.detail), _item(_rank(h, "fts"), h.id),
                _item(_rank(h, "vector"), h.id), _item(_rank(h, "graph"), h.id),
                _item(elide(h.text, 200), h.id, h.text), self._episode(h)])
        self.prefs.setRowCount(0)
        for p in res.preferences:
            self.prefs.appendRow([_item(p.created_at.strftime("%Y-%m-%d %H:%M"), p.id),
                                  _item(p.type, p.id), _item(elide(p.text, 200), p.id, p.text)])

    @staticmethod
    def _same_as(h: Any) -> QStandardItem:
        """How many identical or near-identical memories this result stands for; the
        tooltip lists them (they are not shown as results of their own)."""
        if not h.same_as:
            return _item("", h.id)
        tip = "Same as this result:\n" + "\n".join(d.text for d in h.same_as)
        return _item(f"{len(h.same_as)} more", h.id, tip)

    @staticmethod
    def _episode(h: Any) -> QStandardItem:
        """The turn this result is or came from, one line (whole in the tooltip); the
        cell opens that episode (the result's own cells open the result)."""
        if h.episode is None:
            return _item("", h.id)
        own = h.type == "episode"
        return _item(episode_line(h.episode, own=own), h.episode.id,
                     episode_tip(h.episode, own=own))

    def _activated(self, index: Any) -> None:
        mid = index.data(IdRole)
        if mid:
            self.open_memory.emit(mid)

    def _open_in_browser(self, memory_id: str) -> None:
        if not hasattr(self.window(), "show_view"):
            return
        win = cast("DeskWindow", self.window())  # the main window: the view sits in it
        win.show_view("browse")
        browser = cast("BrowserView | None", win.views.get("browse"))
        if browser is not None:
            browser.open_memory(memory_id)
