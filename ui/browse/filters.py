"""The browser's filter bar, and saved filters.

``FilterBar`` turns its widgets into a ``core.query.MemoryFilter`` and emits it:
at once for pickers, after a short debounce for the search box (as-you-type).  Saved
filters are MemoryFilters serialised to plain JSON dicts (``filter_to_dict``), either
built in (``BUILTIN_FILTERS``) or saved by the operator in QSettings.
"""

from __future__ import annotations

import contextlib
import json
from datetime import date, datetime, time, timedelta
from typing import Any

from PySide6.QtCore import QDate, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.taxonomy import LOW_CONFIDENCE, Layer, MemoryType
from memdesk.ui.desk.flow_layout import FlowLayout
from memdesk.ui.desk.text import list_entry, one_line, tooltip_text

DEBOUNCE_MS = 200
EPS = 1e-9  # bands are inclusive in SQL; "< 0.4" is [0, 0.4 - EPS]

_TUPLE_FIELDS = ("user_ids", "types", "layers", "topics", "sessions", "agent_ids", "run_ids")


def filter_to_dict(f: MemoryFilter) -> dict[str, Any]:
    """JSON-safe dict of the non-empty fields of ``f`` (``extra`` clauses are not saved)."""
    out: dict[str, Any] = {}
    if f.text:
        out["text"] = f.text
    for k in _TUPLE_FIELDS:
        if getattr(f, k):
            out[k] = list(getattr(f, k))
    for k in ("importance", "confidence"):
        if getattr(f, k) is not None:
            out[k] = list(getattr(f, k))
    if f.statuses:
        out["statuses"] = [Status(s).value for s in f.statuses]
    for k in ("created_from", "created_to"):
        if getattr(f, k) is not None:
            out[k] = getattr(f, k).isoformat()
    return out


def filter_from_dict(d: dict[str, Any]) -> MemoryFilter:
    """Inverse of filter_to_dict; unknown or malformed entries are ignored."""
    kw: dict[str, Any] = {}
    if isinstance(d.get("text"), str):
        kw["text"] = d["text"]
    for k in _TUPLE_FIELDS:
        v = d.get(k)
        if isinstance(v, list):
            kw[k] = tuple(str(x) for x in v)
    for k in ("importance", "confidence"):
        v = d.get(k)
        if isinstance(v, list) and len(v) == 2:
            with contextlib.suppress(TypeError, ValueError):
                kw[k] = (float(v[0]), float(v[1]))
    st = d.get("statuses")
    if isinstance(st, list):
        kw["statuses"] = tuple(Status(s) for s in st if s in {x.value for x in Status})
    for k in ("created_from", "created_to"):
        v = d.get(k)
        if isinstance(v, str):
            with contextlib.suppress(ValueError):
                kw[k] = datetime.fromisoformat(v)
    return MemoryFilter(**kw)


def _enc(data: Any) -> str:
    """Combo item data as JSON text: Qt stores it natively (no Python objects in QVariants)."""
    return json.dumps([x.value if isinstance(x, Status) else x for x in data])


def _py_date(d: QDate) -> date:
    """``d`` as a Python date (QDate.toPython is typed ``object``)."""
    return date(d.year(), d.month(), d.day())


def _dec(raw: Any) -> tuple[Any, ...] | None:
    return tuple(json.loads(raw)) if isinstance(raw, str) and raw else None


def builtin_filters(low_confidence: float = LOW_CONFIDENCE) -> dict[str, MemoryFilter]:
    """The saved filters every store gets (the 0.3–0.49 band is the crowded
    low-importance band the revaluation sweep reviews)."""
    return {
        "Low confidence": MemoryFilter(confidence=(0.0, low_confidence - EPS)),
        "0.3–0.49 band": MemoryFilter(importance=(0.3, 0.49)),
        "Superseded": MemoryFilter(statuses=(Status.SUPERSEDED,)),
        "Preferences": MemoryFilter(types=("preference",)),
        # Conversation turns kept as said (the detail pane lists each one's units).
        "Episodes": MemoryFilter(types=(MemoryType.EPISODE.value,)),
        # Suppositions are kept but never beliefs: hidden from every default view.
        "Hypotheticals": MemoryFilter(statuses=(Status.HYPOTHETICAL,)),
        # Kept and shown, never recalled (Memory → Unarchive brings one back).
        "Archived": MemoryFilter(statuses=(Status.ARCHIVED,)),
    }


