"""The desk as one piece (pytest-qt): every view's action goes through the one pipeline
and undo stack (Ctrl+Z undoes it, Edit → Undo names it); each view refreshes only on
the change kinds it shows (reads counted); hostile HTML-looking text is never rendered
as rich text anywhere; a huge text is never laid out whole; long values never widen
the window or push Apply out of reach."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLabel, QWidget

from memdesk.core.delta.contracts import Candidate, SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings

pytestmark = pytest.mark.gui

HOSTILE = "<table><tr><td><h1>BIG</h1></td></tr></table><a href='http://x.invalid'>link</a>"


@pytest.fixture
def settings(tmp_path) -> Settings:  # type: ignore[no-untyped-def]
    return Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))


def open_window(qtbot, store: MemoryStore, settings: Settings, size=(1440, 860)) -> MainWindow:  # type: ignore[no-untyped-def]
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    return w


def browse_loaded(qtbot, w: MainWindow) -> None:  # type: ignore[no-untyped-def]
    m = w.views["browse"].model
    qtbot.waitUntil(lambda: not m.loading and m.total is not None, timeout=10_000)


def ctrl_z(qtbot, w: MainWindow) -> None:  # type: ignore[no-untyped-def]
    target = QApplication.focusWidget() or w
    qtbot.keyClick(target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


# -- Ctrl+Z from each view ----------------------------------------------------------------
def test_ctrl_z_undoes_each_views_last_action_named_in_the_edit_menu(
        qtbot, demo_store: MemoryStore, settings: Settings) -> None:
    w = open_window(qtbot, demo_store, settings)
    browse_loaded(qtbot, w)

    # Browse: an edit from the detail pane.
    browser = w.views["browse"]
    mid = browser.model.row_at(0).id
    before = demo_store.get(mid).confidence
    browser.edit(mid, {"confidence": 0.11})
    assert w.undo_action.text() == "Undo edit of 1 memory"
    ctrl_z(qtbot, w)
    assert demo_store.get(mid).confidence == before
    assert w.redo_action.text() == "Redo edit of 1 memory"

    # Revaluation sweep: one decision.
    w.show_view("sweep")
    sweep = w.views["sweep"]
    qtbot.waitUntil(lambda: sweep.start.user.count() > 1)
    sweep.start.n.setValue(3)
    sweep.start.seed.setText("5")
    sweep.start_from_form()
    qtbot.waitUntil(lambda: sweep.stack.currentWidget() is sweep.review, timeout=10_000)
    item = sweep.state.current
    sweep.decide("revalue", 0.9)
    assert demo_store.get(item.memory_id).importance == 0.9
    assert w.undo_action.text() == "Undo revaluation of 1 memory"
    ctrl_z(qtbot, w)
    assert demo_store.get(item.memory_id).importance == item.importance_before
    assert sweep.state.current.pos == 0  # the view shows the item again

    # Contradictions: resolve the selected group.
    w.show_view("contradictions")
    con = w.views["contradictions"]
    qtbot.waitUntil(lambda: con.detail is not None, timeout=10_000)
    d = con.detail
    con.accept_suggestion()
    superseded = [m for m in d.members if demo_store.get(m.id).superseded_by]
    n = len(superseded)
    assert w.undo_action.text() == (
        f"Undo contradiction resolution of {n} {'memory' if n == 1 else 'memories'}")
    assert any(demo_store.get(m.id).superseded_by for m in d.members)
    ctrl_z(qtbot, w)
    assert all(demo_store.get(m.id).is_active for m in d.members)
    qtbot.waitUntil(lambda: con.model.row_of(d.key) >= 0, timeout=10_000)

    # Drift review: accept a flagged change; the sources panel: one weight.
    w.show_view("drift")
    drift = w.views["drift"]
    qtbot.waitUntil(lambda: drift.current() is not None, timeout=10_000)
    rec = drift.current()
    dm = DeltaMemory(demo_store)
    assert drift.act("accept")
    assert dm.stored_diff(rec.id).review == "accepted"
    assert w.undo_action.text() == f"Undo acceptance of change #{rec.id}"
    ctrl_z(qtbot, w)
    assert dm.stored_diff(rec.id).review == "pending"
    model = drift.sources.model
    weight = dm.config().sources[0].weight
    assert model.setData(model.index(0, 2), "0.9")
    assert w.undo_action.text() == f"Undo edit of source {dm.config().sources[0].name}"
    ctrl_z(qtbot, w)
    assert dm.config().sources[0].weight == weight
    w.close()


# -- each view refreshes only on its flags -------------------------------------------------
def single_kinds() -> list[Changed]:
    return [k for k in Changed if k not in (Changed.NOTHING, Changed.ALL, Changed.DELTA)
            and bin(k.value).count("1") == 1]


VIEW_CLASSES = {
    "browse": ("memdesk.ui.browse.browser", "BrowserView"),
    "overview": ("memdesk.ui.browse.overview", "OverviewView"),
    "sweep": ("memdesk.ui.sweep.view", "SweepView"),
    "contradictions": ("memdesk.ui.contradictions.view", "ContradictionsView"),
    "snapshots": ("memdesk.ui.delta.snapshots_view", "SnapshotsView"),
    "drift": ("memdesk.ui.delta.drift_view", "DriftView"),
    "review": ("memdesk.ui.review.view", "ReviewView"),
    "retrieval": ("memdesk.ui.retrieval.view", "RetrievalView"),
    "jobs": ("memdesk.ui.jobs.view", "JobsView"),
    "checks": ("memdesk.ui.checks.view", "ChecksView"),
}


@pytest.mark.parametrize("key", list(VIEW_CLASSES))
def test_views_refresh_only_on_their_flags(qtbot, demo_store: MemoryStore, desk_for,
                                           key: str) -> None:
    """Built alone on a desk (as the window builds it), a view reads the store after a
    broadcast exactly when the broadcast's kind is one it shows."""
    from importlib import import_module

    module, cls = VIEW_CLASSES[key]
    desk = desk_for(demo_store)
    view = getattr(import_module(module), cls)(desk)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(100)
    view.wait_idle()
    detail = getattr(view, "detail", None)
    shown = getattr(detail, "record", None)
    ids = (shown.id,) if shown is not None else ()
    reads: list[str] = []
    real_read = demo_store.read

    def counting_read():  # type: ignore[no-untyped-def]
        reads.append("read")
        return real_read()

    demo_store.read = counting_read  # type: ignore[method-assign]
    try:
        for kind in single_kinds():
            reads.clear()
            desk.changed.emit(Changes(memory_ids=ids, kinds=kind))
            for _ in range(2):  # background reads, then what their results start
                qtbot.wait(30)
                view.wait_idle()
            if kind & view.refresh_on:
                assert reads, f"{key} did not refresh on {kind.name}"
            else:
                assert reads == [], f"{key} read the store on {kind.name}"
    finally:
        demo_store.read = real_read  # type: ignore[method-assign]


