"""core/curation/sweep: the report (counts, histogram bins at their edges, means, the
JSON shape), the reviewer's context (session neighbours, hint) and how an item whose
decision was undone elsewhere reads.  Expected figures are hand arithmetic."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import sweep
from memdesk.core.store.memory_store import MemoryStore

T0 = datetime(2026, 6, 1)


def _row(i: int, **kw) -> dict:
    base = dict(user_id="alice", text=f"memory {i}", type="note", importance=0.4,
                source_session=None, created_at=T0 + timedelta(minutes=i),
                valid_until=None, deleted_at=None)
    base.update(kw)
    return base


@pytest.mark.parametrize(("value", "bin_"), [
    (0.0, 0), (0.09, 0), (0.1, 1), (0.3, 3), (0.7, 7), (0.29, 2), (0.99, 9), (1.0, 9),
    (0.6, 6), (0.2, 2)])
def test_bins_are_tenths_with_one_in_the_top_bin(value: float, bin_: int) -> None:
    assert sweep._bin(value) == bin_


def _state(items: list[tuple[float, str | None, float | None]]) -> sweep.SweepState:
    its = tuple(sweep.SweepItemState(i, f"m{i}", b, d, a, None, None, None, None)
                for i, (b, d, a) in enumerate(items))
    return sweep.SweepState("sw", T0, "operator", (0.0, 1.0), len(its), None, None, 1,
                            "enumeration", len(its), None, its)


def _report(monkeypatch, items) -> sweep.SweepReport:
    monkeypatch.setattr(sweep, "get_sweep", lambda store, sid: _state(items))
    return sweep.report(None, "sw")  # type: ignore[arg-type]


def test_report_counts_each_outcome(monkeypatch) -> None:
    rep = _report(monkeypatch, [
        (0.3, "revalue", 0.9),   # raised: bin 3 -> 9
        (0.4, "revalue", 0.1),   # lowered: 4 -> 1
        (0.45, "revalue", 0.45),  # same value: kept
        (0.35, "keep", 0.35),    # kept
        (0.49, "skip", None),    # skipped
        (0.3, None, None),       # undecided
        (0.2, "revalue", None),  # a revalue without a value: reads as unchanged, kept
    ])
    assert (rep.sweep_id, rep.total) == ("sw", 7)
    assert (rep.raised, rep.lowered, rep.kept, rep.skipped, rep.undecided) == (1, 1, 3, 1, 1)
    assert rep.rescued_ids == ("m0",)
    assert rep.before == (0, 0, 1, 3, 3, 0, 0, 0, 0, 0)
    assert rep.after == (0, 1, 1, 2, 2, 0, 0, 0, 0, 1)
    # before: (0.3+0.4+0.45+0.35+0.49+0.3+0.2)/7 = 2.49/7; after: (2.49-0.3+0.9-0.4+0.1)/7 = 2.79/7
    assert rep.mean_before == 0.3557
    assert rep.mean_after == 0.3986


def test_report_of_no_items_divides_by_one(monkeypatch) -> None:
    rep = _report(monkeypatch, [])
    assert (rep.total, rep.mean_before, rep.mean_after) == (0, 0.0, 0.0)
    assert rep.before == rep.after == (0,) * 10


def test_report_json_has_every_field(monkeypatch) -> None:
    rep = _report(monkeypatch, [(0.4, "revalue", 1.0), (0.3, "skip", None)])
    assert rep.bin_edges == (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    assert rep.to_json() == {
        "sweep_id": "sw", "total": 2, "raised": 1, "lowered": 0, "kept": 0, "skipped": 1,
        "undecided": 0, "bin_edges": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        "before": [0, 0, 0, 1, 1, 0, 0, 0, 0, 0], "after": [0, 0, 0, 1, 0, 0, 0, 0, 0, 1],
        "mean_before": 0.35, "mean_after": 0.65, "rescued_ids": ["m0"],
    }


def test_report_from_a_store(store: MemoryStore) -> None:
    ids = store.add_many([_row(0, importance=0.3), _row(1, importance=0.45)], audit=False)
    st = sweep.start_sweep(store, n=2, seed=1)
    pos = {it.memory_id: it.pos for it in st.items}
    sweep.decide(store, st.id, pos[ids[0]], "revalue", importance=0.8)
    rep = sweep.report(store, st.id)
    assert (rep.sweep_id, rep.total, rep.raised, rep.undecided) == (st.id, 2, 1, 1)
    assert rep.rescued_ids == (ids[0],)
    assert rep.mean_before == 0.375 and rep.mean_after == 0.625


def test_decision_undone_elsewhere_reads_as_undecided(store: MemoryStore) -> None:
    store.add_many([_row(0), _row(1)], audit=False)
    st = sweep.start_sweep(store, n=2, seed=1)
    step = sweep.decide(store, st.id, 0, "revalue", importance=0.7, note="why")
    sweep.decide(store, st.id, 1, "keep")
    assert sweep.get_sweep(store, st.id).finished_at is not None
    store.undo_group(step.changes.group_id)
    cur = sweep.get_sweep(store, st.id)
    it = cur.items[0]
    assert (it.decision, it.importance_after, it.decided_at, it.event_id) == (
        None, None, None, None)
    assert (it.note, it.decided_by) == ("why", "operator")  # kept for the record
    assert (cur.done, cur.finished_at) == (1, None)
    assert cur.items[1].decision == "keep"
    rep = sweep.report(store, st.id)
    assert (rep.raised, rep.kept, rep.undecided) == (0, 1, 1)


# -- context --------------------------------------------------------------------------


def test_neighbours_are_the_closest_in_time_of_the_same_user_and_session(
        store: MemoryStore) -> None:
    # Target at minute 10; session rows at minutes 0..9 and 11..20 (alice), one of bob.
    rows = [_row(i, source_session="s", text=f"at {i}") for i in range(21)]
    rows.append(_row(10, source_session="s", user_id="bob", text="bob's"))
    rows.append(_row(10, source_session="t", text="other session"))
    ids = store.add_many(rows, audit=False)
    target = store.get(ids[10])
    got = sweep.session_neighbours(store, target)
    # The ten closest (distance 1..5 both sides), oldest first.
    assert [r.text for r in got] == [f"at {i}" for i in (5, 6, 7, 8, 9, 11, 12, 13, 14, 15)]
    got = sweep.session_neighbours(store, target, limit=2)
    assert [r.text for r in got] == ["at 9", "at 11"]


def test_no_session_no_neighbours(store: MemoryStore) -> None:
    ids = store.add_many([_row(0), _row(1)], audit=False)
    assert sweep.session_neighbours(store, store.get(ids[0])) == []
    st = sweep.start_sweep(store, n=1, seed=1)
    ctx = sweep.item_context(store, st.items[0])
    assert ctx.item == st.items[0] and ctx.memory is not None
    assert ctx.memory.id == st.items[0].memory_id
    assert (ctx.neighbours, ctx.hint) == ((), None)


def test_context_of_a_missing_memory(store: MemoryStore) -> None:
    item = sweep.SweepItemState(0, "0" * 32, 0.4, None, None, None, None, None, None)
    ctx = sweep.item_context(store, item)
    assert ctx == sweep.ItemContext(item, None, (), None)


def test_context_hint_uses_the_memorys_current_importance(store: MemoryStore) -> None:
    [mid] = store.add_many([_row(0, text="I sat with it.", importance=0.45)], audit=False)
    item = sweep.SweepItemState(0, mid, 0.3, None, None, None, None, None, None)
    ctx = sweep.item_context(store, item)
    assert ctx.hint is not None and ctx.hint.importance == 0.45 and ctx.hint.option_a == 0.65
