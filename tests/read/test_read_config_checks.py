"""ReadConfig's validation (each refusal names its field and says why, boundaries
included), ``with_``, per-type half-lives, and the channel list parser."""

from __future__ import annotations

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.read.config import CHANNELS, ReadConfig, parse_channels

COUNTS = ("pool_recent", "pool_keyword_older", "pool_random_older", "vector_candidates",
          "graph_candidates", "preference_limit", "max_per_week")


def refused(cfg: ReadConfig) -> ValidationError:
    with pytest.raises(ValidationError) as e:
        cfg.checked()
    return e.value


@pytest.mark.parametrize("value", [0.0, 0.4, 1.0])
def test_a_confidence_threshold_in_the_closed_unit_interval_is_accepted(value: float) -> None:
    cfg = ReadConfig(confidence_threshold=value)
    assert cfg.checked() is cfg


@pytest.mark.parametrize("value", [-0.01, 1.01, 2.0, float("nan")])
def test_a_confidence_threshold_outside_zero_to_one_is_refused(value: float) -> None:
    err = refused(ReadConfig(confidence_threshold=value))
    assert err.field == "confidence_threshold"
    assert str(err) == "confidence_threshold: must be in [0, 1]"


@pytest.mark.parametrize("name", COUNTS)
def test_each_count_may_be_zero_but_not_negative(name: str) -> None:
    zero = ReadConfig(**{name: 0})
    assert zero.checked() is zero
    err = refused(ReadConfig(**{name: -1}))
    assert err.field == name
    assert str(err) == f"{name}: must not be negative"


def test_a_half_life_must_be_positive_and_the_type_is_named() -> None:
    err = refused(ReadConfig(half_lives={"note": 14.0, "error": 0.0}))
    assert err.field == "half_lives"
    assert str(err) == "half_lives: error: must be positive"
    assert str(refused(ReadConfig(half_lives={"fact": -3.0}))) == \
        "half_lives: fact: must be positive"
    assert str(refused(ReadConfig(half_lives={"x": float("nan")}))) == \
        "half_lives: x: must be positive"
    tiny = ReadConfig(half_lives={"note": 0.001})
    assert tiny.checked() is tiny


def test_recent_days_may_be_zero_but_not_negative() -> None:
    zero = ReadConfig(recent_days=0.0)
    assert zero.checked() is zero
    err = refused(ReadConfig(recent_days=-1.0))
    assert err.field == "recency_days"
    assert str(err) == "recency_days: must be positive"


def test_the_recency_curve_needs_a_positive_length() -> None:
    err = refused(ReadConfig(recency_days=0.0))
    assert str(err) == "recency_days: must be positive"
    assert str(refused(ReadConfig(recency_days=-5.0))) == "recency_days: must be positive"
    short = ReadConfig(recency_days=0.5)
    assert short.checked() is short


def test_the_default_config_is_valid() -> None:
    cfg = ReadConfig()
    assert cfg.checked() is cfg


def test_with_returns_a_checked_changed_copy() -> None:
    base = ReadConfig()
    changed = base.with_(pool_recent=3, preference_limit=0)
    assert (changed.pool_recent, changed.preference_limit) == (3, 0)
    assert (base.pool_recent, base.preference_limit) == (30, 5)
    assert changed.rrf_k == base.rrf_k and changed.half_lives == base.half_lives
    assert base.with_() == base
    with pytest.raises(ValidationError) as e:
        base.with_(graph_candidates=-2)
    assert str(e.value) == "graph_candidates: must not be negative"


def test_half_life_by_type_else_the_default() -> None:
    cfg = ReadConfig()
    # The dispositional-memory design: preferences 120 days, decisions 90, corrections 60, errors
    # 30, notes 14.
    assert [cfg.half_life(t) for t in ("preference", "decision", "correction", "error",
                                       "note")] == [120.0, 90.0, 60.0, 30.0, 14.0]
    assert cfg.half_life("no-such-type") == 30.0
    own = ReadConfig(half_lives={"note": 3.0}, default_half_life=7.0)
    assert own.half_life("note") == 3.0
    assert own.half_life("preference") == 7.0


def test_channels_none_means_every_channel() -> None:
    assert parse_channels(None) is None
    assert parse_channels(list(CHANNELS)) is None
    assert parse_channels(("graph", "fts", "vector", "fts")) is None


def test_channels_come_back_in_canonical_order_without_repeats() -> None:
    assert parse_channels("graph") == ("graph",)
    assert parse_channels("GRAPH , fts") == ("fts", "graph")
    assert parse_channels(["vector", " Graph"]) == ("vector", "graph")
    assert parse_channels(("fts", "fts")) == ("fts",)
    assert parse_channels("fts,,vector,") == ("fts", "vector")


def test_an_unknown_channel_is_quoted_as_given() -> None:
    with pytest.raises(ValidationError) as e:
        parse_channels(["fts", " BM25 "])
    assert e.value.field == "channels"
    assert str(e.value) == "channels: unknown channel ' BM25 '; use fts, vector, graph"
