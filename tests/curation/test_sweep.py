"""Revaluation sweeps: uniform filtered sampling, persistence across restarts,
audited and undoable decisions, the report, and the contemplative hint."""

from __future__ import annotations

import math
import random
from collections import Counter
from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import sweep
from memdesk.core.curation.contemplative import contemplative_hint
from memdesk.core.errors import NotFoundError, UndoConflictError, ValidationError
from memdesk.core.store.memory_store import MemoryStore

T0 = datetime(2026, 6, 1)


def _row(i: int, **kw) -> dict:
    base = dict(user_id="alice", text=f"memory {i}", type="note", importance=0.4,
                source_session=f"s{i // 4}", created_at=T0 + timedelta(minutes=i),
                valid_until=None, deleted_at=None)  # add_many needs the same keys per row
    base.update(kw)
    return base


def chi2_threshold(dof: int, z: float = 3.09) -> float:
    """Wilson–Hilferty upper quantile of chi-square (z=3.09: p ≈ 0.001)."""
    k = dof
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def chi2(counts: Counter, population: list[str], draws: int) -> float:
    expected = draws / len(population)
    return sum((counts[p] - expected) ** 2 / expected for p in population)


@pytest.fixture
def banded(store: MemoryStore) -> tuple[MemoryStore, list[str]]:
    """120 matching rows (active, band, type note) separated by runs of 0–6
    non-matching rows of every kind (out of band, other type, expired, deleted):
    irregular gaps that a "next match after a random point" sampler would favour."""
    rng = random.Random(5)
    rows, matching_idx = [], []
    i = 0
    for _ in range(120):
        for _ in range(rng.choice([0, 0, 1, 2, 6])):
            kind = rng.randrange(4)
            if kind == 0:
                rows.append(_row(i, importance=0.8))
            elif kind == 1:
                rows.append(_row(i, type="fact"))
            elif kind == 2:
                rows.append(_row(i, valid_until=T0))
            else:
                rows.append(_row(i, deleted_at=T0))
            i += 1
        matching_idx.append(len(rows))
        rows.append(_row(i, importance=round(rng.uniform(0.3, 0.49), 2)))
        i += 1
    ids = store.add_many(rows, audit=False)
    return store, [ids[k] for k in matching_idx]


def _frequencies(store: MemoryStore, trials: int, n: int, **kw) -> tuple[Counter, set[str]]:
    counts: Counter = Counter()
    methods = set()
    with store.read() as conn:
        for seed in range(trials):
            s = sweep.sample_band(conn, (0.3, 0.49), n, random.Random(seed), **kw)
            ids = [r[0] for r in s.rows]
            assert len(ids) == len(set(ids)) == n
            counts.update(ids)
            methods.add(s.method)
    return counts, methods


def test_rejection_sampling_is_uniform_over_the_filtered_band(banded) -> None:
    store, matching = banded
    counts, methods = _frequencies(store, 1500, 8, small_table=0, type_="note")
    assert methods == {"rejection"}
    assert set(counts) <= set(matching)  # filters respected: nothing outside the band
    stat = chi2(counts, matching, 1500 * 8)
    assert stat < chi2_threshold(len(matching) - 1), stat
    assert len(counts) == len(matching)  # every row reachable


def test_the_uniformity_check_rejects_a_biased_sampler(banded) -> None:
    """Control: "first match at or after a random seq" is biased by the gaps; the same
    statistic must catch it, or the test above proves nothing."""
    store, matching = banded
    seq_of = {r.id: r.seq for r in store.get_many(matching)}
    ordered = sorted(matching, key=seq_of.__getitem__)
    max_seq = max(r.seq for r in store.page(limit=None))
    rng = random.Random(0)
    counts: Counter = Counter()
    for _ in range(1500 * 8):
        s = rng.randrange(1, max_seq + 1)
        nxt = next((m for m in ordered if seq_of[m] >= s), ordered[0])
        counts[nxt] += 1
    assert chi2(counts, matching, 1500 * 8) > chi2_threshold(len(matching) - 1)


