"""The retriever: active belief state, floor, pools, fusion, diversity, bad input."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, put


def retriever(store: MemoryStore, **cfg) -> Retriever:  # type: ignore[no-untyped-def]
    return Retriever(store, ReadConfig(**cfg), clock=lambda: NOW)


def texts(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.text for h in result.results]


def test_g3_unrelated_entries_are_dropped_not_used_to_fill(store: MemoryStore) -> None:
    """The dispositional-memory design's G3: an imports question must not surface a PostgreSQL
    decision or a
    Redis error just because top-k has room; the preference comes by injection."""
    put(store, [
        {"type": "preference", "text": "Prefer small focused commits.", "days_ago": 2},
        {"type": "decision", "text": "Using PostgreSQL for analytics.", "days_ago": 1},
        {"type": "error", "text": "Timeout connecting to Redis.", "days_ago": 1},
    ])
    res = retriever(store).retrieve("how should I organize imports in Python files?", "u")
    assert res.results == []
    assert [p.text for p in res.preferences] == ["Prefer small focused commits."]
    floor = {d.hit.text: d for d in res.dropped if d.reason == "floor"}
    assert {"Using PostgreSQL for analytics.", "Timeout connecting to Redis."} <= set(floor)
    assert "cosine" in floor["Timeout connecting to Redis."].detail


def test_only_active_confident_memories_of_the_user(store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
        {"text": "The kayak club meets on Mondays.", "days_ago": 9},
        {"text": "The kayak club meets on Fridays.", "days_ago": 10},
        {"text": "The kayak club meets on Sundays.", "days_ago": 11},
        {"text": "I might join a kayak club, hypothetically.", "days_ago": 4, "confidence": 0.3},
        {"text": "The kayak club meets on Thursdays.", "days_ago": 5, "user_id": "other"},
    ])
    store.supersede(ids[1], ids[0])
    store.update(ids[2], valid_until=NOW - timedelta(days=1))
    store.soft_delete(ids[3])
    res = retriever(store).retrieve("kayak club", "u")
    assert texts(res) == ["The kayak club meets on Tuesdays."]
    lenient = retriever(store, confidence_threshold=0.2).retrieve("kayak club", "u")
    assert "I might join a kayak club, hypothetically." in texts(lenient)


def test_channels_are_isolated_and_injection_skipped(store: MemoryStore) -> None:
    put(store, [
        {"text": "Deploys go out on Fridays after the smoke tests.", "days_ago": 3},
        {"type": "preference", "text": "Prefer tabs over spaces.", "days_ago": 5},
        {"type": "fact", "text": "project-alpha stores its data in DuckDB.", "days_ago": 20,
         "entity": "project-alpha", "attribute": "database", "value": "DuckDB"},
    ])
    r = retriever(store)
    fts = r.retrieve("smoke tests", "u", channels="fts")
    assert fts.channels == ("fts",) and not fts.injected and fts.preferences == []
    assert texts(fts) == ["Deploys go out on Fridays after the smoke tests."]
    assert all(set(h.ranks) == {"fts"} for h in fts.results)
    graph = r.retrieve("what does project-alpha run on?", "u", channels=["graph"])
    assert texts(graph) == ["project-alpha stores its data in DuckDB."]
    assert graph.results[0].ranks == {"graph": 1}
    vec = r.retrieve("when do we release to production?", "u", channels="vector")
    assert texts(vec)[0] == "Deploys go out on Fridays after the smoke tests."
    full = r.retrieve("smoke tests", "u")
    assert full.injected and [p.text for p in full.preferences] == ["Prefer tabs over spaces."]
    with pytest.raises(ValidationError, match="unknown channel"):
        r.retrieve("x", "u", channels="fts,bm42")


def test_graph_channel_follows_one_hop(store: MemoryStore) -> None:
    put(store, [
        {"type": "fact", "text": "atlas stores its data in ClickHouse.", "days_ago": 30,
         "entity": "atlas", "attribute": "database", "value": "ClickHouse"},
        {"type": "fact", "text": "ClickHouse needs 16 GB of memory per node.", "days_ago": 40,
         "entity": "ClickHouse", "attribute": "memory", "value": "16 GB"},
        {"type": "fact", "text": "beacon stores its data in MySQL.", "days_ago": 50,
         "entity": "beacon", "attribute": "database", "value": "MySQL"},
    ], embed=False)
    res = retriever(store).retrieve("sizing the atlas servers", "u", channels="graph")
    assert texts(res) == ["atlas stores its data in ClickHouse.",
                          "ClickHouse needs 16 GB of memory per node."]
    assert res.results[1].graph_via.startswith("one hop")


def test_flooding_every_older_keyword_match_is_reachable(store: MemoryStore) -> None:
    """The V4 retriever proposal's day 1347: 563 recent and 57 older matches of "identity
    consciousness".
    One recency-ordered LIMIT 50 pool never fetched an older one; with pools, the 15
    most important older matches enter every such query, and each of the 57 is
    retrieved by a query that names what is specific to it."""
    recent = [{"text": f"Thought {i} about identity and consciousness today.",
               "days_ago": 1 + i % 6, "importance": 0.5} for i in range(563)]
    older = [{"text": f"Old entry about identity and consciousness, marker{i:02d}x.",
              "days_ago": 8 + i, "importance": round(0.2 + i / 100, 2)} for i in range(57)]
    put(store, recent + older, embed=False)
    if store.dialect == "sqlite":  # the seed's single pool, written in FTS5
        with store.read() as conn:
            legacy = conn.exec_driver_sql(
                "SELECT m.text FROM memories m WHERE m.seq IN (SELECT rowid FROM memories_fts "
                "WHERE memories_fts MATCH 'identity OR consciousness') OR m.created_at >= ? "
                "ORDER BY m.created_at DESC LIMIT 50",
                ((NOW - timedelta(days=7)).strftime("%Y-%m-%d %H:%M:%S.%f"),)).all()
        assert not any(t.startswith("Old entry") for (t,) in legacy)

    r = retriever(store, max_per_week=0)
    res = r.retrieve("identity consciousness", "u", k=50, channels="fts")
    pool_b = [h for h in res.per_channel["fts"] if h.pool == "B"]
    want = sorted(older, key=lambda o: -o["importance"])[:15]
    assert sorted(h.text for h in pool_b) == sorted(o["text"] for o in want)
    assert any(h.text.startswith("Old entry") for h in res.results)
    for i in range(57):
        one = r.retrieve(f"identity consciousness marker{i:02d}x", "u", k=10, channels="fts")
        assert texts(one)[0] == f"Old entry about identity and consciousness, marker{i:02d}x."


def test_two_per_iso_week_filled_by_score(store: MemoryStore) -> None:
    same_week = [{"text": f"Espresso grinder setting {i} for the Ethiopian beans.",
                  "days_ago": 0, "importance": 0.9 - i / 10} for i in range(5)]
    older = [{"text": "Espresso grinder setting for the Kenyan beans.", "days_ago": 21,
              "importance": 0.3}]
    put(store, same_week + older)
    res = retriever(store).retrieve("espresso grinder setting", "u", k=4)
    unlimited = retriever(store, max_per_week=0).retrieve("espresso grinder setting", "u", k=6)
    assert [h.week for h in unlimited.results].count("2026-W45") == 5
    by_score = [h.text for h in unlimited.results if h.week == "2026-W45"]
    kenyan = "Espresso grinder setting for the Kenyan beans."
    # Best per week first (the crowded week's two best, then the older week's), then
    # the places left are filled by score: the rule spreads, it never leaves k unfilled.
    assert texts(res) == [*by_score[:2], kenyan, by_score[2]]
    div = [d for d in res.dropped if d.reason == "diversity"]
    assert [d.hit.text for d in div] == by_score[3:]
    assert all("2026-W45" in d.detail for d in div)


def test_score_weighs_relevance_importance_and_recency(store: MemoryStore) -> None:
    put(store, [
        {"text": "Backups of the ledger database run nightly.", "days_ago": 60, "importance": 0.5},
        {"text": "Backups of the ledger database run at midnight.", "days_ago": 1,
         "importance": 0.5},
        {"text": "Backups of the ledger database run hourly.", "days_ago": 60, "importance": 0.95},
    ])
    res = retriever(store, max_per_week=0).retrieve("ledger database backups", "u",
                                                    channels="fts")
    by_text = {h.text: h for h in res.results}
    fresh = by_text["Backups of the ledger database run at midnight."]
    stale = by_text["Backups of the ledger database run nightly."]
    important = by_text["Backups of the ledger database run hourly."]
    assert fresh.recency == pytest.approx(1 / (1 + 1 / 30))
    assert stale.recency == pytest.approx(1 / (1 + 60 / 30))
    assert fresh.score > stale.score and important.score > stale.score
    note_half_life = 14.0
    assert stale.retention == pytest.approx(2 ** (-60 / note_half_life))


@pytest.mark.parametrize("query", ["", "   ", "a\x00b", "x" * 10_001])
def test_bad_queries_are_refused_with_a_message(store: MemoryStore, query: str) -> None:
    with pytest.raises(ValidationError, match="query"):
        retriever(store).retrieve(query, "u")


@pytest.mark.parametrize("k", [0, -1, 1001, "3", 2.5, True])
def test_bad_k_is_refused(store: MemoryStore, k: object) -> None:
    with pytest.raises(ValidationError, match="k"):
        retriever(store).retrieve("hello", "u", k=k)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", [
    '"unbalanced AND (NEAR* OR', "kayak*:^-", "🛶 kayak 🛶", "ק ayak\u200f", "ﬁve kayaks",
    "e\u0301te\u0301 kayak",
])
def test_fts_syntax_and_odd_unicode_just_search(store: MemoryStore, query: str) -> None:
    put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 1}], embed=False)
    res = retriever(store).retrieve(query, "u", channels="fts")
    assert isinstance(res.results, list)


def test_nan_and_out_of_range_config_refused() -> None:
    with pytest.raises(ValidationError):
        ReadConfig(confidence_threshold=float("nan")).checked()
    with pytest.raises(ValidationError):
        ReadConfig(half_lives={"note": 0.0}).checked()


def test_snapshot_sees_every_audited_change(store: MemoryStore) -> None:
    """The per-user snapshot is reused only while the store is unchanged."""
    ids = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 3}])
    r = retriever(store)
    assert texts(r.retrieve("kayak club", "u", channels="fts")) == [
        "The kayak club meets on Tuesdays."]
    builds = r.snapshots.builds
    r.retrieve("kayak club", "u", channels="fts")
    assert r.snapshots.builds == builds  # unchanged store: reused
    new = put(store, [{"text": "The kayak club moved to Wednesdays.", "days_ago": 0}])
    assert "The kayak club moved to Wednesdays." in texts(
        r.retrieve("kayak club", "u", channels="fts"))
    store.supersede(ids[0], new[0])
    assert texts(r.retrieve("kayak club", "u", channels="fts")) == [
        "The kayak club moved to Wednesdays."]
    store.update(new[0], confidence=0.1)
    assert r.retrieve("kayak club", "u", channels="fts").results == []


def test_one_hop_reaches_what_is_about_the_value_not_its_siblings(store: MemoryStore) -> None:
    """From "Lantern uses SQLite", one hop reaches facts about SQLite, not every other
    service that also uses it (the inspector showed them filling the results)."""
    put(store, [
        {"type": "fact", "text": "The Lantern service keeps its data in SQLite.",
         "entity": "lantern", "attribute": "primary_datastore", "value": "SQLite"},
        {"type": "fact", "text": "SQLite runs in WAL mode on every host.",
         "entity": "SQLite", "attribute": "journal_mode", "value": "WAL"},
        {"type": "fact", "text": "The Orchard team stores everything in SQLite.",
         "entity": "orchard", "attribute": "primary_datastore", "value": "SQLite"},
        {"type": "fact", "text": "The Atlas service keeps its data in SQLite.",
         "entity": "atlas", "attribute": "primary_datastore", "value": "SQLite"},
    ], embed=False)
    res = retriever(store).retrieve("where does lantern keep its data", "u", channels="graph")
    assert texts(res) == ["The Lantern service keeps its data in SQLite.",
                          "SQLite runs in WAL mode on every host."]
    assert res.results[1].graph_via == "one hop: SQLite · journal_mode · WAL"
