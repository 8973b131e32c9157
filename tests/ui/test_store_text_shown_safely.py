"""Store text reaches the screen one way: visible, isolated, never HTML.

One store full of hostile texts and user ids (tests/helpers/hostile_store.py) is opened
in the main window; every view of the sidebar (``VIEWS``: a new view is walked without
being named here) is shown, each of its lists has its first rows selected one by one
(so detail panes, cards, clusters and headers show them), and every string the view
then renders is checked (tests/helpers/rendered.py): no raw bidi control, invisible
or control character outside the app's own isolates, no line break where one line is
shown, and no label or tooltip that Qt would read as HTML.  The dialogs that show
memory text (agent tokens, the text viewer, pruning episodes, an error box quoting a
value) and the Edit menu's undo label are checked the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QMessageBox,
    QWidget,
)

from memdesk.core.curation.service import Sweeps
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.desk.text import FSI, PDI
from memdesk.ui.desk.views import VIEWS
from memdesk.ui.window.main_window import MainWindow
from memdesk.ui.window.settings import Settings
from tests.helpers.hostile_store import EVE, USERS, fill, raw_characters
from tests.helpers.rendered import Shown, rendered

pytestmark = pytest.mark.gui

ROWS = 6  # rows of each list selected in turn
# What would only be there had Qt read a hostile text as HTML (the <b> and <img> of the
# store's texts, unescaped, in something Qt renders as rich text).
MARKUP = ("<b>", "<img", "<a href")


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """One window on one hostile store for the module (the tests only read, but for
    a merge the dialogs test makes and undoes)."""
    folder = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as mp:  # the per-test isolation is not active yet
        for var, sub in (("MEMDESK_CONFIG_DIR", "config/memdesk"), ("XDG_CONFIG_HOME", "config"),
                         ("XDG_DATA_HOME", "data")):
            mp.setenv(var, str(folder / "profile" / sub))
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                          str(folder / "settings"))
        yield from _window(qapp, folder)


def _window(qapp, folder: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    store = MemoryStore.open(folder / "hostile.db")
    fill(store)
    Sweeps(store).start((0.3, 0.49), 40, user=EVE, seed=3)  # all of eve's in the band
    ini = QSettings(str(folder / "memdesk.ini"), QSettings.Format.IniFormat)
    settings = Settings(ini)
    settings.ollama_host = "http://127.0.0.1:9"
    w = MainWindow(store, settings)
    w.resize(1280, 700)
    w.show()
    yield w
    w.wait_idle()
    w.close()
    w.deleteLater()
    qapp.processEvents()


def problems(shown: Iterator[Shown]) -> list[str]:
    out: list[str] = []
    for s in shown:
        if s.editor:  # edited exactly; the detail pane's note reveals it (tested below)
            continue
        raw = raw_characters(s.text, lines=not s.one_line)
        if raw:
            out.append(f"{s.where}: raw {', '.join(sorted(set(raw)))} in {s.text[:80]!r}")
        if s.rich and any(m in s.text for m in MARKUP):
            out.append(f"{s.where}: store markup rendered as HTML in {s.text[:80]!r}")
    return list(dict.fromkeys(out))


def settle(qtbot, view: QWidget) -> None:  # type: ignore[no-untyped-def]
    wait = getattr(view, "wait_idle", None)
    if wait is not None:
        wait()
    qtbot.wait(30)


def walk(qtbot, view: QWidget) -> list[str]:  # type: ignore[no-untyped-def]
    """``view``'s strings now, and after selecting each of the first rows of each of
    its lists (what a detail pane, a card or a header shows for them)."""
    settle(qtbot, view)
    found = problems(rendered(view))
    for table in view.findChildren(QAbstractItemView):
        model = table.model()
        if model is None or isinstance(table, QHeaderView) or not table.isVisibleTo(view):
            continue
        for r in range(min(model.rowCount(), ROWS)):
            table.setCurrentIndex(model.index(r, 0))
            settle(qtbot, view)
            found += problems(rendered(view))
    return list(dict.fromkeys(found))


def test_every_view_shows_hostile_store_text_visibly_and_never_as_html(
        qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    found: list[str] = []
    for spec in VIEWS:
        window.show_view(spec.key)
        view = window.views[spec.key]
        qtbot.waitUntil(lambda v=view: v.isVisible(), timeout=10_000)
        if spec.key == "sweep":  # the card of the sweep the store holds
            view.wait_idle()
            view.open_sweep(Sweeps(window.store).list()[0].id)
        if spec.key == "retrieval":
            qtbot.waitUntil(lambda v=view: v.user.count() >= len(USERS), timeout=20_000)
            view.prompt.setText("invoice total")
            view.channel_boxes["vector"].setChecked(False)  # no model to load: fast
            view.user.setCurrentIndex(next(i for i in range(view.user.count())
                                           if view.user.itemData(i) == EVE))
            view.retrieve()
            qtbot.waitUntil(lambda v=view: not v.status.text().startswith("Retrieving"),
                            timeout=60_000)
        found += [f"{spec.key}: {p}" for p in walk(qtbot, view)]
    found += [f"window: {p}" for p in problems(rendered(window))]
    assert not found, "\n".join(found[:60])


def test_dialogs_error_boxes_and_undo_labels_show_store_text_visibly(
        qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.agents.tokens_dialog import TokensDialog
    from memdesk.ui.browse.detail import TextViewer
    from memdesk.ui.browse.prune_episodes import PruneEpisodesDialog

    store = window.store
    users = store.distinct("user_id")
    text = next(r.text for r in store.page(limit=200) if "RTLTEST" in r.text)
    dialogs: list[QWidget] = [
        TokensDialog(store, window),
        TextViewer(f"memdesk: memory of {EVE}", text, window),
        PruneEpisodesDialog(store, users, window),
    ]
    found: list[str] = []
    for d in dialogs:
        qtbot.addWidget(d)
        d.show()
        found += [f"{type(d).__name__}: {p}" for p in walk(qtbot, d)]
        d.close()
    # An action's failure quoting stored values: the one error channel's box.
    window.desk.report(f"Merge duplicates of {EVE}", f"The memory {text!s} of {EVE} is gone.")
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert boxes
    for b in boxes:
        found += [f"error box: {p}" for p in problems(rendered(b))]
        b.close()
    # The Edit menu's undo label names the user whose duplicates were merged.
    window.show_view("duplicates")
    dup = window.views["duplicates"]
    qtbot.waitUntil(lambda: dup.cluster is not None, timeout=20_000)
    eve = next(i for i, c in enumerate(dup.clusters) if c.user_id == EVE)
    dup.queue.setCurrentRow(eve)
    dup.merge()
    qtbot.waitUntil(lambda: window.undo_action.isEnabled(), timeout=20_000)
    found += [f"undo: {p}" for p in problems(iter([Shown(
        "undo action", window.undo_action.text(), True, False)]))]
    assert not found, "\n".join(found[:60])
    # Undone again, so the module's store is as filled for the tests after this one.
    window.undo_action.trigger()
    qtbot.waitUntil(lambda: any(c.user_id == EVE for c in dup.clusters), timeout=20_000)
    QApplication.processEvents()


def test_the_issues_cases_read_as_stored(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """The reported cases, as the operator reads them: the Duplicates view's entry and
    header for a user id with an override keep the app's words in order; the sweep card
    and the Retrieval inspector show the override and the zero-width space; the detail
    pane's note shows what hides in the fields its editors hold exactly."""
    shown_eve = f"{FSI}⟨U+202E⟩eve{PDI}"
    window.show_view("duplicates")
    dup = window.views["duplicates"]
    qtbot.waitUntil(lambda: any(c.user_id == EVE for c in dup.clusters), timeout=20_000)
    row = next(i for i, c in enumerate(dup.clusters) if c.user_id == EVE)
    # Two memories, or three once the window's background embedding has given eve's
    # extracted turn ("I prefer tea. RTLTEST …") a vector near them: either way the
    # user id stays isolated before the app's words.
    n = len(dup.clusters[row].members)
    entry = dup.queue.item(row).text()
    assert entry.startswith(f"{shown_eve} · {n} memories")
    assert "RTLTEST invoice ⟨U+202E⟩99.0 latot 12345" in entry
    dup.queue.setCurrentRow(row)
    assert dup.heading.text().startswith(f"{shown_eve} · {n} memories say the same thing")

    window.show_view("sweep")
    sweep = window.views["sweep"]
    sweep.wait_idle()
    sweep.open_sweep(Sweeps(window.store).list()[0].id)
    seen: set[str] = set()
    while sweep.state.current is not None:  # each item's card, decided in turn
        seen.add(sweep.review.text.toPlainText())
        done = sweep.state.done
        sweep.decide("keep")
        qtbot.waitUntil(lambda d=done: sweep.state.done > d, timeout=10_000)
    assert "RTLTEST invoice ⟨U+202E⟩99.0 latot 12345" in seen
    assert any("zero⟨U+200B⟩width" in t for t in seen)
    assert f"user {shown_eve}" in sweep.report.heading.text()

    window.show_view("retrieval")
    ret = window.views["retrieval"]
    qtbot.waitUntil(lambda: ret.user.count() >= len(USERS), timeout=20_000)
    ret.prompt.setText("invoice total")
    ret.channel_boxes["vector"].setChecked(False)
    ret.user.setCurrentIndex(next(i for i in range(ret.user.count())
                                  if ret.user.itemData(i) == EVE))
    ret.retrieve()
    # Eve's invoice is there twice (the duplicate pair): a tie the relevance floor may
    # drop, so it is shown among the results or among what the floor removed.
    qtbot.waitUntil(lambda: ret.fused.rowCount() + ret.dropped.rowCount() > 0,
                    timeout=60_000)
    cells = ([ret.fused.item(r, 9).text() for r in range(ret.fused.rowCount())]
             + [ret.dropped.item(r, 5).text() for r in range(ret.dropped.rowCount())])
    assert "RTLTEST invoice ⟨U+202E⟩99.0 latot 12345" in cells

    window.show_view("browse")
    browser = window.views["browse"]
    value = next(r for r in window.store.page(limit=500)
                 if r.user_id == EVE and r.value and r.value.startswith("\u202e"))
    browser.open_memory(value.id)
    qtbot.waitUntil(lambda: browser.detail.record is not None
                    and browser.detail.record.id == value.id, timeout=10_000)
    note = browser.detail.hidden_note.text()
    assert "Value: ⟨U+202E⟩latem erab" in note and "Entity: lan⟨U+202E⟩tern" in note
    assert browser.detail.value.text() == value.value  # the editor holds it exactly
