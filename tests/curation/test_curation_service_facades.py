"""core/curation/service: the Sweeps and Contradictions façades pass every argument
through to the implementation (a dropped or swapped argument shows in what is stored)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import insert, select

from memdesk.core.curation import contradictions as C
from memdesk.core.curation.models import Sweep
from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed

T0 = datetime(2026, 6, 1)
ALICE = ("alice", "user", "works_at")


def _rows(store: MemoryStore) -> list[str]:
    rows = [dict(user_id=u, text=f"{u} {i}", type=t, importance=imp,
                 created_at=T0 + timedelta(minutes=i), source_session=None)
            for i, (u, t, imp) in enumerate([
                ("alice", "note", 0.3), ("alice", "fact", 0.35), ("bob", "note", 0.4),
                ("alice", "note", 0.6), ("alice", "note", 0.65), ("alice", "fact", 0.7)])]
    return store.add_many(rows, audit=False)


def _note(store: MemoryStore, sweep_id: str) -> str | None:
    t = Sweep.__table__
    with store.read() as conn:
        return conn.execute(select(t.c.note).where(t.c.id == sweep_id)).scalar_one()


def test_start_passes_every_argument(store: MemoryStore) -> None:
    ids = _rows(store)
    sw = Sweeps(store)
    assert sw.store is store
    st = sw.start((0.6, 0.7), 1, user="alice", type="fact", seed=5, actor="agent",
                  note="why")
    assert (st.band, st.n, st.user_id, st.type, st.seed, st.actor) == (
        (0.6, 0.7), 1, "alice", "fact", 5, "agent")
    assert [it.memory_id for it in st.items] == [ids[5]]
    assert _note(store, st.id) == "why"
    default = sw.start(seed=1)
    assert (default.band, default.n, default.actor, default.user_id, default.type) == (
        (0.3, 0.49), 20, "operator", None, None)
    assert {it.memory_id for it in default.items} == set(ids[:3])
    assert _note(store, default.id) is None
    assert sw.get(st.id) == st


def test_decide_undo_list_report_and_context(store: MemoryStore) -> None:
    ids = _rows(store)
    sw = Sweeps(store)
    st = sw.start((0.6, 0.65), 2, user="alice", type="note", seed=3)
    pos = {it.memory_id: it.pos for it in st.items}
    step = sw.decide(st.id, pos[ids[3]], "revalue", importance=0.9, note="big",
                     actor="agent")
    assert (step.pos, step.decision) == (pos[ids[3]], "revalue")
    ev = store.events(ids[3])[0]
    assert (ev.actor, ev.after, ev.note) == ("agent", {"importance": 0.9},
                                             f"sweep {st.id[:8]}: big")
    sw.decide(st.id, pos[ids[4]], "keep")
    assert store.events(ids[4])[0].actor == "operator"
    assert [s.id for s in sw.list()] == [st.id]
    assert sw.list(unfinished=True) == []
    rep = sw.report(st.id)
    assert (rep.sweep_id, rep.raised, rep.kept) == (st.id, 1, 1)

    older = sw.start((0.3, 0.3), 1, seed=1)
    assert [s.id for s in sw.list(unfinished=True)] == [older.id]
    assert len(sw.list(limit=1)) == 1 and len(sw.list()) == 2

    undone = sw.undo_decision(st.id, pos[ids[3]], actor="agent")
    assert (undone.pos, undone.decision) == (pos[ids[3]], "revalue")
    assert store.get(ids[3]).importance == 0.6
    assert store.events(ids[3])[0].actor == "agent"
    latest = sw.undo_decision(st.id)
    assert latest.pos == pos[ids[4]] and store.events(ids[4])[0].actor == "operator"

    ctx = sw.context(st.items[0])
    assert ctx.item == st.items[0] and ctx.memory.id == st.items[0].memory_id


def _conflict(store: MemoryStore) -> tuple[str, str]:
    a = store.add(user_id="alice", text="at Acme", type="fact", entity="user",
                  attribute="works_at", value="Acme", confidence=0.9, created_at=T0).id
    g = store.add(user_id="alice", text="at Globex", type="fact", entity="user",
                  attribute="works_at", value="Globex", confidence=0.5,
                  created_at=T0 + timedelta(days=3)).id
    store.add(user_id="bob", text="at X", type="fact", entity="user", attribute="works_at",
              value="X", created_at=T0)
    store.add(user_id="bob", text="at Y", type="fact", entity="user", attribute="works_at",
              value="Y", created_at=T0 + timedelta(days=1))
    return a, g


def test_contradictions_find_group_load(store: MemoryStore) -> None:
    _conflict(store)
    cx = Contradictions(store)
    assert cx.store is store
    assert [g.user_id for g in cx.find()] == ["alice", "bob"]
    assert [g.user_id for g in cx.find(user="bob")] == ["bob"]
    assert len(cx.find(limit=1)) == 1
    gid = C.group_id_for(ALICE)
    assert cx.group(gid).key == ALICE
    assert cx.load(ALICE).key == ALICE and len(cx.load(ALICE).members) == 2


def test_keep_and_undo(store: MemoryStore) -> None:
    a, g = _conflict(store)
    cx = Contradictions(store)
    res = cx.keep(cx.load(ALICE), a, note="n1", actor="agent")
    ev = store.events(g)[0]
    assert (res.winner_id, ev.note, ev.actor) == (a, "n1", "agent")
    ch = cx.undo(res.group_id, actor="agent")
    assert ch.kinds & Changed.MEMORIES
    assert store.get(g).superseded_by is None
    assert store.events(g)[0].actor == "agent"
    res = cx.keep(cx.load(ALICE), a)
    assert store.events(g)[0].actor == "operator"
    cx.undo(res.group_id)
    assert store.events(g)[0].actor == "operator"


def test_suggested_keep_all_edit_merge(store: MemoryStore) -> None:
    a, g = _conflict(store)
    cx = Contradictions(store)
    res = cx.suggested(cx.load(ALICE), note="sg", actor="agent")
    assert res.winner_id == g  # newer, 0.5 is not under 0.4
    assert (store.events(a)[0].note, store.events(a)[0].actor) == ("sg", "agent")
    cx.undo(res.group_id)
    res = cx.suggested(cx.load(ALICE))
    assert store.events(a)[0].actor == "operator" and store.events(a)[0].note is None
    cx.undo(res.group_id)

    res = cx.keep_all(cx.load(ALICE), note="both", actor="agent")
    assert res.action == "keep_all"
    assert (store.events(a)[0].note, store.events(a)[0].actor) == ("both", "agent")
    cx.undo(res.group_id)
    res = cx.keep_all(cx.load(ALICE))
    assert store.events(a)[0].actor == "operator"
    cx.undo(res.group_id)

    res = cx.edit(cx.load(ALICE), a, value="Globex", note="e")
    assert (res.action, store.get(a).value) == ("edit", "Globex")
    assert store.events(a)[0].note == "e"
    cx.undo(res.group_id)

    res = cx.merge(cx.load(ALICE), text_="at both", value="both", actor="agent")
    new = store.get(res.winner_id)
    assert (new.text, new.value) == ("at both", "both")
    assert store.events(new.id)[0].actor == "agent"


@pytest.mark.parametrize("method", ["keep", "suggested", "keep_all"])
def test_default_actor_is_the_operator(store: MemoryStore, method: str) -> None:
    a, g = _conflict(store)
    cx = Contradictions(store)
    detail = cx.load(ALICE)
    if method == "keep":
        cx.keep(detail, a)
    else:
        getattr(cx, method)(detail)
    assert store.events(a if method != "keep" else g)[0].actor == "operator"


def test_list_shows_at_most_100_sweeps_by_default(store: MemoryStore) -> None:
    t = Sweep.__table__
    with store.write() as conn:
        conn.execute(insert(t), [
            dict(id=f"{i:032d}", created_at=T0 + timedelta(minutes=i), actor="operator",
                 band_lo=0.3, band_hi=0.49, n=1, seed=i, method="enumeration", population=1)
            for i in range(101)])
    got = Sweeps(store).list()
    assert len(got) == 100 and got[0].id == f"{100:032d}" and got[-1].id == f"{1:032d}"
