"""The memory browser: lazy paging, filters, sort, detail pane, editing, bulk actions,
undo/redo and plain-text rendering — checked against the store's own SQL counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.browser_model import COLUMN_KEYS, BrowserModel
from memdesk.ui.browse.filters import builtin_filters, filter_from_dict, filter_to_dict
from memdesk.ui.desk.delegates import LowRole
from tests.helpers.oracle import sql_order
from tests.helpers.stores import DEMO_END

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]
BIG = 20_000


@pytest.fixture(autouse=True)
def _no_leaked_windows(qapp):
    yield
    leaked = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for w in leaked:
        w.close()
    assert not leaked, f"leaked top-level widgets: {leaked}"


@pytest.fixture(scope="session")
def big_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 20,000-row generated store, built once per session; tests only read it."""
    path = tmp_path_factory.mktemp("big") / "big.db"
    s = MemoryStore.open(path)
    demo.generate(s, BIG, seed=5, end=DEMO_END)
    s.close()
    return path


@pytest.fixture
def big_store(big_store_path: Path):
    s = MemoryStore.open(big_store_path)
    yield s
    s.close()


@pytest.fixture
def make_view(desk_for):
    def make(qtbot, store: MemoryStore) -> BrowserView:
        return _make_view(qtbot, store, desk_for)

    return make


def _make_view(qtbot, store: MemoryStore, desk_for) -> BrowserView:
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    wait_loaded(qtbot, view.model)
    return view


def wait_loaded(qtbot, model: BrowserModel) -> None:
    qtbot.waitUntil(lambda: not model.loading and model.total is not None, timeout=10_000)


def loaded_ids(model: BrowserModel) -> list[str]:
    return [model.row_at(i).id for i in range(model.rowCount())]


# -- lazy paging --------------------------------------------------------------------
def test_large_store_loads_a_page_not_all_rows(qtbot, make_view, big_store: MemoryStore) -> None:
    view = make_view(qtbot, big_store)
    m = view.model
    assert m.total == big_store.count() >= BIG - 100
    assert m.loaded_count == m.PAGE < m.total
    assert m.canFetchMore()
    m.fetchMore()
    assert m.loaded_count == 2 * m.PAGE
    # The first two pages are exactly the SQL order (created_at desc, seq desc).
    assert loaded_ids(m) == sql_order(big_store, limit=2 * m.PAGE)
    view.resize(900, 500)
    view.show()
    view.table.scrollToBottom()  # the view asks for one more page, not all of them
    qtbot.waitUntil(lambda: m.loaded_count > 2 * m.PAGE)
    assert m.loaded_count < m.total
    view.wait_idle()