# -- hostile text -------------------------------------------------------------------------
def hostile_store(store: MemoryStore) -> None:
    for value in (HOSTILE, HOSTILE + " 2"):
        store.add(user_id=HOSTILE, text=HOSTILE, type="fact", topic=HOSTILE[:190],
                  source_session=HOSTILE[:190], entity=HOSTILE[:190],
                  attribute=HOSTILE[:190], value=value, confidence=0.3, importance=0.4)
    dm = DeltaMemory(store)
    dm.add_source(SourceConfig(name=HOSTILE[:90], source_type="search_memory", weight=0.5))
    t0 = datetime(2026, 11, 1)
    for i in range(3):
        cands = [Candidate(HOSTILE[:90], f"{HOSTILE} {j}", 1, 1, candidate_id=f"h{j}")
                 for j in range(1 + 4 * i)] + [Candidate("context", HOSTILE, 1, 1)]
        dm.snapshot(HOSTILE, "q", cands, created_at=t0 + timedelta(minutes=5 * i),
                    use_database=False)


def rich_renderings(root: QWidget) -> list[str]:
    """Every place under ``root`` where the hostile markup would render as rich text."""
    bad: list[str] = []
    widgets = [root, *root.findChildren(QWidget)]
    for wdg in widgets:
        if isinstance(wdg, QLabel) and "<h1>" in wdg.text() \
                and wdg.textFormat() != Qt.TextFormat.PlainText:
            bad.append(f"label {wdg.objectName() or type(wdg.parent()).__name__}")
        if "<h1>" in wdg.toolTip():
            bad.append(f"tooltip of {type(wdg).__name__}")
        if isinstance(wdg, QAbstractItemView) and wdg.model() is not None:
            m = wdg.model()
            for r in range(min(m.rowCount(), 50)):
                for c in range(m.columnCount()):
                    tip = m.index(r, c).data(Qt.ItemDataRole.ToolTipRole)
                    if isinstance(tip, str) and "<h1>" in tip:
                        bad.append(f"{type(m).__name__} tooltip r{r} c{c}")
    return bad


