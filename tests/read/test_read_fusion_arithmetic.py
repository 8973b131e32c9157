"""Rank fusion, the relevance floor, the score and the diversity rule, by hand arithmetic.

Every expected value below comes from the module docstring of core/read/fusion.py and
the dispositional-memory design and the V4 retriever proposal: RRF ``sum(1 / (k + rank))``
normalised by an item ranked first by every
active channel, recency ``1 / (1 + days / 30)``, retention ``2 ** (-days / h)`` with
``h = half_life * (1 + 0.5 * ln(1 + access_count))``, weights 0.6/0.2/0.1/0.1, at most
two results per ISO week.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from memdesk.core.read.config import ReadConfig
from memdesk.core.read.fusion import Dropped, Hit, diversify, floor_reason, rrf, score

NOW = datetime(2026, 11, 4, 12, 0)  # a Wednesday, ISO week 2026-W45
CFG = ReadConfig(fusion="rrf", channel_weights=(1.0, 1.0, 1.0))  # plain RRF, by hand
ALL = ("fts", "vector", "graph")


def hit(seq: int = 1, *, created: datetime = NOW, type_: str = "note", **kw: object) -> Hit:
    fields: dict[str, object] = dict(seq=seq, id=f"m{seq}", text=f"text {seq}", type=type_,
                                     layer=None, user_id="u", created_at=created,
                                     importance=0.5, confidence=0.8)
    fields.update(kw)
    return Hit(**fields)  # type: ignore[arg-type]


# --- rrf -----------------------------------------------------------------------------

def test_rrf_first_in_every_active_channel_is_one() -> None:
    h = hit(ranks={"fts": 1, "vector": 1, "graph": 1})
    rrf([h], ALL, CFG)
    assert h.relevance == pytest.approx(1.0)


def test_rrf_sums_reciprocal_ranks_over_active_channels_only() -> None:
    a = hit(1, ranks={"fts": 1})
    b = hit(2, ranks={"fts": 2, "vector": 3})
    c = hit(3, ranks={"graph": 1})  # graph is not active: no relevance from it
    rrf([a, b, c], ("fts", "vector"), CFG)
    best = 2 / 61
    assert a.relevance == pytest.approx((1 / 61) / best)  # 0.5
    assert a.relevance == pytest.approx(0.5)
    assert b.relevance == pytest.approx((1 / 62 + 1 / 63) / best)
    assert c.relevance == 0.0


def test_rrf_with_no_active_channel_gives_no_relevance() -> None:
    h = hit(ranks={"fts": 1, "vector": 1})
    rrf([h], (), CFG)
    assert h.relevance == 0.0


def test_rrf_uses_the_configured_k() -> None:
    h = hit(ranks={"fts": 3})
    rrf([h], ("fts",), CFG.with_(rrf_k=1))
    assert h.relevance == pytest.approx((1 / 4) / (1 / 2))  # 0.5


# --- floor ---------------------------------------------------------------------------

def test_floor_keyword_share_at_the_threshold_keeps_one_below_drops() -> None:
    # At least half of what the query names.
    assert floor_reason(hit(keyword_share=0.5), ("fts",), CFG) is None
    assert floor_reason(hit(keyword_share=0.9), ("fts",), CFG) is None
    assert floor_reason(hit(keyword_share=0.49), ("fts",), CFG) == (
        "keywords 0.49 < 0.50 of the query")
    assert floor_reason(hit(keyword_share=0.0), ("fts",), CFG) == "no keyword match"
    assert floor_reason(hit(keyword_share=None), ("fts",), CFG) == "no keyword match"


def test_floor_cosine_at_the_threshold_keeps_one_below_drops() -> None:
    assert floor_reason(hit(cosine=0.31), ("vector",), CFG, 0.31) is None
    assert floor_reason(hit(cosine=0.30), ("vector",), CFG, 0.31) == "cosine 0.30 < 0.31"
    # Without a calibrated floor (no vectors to calibrate on) the prior's applies.
    prior = CFG.floor_prior_median + CFG.floor_z * CFG.floor_prior_scale
    assert floor_reason(hit(cosine=prior + 0.001), ("vector",), CFG) is None
    assert floor_reason(hit(cosine=0.95), ("vector",), CFG) is None
    assert floor_reason(hit(cosine=prior - 0.01), ("vector",), CFG) is not None
    assert floor_reason(hit(cosine=None), ("vector",), CFG) == "no vector"
    assert floor_reason(hit(cosine=0.0), ("vector",), CFG) == f"cosine 0.00 < {prior:.2f}"


def test_the_best_candidate_passes_a_lower_bar_than_the_others() -> None:
    # A question usually has one answer: the vector channel's best candidate is kept
    # at ``best_floor``, every other candidate needs the full floor.
    best = hit(cosine=0.25, ranks={"vector": 1})
    second = hit(cosine=0.25, ranks={"vector": 2})
    assert floor_reason(best, ("vector",), CFG, 0.31, 0.2) is None
    assert floor_reason(second, ("vector",), CFG, 0.31, 0.2) == "cosine 0.25 < 0.31"
    assert floor_reason(hit(cosine=0.15, ranks={"vector": 1}), ("vector",), CFG, 0.31, 0.2) \
        is not None


def test_floor_graph_keeps_an_entity_match_only() -> None:
    assert floor_reason(hit(ranks={"graph": 4}), ("graph",), CFG) is None
    assert floor_reason(hit(ranks={"fts": 1}), ("graph",), CFG) == "no entity match"


def test_floor_lists_every_active_channels_reason_in_order() -> None:
    h = hit(keyword_share=0.1, cosine=0.2, ranks={"fts": 1, "vector": 1})
    prior = CFG.floor_prior_median + CFG.floor_z * CFG.floor_prior_scale
    assert floor_reason(h, ALL, CFG) == (
        f"keywords 0.10 < 0.50 of the query; cosine 0.20 < {prior:.2f}; no entity match")
    assert floor_reason(hit(), ALL, CFG) == "no keyword match; no vector; no entity match"
    assert floor_reason(hit(), (), CFG) == ""


def test_floor_any_one_channel_is_enough() -> None:
    assert floor_reason(hit(keyword_share=0.0, cosine=0.5), ALL, CFG) is None
    assert floor_reason(hit(keyword_share=0.0, ranks={"graph": 1}), ALL, CFG) is None
    assert floor_reason(hit(keyword_share=0.5, cosine=None), ALL, CFG) is None
    # An inactive channel's relation does not count.
    assert floor_reason(hit(cosine=0.9), ("fts",), CFG) == "no keyword match"
    assert floor_reason(hit(keyword_share=0.9), ("vector",), CFG) == "no vector"


def test_floor_uses_the_configured_thresholds() -> None:
    cfg = CFG.with_(floor_keyword_share=0.6, floor_prior_median=0.2, floor_z=2.0,
                    floor_prior_scale=0.2)
    assert floor_reason(hit(keyword_share=0.5), ("fts",), cfg) == (
        "keywords 0.50 < 0.60 of the query")
    assert floor_reason(hit(cosine=0.55), ("vector",), cfg) == "cosine 0.55 < 0.60"
    assert floor_reason(hit(keyword_share=0.6), ("fts",), cfg) is None
    assert floor_reason(hit(cosine=0.601), ("vector",), cfg) is None


# --- score ---------------------------------------------------------------------------

def test_score_weights_relevance_importance_recency_and_retention() -> None:
    h = hit(created=NOW - timedelta(days=30), relevance=1.0, importance=0.5)
    score([h], NOW, {}, CFG)
    recency = 1 / (1 + 30 / 30)  # 0.5
    retention = 2 ** (-30 / 14)  # a note's half-life is 14 days
    assert h.recency == pytest.approx(recency)
    assert h.retention == pytest.approx(retention)
    assert h.score == pytest.approx(0.6 * 1.0 + 0.2 * 0.5 + 0.1 * recency + 0.1 * retention)


def test_score_per_type_half_life_and_unknown_type_default() -> None:
    a = hit(1, created=NOW - timedelta(days=120), type_="preference")
    b = hit(2, created=NOW - timedelta(days=60), type_="no-such-type")
    score([a, b], NOW, {}, CFG)
    assert a.retention == pytest.approx(0.5)
    assert b.retention == pytest.approx(0.25)  # default half-life 30 days


def test_score_retrieval_restarts_the_clock_and_slows_forgetting() -> None:
    h = hit(created=NOW - timedelta(days=60), relevance=0.0, importance=0.0)
    last = NOW - timedelta(days=14)
    score([h], NOW, {1: (last, 9)}, CFG)
    half = 14 * (1 + 0.5 * math.log(10))
    assert h.retention == pytest.approx(2 ** (-14 / half))
    assert h.recency == pytest.approx(1 / (1 + 60 / 30))  # recency counts from creation
    assert h.score == pytest.approx(0.1 * (1 / 3) + 0.1 * 2 ** (-14 / half))


def test_score_access_without_a_date_keeps_the_creation_anchor_but_counts() -> None:
    h = hit(created=NOW - timedelta(days=28))
    other = hit(2, created=NOW - timedelta(days=28))
    score([h, other], NOW, {1: (None, 3), 99: (NOW, 100)}, CFG)
    half = 14 * (1 + 0.5 * math.log(4))
    assert h.retention == pytest.approx(2 ** (-28 / half))
    assert other.retention == pytest.approx(0.25)


def test_score_future_dates_count_as_now() -> None:
    h = hit(created=NOW + timedelta(days=5), relevance=0.5, importance=1.0)
    score([h], NOW, {}, CFG)
    assert (h.recency, h.retention) == (pytest.approx(1.0), pytest.approx(1.0))
    assert h.score == pytest.approx(0.6 * 0.5 + 0.2 + 0.1 + 0.1)


def test_score_uses_configured_weights() -> None:
    cfg = CFG.with_(weight_relevance=1.0, weight_importance=0.0, weight_recency=0.0,
                    weight_decay=0.0)
    h = hit(created=NOW - timedelta(days=3), relevance=0.7, importance=0.9)
    score([h], NOW, {}, cfg)
    assert h.score == pytest.approx(0.7)


# --- diversity -----------------------------------------------------------------------

def test_diversify_keeps_two_per_week_and_says_why_the_third_went() -> None:
    same_week = [hit(i, created=NOW - timedelta(hours=i)) for i in range(1, 4)]
    older = hit(9, created=NOW - timedelta(days=7))  # 2026-W44
    out, dropped = diversify([*same_week, older], 10, CFG)
    assert [h.seq for h in out] == [1, 2, 9]
    assert [(d.hit.seq, d.reason, d.detail) for d in dropped] == [
        (3, "diversity", "2 results from 2026-W45 already")]


def test_diversify_stops_at_k_without_dropping_the_rest() -> None:
    hits = [hit(i, created=NOW - timedelta(days=7 * i)) for i in range(1, 6)]
    out, dropped = diversify(hits, 2, CFG)
    assert [h.seq for h in out] == [1, 2]
    assert dropped == []
    same = [hit(i) for i in range(1, 5)]
    out, dropped = diversify(same, 2, CFG)
    assert [h.seq for h in out] == [1, 2] and dropped == []
    assert diversify(same, 0, CFG) == ([], [])


def test_diversify_zero_per_week_is_no_limit_and_one_is_one() -> None:
    same = [hit(i) for i in range(1, 5)]
    out, dropped = diversify(same, 10, CFG.with_(max_per_week=0))
    assert [h.seq for h in out] == [1, 2, 3, 4] and dropped == []
    out, dropped = diversify(same, 10, CFG.with_(max_per_week=1))
    assert [h.seq for h in out] == [1]
    assert [d.detail for d in dropped] == ["1 results from 2026-W45 already"] * 3


# --- JSON ----------------------------------------------------------------------------

def test_hit_json_in_full() -> None:
    h = hit(7, created=datetime(2026, 1, 5, 8, 30), type_="fact", layer="semantic",
            importance=0.7, ranks={"vector": 3, "graph": 1}, cosine=0.87654,
            keyword_share=None, graph_via="entity: acme", pool="recent",
            relevance=0.1234564, recency=0.12345, retention=0.98765, score=0.3333333,
            rerank=0.25)
    assert h.to_json() == {
        "id": "m7", "text": "text 7", "type": "fact", "layer": "semantic",
        "score": 0.333333, "relevance": 0.123456,
        "ranks": {"fts": None, "vector": 3, "graph": 1},
        "cosine": 0.8765, "keyword_share": None, "graph_via": "entity: acme",
        "pool": "recent", "importance": 0.7, "recency": 0.1235, "retention": 0.9877,
        "created_at": "2026-01-05T08:30:00", "week": "2026-W02", "rerank": 0.25,
    }


def test_hit_week_uses_the_iso_year() -> None:
    assert hit(created=datetime(2027, 1, 1)).week == "2026-W53"  # a Friday
    assert hit(created=datetime(2026, 12, 28)).week == "2026-W53"
    assert hit(created=datetime(2027, 1, 4)).week == "2027-W01"


def test_hit_json_without_rerank_has_no_rerank_key() -> None:
    j = hit(cosine=None, keyword_share=0.55556).to_json()
    assert "rerank" not in j
    assert (j["cosine"], j["keyword_share"]) == (None, 0.5556)
    assert j["graph_via"] is None and j["pool"] is None


def test_dropped_json_in_full() -> None:
    h = hit(3, type_="decision", ranks={"fts": 2}, score=0.12345678)
    d = Dropped(h, "floor", "no vector")
    assert d.to_json() == {"id": "m3", "text": "text 3", "type": "decision",
                           "reason": "floor", "detail": "no vector", "score": 0.123457,
                           "ranks": {"fts": 2, "vector": None, "graph": None}}
