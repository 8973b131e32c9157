"""core/curation/sweep: starting a sweep (checks, what is stored, the operator's
messages), listing sweeps, and the decisions (what each records, what it changes,
its audit row, and undo).  SQLite only; small stores, so sampling enumerates."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select, update

from memdesk.core.curation import sweep
from memdesk.core.curation.models import Sweep, SweepItem
from memdesk.core.curation.service import Sweeps
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import MemoryEvent
from memdesk.core.store.records import Changed

T0 = datetime(2026, 6, 1)


def _row(i: int, **kw) -> dict:
    base = dict(user_id="alice", text=f"memory {i}", type="note", importance=0.4,
                source_session=f"s{i}", created_at=T0 + timedelta(minutes=i),
                valid_until=None, deleted_at=None)
    base.update(kw)
    return base


@pytest.fixture
def three(store: MemoryStore) -> tuple[MemoryStore, dict[str, float]]:
    """Three in-band notes of alice (0.3, 0.4, 0.49) and rows a default sweep skips."""
    imps = [0.3, 0.4, 0.49]
    ids = store.add_many([_row(i, importance=v) for i, v in enumerate(imps)]
                         + [_row(3, importance=0.5), _row(4, importance=0.29),
                            _row(5, user_id="bob", type="fact", importance=0.35)],
                         audit=False)
    return store, dict(zip(ids[:3], imps, strict=True))


def _sweep_of(store: MemoryStore, rows: int = 2, imp: float = 0.4) -> sweep.SweepState:
    store.add_many([_row(i, importance=imp) for i in range(rows)], audit=False)
    return Sweeps(store).start(n=rows, seed=7)


# -- start ----------------------------------------------------------------------------


def test_defaults_are_the_documented_ones() -> None:
    assert sweep.DEFAULT_BAND == (0.3, 0.49)
    assert sweep.DEFAULT_N == 20
    assert sweep.DECISIONS == ("revalue", "keep", "skip")
    assert sweep.HIST_BINS == 10
    assert sweep.MAX_N == 1000


def test_start_stores_the_sweep_as_asked(three) -> None:
    store, imps = three
    st = Sweeps(store).start(seed=11, note="quarterly")
    assert st.band == (0.3, 0.49) and st.n == 20 and st.seed == 11
    assert (st.user_id, st.type, st.actor) == (None, None, "operator")
    assert (st.method, st.population) == ("enumeration", 4)  # bob's fact is in band too
    assert st.finished_at is None and st.total == 4 and st.done == 0
    assert st.current == st.items[0]
    assert [it.pos for it in st.items] == [0, 1, 2, 3]
    assert all(it.decision is None and it.importance_after is None and it.event_id is None
               and it.decided_at is None and it.decided_by is None for it in st.items)
    mine = {it.memory_id: it.importance_before for it in st.items}
    assert {k: mine[k] for k in imps} == imps
    assert Sweeps(store).get(st.id) == st


def test_start_filters_user_and_normalised_type(three) -> None:
    store, imps = three
    st = Sweeps(store).start(band=[0.3, 0.49], n=5, user="alice", type=" NOTE ", seed=1,
                           actor="agent")
    assert (st.user_id, st.type, st.actor, st.n) == ("alice", "note", "agent", 5)
    assert {it.memory_id for it in st.items} == set(imps)
    assert st.population == 3
    bob = Sweeps(store).start(user="bob", type="fact", seed=1)
    assert (bob.total, bob.type, bob.user_id) == (1, "fact", "bob")
    anyone = Sweeps(store).start(user=" ", type="", seed=1)
    assert (anyone.user_id, anyone.type, anyone.total) == (None, None, 4)


def test_type_alone_filters_the_sample(three) -> None:
    store, imps = three
    st = Sweeps(store).start(type="note", seed=1)
    # In band 0.3-0.49: alice's three notes and bob's fact; only the notes are drawn.
    assert {it.memory_id for it in st.items} == set(imps)
    assert (st.total, st.population) == (3, 3)


def test_n_caps_the_sample(three) -> None:
    store, _ = three
    st = Sweeps(store).start(n=2, seed=3)
    assert st.total == 2 and st.n == 2 and st.population == 4


def test_band_edges_are_inclusive(three) -> None:
    store, _ = three
    st = Sweeps(store).start(band=(0.49, 0.49), seed=1)
    assert [it.importance_before for it in st.items] == [0.49]
    st = Sweeps(store).start(band=(0.29, 0.29), seed=1)
    assert [it.importance_before for it in st.items] == [0.29]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"band": (0.9, 1.0)}, "No active memories with importance 0.90–1.00; nothing to sweep."),
    ({"band": (0.9, 1.0), "user": "alice"},
     "No active memories with importance 0.90–1.00 for user alice; nothing to sweep."),
    ({"band": (0.9, 1.0), "type": "fact"},
     "No active memories with importance 0.90–1.00 of type fact; nothing to sweep."),
    ({"user": "carol", "type": "error"},
     "No active memories with importance 0.30–0.49 for user carol of type error; "
     "nothing to sweep."),
])
def test_empty_band_message(three, kwargs: dict, message: str) -> None:
    store, _ = three
    with pytest.raises(sweep.SweepError) as err:
        Sweeps(store).start(seed=1, **kwargs)
    assert str(err.value) == message
    assert Sweeps(store).list() == []


@pytest.mark.parametrize("seed", [-1, 2**63, True, 1.5, "3"])
def test_bad_seed_is_refused(three, seed: object) -> None:
    store, _ = three
    with pytest.raises(ValidationError) as err:
        Sweeps(store).start(seed=seed)
    assert err.value.field == "seed"
    assert str(err.value) == f"seed: must be a non-negative whole number, got {seed!r}"


@pytest.mark.parametrize("seed", [0, 2**63 - 1])
def test_seed_limits_are_accepted(three, seed: int) -> None:
    store, _ = three
    assert Sweeps(store).start(seed=seed).seed == seed


def test_unseeded_sweeps_store_a_48_bit_seed(three) -> None:
    store, _ = three
    seeds = {Sweeps(store).start(n=1).seed for _ in range(3)}
    assert all(0 <= s < 2**48 for s in seeds) and len(seeds) == 3


def test_user_over_200_characters_is_refused(three) -> None:
    store, _ = three
    with pytest.raises(ValidationError) as err:
        Sweeps(store).start(user="u" * 201, seed=1)
    assert str(err.value) == "user: is 201 characters; the limit is 200"
    with pytest.raises(sweep.SweepError):  # 200 passes the check; no such user
        Sweeps(store).start(user="u" * 200, seed=1)
    with pytest.raises(ValueError):
        Sweeps(store).start(seed=1, actor="robot")


def test_describe() -> None:
    st = sweep.SweepState("x", T0, "operator", (0.3, 0.49), 5, None, None, 1, "enumeration",
                          1, None, ())
    assert st.describe() == "importance 0.30–0.49, 0 / 0 reviewed"
    assert st.finished and st.current is None
    item = sweep.SweepItemState(0, "m", 0.4, "keep", 0.4, None, T0, "operator", 1)
    open_ = sweep.SweepItemState(1, "n", 0.4, None, None, None, None, None, None)
    st = sweep.SweepState("x", T0, "operator", (0.0, 1.0), 5, "alice", "fact", 1, "rejection",
                          9, None, (item, open_))
    assert st.describe() == "importance 0.00–1.00 user alice type fact, 1 / 2 reviewed"
    assert (st.total, st.done, st.finished, st.current) == (2, 1, False, open_)


def test_unknown_sweep_message(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError) as err:
        Sweeps(store).get("nope")
    assert str(err.value) == "No sweep with id 'nope'"


# -- list -----------------------------------------------------------------------------


def test_list_is_newest_first_with_progress_and_limit(three, monkeypatch) -> None:
    store, _ = three
    now = [T0]
    monkeypatch.setattr(sweep, "utcnow", lambda: now[0])
    a = Sweeps(store).start(n=1, seed=1)
    now[0] = T0 + timedelta(hours=1)
    b = Sweeps(store).start(n=2, user="alice", type="note", seed=2)
    now[0] = T0 + timedelta(hours=2)
    Sweeps(store).decide(b.id, 0, "skip")
    got = Sweeps(store).list()
    assert [s.id for s in got] == [b.id, a.id]
    assert got[0] == sweep.SweepSummary(b.id, T0 + timedelta(hours=1), (0.3, 0.49), 2, "alice",
                                        "note", 2, 1, None)
    assert [s.id for s in Sweeps(store).list(limit=1)] == [b.id]
    Sweeps(store).decide(a.id, 0, "keep")
    assert [s.id for s in Sweeps(store).list(unfinished=True)] == [b.id]
    assert [s.id for s in Sweeps(store).list(unfinished=True, limit=1)] == [b.id]
    [fa] = [s for s in Sweeps(store).list() if s.id == a.id]
    assert (fa.done, fa.total, fa.finished_at) == (1, 1, T0 + timedelta(hours=2))


# -- decide ---------------------------------------------------------------------------


def test_revalue_records_the_item_and_audits(store: MemoryStore, monkeypatch) -> None:
    st = _sweep_of(store)
    monkeypatch.setattr(sweep, "utcnow", lambda: T0)
    step = Sweeps(store).decide(st.id, 1, "revalue", importance=0.9, note="foundational",
                        actor="agent")
    mid = st.items[1].memory_id
    assert (step.sweep_id, step.pos, step.decision) == (st.id, 1, "revalue")
    assert step.changes.memory_ids == (mid,)
    assert step.changes.kinds == Changed.SWEEPS | Changed.HISTORY | Changed.MEMORIES
    [ev] = store.events(mid)
    assert step.changes.event_ids == (ev.id,) and step.changes.group_id == ev.group_id
    assert (ev.action, ev.actor, ev.before, ev.after) == (
        "revalue", "agent", {"importance": 0.4}, {"importance": 0.9})
    assert ev.note == f"sweep {st.id[:8]}: foundational"
    assert store.get(mid).importance == 0.9
    it = Sweeps(store).get(st.id).items[1]
    assert (it.decision, it.importance_after, it.note, it.decided_at, it.decided_by,
            it.event_id) == ("revalue", 0.9, "foundational", T0, "agent", ev.id)


@pytest.mark.parametrize("decision", ["keep", "skip"])
def test_keep_and_skip_audit_without_change(store: MemoryStore, decision: str) -> None:
    st = _sweep_of(store)
    mid = st.items[0].memory_id
    step = Sweeps(store).decide(st.id, 0, decision)
    [ev] = store.events(mid)
    assert (ev.action, ev.actor, ev.before, ev.after, ev.note) == (
        f"review_{decision}", "operator", {}, {}, f"sweep {st.id[:8]}")
    assert step.decision == decision
    assert step.changes.kinds == Changed.SWEEPS | Changed.HISTORY
    assert step.changes.event_ids == (ev.id,) and step.changes.group_id == ev.group_id
    assert ev.group_id is not None
    it = Sweeps(store).get(st.id).items[0]
    assert it.importance_after == (0.4 if decision == "keep" else None)
    assert it.decided_by == "operator" and it.note is None
    assert store.get(mid).importance == 0.4


def test_revalue_to_the_current_value_is_a_keep(store: MemoryStore) -> None:
    st = _sweep_of(store)
    step = Sweeps(store).decide(st.id, 0, "revalue", importance=0.4)
    assert step.decision == "keep"
    assert step.changes.kinds == Changed.SWEEPS | Changed.HISTORY
    assert store.events(st.items[0].memory_id)[0].action == "review_keep"
    it = Sweeps(store).get(st.id).items[0]
    assert (it.decision, it.importance_after) == ("keep", 0.4)


def test_only_the_last_decision_finishes_the_sweep(store: MemoryStore, monkeypatch) -> None:
    st = _sweep_of(store, rows=3)
    monkeypatch.setattr(sweep, "utcnow", lambda: T0)
    Sweeps(store).decide(st.id, 2, "keep")
    Sweeps(store).decide(st.id, 0, "skip")
    mid = Sweeps(store).get(st.id)
    assert (mid.done, mid.finished, mid.finished_at) == (2, False, None)
    assert mid.current is not None and mid.current.pos == 1
    Sweeps(store).decide(st.id, 1, "keep")
    end = Sweeps(store).get(st.id)
    assert (end.done, end.finished, end.finished_at, end.current) == (3, True, T0, None)


@pytest.mark.parametrize(("args", "kwargs", "field", "message"), [
    (("maybe",), {}, "decision", "expected one of revalue, keep, skip"),
    (("revalue",), {}, "importance", "a revalue needs a new importance"),
    (("revalue",), {"importance": 1.5}, "importance", "must be in [0, 1], got 1.5"),
    (("keep",), {"note": "n" * 10_001}, "note", "is 10001 characters; the limit is 10000"),
])
def test_decide_refusals(store: MemoryStore, args, kwargs, field: str, message: str) -> None:
    st = _sweep_of(store)
    with pytest.raises(ValidationError) as err:
        Sweeps(store).decide(st.id, 0, *args, **kwargs)
    assert (err.value.field, str(err.value)) == (field, f"{field}: {message}")
    assert Sweeps(store).get(st.id).done == 0


def test_keep_ignores_an_importance_and_accepts_a_long_note(store: MemoryStore) -> None:
    st = _sweep_of(store)
    Sweeps(store).decide(st.id, 0, "keep", importance=5.0, note="n" * 10_000)
    it = Sweeps(store).get(st.id).items[0]
    assert (it.decision, it.importance_after, len(it.note)) == ("keep", 0.4, 10_000)


def test_decide_item_messages(store: MemoryStore) -> None:
    st = _sweep_of(store)
    with pytest.raises(NotFoundError) as err:
        Sweeps(store).decide(st.id, 2, "keep")
    assert str(err.value) == f"Sweep {st.id[:8]} has no item 3"
    Sweeps(store).decide(st.id, 1, "revalue", importance=0.1)
    with pytest.raises(sweep.SweepError) as err:
        Sweeps(store).decide(st.id, 1, "keep")
    assert str(err.value) == ("Item 2 of this sweep is already decided (revalue); "
                              "undo it first to change the decision.")


# -- undo -----------------------------------------------------------------------------


def test_undo_takes_the_latest_decision_or_the_named_item(store: MemoryStore,
                                                          monkeypatch) -> None:
    st = _sweep_of(store, rows=3)
    times = iter([T0 + timedelta(minutes=m) for m in (5, 1, 3, 3)])
    monkeypatch.setattr(sweep, "utcnow", lambda: next(times))
    Sweeps(store).decide(st.id, 0, "revalue", importance=0.8)  # at +5: the latest
    Sweeps(store).decide(st.id, 1, "keep")  # +1
    Sweeps(store).decide(st.id, 2, "skip")  # +3 (and finishes the sweep)
    monkeypatch.undo()
    step = Sweeps(store).undo_decision(st.id)
    assert (step.pos, step.decision) == (0, "revalue")
    assert step.changes.memory_ids == (st.items[0].memory_id,)
    assert Changed.MEMORIES in step.changes.kinds
    assert store.get(st.items[0].memory_id).importance == 0.4
    step = Sweeps(store).undo_decision(st.id, 1)
    assert (step.pos, step.decision) == (1, "keep")
    cur = Sweeps(store).get(st.id)
    assert [it.decision for it in cur.items] == [None, None, "skip"]
    assert cur.finished_at is None
    with pytest.raises(sweep.SweepError) as err:
        Sweeps(store).undo_decision(st.id, 1)
    assert str(err.value) == "Nothing to undo in this sweep."


def test_undo_of_a_finished_sweep_reopens_it(store: MemoryStore) -> None:
    st = _sweep_of(store, rows=1)
    Sweeps(store).decide(st.id, 0, "keep")
    assert Sweeps(store).get(st.id).finished_at is not None
    Sweeps(store).undo_decision(st.id, 0)
    assert store.events(st.items[0].memory_id)[0].actor == "operator"
    cur = Sweeps(store).get(st.id)
    assert (cur.finished, cur.finished_at, cur.done) == (False, None, 0)
    assert Sweeps(store).list(unfinished=True)[0].id == st.id


def test_undo_ties_on_time_take_the_higher_position(store: MemoryStore, monkeypatch) -> None:
    st = _sweep_of(store, rows=3)
    monkeypatch.setattr(sweep, "utcnow", lambda: T0)
    Sweeps(store).decide(st.id, 2, "keep")
    Sweeps(store).decide(st.id, 1, "keep")
    monkeypatch.undo()
    assert Sweeps(store).undo_decision(st.id).pos == 2


def test_undo_refuses_an_unknown_actor(store: MemoryStore) -> None:
    st = _sweep_of(store)
    Sweeps(store).decide(st.id, 0, "keep")
    with pytest.raises(ValueError):
        Sweeps(store).undo_decision(st.id, actor="robot")
    assert Sweeps(store).get(st.id).done == 1
    step = Sweeps(store).undo_decision(st.id, actor="agent")
    assert store.events(st.items[0].memory_id)[0].actor == "agent"
    assert step.changes.kinds & Changed.HISTORY


# -- decisions recorded before each had its own audit group ---------------------------


def _ungroup(store: MemoryStore, event_id: int) -> None:
    with store.write() as conn:
        conn.execute(update(MemoryEvent.__table__).where(MemoryEvent.__table__.c.id == event_id)
                     .values(group_id=None))


def test_legacy_revalue_undo_restores_and_reopens(store: MemoryStore) -> None:
    st = _sweep_of(store, rows=1)
    mid = st.items[0].memory_id
    step = Sweeps(store).decide(st.id, 0, "revalue", importance=0.9, note="n")
    [ev] = step.changes.event_ids
    _ungroup(store, ev)
    undo = Sweeps(store).undo_decision(st.id, actor="agent")
    assert (undo.pos, undo.decision) == (0, "revalue")
    [uev] = undo.changes.event_ids
    assert undo.changes.memory_ids == (mid,) and undo.changes.group_id is None
    assert undo.changes.kinds == Changed.SWEEPS | Changed.HISTORY | Changed.MEMORIES
    assert store.get(mid).importance == 0.4
    assert (store.event(uev).action, store.event(uev).actor) == ("undo", "agent")
    it = Sweeps(store).get(st.id).items[0]
    assert (it.decision, it.importance_after, it.note, it.decided_at, it.decided_by,
            it.event_id) == (None, None, None, None, None, None)
    assert Sweeps(store).get(st.id).finished_at is None


def test_legacy_decision_without_an_event(store: MemoryStore) -> None:
    st = _sweep_of(store, rows=2)
    Sweeps(store).decide(st.id, 0, "keep")
    Sweeps(store).decide(st.id, 1, "skip")
    t = SweepItem.__table__
    with store.write() as conn:
        conn.execute(update(t).where(t.c.sweep_id == st.id).values(event_id=None))
    undo = Sweeps(store).undo_decision(st.id, 0)
    assert (undo.pos, undo.decision) == (0, "keep")
    assert undo.changes.event_ids == () and undo.changes.kinds == Changed.SWEEPS
    cur = Sweeps(store).get(st.id)
    assert [it.decision for it in cur.items] == [None, "skip"]
    assert cur.finished_at is None


def test_start_stores_the_note(three) -> None:
    store, _ = three
    st = Sweeps(store).start(seed=1, note="why now")
    t = Sweep.__table__
    with store.read() as conn:
        assert conn.execute(select(t.c.note).where(t.c.id == st.id)).scalar_one() == "why now"


def test_a_sweep_completed_by_a_redo_is_finished(store: MemoryStore,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    st = _sweep_of(store)
    clock = iter([T0 + timedelta(hours=h) for h in range(1, 10)])
    monkeypatch.setattr(sweep, "utcnow", lambda: next(clock))
    first = Sweeps(store).decide(st.id, 1, "keep")                      # decided at 01:00
    undo = store.undo_group(first.changes.group_id).group_id  # generic undo (Edit menu)
    Sweeps(store).decide(st.id, 0, "skip")                               # 02:00: 1 of 2
    assert Sweeps(store).get(st.id).finished_at is None
    store.undo_group(undo)                           # redo: item 1's decision is back
    done = Sweeps(store).get(st.id)
    assert done.done == done.total == 2
    # No stamp was written (decide did not take the last item): the newest decision's
    # time stands for it, so lists show the sweep as finished, not open.
    assert done.finished_at == T0 + timedelta(hours=2)
    assert [s.id for s in Sweeps(store).list(unfinished=True)] == []
    with store.read() as conn:
        assert conn.execute(select(Sweep.__table__.c.finished_at)).scalar() is None
