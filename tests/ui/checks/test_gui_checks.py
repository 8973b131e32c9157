"""Recall checks in the desk (pytest-qt): pinning from the Retrieval inspector, the Checks
view (run all with progress, remove with Ctrl+Z's undo), and the background run after a
bulk action that names the check that broke, the action that broke it, and undoes it."""

from __future__ import annotations

import pytest

from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.read.checks import RecallChecks
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.checks.view import ChecksView
from memdesk.ui.checks.watch import ChecksWatcher
from memdesk.ui.desk.actions import Op
from memdesk.ui.retrieval.view import RetrievalView
from tests.helpers.read import put

pytestmark = pytest.mark.gui
RLO = "\u202e"
USER = f"ann{RLO}evil"  # a user id that would reverse the line it is shown in


@pytest.fixture
def watching(qtbot):  # type: ignore[no-untyped-def]
    """Makes ``ChecksWatcher``s; each one's dialog is closed after the test (a dialog
    without a window is a top-level window of its own, left for the next test)."""
    made: list[ChecksWatcher] = []

    def make(desk):  # type: ignore[no-untyped-def]
        made.append(ChecksWatcher(desk))
        return made[-1]

    yield make
    for w in made:
        w.wait()
        w.close_dialog()


@pytest.fixture
def ids(store: MemoryStore) -> list[str]:
    return put(store, [{"text": "The kayak club meets on Tuesdays at the harbour.",
                        "days_ago": 2},
                       {"text": "I am allergic to peanuts.", "days_ago": 3},
                       {"text": "I have a peanut allergy.", "days_ago": 4}], user=USER)


def test_pin_as_a_check_from_the_inspector(qtbot, store: MemoryStore, ids: list[str],
                                           desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    desk = desk_for(store)
    view = RetrievalView(desk)
    qtbot.addWidget(view)
    view.show()
    view.wait_idle()
    view.pin_selected()  # nothing inspected yet: says what to do, pins nothing
    assert "select the results" in view.status.text() and view.pin_dialog is None
    view.prompt.setText("when does the kayak club meet?")
    view.user.setCurrentText(USER)
    view.retrieve()
    qtbot.waitUntil(lambda: view.result is not None, timeout=60_000)
    view.fused_view.selectRow(0)
    view.pin_selected()
    dialog = view.pin_dialog
    text = dialog.summary.text()
    assert ids[0] in text and "kayak club meets" in text and "top 10" in text
    assert RLO not in text and "⟨U+202E⟩" in text  # the override shown, not obeyed
    dialog.accept()
    qtbot.waitUntil(lambda: not desk.running, timeout=60_000)
    [check] = RecallChecks(store).list()
    assert check.expect == (ids[0],) and check.user_id == USER
    assert check.last_passed is True  # run once at once: a later break is seen
    assert desk.undo_stack.undoText() == "add of 1 recall check"  # Edit → Undo prefixes "Undo"
    desk.undo_stack.undo()
    assert RecallChecks(store).list() == []


def test_checks_view_runs_all_and_removes_with_undo(qtbot, store: MemoryStore, ids: list[str],
                                                    desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    checks = RecallChecks(store)
    checks.add(USER, "when does the kayak club meet?", [ids[0]])
    checks.add(USER, "what am I allergic to?", [ids[1]], note=f"pinned by {RLO}someone")
    desk = desk_for(store)
    view = ChecksView(desk)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=10_000)
    assert view.model.index(0, 0).data() == "never run"
    assert "⟨U+202E⟩" in view.model.index(0, 1).data()  # the user id, shown plainly
    progress: list[tuple[int, int]] = []
    view.run_all()
    view._task.progress.connect(lambda d, t: progress.append((d, t)))
    with qtbot.waitSignal(view.run_finished, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: view.model.index(0, 0).data() == "passed", timeout=10_000)
    assert "Last run" in view.detail.text() and "returned at rank" in view.detail.text()
    view.table.selectRow(1)
    view.remove_selected()
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=10_000)
    desk.undo_stack.undo()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2, timeout=10_000)


