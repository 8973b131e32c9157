"""One retrieval end to end with vectors under the test's control: which channels ran,
each candidate's ranks, relevance (RRF worked out by hand), floor reasons, the order of
what was dropped, notes, injection, and what ``RetrievalResult`` reports.

A fake embedder maps each text to a chosen unit vector, so every cosine is known
exactly and no model is loaded.
"""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest

from memdesk.core.embeddings import DIM, EmbeddingsUnavailable, to_blob
from memdesk.core.errors import MemdeskError
from memdesk.core.read import retriever as rt
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import NOW, OPTIONAL, put

QUERY = "kayak club schedule"


def unit(*pairs: tuple[int, float]) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    for i, x in pairs:
        v[i] = x
    return v


Q = unit((0, 1.0))


@pytest.fixture(autouse=True)
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake models need no torch threads (importing torch takes seconds)."""
    monkeypatch.setattr(rt, "_threads_set", True)


def add(store: MemoryStore, items: list[dict], vectors: list[np.ndarray | None]) -> list[str]:  # type: ignore[type-arg]
    rows = []
    for it, vec in zip(items, vectors, strict=True):
        row = {k: None for k in OPTIONAL}
        row.update(user_id="u", type="note", importance=0.5, confidence=0.8)
        row.update({k: v for k, v in it.items() if k != "days_ago"})
        row["created_at"] = NOW - timedelta(days=it["days_ago"])
        row["embedding"] = None if vec is None else to_blob(vec)
        rows.append(row)
    return store.add_many(rows)


class MapEmbedder:
    """Every query is the first axis; memories carry the vectors the test gives them."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        self.asked.extend(texts)
        return np.stack([Q for _ in texts])


class NoModel:
    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise EmbeddingsUnavailable("vectors are off: no model here")


def scene(store: MemoryStore) -> dict[str, str]:
    """m1 matches the keywords and the query vector; m2 only the vector (cosine .6);
    m5 (.2), m3 (-.5) and the preference (-.9) are ranked by the vector channel but
    fall below the cosine floor; m4 has no vector."""
    rows = [
        ("m1", "The kayak club meets on Tuesdays.", 1, 0.8, unit((0, 1.0)), "note"),
        ("m2", "Paddling practice is at dawn.", 2, 0.4, unit((0, 0.6), (1, 0.8)), "note"),
        ("m5", "Weather is mild.", 3, 0.2, unit((0, 0.2), (2, math.sqrt(0.96))), "note"),
        ("m3", "Lunch was pasta.", 3, 0.3, unit((0, -0.5), (3, math.sqrt(0.75))), "note"),
        ("pref", "Prefer short answers.", 20, 0.5, unit((0, -0.9), (4, math.sqrt(0.19))),
         "preference"),
        ("m4", "Groceries list for Friday.", 4, 0.9, None, "note"),
    ]
    ids = add(store, [{"text": t, "days_ago": d, "importance": imp, "type": ty}
                      for _k, t, d, imp, _v, ty in rows], [r[4] for r in rows])
    return {k: mid for (k, *_), mid in zip(rows, ids, strict=True)}


def make(store: MemoryStore, embedder: object | None = None, **cfg: object) -> Retriever:
    # Plain RRF with equal weights: the relevance below is worked out by hand for it
    # (score fusion, the default, has its own test file).
    cfg = {"fusion": "rrf", "channel_weights": (1.0, 1.0, 1.0), **cfg}
    return Retriever(store, ReadConfig(**cfg), embedder=embedder or MapEmbedder(),  # type: ignore[arg-type]
                     clock=lambda: NOW)