def test_model_passes_qt_model_tester(qtbot, make_view,
                                      qtmodeltester, demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    qtmodeltester.check(view.model)


# -- filters and sort match SQL --------------------------------------------------------
@pytest.mark.parametrize("flt", [
    MemoryFilter(text="python"),
    MemoryFilter(text="user prefers"),
    MemoryFilter(types=("preference",)),
    MemoryFilter(layers=("episodic",), topics=("tech",)),
    MemoryFilter(confidence=(0.0, 0.4 - 1e-9)),
    MemoryFilter(importance=(0.3, 0.49)),
    MemoryFilter(statuses=(Status.SUPERSEDED,)),
    MemoryFilter(user_ids=("alice",), text="deadline"),
], ids=lambda f: ",".join(filter_to_dict(f)))
def test_filters_match_sql_counts(qtbot, make_view,
                                  big_store: MemoryStore, flt: MemoryFilter) -> None:
    view = make_view(qtbot, big_store)
    before = view.model.total
    view.apply_filter(flt)
    wait_loaded(qtbot, view.model)
    expected = big_store.count(flt)
    assert view.model.total == expected != before
    assert loaded_ids(view.model) == sql_order(big_store, flt, limit=view.model.PAGE)
    assert str(f"{expected:,} memories match") in view.summary.text()


def test_filter_bar_widgets_build_the_filter(qtbot, make_view, demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    bar = view.filters
    bar.type.setCurrentIndex(bar.type.findText("preference"))
    wait_loaded(qtbot, view.model)
    bar.confidence.setCurrentIndex(1)  # "Low (< 0.40)"
    wait_loaded(qtbot, view.model)
    flt = view.model.filter
    assert flt.types == ("preference",) and flt.confidence is not None
    assert view.model.total == demo_store.count(flt) > 0
    rows = [view.model.row_at(i) for i in range(view.model.rowCount())]
    assert rows and all(r.type == "preference" and r.confidence < 0.4 for r in rows)
    conf_col = COLUMN_KEYS.index("confidence")
    assert view.model.index(0, conf_col).data(LowRole) is True
    bar.clear()
    wait_loaded(qtbot, view.model)
    assert view.model.total == demo_store.count()


def test_search_is_debounced_and_tolerates_fts_syntax(qtbot, make_view,
                                                      demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    errors: list[str] = []
    view.model.failed.connect(errors.append)
    qtbot.keyClicks(view.filters.search, '"rust* (')
    assert view.model.filter.text == ""  # nothing ran while typing (200 ms debounce)
    qtbot.waitUntil(lambda: view.model.filter.text == '"rust* (', timeout=3000)
    wait_loaded(qtbot, view.model)
    assert not errors
    assert view.model.total == demo_store.count(MemoryFilter(text="rust")) > 0


@pytest.mark.parametrize("key", ["text", "topic", "confidence", "last_accessed", "status",
                                 "access_count", "user_id"])
def test_sort_by_column_is_sql_order(qtbot, make_view, big_store: MemoryStore, key: str) -> None:
    view = make_view(qtbot, big_store)
    col = COLUMN_KEYS.index(key)
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        view.table.sortByColumn(col, order)
        wait_loaded(qtbot, view.model)
        view.model.fetchMore()
        want = sql_order(big_store, order_by=key,
                         desc=order == Qt.SortOrder.DescendingOrder, limit=2 * view.model.PAGE)
        assert loaded_ids(view.model) == want


# -- editing, undo, bulk ---------------------------------------------------------------
def test_edit_undo_redo_round_trip(qtbot, make_view, demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    view.table.selectRow(3)
    rec = view.detail.record
    assert rec is not None and rec.id == view.model.row_at(3).id
    view.detail.text.setPlainText("Edited in the pane")
    view.detail.importance.setValue(0.9)
    view.detail.entity.setText("team")  # an entity no demo memory has, so it always changes
    view.detail.request_apply()
    after = demo_store.get(rec.id)
    assert (after.text, after.importance, after.entity) == ("Edited in the pane", 0.9, "team")
    ev = demo_store.events(rec.id, limit=1)[0]
    assert ev.action == "edit" and ev.actor == "operator"
    assert ev.before == {"text": rec.text, "importance": rec.importance, "entity": rec.entity}
    assert view.model.index(3, 0).data() == "Edited in the pane"  # row patched in place

    view.undo_stack.undo()
    back = demo_store.get(rec.id)
    assert (back.text, back.importance, back.entity) == (rec.text, rec.importance, rec.entity)
    assert view.model.index(3, 0).data() == " ".join(rec.text.split())[:300]
    view.undo_stack.redo()
    assert demo_store.get(rec.id).text == "Edited in the pane"
    assert [e.action for e in demo_store.events(rec.id, limit=3)] == ["undo", "undo", "edit"]


def test_rejected_edit_keeps_the_typing_and_changes_nothing(qtbot, make_view,
                                                            demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    view.table.selectRow(0)
    rec = view.detail.record
    view.detail.text.setPlainText("   ")
    view.detail.request_apply()
    assert view.last_error is not None and "text" in view.last_error
    assert demo_store.get(rec.id).text == rec.text
    assert view.detail.text.toPlainText() == "   "
    assert view.undo_stack.count() == 0


def test_bulk_actions_are_audited_and_undoable(qtbot, make_view, demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    for r in range(3):
        view.table.selectionModel().select(
            view.model.index(r, 0),
            view.table.selectionModel().SelectionFlag.Select
            | view.table.selectionModel().SelectionFlag.Rows,
        )
    ids = view.selected_ids()
    assert len(ids) == 3
    before = {i: demo_store.get(i).topic for i in ids}
    view.bulk_set("topic", "ops")
    assert all(demo_store.get(i).topic == "ops" for i in ids)
    group = demo_store.group_events(view.desk.seen[-1].group_id)
    assert sorted(e.memory_id for e in group) == sorted(ids)
    assert {e.action for e in group} == {"bulk_edit"}
    view.undo_stack.undo()
    assert {i: demo_store.get(i).topic for i in ids} == before

    view.delete_selected(ids[:2])
    assert all(demo_store.get(i).status is Status.DELETED for i in ids[:2])
    assert view.model.index(0, COLUMN_KEYS.index("status")).data() == "deleted"
    view.undo_stack.undo()
    assert all(demo_store.get(i).status is not Status.DELETED for i in ids[:2])

    view.supersede_by_current(ids[1:], ids[0])
    assert all(demo_store.get(i).superseded_by == ids[0] for i in ids[1:])
    view.undo_stack.undo()
    assert all(demo_store.get(i).superseded_by is None for i in ids[1:])
    view.undo_stack.redo()
    assert all(demo_store.get(i).superseded_by == ids[0] for i in ids[1:])


def test_supersede_chain_is_clickable(qtbot, make_view, demo_store: MemoryStore) -> None:
    view = make_view(qtbot, demo_store)
    view.apply_filter(MemoryFilter(statuses=(Status.SUPERSEDED,)))
    wait_loaded(qtbot, view.model)
    view.table.selectRow(0)
    old = view.detail.record
    assert old is not None and old.superseded_by
    chain = view.detail.chain_model
    rows = [chain.item(r, 0).text() for r in range(chain.rowCount())]
    assert "replaced by" in rows
    r = rows.index("replaced by")
    view.detail.chain_view.activated.emit(chain.index(r, 0))
    assert view.detail.record.id == old.superseded_by


# -- untrusted text ----------------------------------------------------------------------
def test_hostile_text_is_shown_as_plain_text(qtbot, make_view, store: MemoryStore) -> None:
    hostile = "<b>x</b> and <img src=http://example.invalid/a.png> & friends"
    rec = store.add(text=hostile, type="note", user_id="<i>u</i>", topic="<u>t</u>",
                    source_session="<script>s</script>", confidence=0.2)
    view = make_view(qtbot, store)
    m = view.model
    assert m.index(0, 0).data() == hostile
    tip = m.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;x&lt;/b&gt;" in tip and "<img" not in tip
    user_col = COLUMN_KEYS.index("user_id")
    assert m.index(0, user_col).data() == "<i>u</i>"
    assert "<i>" not in m.index(0, user_col).data(Qt.ItemDataRole.ToolTipRole)
    view.table.selectRow(0)
    d = view.detail
    assert d.record.id == rec.id
    assert d.text.toPlainText() == hostile
    for key in ("user_id", "source_session"):
        assert d.facts[key].textFormat() == Qt.TextFormat.PlainText
    assert d.facts["user_id"].text() == "<i>u</i>"
    assert d.heading.textFormat() == Qt.TextFormat.PlainText
    view.resize(1000, 400)
    assert not view.table.grab().isNull()  # the bar delegate paints hostile rows fine


# -- saved filters (pure) ------------------------------------------------------------------
def test_filter_dict_round_trip_and_garbage() -> None:
    for f in builtin_filters().values():
        assert filter_from_dict(filter_to_dict(f)) == f
    f = MemoryFilter(text="x", user_ids=("a", "b"), statuses=(Status.EXPIRED,),
                     importance=(0.1, 0.2), created_from=DEMO_END)
    assert filter_from_dict(filter_to_dict(f)) == f
    junk = {"text": 3, "types": "nope", "importance": ["a", "b"], "statuses": ["bogus"],
            "created_to": "not a date"}
    assert filter_from_dict(junk) == MemoryFilter()
