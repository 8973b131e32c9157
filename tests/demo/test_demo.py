"""The demo generator: deterministic, realistic shape, hand-made scenarios present, and
contradictions an operator would agree are contradictions."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest

from memdesk.core import demo
from memdesk.core.curation.service import Contradictions
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.taxonomy import Layer, MemoryType
from tests.helpers.stores import LIFECYCLE_DELETED, LIFECYCLE_ROWS

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
    # every type, the episode too (the hand-shaped users' conversations, kept as said)
    assert {r.type for r in rows} == {t.value for t in MemoryType}
    # every stored layer; working memory is never stored
    assert {r.layer for r in rows} == {x.value for x in Layer if x is not Layer.WORKING}
    assert len({r.user_id for r in rows}) >= 5
    assert len({r.source_session for r in rows}) > 100
    band = s.count(MemoryFilter(importance=(0.3, 0.49)))
    assert 0.45 < band / 3000 < 0.65  # the crowded band the sweep design measured (56.7%)
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

    groups = [g for g in Contradictions(demo_store).find() if g.kind == "conflict"]
    assert len(groups) >= 8
    for g in groups:
        counts = sorted((v.count for v in g.values), reverse=True)
        if g.member_count >= 20:  # a well-mentioned fact has one clearly dominant value
            assert counts[0] / g.member_count >= 0.8, (g.key, counts)


def test_bulk_load_restores_indexes_triggers_and_fts(tmp_path, monkeypatch) -> None:
    """The large-size path drops triggers and indexes for speed; all must come back."""

    def schema(store: MemoryStore) -> set[tuple[str, str, str]]:
        with store.read() as conn:  # the DDL itself, not only the names
            return {tuple(r) for r in conn.exec_driver_sql(
                "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'memories'")}

    small = MemoryStore.open(tmp_path / "small.db")
    demo.generate(small, 400, seed=3, end=END)
    monkeypatch.setattr(demo, "BULK_ROWS", 100)
    big = MemoryStore.open(tmp_path / "bulk.db")
    demo.generate(big, 400, seed=3, end=END)
    assert schema(big) == schema(small)
    assert {n for t, n, _ in schema(big) if t == "trigger"} >= {
        "memories_fts_ai", "memories_fts_ad", "memories_fts_au"}
    assert big.count(MemoryFilter(text="prefers")) == small.count(MemoryFilter(text="prefers")) > 0
    assert big.counts() == small.counts()
    rec = big.add(user_id="u", text="trigger check zebra", type="note")  # triggers are back
    assert [r.id for r in big.page(MemoryFilter(text="zebra"))] == [rec.id]
    small.close()
    big.close()


# Tools by the job they do, as an operator knows them: two tools of different jobs
# (a linter and a type checker) are never a contradiction.
JOB = {
    "pytest": "tests", "unittest": "tests", "ruff": "lint", "flake8": "lint",
    "pylint": "lint", "black": "format", "yapf": "format", "autopep8": "format",
    "mypy": "types", "pyright": "types", "uv": "deps", "poetry": "deps",
    "pip-tools": "deps", "pip": "deps", "conda": "deps", "tox": "matrix", "nox": "matrix",
    "pre-commit": "hooks",
}


@pytest.fixture(scope="module")
def default_demo(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The demo exactly as `memdesk demo` writes it by default (5,000 rows), unshared."""
    store = MemoryStore.open(tmp_path_factory.mktemp("default") / "d.db")
    demo.generate(store, seed=7, end=END)
    yield store
    store.close()


def test_contradiction_queue_is_real_and_workable(default_demo: MemoryStore) -> None:
    """At the default size the queue holds a few dozen groups at most, each a handful of
    values of one question (tabs or spaces; Acme or Globex), never a bag of tools for
    different jobs (the old demo's 31-member "preferred_tool" group)."""
    store = default_demo
    groups = Contradictions(store).find()
    assert 8 <= len(groups) <= 40
    for g in groups:
        assert 2 <= len(g.values) <= 3, (g.key, [v.display for v in g.values])
        jobs = {JOB.get(v.norm) for v in g.values}
        assert len(jobs) == 1, (g.key, jobs)  # all tools of one job, or no tools at all
        # one value is what the store says most; the others are the few that disagree
        counts = sorted((v.count for v in g.values), reverse=True)
        assert counts[1] <= max(2, counts[0] // 3), (g.key, counts)
    assert "preferred_tool" not in {g.attribute for g in groups}
    # every group can be worked: it has a suggestion to accept or overrule
    assert all(Contradictions(store).load(g.key).suggestion is not None for g in groups)


def test_links_connect_a_correction_to_what_it_corrects(default_demo: MemoryStore) -> None:
    """Every superseded demo memory is replaced by a newer correction of the same
    question with another answer (no link between unrelated memories)."""
    rows = {r.id: r for r in default_demo.page(limit=None)}
    linked = [r for r in rows.values() if r.superseded_by]
    assert len(linked) > 10
    for old in linked:
        new = rows[old.superseded_by]
        assert new.type == "correction" and new.created_at > old.created_at
        assert (new.user_id, new.entity, new.attribute) == (old.user_id, old.entity,
                                                           old.attribute)
        assert new.value != old.value and old.valid_until == new.created_at


def test_every_demo_layer_is_the_routers(default_demo: MemoryStore) -> None:
    """The demo writes no layer of its own: every row's is the router's for its type
    (preference and procedure procedural, fact semantic, the rest episodic)."""
    from memdesk.core.write.router import ROUTES

    with default_demo.read() as conn:
        pairs = set(conn.exec_driver_sql("SELECT DISTINCT type, layer FROM memories"))
    assert pairs == {(str(t), str(layer)) for t, layer in ROUTES.items()}
    generated = demo.DemoGenerator(3, END).rows(2000)
    assert all(r.layer == ROUTES[r.type].value for r in generated)


def test_every_demo_row_is_a_valid_memory_with_whole_triples() -> None:
    # The demo loads in bulk without the store's validation, so its rows must already be
    # what validation would accept: scores in [0, 1], known types, a triple either whole
    # or absent (a contradiction or correction scenario with half a triple is no scenario).
    from dataclasses import asdict

    from memdesk.core.demo import DemoGenerator
    from memdesk.core.store.validation import validate_fields

    rows = list(DemoGenerator(7, END).rows(3000))
    assert len(rows) == 3000
    for row in rows:
        values = {k: v for k, v in asdict(row).items() if v is not None}
        validate_fields(values, creating=True)  # raises, naming the field, if not
        triple = (row.entity, row.attribute, row.value)
        assert all(triple) or not any(triple), (row.text, triple)
    ids = {r.id for r in rows}
    assert len(ids) == 3000
    assert all(r.superseded_by in ids for r in rows if r.superseded_by)