def _band_label(band: tuple[float, float]) -> str:
    lo, hi = band
    if lo <= 0.0 and abs(hi - round(hi, 2)) > EPS / 2:
        return f"< {round(hi, 2):.2f}"
    if hi >= 1.0:
        return f"≥ {lo:.2f}"
    return f"{lo:.2f}–{hi:.2f}"


class FilterBar(QWidget):
    """Search box and pickers; emits ``changed(MemoryFilter)``.

    Private state: the debounce timer, and ``_quiet`` while set_filter() fills widgets
    (so loading a saved filter emits once, not once per widget).
    """

    changed = Signal(object)

    def __init__(self, low_confidence: float = LOW_CONFIDENCE,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search memories (Ctrl+F)…")
        self.search.setClearButtonEnabled(True)
        self.search.setObjectName("search")
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._emit)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self.search.returnPressed.connect(self._emit_now)

        self.type = self._combo("Any type", [(t.value, (t.value,)) for t in MemoryType])
        self.layer = self._combo(
            "Any layer", [(x.value, (x.value,)) for x in Layer] + [("(no layer)", ("",))]
        )
        self.topic = self._combo("Any topic", [])
        self.user = self._combo("Any user", [])
        self.agent = self._combo("Any agent", [])  # the agent_id an agent's writes carry
        # Topics and user ids are the store's own strings too: a long one must not
        # widen the bar past 1280 px.
        for box in (self.topic, self.user):
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(6)
        self.agent.setToolTip("Only memories this agent wrote")
        # Agent names are the agents' own strings: keep the bar's width whatever they are.
        self.agent.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.agent.setMinimumContentsLength(6)
        self.importance = self._combo("Any importance", [
            (_band_label(b), b) for b in ((0.0, 0.3 - EPS), (0.3, 0.49), (0.5, 0.79), (0.8, 1.0))
        ])
        self.confidence = self._combo("Any confidence", [
            (f"Low (< {low_confidence:.2f})", (0.0, low_confidence - EPS)),
            (_band_label((low_confidence, 0.69)), (low_confidence, 0.69)),
            (_band_label((0.7, 1.0)), (0.7, 1.0)),
        ])
        self.status = self._combo("Not deleted", [
            (s.value.capitalize(), (s,)) for s in Status
        ])
        # The label stays short (the bar must fit 1280 px); what it leaves out is said here.
        self.status.setToolTip("Not deleted: every status but deleted and hypothetical "
                               "(suppositions are shown only under Hypothetical)")
        self.date_from = self._date("Created from")
        self.date_to = self._date("Created to")
        clear = QToolButton()
        clear.setText("Clear")
        clear.setToolTip("Clear all filters (Ctrl+Shift+L)")
        clear.clicked.connect(self.clear)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.agent)  # here: the second row is as wide as a window may be
        top.addWidget(clear)
        # The pickers wrap onto a second line in a narrow window (1024 px) instead of
        # setting the window's minimum width; the date range wraps as one.
        row = FlowLayout()
        for w in (self.type, self.layer, self.topic, self.user, self.importance,
                  self.confidence, self.status):
            row.addWidget(w)
        dates = QWidget()
        dl = QHBoxLayout(dates)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(QLabel("Created"))
        dl.addWidget(self.date_from)
        dl.addWidget(QLabel("–"))
        dl.addWidget(self.date_to)
        row.addWidget(dates)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(top)
        outer.addLayout(row)

    # -- widgets --------------------------------------------------------------
    def _combo(self, any_label: str, items: list[tuple[str, Any]]) -> QComboBox:
        box = QComboBox()
        box.addItem(any_label, None)
        for label, data in items:
            box.addItem(label, _enc(data))
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        box.currentIndexChanged.connect(lambda _i: self._emit_now())
        return box

    def _date(self, tip: str) -> QDateEdit:
        d = QDateEdit()
        d.setCalendarPopup(True)
        d.setDisplayFormat("yyyy-MM-dd")
        d.setMinimumDate(QDate(2000, 1, 1))
        d.setSpecialValueText("any")  # shown at the minimum date: no bound
        d.setDate(d.minimumDate())
        d.setToolTip(tip)
        d.dateChanged.connect(lambda _d: self._emit_now())
        return d

    def set_choices(self, topics: list[str], users: list[str],
                    agents: list[str] | None = None) -> None:
        """Fill the topic, user and agent pickers (values come from the store, off-thread)."""
        self._quiet = True
        try:
            for box, values in ((self.topic, topics), (self.user, users),
                                (self.agent, agents or [])):
                keep = box.currentData()
                while box.count() > 1:
                    box.removeItem(1)
                for v in values:  # a line break or override must not shape the list
                    box.addItem(list_entry(v), _enc((v,)))
                    box.setItemData(box.count() - 1, tooltip_text(one_line(v)),
                                    Qt.ItemDataRole.ToolTipRole)
                self._select(box, _dec(keep))
        finally:
            self._quiet = False

    @staticmethod
    def _select(box: QComboBox, data: Any) -> None:
        if data is None:
            box.setCurrentIndex(0)
            return
        want = _enc(data)
        for i in range(box.count()):
            if box.itemData(i) == want:
                box.setCurrentIndex(i)
                return
        label = (_band_label(data) if len(data) == 2 and isinstance(data[0], float)
                 else ", ".join(list_entry(str(x)) or "(none)" for x in data))
        box.addItem(label, want)
        box.setCurrentIndex(box.count() - 1)

    # -- filter <-> widgets ---------------------------------------------------
    def current(self) -> MemoryFilter:
        def pick(box: QComboBox) -> Any:
            return _dec(box.currentData())

        kw: dict[str, Any] = {"text": self.search.text()}
        for name, box in (("types", self.type), ("layers", self.layer),
                          ("topics", self.topic), ("user_ids", self.user),
                          ("agent_ids", self.agent), ("statuses", self.status)):
            if pick(box) is not None:
                kw[name] = tuple(pick(box))
        for name, box in (("importance", self.importance), ("confidence", self.confidence)):
            if pick(box) is not None:
                kw[name] = tuple(pick(box))
        if self.date_from.date() != self.date_from.minimumDate():
            kw["created_from"] = datetime.combine(_py_date(self.date_from.date()), time.min)
        if self.date_to.date() != self.date_to.minimumDate():
            end = datetime.combine(_py_date(self.date_to.date()), time.min)
            kw["created_to"] = end + timedelta(days=1) - timedelta(microseconds=1)
        return MemoryFilter(**kw)

    def set_filter(self, f: MemoryFilter) -> None:
        """Show ``f`` in the widgets and emit it once."""
        self._quiet = True
        try:
            self._debounce.stop()
            self.search.setText(f.text)
            self._select(self.type, f.types or None)
            self._select(self.layer, f.layers or None)
            self._select(self.topic, f.topics or None)
            self._select(self.user, f.user_ids or None)
            self._select(self.agent, f.agent_ids or None)
            self._select(self.status, tuple(Status(s) for s in f.statuses) or None)
            self._select(self.importance, f.importance)
            self._select(self.confidence, f.confidence)
            for box, when in ((self.date_from, f.created_from), (self.date_to, f.created_to)):
                box.setDate(QDate(when.year, when.month, when.day) if when
                            else box.minimumDate())
        finally:
            self._quiet = False
        self._emit_now()

    def clear(self) -> None:
        self.set_filter(MemoryFilter())

    def _emit_now(self) -> None:
        self._debounce.stop()
        self._emit()

    def _emit(self) -> None:
        if not self._quiet:
            self.changed.emit(self.current())
