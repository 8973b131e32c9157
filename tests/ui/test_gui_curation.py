"""pytest-qt: the sweep and contradictions views driven by the keyboard alone, with
their effects checked in the store; qtmodeltester on every curation model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed
from memdesk.ui.contradictions.models import ContradictionQueueModel
from memdesk.ui.contradictions.view import ContradictionsView
from memdesk.ui.sweep.models import HistogramModel, NeighbourModel, SweepListModel
from memdesk.ui.sweep.view import SweepView

pytestmark = pytest.mark.gui


def press(qtbot, key: Qt.Key, text: str = "") -> None:
    """Type one key into whatever has keyboard focus, as a user would."""
    target = QApplication.focusWidget()
    assert target is not None, "nothing has keyboard focus"
    qtbot.keyClick(target, key)


def show(qtbot, widget: QWidget) -> None:
    qtbot.addWidget(widget)
    widget.resize(1200, 760)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()


def test_sweep_review_by_keyboard(qtbot, demo_store: MemoryStore, desk_for) -> None:
    win = desk_for(demo_store)
    view = SweepView(win)
    show(qtbot, view)
    qtbot.waitUntil(lambda: view.start.user.count() > 1)  # users loaded off-thread
    view.start.n.setValue(4)
    view.start.seed.setText("5")
    view.start.seed.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view.start.seed)
    press(qtbot, Qt.Key.Key_Return)  # start
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.review, timeout=5000)
    sid = view.sweep_id
    assert view.review.progress.text() == "0 / 4"
    items = Sweeps(demo_store).get(sid).items
    first = items[0].memory_id
    assert view.review.text.toPlainText().startswith(demo_store.get(first).text[:40])

    press(qtbot, Qt.Key.Key_N)  # a note for the next decision
    qtbot.keyClicks(QApplication.focusWidget(), "quietly foundational")
    press(qtbot, Qt.Key.Key_Return)
    press(qtbot, Qt.Key.Key_7)  # importance 0.7
    assert demo_store.get(first).importance == 0.7
    ev = demo_store.events(first)[0]
    assert ev.action == "revalue" and "quietly foundational" in ev.note
    assert view.review.progress.text() == "1 / 4"
    assert win.seen[-1].touches(Changed.SWEEPS | Changed.MEMORIES)

    press(qtbot, Qt.Key.Key_K)  # keep
    press(qtbot, Qt.Key.Key_U)  # undo the keep
    assert view.review.progress.text() == "1 / 4"
    press(qtbot, Qt.Key.Key_S)  # skip
    press(qtbot, Qt.Key.Key_2)  # 0.2
    press(qtbot, Qt.Key.Key_0)  # 1.0
    assert view.stack.currentWidget() is view.report
    state = Sweeps(demo_store).get(sid)
    assert [it.decision for it in state.items] == ["revalue", "skip", "revalue", "revalue"]
    assert demo_store.get(items[3].memory_id).importance == 1.0
    assert "Rescued (raised): 2" in view.report.counts.text()
    assert "Lowered: 1" in view.report.counts.text()

    press(qtbot, Qt.Key.Key_U)  # undo from the report: back to the last item
    assert view.stack.currentWidget() is view.review
    assert demo_store.get(items[3].memory_id).importance == items[3].importance_before
    press(qtbot, Qt.Key.Key_Escape)  # pause; the sweep is listed for resuming
    assert view.stack.currentWidget() is view.start
    qtbot.waitUntil(lambda: view.start.sweeps.rowCount() == 1)
    view.start.table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view.start.table)
    press(qtbot, Qt.Key.Key_Return)  # resume
    assert view.stack.currentWidget() is view.review
    assert view.review.progress.text() == "3 / 4"


def test_sweep_bad_seed_and_empty_band_show_a_message(qtbot, demo_store, desk_for) -> None:
    desk = desk_for(demo_store)
    view = SweepView(desk)
    show(qtbot, view)
    qtbot.waitUntil(lambda: view.start.user.count() > 1)
    view.start.seed.setText("abc")
    view.start_from_form()
    assert "whole number" in view.start.status.text()
    view.start.seed.setText("")
    view.start.lo.setValue(1.0)
    view.start.hi.setValue(1.0)
    view.start.user.setCurrentText("nobody-at-all")
    view.start_from_form()
    # An action's failure goes the one way every failure goes: the desk reports it.
    qtbot.waitUntil(lambda: "nothing to sweep" in (desk.last_error or ""), timeout=5000)
    assert view.stack.currentWidget() is view.start
    assert view.start.start_button.isEnabled()


def test_contradictions_by_keyboard(qtbot, demo_store: MemoryStore, desk_for) -> None:
    win = desk_for(demo_store)
    view = ContradictionsView(win)
    show(qtbot, view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=10_000)
    total = view.model.rowCount()
    assert total == len(Contradictions(demo_store).find())
    view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)

    # Enter accepts the suggestion: losers superseded by the suggested winner.
    d = view.detail
    winner = d.suggestion.winner_id
    win_norm = d.card_for(winner).norm
    press(qtbot, Qt.Key.Key_Return)
    losers = [m.id for c in d.cards if c.norm != win_norm for m in c.same_value]
    assert losers and all(demo_store.get(m).superseded_by == winner for m in losers)
    assert view.model.rowCount() == total - 1
    assert view.model.row_of(d.key) == -1
    assert win.seen[-1].touches(Changed.CONTRADICTIONS)

    press(qtbot, Qt.Key.Key_U)  # undo: members active again, the group is back
    assert all(demo_store.get(m).is_active for m in losers)
    qtbot.waitUntil(lambda: view.model.rowCount() == total, timeout=10_000)
    assert view.model.row_of(d.key) >= 0
    view.table.selectRow(view.model.row_of(d.key))

    # Move down, keep card 2.
    press(qtbot, Qt.Key.Key_Down)
    d2 = view.detail
    assert d2.key != d.key
    keep = d2.cards[1].memory.id
    press(qtbot, Qt.Key.Key_2)
    assert demo_store.get(d2.cards[0].memory.id).superseded_by == keep
    assert view.model.rowCount() == total - 1

    # B: keep all; not raised again by a rescan.
    d3 = view.detail
    press(qtbot, Qt.Key.Key_B)
    assert d3.key not in {g.key for g in Contradictions(demo_store).find()}
    press(qtbot, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: view.model.rowCount() == total - 2, timeout=10_000)
    assert view.model.row_of(d3.key) == -1

    # E: edit the suggested card's value, Enter applies, then it is kept.
    d4 = view.detail
    press(qtbot, Qt.Key.Key_E)
    assert view.editor.isVisible()
    edit = QApplication.focusWidget()
    edit.selectAll()
    qtbot.keyClicks(edit, "Edited value")
    press(qtbot, Qt.Key.Key_Return)
    w = demo_store.get(d4.suggestion.winner_id)
    assert w.value == "Edited value" and w.is_active
    assert all(demo_store.get(m.id).superseded_by == w.id for m in d4.members if m.id != w.id)

    # M: merge into a new memory that supersedes every member.
    d5 = view.detail
    press(qtbot, Qt.Key.Key_M)
    edit = QApplication.focusWidget()
    edit.selectAll()
    qtbot.keyClicks(edit, "merged")
    press(qtbot, Qt.Key.Key_Return)
    tops = {demo_store.get(m.id).superseded_by for m in d5.members}
    assert len(tops) == 1
    merged = demo_store.get(tops.pop())
    assert merged.value == "merged" and merged.is_active
    assert view.model.rowCount() == total - 4


def test_contradictions_escape_cancels_the_editor(qtbot, demo_store, desk_for) -> None:
    view = ContradictionsView(desk_for(demo_store))
    show(qtbot, view)
    qtbot.waitUntil(lambda: view.detail is not None, timeout=10_000)
    view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    before = [demo_store.get(m.id) for m in view.detail.members]
    press(qtbot, Qt.Key.Key_M)
    press(qtbot, Qt.Key.Key_Escape)
    assert not view.editor.isVisible()
    assert [demo_store.get(m.id) for m in view.detail.members] == before


def test_models_pass_qtmodeltester(qtmodeltester, demo_store: MemoryStore) -> None:
    state = Sweeps(demo_store).start(n=5, seed=2)
    Sweeps(demo_store).decide(state.id, 0, "revalue", importance=0.9)
    lists = SweepListModel()
    lists.set_rows(Sweeps(demo_store).list())
    qtmodeltester.check(lists)
    nb = NeighbourModel()
    rec = demo_store.get(state.items[0].memory_id)
    nb.set_rows(Sweeps(demo_store).neighbours(rec) or [rec])
    qtmodeltester.check(nb)
    hist = HistogramModel()
    hist.set_report(Sweeps(demo_store).report(state.id))
    qtmodeltester.check(hist)
    queue = ContradictionQueueModel()
    queue.set_rows(Contradictions(demo_store).find())
    qtmodeltester.check(queue)
    g = queue.row_at(0)
    assert queue.remove(g.key) == 0
    queue.insert(0, g)
    qtmodeltester.check(queue)