def test_every_channel_ranks_relevance_floor_and_drop_order(store: MemoryStore) -> None:
    ids = scene(store)
    name = {v: k for k, v in ids.items()}
    res = make(store).retrieve(f"  {QUERY}  ", "u")
    assert (res.query, res.user_id, res.k, res.at) == (QUERY, "u", 10, NOW)
    assert res.channels == ("fts", "vector", "graph") and res.injected
    assert [name[h.id] for h in res.results] == ["m1", "m2"]
    m1, m2 = res.results
    assert (m1.ranks, m2.ranks) == ({"fts": 1, "vector": 1}, {"vector": 2})
    assert (m1.pool, m2.pool) == ("A", "A")  # recent: a keyword match, a recent-pool row
    # kayak and club of kayak, club, schedule (no memory says "schedule"; it still counts)
    assert m1.keyword_share == pytest.approx(2 / 3) and m2.keyword_share is None
    assert m1.cosine == pytest.approx(1.0) and m2.cosine == pytest.approx(0.6)
    # RRF over three channels, normalised by 3 / (60 + 1).
    assert m1.relevance == pytest.approx((2 / 61) / (3 / 61))
    assert m2.relevance == pytest.approx((1 / 62) / (3 / 61))
    # 0.6 relevance + 0.2 importance + 0.1 recency 1/(1+1/30) + 0.1 retention 2^(-1/14)
    assert m1.score == pytest.approx(0.6 * 2 / 3 + 0.2 * 0.8 + 0.1 / (1 + 1 / 30)
                                     + 0.1 * 2 ** (-1 / 14))
    # Dropped by the floor, most relevant first (vector ranks 3, 4, 5, then m4 unranked).
    cfg = ReadConfig()
    f = f"{cfg.floor_prior_median + cfg.floor_z * cfg.floor_prior_scale:.2f}"  # the prior's
    assert [(name[d.hit.id], d.reason, d.detail) for d in res.dropped] == [
        ("m5", "floor", f"no keyword match; cosine 0.20 < {f}; no entity match"),
        ("m3", "floor", f"no keyword match; cosine -0.50 < {f}; no entity match"),
        ("pref", "floor", f"no keyword match; cosine -0.90 < {f}; no entity match"),
        ("m4", "floor", "no keyword match; no vector; no entity match"),
    ]
    drop = {name[d.hit.id]: d.hit for d in res.dropped}
    assert drop["m5"].relevance == pytest.approx((1 / 63) / (3 / 61))
    assert drop["m4"].relevance == 0.0
    assert drop["pref"].pool == "C" and drop["m4"].pool == "A"
    assert [name[p.id] for p in res.preferences] == ["pref"]
    assert {c: [name[h.id] for h in hs] for c, hs in res.per_channel.items()} == {
        "fts": ["m1"], "vector": ["m1", "m2", "m5", "m3", "pref"], "graph": []}
    assert res.notes == ["1 of this user's memories has no vector yet (run `memdesk embed`); "
                         "the vector channel cannot see it"]


def test_without_a_model_the_vector_channel_is_left_out_and_said_so(store: MemoryStore) -> None:
    ids = scene(store)
    res = make(store, NoModel()).retrieve(QUERY, "u")
    assert res.channels == ("fts", "graph")
    assert res.notes == ["vectors are off: no model here"]
    assert [h.id for h in res.results] == [ids["m1"]]
    assert res.results[0].relevance == pytest.approx(0.5)  # (1/61) / (2/61)
    assert res.results[0].cosine is None
    with pytest.raises(MemdeskError) as e:
        make(store, NoModel()).retrieve(QUERY, "u", channels="vector")
    assert str(e.value) == "The vector channel cannot run: vectors are off: no model here"


def test_isolated_channels_skip_the_others_and_injection(store: MemoryStore) -> None:
    ids = scene(store)
    emb = MapEmbedder()
    res = make(store, emb).retrieve(QUERY, "u", channels="fts,graph")
    assert emb.asked == []  # no vector channel, no encoding
    assert res.channels == ("fts", "graph") and not res.injected
    assert res.preferences == [] and res.notes == []
    assert [h.id for h in res.results] == [ids["m1"]]
    assert res.per_channel["vector"] == []
    vec = make(store, emb).retrieve(QUERY, "u", channels="vector")
    assert emb.asked == [QUERY]
    assert vec.channels == ("vector",)
    assert [h.id for h in vec.results] == [ids["m1"], ids["m2"]]
    assert vec.results[0].relevance == pytest.approx(1.0)  # ranked first by its only channel
    assert vec.results[0].keyword_share is None and vec.per_channel["fts"] == []