def test_a_merge_that_breaks_a_check_is_named_and_undone(
        qtbot, store: MemoryStore, ids: list[str], desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    checks = RecallChecks(store)
    checks.add(USER, "when does the kayak club meet?", [ids[0]])
    assert checks.run().passed
    desk = desk_for(store)
    watcher = watching(desk)
    with qtbot.waitSignal(watcher.finished, timeout=60_000) as blocker:  # a wrong merge
        desk.run(Op("Merge", lambda: Duplicates(store).merge([ids[0], ids[1]], keep=ids[1])))
    outcome = blocker.args[0]
    assert [r.check.expect for r in outcome.broke] == [(ids[0],)]
    assert outcome.cause.label == "merge of duplicates of 1 memory"
    assert outcome.cause.ref.startswith("audit group ")
    dialog = watcher.dialog
    assert dialog is not None and dialog.isVisible()
    shown = dialog.text.toPlainText()
    assert "BROKE" in shown and f"expected {ids[0]}: merged into {ids[1]}" in shown
    assert RLO not in shown and "⟨U+202E⟩" in shown
    assert "merge of duplicates" in dialog.heading.text()
    with qtbot.waitSignal(watcher.finished, timeout=60_000) as again:
        dialog.undo_button.click()
    assert again.args[0].changed[0][0].passed  # the undo fixed it, and says so
    assert RecallChecks(store).list()[0].last_passed is True
    assert desk.undo_stack.undoText().startswith("undo of")
    watcher.wait()


def test_an_action_that_cannot_be_undone_says_so(qtbot, store: MemoryStore, ids: list[str],
                                                 desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    checks = RecallChecks(store)
    checks.add(USER, "when does the kayak club meet?", [ids[0]])
    assert checks.run().passed
    desk = desk_for(store)
    watcher = watching(desk)

    def embed_pass() -> Changes:  # stands in for new vectors that lose the memory
        store.soft_delete(ids[0])
        return Changes(kinds=Changed.MEMORIES | Changed.HISTORY, action=acts.EMBED)

    with qtbot.waitSignal(watcher.finished, timeout=60_000) as blocker:
        desk.run(Op("Embed missing vectors", embed_pass, undoable=False))
    assert blocker.args[0].broke
    dialog = watcher.dialog
    assert dialog is not None and not dialog.undo_button.isEnabled()
    assert "cannot be undone" in dialog.undo_button.toolTip()


def test_only_a_finished_sweep_runs_the_checks(qtbot, store: MemoryStore, ids: list[str],
                                               desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.curation.service import Sweeps

    RecallChecks(store).add(USER, "when does the kayak club meet?", [ids[0]])
    desk = desk_for(store)
    watcher = watching(desk)
    sweeps = Sweeps(store)
    state = sweeps.start((0.0, 1.0), 2, seed=1)
    seen: list[object] = []
    watcher.finished.connect(seen.append)
    desk.run(Op("Keep", lambda: sweeps.decide(state.id, 0, "keep")))
    watcher.wait()
    qtbot.wait(100)
    assert seen == []  # one of two decided: no run
    with qtbot.waitSignal(watcher.finished, timeout=60_000) as blocker:
        desk.run(Op("Keep", lambda: sweeps.decide(state.id, 1, "keep")))
    assert blocker.args[0].cause.label == f"sweep {state.id[:8]} (2 decisions)"


def test_a_restore_compares_with_the_store_it_replaced(qtbot, store: MemoryStore,
                                                       ids: list[str], desk_for, watching) -> None:  # type: ignore[no-untyped-def]
    checks = RecallChecks(store)
    checks.add(USER, "when does the kayak club meet?", [ids[0]])
    desk = desk_for(store)
    watcher = watching(desk)
    with qtbot.waitSignal(watcher.finished, timeout=60_000):
        watcher.run_after(watcher_cause())
    store.soft_delete(ids[0])  # what the restored backup holds (the same file here)
    watcher.store_opened(store)
    with qtbot.waitSignal(watcher.finished, timeout=60_000) as blocker:
        watcher.restored(None)
    outcome = blocker.args[0]
    assert outcome.broke and outcome.cause.undo is None
    assert "restore" in outcome.cause.label


def watcher_cause():  # type: ignore[no-untyped-def]
    from memdesk.ui.checks.watch import Cause

    return Cause("a first run", "test")