def test_hostile_text_never_renders_as_rich_text(qtbot, store: MemoryStore,
                                                 settings: Settings) -> None:
    hostile_store(store)
    w = open_window(qtbot, store, settings)
    browse_loaded(qtbot, w)
    w.views["browse"].table.selectRow(0)
    w.show_view("contradictions")
    con = w.views["contradictions"]
    qtbot.waitUntil(lambda: con.detail is not None, timeout=10_000)
    w.show_view("snapshots")
    snaps = w.views["snapshots"]
    qtbot.waitUntil(lambda: snaps.plot.series is not None, timeout=10_000)
    with qtbot.waitSignal(snaps.diffShown, timeout=10_000):
        snaps.open_snapshot(2)
    w.show_view("drift")
    w.show_view("overview")
    w.wait_idle()
    qtbot.wait(50)
    assert rich_renderings(w) == []
    # The plot legend renders HTML: every source name in it is escaped.
    legend = [lab.text for _sample, lab in snaps.plot.legend.items]
    assert any("&lt;h1&gt;" in t for t in legend) and not any("<h1>" in t for t in legend)
    # A failure message carrying stored text is a plain-text box.
    w.desk.report("Resolve " + HOSTILE, HOSTILE)
    boxes = [b for b in w.findChildren(QWidget) if type(b).__name__ == "QMessageBox"]
    assert boxes and all(b.textFormat() == Qt.TextFormat.PlainText for b in boxes)
    for b in boxes:
        b.close()
    w.close()


# -- long texts and layout -----------------------------------------------------------------
def test_huge_text_is_never_laid_out_whole(qtbot, store: MemoryStore, settings: Settings) -> None:
    from memdesk.ui.browse.detail import TEXT_PREVIEW_CHARS
    from memdesk.ui.browse.text_viewer import VIEW_LINE_CHARS

    huge = "x" * 100_000  # accepted by validation; one unbreakable line
    rec = store.add(user_id="u", text=huge, type="note")
    w = open_window(qtbot, store, settings)
    browse_loaded(qtbot, w)
    pane = w.views["browse"].detail
    assert pane.record is not None and pane.record.id == rec.id  # row 0 selected at start
    shown = pane.text.document()
    assert len(pane.text.toPlainText()) <= TEXT_PREVIEW_CHARS + TEXT_PREVIEW_CHARS // 200
    assert max(shown.findBlockByNumber(i).length() for i in range(shown.blockCount())) <= 201
    assert pane.text.isReadOnly() and pane.partial_row.isVisible()
    pane.importance.setValue(0.9)
    assert pane.edited_fields() == {"importance": 0.9}  # the cut text is never written back
    pane.show_all_text()
    doc = pane.viewer.view.document()
    assert max(doc.findBlockByNumber(i).length() for i in range(doc.blockCount())) \
        <= VIEW_LINE_CHARS + 1
    assert pane.viewer.original == huge
    pane.viewer.close()
    pane.reload()  # the importance typed above: not applied, so closing would ask
    w.close()


def test_long_contradiction_values_do_not_widen_the_window(qtbot, store: MemoryStore,
                                                           settings: Settings) -> None:
    for i in range(5):  # five values: more than one row of cards
        store.add(user_id="u" * 150, text="v" * 600 + str(i), type="fact", entity="e" * 150,
                  attribute="a" * 150, value=f"{i}" + "w" * 3000,
                  source_session="s" * 190)
    w = open_window(qtbot, store, settings, size=(1280, 800))
    browse_loaded(qtbot, w)
    before = w.minimumSizeHint().width()
    w.show_view("contradictions")
    con = w.views["contradictions"]
    qtbot.waitUntil(lambda: con.detail is not None, timeout=10_000)
    qtbot.wait(50)
    assert w.minimumSizeHint().width() <= max(before, 1280)
    assert w.width() == 1280
    grid = con.cards_grid
    assert grid.columnCount() <= 3 and grid.count() >= 5
    w.close()


def test_apply_stays_reachable_with_a_long_user_id_at_1280x800(
        qtbot, store: MemoryStore, settings: Settings) -> None:
    store.add(user_id="user-" + "9" * 195, text="short", type="note",
              source_session="session-" + "7" * 190)
    w = open_window(qtbot, store, settings, size=(1280, 800))
    browse_loaded(qtbot, w)
    pane = w.views["browse"].detail
    assert pane.record is not None
    qtbot.wait(50)
    button = pane.apply_button
    right = button.mapTo(w, QPoint(button.width(), 0)).x()
    assert right <= w.width(), f"Apply ends at x={right} in a {w.width()} px window"
    assert not button.visibleRegion().isEmpty()
    w.close()