def test_k_caps_the_results_and_diversity_drops_come_first(store: MemoryStore) -> None:
    ids = scene(store)
    one = make(store).retrieve(QUERY, "u", k=1)
    assert [h.id for h in one.results] == [ids["m1"]]
    assert ids["m2"] not in [d.hit.id for d in one.dropped]  # cut, not dropped
    # One per week first, then the places left are filled: m2 comes back after m1
    # (the week rule spreads results, it does not cut relevant ones).
    weekly = make(store, max_per_week=1).retrieve(QUERY, "u")
    assert [h.id for h in weekly.results] == [ids["m1"], ids["m2"]]
    assert [d.reason for d in weekly.dropped] == ["floor"] * 4
    capped = make(store, max_per_week=1).retrieve(QUERY, "u", k=1)
    assert [h.id for h in capped.results] == [ids["m1"]]


def test_injection_can_be_declined_or_limited_to_nothing(store: MemoryStore) -> None:
    scene(store)
    off = make(store).retrieve(QUERY, "u", inject=False)
    assert not off.injected and off.preferences == []
    none = make(store, preference_limit=0).retrieve(QUERY, "u")
    assert not none.injected and none.preferences == []


def test_a_preference_returned_as_a_result_is_not_injected_again(store: MemoryStore) -> None:
    (p,) = put(store, [{"text": "Prefer the kayak club on Tuesdays.", "type": "preference",
                        "days_ago": 2}], embed=False)
    res = make(store, NoModel()).retrieve("kayak club", "u")
    assert [h.id for h in res.results] == [p]
    assert res.preferences == [] and res.injected


def test_equal_scores_put_the_newer_row_first(store: MemoryStore) -> None:
    # a: keyword rank 1, vector rank 2; b: keyword rank 2, vector rank 1: equal RRF,
    # and the same age and importance, so equal scores.
    a, b = add(store, [{"text": "Kayak club notes.", "days_ago": 2},
                       {"text": "Kayak notes.", "days_ago": 2}],
               [unit((0, 0.5), (1, math.sqrt(0.75))), unit((0, 0.9), (2, math.sqrt(0.19)))])
    res = make(store).retrieve("kayak club", "u")
    assert [(h.id, h.ranks) for h in res.results] == [(b, {"fts": 2, "vector": 1}),
                                                       (a, {"fts": 1, "vector": 2})]
    assert res.results[0].score == res.results[1].score


def test_reinforcement_from_earlier_retrievals_enters_the_score(store: MemoryStore) -> None:
    (a,) = put(store, [{"text": "Kayak club notes.", "days_ago": 28}], embed=False)
    store.record_access([a], at=NOW - timedelta(days=7))
    res = make(store, NoModel()).retrieve("kayak club", "u", dry_run=True)
    # Seven days since the last access; half-life 14 * (1 + 0.5 ln 2).
    assert res.results[0].retention == pytest.approx(2 ** (-7 / (14 * (1 + 0.5 * math.log(2)))))
    assert res.results[0].recency == pytest.approx(1 / (1 + 28 / 30))


def test_pool_is_none_for_an_older_row_outside_every_pool(store: MemoryStore) -> None:
    (a,) = add(store, [{"text": "Paddling practice is at dawn.", "days_ago": 40}],
               [unit((0, 0.9), (1, math.sqrt(0.19)))])
    res = make(store, pool_random_older=0).retrieve(QUERY, "u")
    assert [(h.id, h.pool, h.ranks) for h in res.results] == [(a, None, {"vector": 1})]


def test_result_json_reports_the_call(store: MemoryStore) -> None:
    ids = scene(store)
    res = make(store).retrieve(QUERY, "u", k=3, dry_run=True)
    res.duration_ms = 12.3456
    out = res.to_json()
    assert out == {
        "retrieval_id": res.retrieval_id, "user": "u", "query": QUERY, "k": 3,
        "channels": ["fts", "vector", "graph"], "injected": True,
        "results": [h.to_json() for h in res.results],
        "preferences": [p.to_json() for p in res.preferences],
        "dropped": [d.to_json() for d in res.dropped],
        "notes": res.notes, "duration_ms": 12.35,
        "empty_channels": {"graph": "this user's memories carry no triples"},
    }
    assert [r["id"] for r in out["results"]] == [ids["m1"], ids["m2"]]
    assert [p["id"] for p in out["preferences"]] == [ids["pref"]]
    assert len(out["dropped"]) == 4 and len(out["notes"]) == 1
