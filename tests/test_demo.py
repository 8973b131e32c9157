"""The demo generator: deterministic, realistic shape, seed scenarios present."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.taxonomy import Layer, MemoryType
from tests.conftest import LIFECYCLE_DELETED, LIFECYCLE_ROWS

END = datetime(2026, 11, 1)


def test_deterministic_for_a_seed() -> None:
    a = [r.as_tuple() for r in demo.DemoGenerator(5, END).rows(800)]
    b = [r.as_tuple() for r in demo.DemoGenerator(5, END).rows(800)]
    c = [r.as_tuple() for r in demo.DemoGenerator(6, END).rows(800)]
    assert a == b and a != c


def test_shape_of_a_demo_store(demo_store: MemoryStore) -> None:
    s = demo_store
    # The shared fixture adds its lifecycle rows (tests/conftest.py) to the 3,000.
    assert s.counts()["total"] == 3000 + LIFECYCLE_ROWS
    assert s.counts()["deleted"] == LIFECYCLE_DELETED
    rows = s.page(limit=None)
    assert {r.type for r in rows} == {t.value for t in MemoryType}
    # every stored layer; working memory is never stored (issue 8)
    assert {r.layer for r in rows} == {x.value for x in Layer if x is not Layer.WORKING}
    assert len({r.user_id for r in rows}) >= 5
    assert len({r.source_session for r in rows}) > 100
    band = s.count(MemoryFilter(importance=(0.3, 0.49)))
    assert 0.45 < band / 3000 < 0.65  # the crowded band of seed 002
    span = max(r.created_at for r in rows) - min(r.created_at for r in rows)
    assert span > timedelta(days=90)
    assert s.counts()["superseded"] > 10  # correction chains
    doctor = s.page(MemoryFilter(text="actually a doctor"))
    assert doctor and doctor[0].confidence <= 0.3 and doctor[0].value == "doctor"
    # contradictions: same user + entity + attribute, different values, both active
    works = Counter(
        (r.user_id, r.value.strip().casefold())
        for r in rows if r.attribute == "works_at" and r.status is Status.ACTIVE
    )
    users_with_conflict = Counter(u for (u, _v) in works)
    assert max(users_with_conflict.values()) >= 2
    chain = next(r for r in rows if r.text == "User prefers unittest for testing.")
    assert chain.superseded_by and s.get(chain.superseded_by).type == "correction"


def test_facts_mostly_agree_with_a_few_contradictions(demo_store: MemoryStore) -> None:
    """Repeated mentions of a fact repeat its value; a few disagree (review-sized groups)."""
    from memdesk.core.curation.contradictions import find_contradictions

    groups = [g for g in find_contradictions(demo_store) if g.kind == "conflict"]
    assert len(groups) >= 8
    for g in groups:
        counts = sorted((v.count for v in g.values), reverse=True)
        if g.member_count >= 20:  # a well-mentioned fact has one clearly dominant value
            assert counts[0] / g.member_count >= 0.8, (g.key, counts)


def test_bulk_load_restores_indexes_triggers_and_fts(tmp_path, monkeypatch) -> None:
    """The large-size path drops triggers and indexes for speed; all must come back."""

    def schema(store: MemoryStore) -> set[tuple[str, str]]:
        with store.read() as conn:
            return {tuple(r) for r in conn.exec_driver_sql(
                "SELECT type, name FROM sqlite_master WHERE tbl_name = 'memories'")}

    small = MemoryStore.open(tmp_path / "small.db")
    demo.generate(small, 400, seed=3, end=END)
    monkeypatch.setattr(demo, "BULK_ROWS", 100)
    big = MemoryStore.open(tmp_path / "bulk.db")
    demo.generate(big, 400, seed=3, end=END)
    assert schema(big) == schema(small)
    assert big.count(MemoryFilter(text="prefers")) == small.count(MemoryFilter(text="prefers")) > 0
    assert big.counts() == small.counts()
    rec = big.add(user_id="u", text="trigger check zebra", type="note")  # triggers are back
    assert [r.id for r in big.page(MemoryFilter(text="zebra"))] == [rec.id]
    small.close()
    big.close()
