"""demo.generate: what loading a demo store writes (exactly the generator's rows, one
audit row saying where they came from, statistics for the planner, the delta series with
the same seed and end), the progress it reports, and where the bulk path starts."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from memdesk.core import demo
from memdesk.core.delta import demo as delta_demo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status

END = datetime(2026, 11, 1)
FIELDS = ("id", "user_id", "text", "type", "topic", "importance", "confidence",
          "source_session", "access_count", "superseded_by", "entity", "attribute", "value",
          "layer")


@pytest.fixture
def snapshots_seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """generate()'s call of the delta series, recorded instead of run (it has tests of
    its own), so these tests stay fast."""
    seen: list[tuple] = []

    def fake(store, *, seed: int = 7, end: datetime | None = None) -> int:  # type: ignore[no-untyped-def]
        seen.append((store, seed, end))
        return 0

    monkeypatch.setattr(delta_demo, "generate_snapshots", fake)
    return seen


def _stored(store: MemoryStore) -> list[tuple]:
    with store.read() as conn:
        return sorted(tuple(r) for r in conn.exec_driver_sql(
            f"SELECT {', '.join(FIELDS)} FROM memories"))


def _events(store: MemoryStore) -> list[tuple]:
    with store.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            "SELECT stream, actor, action, before, after, note FROM memory_events "
            "WHERE memory_id IS NULL")]


def test_writes_exactly_the_generators_rows(store: MemoryStore, snapshots_seen) -> None:  # type: ignore[no-untyped-def]
    assert demo.generate(store, 75, seed=3, end=END) == 75
    want = sorted(tuple(getattr(r, f) for f in FIELDS)
                  for r in demo.DemoGenerator(3, END).rows(75))
    assert _stored(store) == want
    # Every row, the hypotheticals too (a default page leaves them out: never beliefs).
    rows = {r.id: r for r in store.page(MemoryFilter(statuses=tuple(Status)), limit=None)}
    for r in demo.DemoGenerator(3, END).rows(75):
        got = rows[r.id]
        assert (got.created_at, got.valid_until, got.last_accessed) == (
            r.created_at, r.valid_until, r.last_accessed)
    # The linked scenario chains are stored with their links (checked at commit).
    assert store.counts()["superseded"] == 8
    assert snapshots_seen == [(store, 3, END)]


def test_one_audit_row_says_where_the_data_came_from(store: MemoryStore, snapshots_seen) -> None:  # type: ignore[no-untyped-def]
    demo.generate(store, 12, seed=5, end=END)
    [(stream, actor, action, before, after, note)] = _events(store)  # about no one memory
    assert (stream, actor, action, before, note) == ("store", "worker", "demo_load", "{}",
                                                  "demo generator, seed 5")
    said = json.loads(after)
    assert (said["rows"], said["seed"]) == (12, 5)
    # It lists the duplicates the demo planted (alice's city, spelt twice).
    from memdesk.core.demo.truth import planted_duplicates

    assert [set(c) for c in said["duplicates"]] == [set(c) for c in planted_duplicates(store)]
    [pair] = planted_duplicates(store)
    assert {m.value.strip().lower() for m in store.get_many(list(pair))} == {"lisbon"}


def test_progress_per_chunk_and_once_at_the_end(store: MemoryStore, snapshots_seen,  # type: ignore[no-untyped-def]
                                                 tmp_path) -> None:
    calls: list[tuple[int, int]] = []
    n = demo.generate(store, 70, seed=3, end=END, chunk=30,
                      progress=lambda done, total: calls.append((done, total)))
    assert n == 70
    assert calls == [(30, 70), (60, 70), (70, 70)]
    calls.clear()
    other = MemoryStore.open(tmp_path / "b.db")
    demo.generate(other, 60, seed=3, end=END, chunk=30,
                  progress=lambda done, total: calls.append((done, total)))
    other.close()
    assert calls == [(30, 60), (60, 60), (60, 60)]  # a full last chunk, then the end


def test_an_empty_demo_still_records_its_load(store: MemoryStore, snapshots_seen) -> None:  # type: ignore[no-untyped-def]
    calls: list[tuple[int, int]] = []
    assert demo.generate(store, 0, seed=9, end=END,
                         progress=lambda d, t: calls.append((d, t))) == 0
    assert store.counts()["total"] == 0
    assert calls == [(0, 0)]
    assert json.loads(_events(store)[0][4]) == {"rows": 0, "seed": 9, "duplicates": []}


def test_the_default_seed_is_seven(store: MemoryStore, snapshots_seen) -> None:  # type: ignore[no-untyped-def]
    demo.generate(store, 20, end=END)
    assert _stored(store) == sorted(tuple(getattr(r, f) for f in FIELDS)
                                    for r in demo.DemoGenerator(7, END).rows(20))
    assert _events(store)[0][5] == "demo generator, seed 7"
    assert snapshots_seen[0][1:] == (7, END)


def test_statistics_are_gathered_for_the_planner(store: MemoryStore, snapshots_seen) -> None:  # type: ignore[no-untyped-def]
    demo.generate(store, 30, seed=3, end=END)
    with store.read() as conn:
        tables = {r[0] for r in conn.exec_driver_sql("SELECT tbl FROM sqlite_stat1")}
    assert "memories" in tables


@pytest.mark.parametrize(("bulk_rows", "bulk"), [(45, True), (46, False)])
def test_the_bulk_path_starts_at_bulk_rows(store: MemoryStore, snapshots_seen, monkeypatch,  # type: ignore[no-untyped-def]
                                           bulk_rows: int, bulk: bool) -> None:
    rebuilt: list[object] = []
    real = demo.fts.rebuild_index
    monkeypatch.setattr(demo, "BULK_ROWS", bulk_rows)
    monkeypatch.setattr(demo.fts, "rebuild_index", lambda conn: (rebuilt.append(1), real(conn)))
    # 45 rows: the scenarios of the first six users, ending with a whole user.
    assert demo.generate(store, 45, seed=3, end=END) == 45
    assert len(rebuilt) == int(bulk)
    # Either way the full-text index finds every row.
    assert store.count(MemoryFilter(text="hypothetical", statuses=tuple(Status))) == 6


def test_a_small_size_that_cuts_a_correction_chain_still_loads(  # type: ignore[no-untyped-def]
        store: MemoryStore, snapshots_seen) -> None:
    # Rows 38-39 are farah's hypothetical and her "unittest" preference; 40 is the
    # correction that preference is superseded by.
    rows = list(demo.DemoGenerator(3, END).rows(40))
    ids = {r.id for r in rows}
    assert all(r.superseded_by in ids for r in rows if r.superseded_by)
    assert demo.generate(store, 40, seed=3, end=END) == 40


def test_the_delta_series_comes_with_the_store(store: MemoryStore) -> None:
    from memdesk.core.delta.service import DeltaMemory

    demo.generate(store, 0, seed=3, end=END)
    goals = {g for g, _n, _last in DeltaMemory(store).goals()}
    assert goals == {g for g, _q, _f in delta_demo.GOALS}
    assert len(DeltaMemory(store).snapshots(limit=1000)) == 3 * 42 * 2


def test_the_default_size_is_5000(store: MemoryStore, snapshots_seen, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple] = []

    class Recording(demo.DemoGenerator):
        def rows(self, size: int):  # type: ignore[no-untyped-def]
            asked.append((self.end, size))
            return iter(())

    monkeypatch.setattr(demo, "DemoGenerator", Recording)
    assert demo.generate(store, end=END) == 0
    assert asked == [(END, 5000)]
    assert json.loads(_events(store)[0][4]) == {"rows": 0, "seed": 7, "duplicates": []}