def test_enumeration_path_is_uniform_and_respects_user_and_type(store: MemoryStore) -> None:
    rows = []
    for i in range(400):
        rows.append(_row(i, user_id=("alice", "bob")[i % 2], type=("note", "fact")[i // 2 % 2],
                         importance=0.35 if i % 5 else 0.9))
    ids = store.add_many(rows, audit=False)
    want = [ids[i] for i in range(400) if i % 2 == 0 and i // 2 % 2 == 1 and i % 5]
    counts, methods = _frequencies(store, 800, 4, user="alice", type_="fact")
    assert methods == {"enumeration"}
    assert set(counts) == set(want)
    assert chi2(counts, want, 800 * 4) < chi2_threshold(len(want) - 1)


def test_narrow_band_falls_back_to_enumeration(store: MemoryStore) -> None:
    rows = [_row(i, importance=0.9) for i in range(300)]
    rows[17]["importance"] = 0.31
    rows[250]["importance"] = 0.32
    ids = store.add_many(rows, audit=False)
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 5, random.Random(1), small_table=0,
                              probe_budget=50)
    assert s.method == "enumeration"
    assert sorted(r[0] for r in s.rows) == sorted([ids[17], ids[250]])
    assert s.population == 2


def test_sweep_survives_a_restart_mid_way(store_path) -> None:
    store = MemoryStore.open(store_path)
    store.add_many([_row(i) for i in range(40)], audit=False)
    state = sweep.start_sweep(store, n=6, seed=42)
    items = state.items
    assert [it.pos for it in items] == list(range(6))
    sweep.decide(store, state.id, 0, "revalue", importance=0.8, note="foundational")
    sweep.decide(store, state.id, 1, "keep")
    sweep.decide(store, state.id, 2, "skip")
    store.close()

    store = MemoryStore.open(store_path)
    again = sweep.get_sweep(store, state.id)
    assert [it.memory_id for it in again.items] == [it.memory_id for it in items]
    assert [it.decision for it in again.items] == ["revalue", "keep", "skip", None, None, None]
    assert again.items[0].note == "foundational"
    assert again.current is not None and again.current.pos == 3
    assert store.get(items[0].memory_id).importance == 0.8
    assert [s.id for s in sweep.list_sweeps(store, unfinished=True)] == [state.id]
    for pos in (3, 4, 5):
        sweep.decide(store, state.id, pos, "keep")
    done = sweep.get_sweep(store, state.id)
    assert done.finished and done.finished_at is not None
    assert sweep.list_sweeps(store, unfinished=True) == []
    store.close()


def test_same_seed_same_data_same_draw(store: MemoryStore) -> None:
    store.add_many([_row(i) for i in range(40)], audit=False)
    first = sweep.start_sweep(store, n=6, seed=42)
    second = sweep.start_sweep(store, n=6, seed=42)
    other = sweep.start_sweep(store, n=6, seed=43)
    ids = [it.memory_id for it in first.items]
    assert ids == [it.memory_id for it in second.items]
    assert ids != [it.memory_id for it in other.items]
    assert first.seed == 42 and sweep.start_sweep(store, n=2).seed is not None


def test_decisions_are_audited_and_undo_restores(store: MemoryStore) -> None:
    store.add_many([_row(i, importance=0.35) for i in range(30)], audit=False)
    state = sweep.start_sweep(store, n=3, seed=1)
    a, b, c = (it.memory_id for it in state.items)
    sweep.decide(store, state.id, 0, "revalue", importance=0.7, note="sat with it")
    ev = store.events(a)[0]
    assert (ev.action, ev.before, ev.after) == ("revalue", {"importance": 0.35},
                                               {"importance": 0.7})
    assert "sat with it" in (ev.note or "") and state.id[:8] in (ev.note or "")
    sweep.decide(store, state.id, 1, "keep")
    assert store.events(b)[0].action == "review_keep"
    sweep.decide(store, state.id, 2, "skip")
    [skip] = store.events(c)  # audited, nothing changed: the history shows the review
    assert (skip.action, skip.before, skip.after) == ("review_skip", {}, {})

    step = sweep.undo_decision(store, state.id)  # latest: the skip
    assert (step.pos, step.decision) == (2, "skip")
    sweep.undo_decision(store, state.id)  # the keep
    sweep.undo_decision(store, state.id)  # the revalue
    assert store.get(a).importance == 0.35
    assert store.events(a)[0].action == "undo"
    cur = sweep.get_sweep(store, state.id)
    assert all(it.decision is None for it in cur.items) and cur.current.pos == 0
    with pytest.raises(sweep.SweepError):
        sweep.undo_decision(store, state.id)


def test_undo_refuses_when_importance_changed_since(store: MemoryStore) -> None:
    store.add_many([_row(i) for i in range(10)], audit=False)
    state = sweep.start_sweep(store, n=1, seed=3)
    mid = state.items[0].memory_id
    sweep.decide(store, state.id, 0, "revalue", importance=0.9)
    store.update(mid, importance=0.1)
    with pytest.raises(UndoConflictError):
        sweep.undo_decision(store, state.id)
    assert sweep.get_sweep(store, state.id).items[0].decision == "revalue"
    assert store.get(mid).importance == 0.1


def test_revalue_undone_elsewhere_shows_as_not_reviewed(store: MemoryStore) -> None:
    store.add_many([_row(i) for i in range(10)], audit=False)
    state = sweep.start_sweep(store, n=2, seed=3)
    ch = sweep.decide(store, state.id, 0, "revalue", importance=0.9)
    store.undo(ch.changes.event_ids[0])
    cur = sweep.get_sweep(store, state.id)
    assert cur.items[0].decision is None and cur.current.pos == 0
    sweep.decide(store, state.id, 0, "revalue", importance=0.6)  # may decide again
    assert store.get(state.items[0].memory_id).importance == 0.6


def test_report_counts_and_distribution(store: MemoryStore) -> None:
    store.add_many([_row(i, importance=0.3 + (i % 10) / 100) for i in range(50)], audit=False)
    state = sweep.start_sweep(store, n=6, seed=9)
    before = [it.importance_before for it in state.items]
    sweep.decide(store, state.id, 0, "revalue", importance=0.9)
    sweep.decide(store, state.id, 1, "revalue", importance=0.75)
    sweep.decide(store, state.id, 2, "revalue", importance=0.1)
    sweep.decide(store, state.id, 3, "keep")
    sweep.decide(store, state.id, 4, "skip")
    rep = sweep.report(store, state.id)
    assert (rep.raised, rep.lowered, rep.kept, rep.skipped, rep.undecided) == (2, 1, 1, 1, 1)
    assert sum(rep.before) == sum(rep.after) == 6
    assert rep.before[3] + rep.before[4] == 6
    assert rep.after[9] == 1 and rep.after[7] == 1 and rep.after[1] == 1
    after = [0.9, 0.75, 0.1, *before[3:]]
    assert rep.mean_before == pytest.approx(sum(before) / 6, abs=1e-4)
    assert rep.mean_after == pytest.approx(sum(after) / 6, abs=1e-4)
    assert set(rep.rescued_ids) == {state.items[0].memory_id, state.items[1].memory_id}


def test_bad_input_is_refused_with_a_message(store: MemoryStore) -> None:
    store.add_many([_row(i) for i in range(5)], audit=False)
    for band in [(0.6, 0.2), (float("nan"), 0.4), (0.1, 2.0), (0.1,)]:
        with pytest.raises(ValidationError):
            sweep.start_sweep(store, band=band)
    for n in (0, -1, True, 2.5, 10_000):
        with pytest.raises(ValidationError):
            sweep.start_sweep(store, n=n)
    with pytest.raises(ValidationError):
        sweep.start_sweep(store, type="gossip")
    with pytest.raises(sweep.SweepError, match="nothing to sweep"):
        sweep.start_sweep(store, band=(0.9, 1.0))
    state = sweep.start_sweep(store, n=2, seed=1)
    with pytest.raises(ValidationError):
        sweep.decide(store, state.id, 0, "revalue", importance=float("nan"))
    with pytest.raises(ValidationError):
        sweep.decide(store, state.id, 0, "maybe")
    sweep.decide(store, state.id, 0, "keep")
    with pytest.raises(sweep.SweepError, match="already decided"):
        sweep.decide(store, state.id, 0, "skip")
    with pytest.raises(NotFoundError):
        sweep.get_sweep(store, "nope")
    assert sweep.get_sweep(store, state.id).done == 1  # nothing lost to the errors


def test_contemplative_hint_names_the_pattern() -> None:
    h = contemplative_hint("Honestly, I chose not to force it and sat with it.", 0.3)
    assert h is not None
    assert h.labels == ("honestly", "chose not to", "sat with")
    assert h.option_a == 0.5
    assert '"honestly"' in h.explain() and "0.50" in h.explain()
    assert contemplative_hint("Practically everything was deployed on time.", 0.3) is None
    long = "x " * 40 + "Honestly, the simplest version was good enough and I shipped it."
    assert contemplative_hint(long, 0.4).matches[0].excerpt.endswith("simplest version was good")
    assert contemplative_hint("For the  first\ntime, asked for help.", 0.9).option_a == 1.0


def test_item_context_has_session_neighbours_and_hint(store: MemoryStore) -> None:
    rows = [_row(i, source_session="s1", text=f"step {i}") for i in range(4)]
    rows.append(_row(9, source_session="s1", user_id="bob"))
    rows.append(_row(10, source_session="s1", text="Practiced saying no today."))
    store.add_many(rows, audit=False)
    target = next(r for r in store.page(limit=None) if r.text.startswith("Practiced"))
    item = sweep.SweepItemState(0, target.id, 0.4, None, None, None, None, None, None)
    ctx = sweep.item_context(store, item)
    assert [n.text for n in ctx.neighbours] == ["step 0", "step 1", "step 2", "step 3"]
    assert ctx.hint is not None and ctx.hint.labels == ("practiced",)


def test_neighbours_of_a_late_memory_in_a_long_session(store: MemoryStore) -> None:
    # 300 memories of one session a minute apart.  The last one's ten nearest in time
    # are the ten before it; minute 250's are 245..249 and 251..255 (a session's first
    # rows are far from both), listed oldest first.
    store.add_many([_row(i, source_session="long", text=f"step {i}") for i in range(300)],
                   audit=False)
    by_text = {r.text: r for r in store.page(limit=None)}
    assert [n.text for n in sweep.session_neighbours(store, by_text["step 299"])] == [
        f"step {i}" for i in range(289, 299)]
    assert [n.text for n in sweep.session_neighbours(store, by_text["step 250"])] == [
        f"step {i}" for i in (245, 246, 247, 248, 249, 251, 252, 253, 254, 255)]
    assert [n.text for n in sweep.session_neighbours(store, by_text["step 0"], limit=3)] == [
        "step 1", "step 2", "step 3"]
    # More than store.page's default of 100 rows, on either side.
    assert [n.text for n in sweep.session_neighbours(store, by_text["step 299"], limit=120)
            ] == [f"step {i}" for i in range(179, 299)]
    assert [n.text for n in sweep.session_neighbours(store, by_text["step 0"], limit=120)
            ] == [f"step {i}" for i in range(1, 121)]


def test_neighbours_written_at_the_same_instant_come_first(store: MemoryStore) -> None:
    # Thirteen rows share a minute (a batch import): the target and twelve others; one
    # more comes a minute later.
    ids = store.add_many([_row(5, source_session="b", text=f"same {i}") for i in range(13)]
                         + [_row(6, source_session="b", text="later")], audit=False)
    got = sweep.session_neighbours(store, store.get(ids[0]))
    # Ten others at distance 0, in id order (ties by id); "later" is not among them.
    assert [r.id for r in got] == sorted(ids[1:13])[:10]


def test_sweeps_created_together_list_by_id_and_decisions_keep_their_time(
        store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.add_many([_row(i) for i in range(6)], audit=False)
    at = datetime(2026, 6, 2, 12)
    monkeypatch.setattr(sweep, "utcnow", lambda: at)
    ids = iter(["f" * 32, "c" * 32, "a" * 32, "d" * 32])  # inserted out of id order
    monkeypatch.setattr(sweep, "new_id", lambda: next(ids))
    for seed in range(4):
        sweep.start_sweep(store, band=(0.3, 0.49), n=3, seed=seed)
    monkeypatch.undo()
    # Same creation time: the id breaks the tie, ascending.
    assert [s.id for s in sweep.list_sweeps(store)] == ["a" * 32, "c" * 32, "d" * 32, "f" * 32]

    sid = "a" * 32
    sweep.decide(store, sid, 0, "keep")
    item = sweep.get_sweep(store, sid).items[0]
    assert item.decision == "keep" and item.decided_at is not None
    assert item.event_id is None or isinstance(item.event_id, int)
    sweep.undo_decision(store, sid)
    item = sweep.get_sweep(store, sid).items[0]
    assert (item.decision, item.decided_at) == (None, None)


def test_report_json_counts(store: MemoryStore) -> None:
    store.add_many([_row(i) for i in range(6)], audit=False)
    state = sweep.start_sweep(store, band=(0.3, 0.49), n=4, seed=1)
    sweep.decide(store, state.id, 0, "revalue", importance=0.8)
    sweep.decide(store, state.id, 1, "keep")
    j = sweep.report(store, state.id).to_json()
    assert (j["sweep_id"], j["total"], j["raised"], j["kept"], j["undecided"]) == (
        state.id, 4, 1, 1, 2)


def test_a_first_memory_written_while_a_sweep_reads_the_table_edges_is_not_swept(
        store: MemoryStore, backend: str) -> None:
    # The sampler reads min(seq) and max(seq) in two statements.  SQLite reads both in
    # one snapshot (the sweep's write transaction); PostgreSQL (READ COMMITTED) gives each
    # statement its own, so another writer can commit in between: here the store is
    # empty at min() and holds one memory at max().  Only one edge known: an empty
    # sample, hence the usual "nothing to sweep", not a crash.
    if backend == "sqlite":
        pytest.skip("SQLite reads both edges in one snapshot; no writer can come between")
    from sqlalchemy import event

    written: list[str] = []

    def write_before_max(conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if not written and "max(memories.seq)" in statement:
            written.append("")  # before the write: its own statements pass through here
            written[0] = store.add(user_id="alice", text="late", type="note",
                                   importance=0.4).id

    event.listen(store.engine, "before_cursor_execute", write_before_max)
    try:
        with pytest.raises(sweep.SweepError, match="nothing to sweep"):
            sweep.start_sweep(store, (0.3, 0.5), 5, seed=1)
    finally:
        event.remove(store.engine, "before_cursor_execute", write_before_max)
    assert written[0] and store.get(written[0]).importance == 0.4  # it did commit between
