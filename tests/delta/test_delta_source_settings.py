"""Delta source configuration (core/delta/config.py): each bound of a source setting and
the exact message a refusal shows, what an edit logs, where an added source goes, the
settings' defaults and how a setting is stored.

Expected values come from the rules in config.py and taxonomy.py (weights in [0, 100],
counts non-negative integers, thresholds in [0, 1], names up to 100 and types up to 64
characters), worked out by hand."""

from __future__ import annotations

import math

import pytest
from sqlalchemy import delete, select

from memdesk.core.delta.config import (
    SET,
    SRC,
    add_source,
    check_source_fields,
    check_weight,
    load_config,
    normalized,
    set_setting,
    update_source,
)
from memdesk.core.delta.contracts import DeltaConfig, SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import NotFoundError, ValidationError

DEFAULTS = [
    SourceConfig("context", "context_memory", 0.30),
    SourceConfig("search", "search_memory", 0.25),
    SourceConfig("database", "database_memory", 0.25),
    SourceConfig("model_prior", "model_memory", 0.20),
]


def refusal(call, *args) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as e:
        call(*args)
    return e.value.field, str(e.value)


# -- check_weight -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "message"), [
    (True, "weight: must be a number >= 0, got True"),
    (False, "weight: must be a number >= 0, got False"),
    ("heavy", "weight: must be a number >= 0, got 'heavy'"),
    (None, "weight: must be a number >= 0, got None"),
    ([1], "weight: must be a number >= 0, got [1]"),
    (float("nan"), "weight: must be between 0 and 100, got nan"),
    (float("-inf"), "weight: must be between 0 and 100, got -inf"),
    (-0.001, "weight: must be between 0 and 100, got -0.001"),
    (100.001, "weight: must be between 0 and 100, got 100.001"),
])
def test_check_weight_refusals_name_weight_and_the_value(value: object, message: str) -> None:
    assert refusal(check_weight, value) == ("weight", message)


def test_check_weight_accepts_both_bounds_and_numeric_text() -> None:
    assert check_weight(0) == 0.0
    assert check_weight(100) == 100.0
    assert check_weight("2.5") == 2.5
    assert isinstance(check_weight(3), float)


# -- check_source_fields ------------------------------------------------------------------

def test_check_source_fields_returns_every_field_checked_and_converted() -> None:
    out = check_source_fields({"weight": "2", "enabled": False, "top_k": 0,
                               "confidence_threshold": 1, "source_type": "lens_memory"})
    assert out == {"weight": 2.0, "enabled": False, "top_k": 0,
                   "confidence_threshold": 1.0, "source_type": "lens_memory"}
    assert list(out) == ["weight", "enabled", "top_k", "confidence_threshold", "source_type"]
    assert check_source_fields({}) == {}
    assert check_source_fields({"enabled": True}) == {"enabled": True}


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"enabled": "yes"}, "enabled", "enabled: must be true or false, got 'yes'"),
    ({"enabled": 1}, "enabled", "enabled: must be true or false, got 1"),
    ({"enabled": None}, "enabled", "enabled: must be true or false, got None"),
    ({"top_k": -1}, "top_k", "top_k: must be a non-negative integer, got -1"),
    ({"top_k": 2.0}, "top_k", "top_k: must be a non-negative integer, got 2.0"),
    ({"confidence_threshold": 1.5}, "confidence_threshold",
     "confidence_threshold: must be in [0, 1], got 1.5"),
    ({"confidence_threshold": -0.1}, "confidence_threshold",
     "confidence_threshold: must be in [0, 1], got -0.1"),
    ({"source_type": ""}, "source_type", "source_type: must not be empty"),
    ({"source_type": "   "}, "source_type", "source_type: must not be empty"),
    ({"source_type": None}, "source_type", "source_type: must not be empty"),
    ({"source_type": "t" * 65}, "source_type",
     "source_type: is 65 characters; the limit is 64"),
    ({"source_type": 7}, "source_type", "source_type: must be text, got int"),
    ({"weight": -1}, "weight", "weight: must be between 0 and 100, got -1"),
    ({"name": "x"}, "name", "name: is not a source setting"),
])
def test_check_source_fields_refusals(fields: dict, field: str, message: str) -> None:
    assert refusal(check_source_fields, fields) == (field, message)


def test_a_source_type_of_exactly_64_characters_is_kept() -> None:
    assert check_source_fields({"source_type": "t" * 64}) == {"source_type": "t" * 64}


# -- load_config and the settings ----------------------------------------------------------

def test_load_config_reads_the_seeded_sources_in_order_with_their_types(store) -> None:  # type: ignore[no-untyped-def]
    with store.read() as conn:
        cfg = load_config(conn)
    assert list(cfg.sources) == DEFAULTS
    assert cfg.normalize_weights is True and cfg.dominance_threshold == 0.6
    s = cfg.sources[0]
    assert (type(s.weight), type(s.enabled), type(s.top_k), type(s.confidence_threshold)) == (
        float, bool, int, float)


def test_load_config_falls_back_to_the_defaults_without_settings_rows(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SET))
        cfg = load_config(conn)
    assert cfg.normalize_weights is True
    assert cfg.dominance_threshold == 0.6


def test_set_setting_stores_text_and_load_config_reads_it_back(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        set_setting(conn, "normalize_weights", False)
        set_setting(conn, "dominance_threshold", 0.75)
        stored = dict(conn.execute(select(SET.c.key, SET.c.value)).all())
        cfg = load_config(conn)
    assert stored == {"normalize_weights": "false", "dominance_threshold": "0.75"}
    assert cfg.normalize_weights is False and cfg.dominance_threshold == 0.75
    with store.write() as conn:
        set_setting(conn, "normalize_weights", True)
        set_setting(conn, "dominance_threshold", 1)
        stored = dict(conn.execute(select(SET.c.key, SET.c.value)).all())
    assert stored == {"normalize_weights": "true", "dominance_threshold": "1.0"}


def test_set_setting_inserts_a_missing_row(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SET))
        set_setting(conn, "dominance_threshold", 0.5)
        set_setting(conn, "normalize_weights", False)
        rows = sorted(conn.execute(select(SET.c.key, SET.c.value)).all())
    assert rows == [("dominance_threshold", "0.5"), ("normalize_weights", "false")]


@pytest.mark.parametrize(("key", "value", "message"), [
    ("normalize_weights", "true", "normalize_weights: must be true or false"),
    ("normalize_weights", 1, "normalize_weights: must be true or false"),
    ("dominance_threshold", 1.5, "dominance_threshold: must be in [0, 1], got 1.5"),
    ("dominance_threshold", "x",
     "dominance_threshold: must be a number in [0, 1], got 'x'"),
    ("colour", "red", "colour: is not a delta-memory setting"),
])
def test_set_setting_refusals_change_nothing(store, key: str, value: object, message: str) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        assert refusal(set_setting, conn, key, value) == (key, message)
        stored = dict(conn.execute(select(SET.c.key, SET.c.value)).all())
    assert stored == {"normalize_weights": "true", "dominance_threshold": "0.6"}


# -- update_source ----------------------------------------------------------------------------

def test_update_source_logs_only_the_fields_that_changed(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    with store.write() as conn:
        assert update_source(conn, "search", {"weight": 0.25, "top_k": 4, "enabled": True},
                             "g1", action="tune", actor="agent", note="why") is True
    cfg = dm.config()
    assert cfg.source("search") == SourceConfig("search", "search_memory", 0.25, True, 4, 0.0)
    [ev] = dm.events()
    assert (ev.kind, ev.target, ev.action, ev.actor, ev.group_id, ev.note) == (
        "source", "search", "tune", "agent", "g1", "why")
    assert (ev.before, ev.after) == ({"top_k": 10}, {"top_k": 4})
    assert ev.undoes is None and ev.undone_by is None


def test_update_source_with_nothing_new_logs_nothing(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        assert update_source(conn, "search", {"weight": 0.25, "enabled": True}, "g1") is False
    assert DeltaMemory(store).events() == []


def test_update_source_defaults_to_an_operator_edit(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        update_source(conn, "context", {"confidence_threshold": 0.5}, "g2")
    [ev] = DeltaMemory(store).events()
    assert (ev.action, ev.actor, ev.note) == ("edit", "operator", None)
    assert (ev.before, ev.after) == ({"confidence_threshold": 0.0}, {"confidence_threshold": 0.5})


def test_update_source_of_an_unknown_name_says_which(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn, pytest.raises(NotFoundError) as e:
        update_source(conn, "nope", {"weight": 1}, "g")
    assert str(e.value) == "No memory source 'nope'"


def test_set_source_reports_what_changed(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.set_source("search", weight=0.5, actor="agent", note="more search")
    assert ch.sources == ("search",) and ch.group_id is not None
    [ev] = dm.events()
    assert (ev.group_id, ev.actor, ev.note, ev.action) == (ch.group_id, "agent", "more search",
                                                           "edit")
    same = dm.set_source("search", weight=0.5)
    assert same.group_id is None and same.sources == ("search",)
    assert not same.kinds and ch.kinds
    assert len(dm.events()) == 1


# -- add_source -------------------------------------------------------------------------------

def test_add_source_appends_it_last_with_every_field(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.add_source(SourceConfig("web", "web_memory", 2.0, True, 7, 0.25), actor="agent")
    assert ch.sources == ("web",) and ch.group_id is not None
    cfg = dm.config()
    assert list(cfg.sources) == [*DEFAULTS, SourceConfig("web", "web_memory", 2.0, True, 7, 0.25)]
    with store.read() as conn:
        positions = dict(conn.execute(select(SRC.c.name, SRC.c.position)).all())
    assert positions["web"] == max(v for k, v in positions.items() if k != "web") + 1
    [ev] = dm.events()
    assert (ev.kind, ev.target, ev.action, ev.actor, ev.group_id) == (
        "source", "web", "add", "agent", ch.group_id)
    assert ev.before == {"weight": 0.0, "enabled": False}
    assert ev.after == {"weight": 2.0, "enabled": True}


def test_undoing_an_addition_leaves_a_disabled_source_of_weight_zero(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.add_source(SourceConfig("web", "web_memory", 2.0, True, 7, 0.25))
    dm.undo(ch.group_id)
    assert dm.config().source("web") == SourceConfig("web", "web_memory", 0.0, False, 7, 0.25)


def test_add_source_into_an_empty_table_gets_position_zero(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SRC))
        add_source(conn, SourceConfig("only", "t", 1.0), "g")
        assert conn.execute(select(SRC.c.position)).scalar_one() == 0
        add_source(conn, SourceConfig("second", "t", 1.0), "g")
        assert conn.execute(
            select(SRC.c.position).where(SRC.c.name == "second")).scalar_one() == 1


def test_a_source_added_disabled_keeps_its_weight_off(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.add_source(SourceConfig("web", "t", 0.0, False))
    assert dm.config().source("web") == SourceConfig("web", "t", 0.0, False)
    assert dm.events() == []  # nothing to switch on: weight 0, disabled as inserted


@pytest.mark.parametrize(("source", "field", "message"), [
    (SourceConfig("", "t", 1.0), "name", "name: must not be empty"),
    (SourceConfig("   ", "t", 1.0), "name", "name: must not be empty"),
    (SourceConfig("n" * 101, "t", 1.0), "name", "name: is 101 characters; the limit is 100"),
    (SourceConfig("web", "", 1.0), "source_type", "source_type: must not be empty"),
    (SourceConfig("web", "t", 101.0), "weight", "weight: must be between 0 and 100, got 101.0"),
    (SourceConfig("web", "t", 1.0, "on"), "enabled",  # type: ignore[arg-type]
     "enabled: must be true or false, got 'on'"),
    (SourceConfig("web", "t", 1.0, True, -1), "top_k",
     "top_k: must be a non-negative integer, got -1"),
    (SourceConfig("web", "t", 1.0, True, 10, 2.0), "confidence_threshold",
     "confidence_threshold: must be in [0, 1], got 2.0"),
    (SourceConfig("search", "t", 1.0), "name", "name: a source named 'search' exists already"),
])
def test_add_source_refusals_add_nothing(store, source: SourceConfig, field: str,  # type: ignore[no-untyped-def]
                                         message: str) -> None:
    with store.write() as conn:
        assert refusal(add_source, conn, source, "g") == (field, message)
    assert list(DeltaMemory(store).config().sources) == DEFAULTS


def test_a_name_of_exactly_100_characters_is_accepted(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.add_source(SourceConfig("n" * 100, "t", 1.0))
    assert dm.config().source("n" * 100) == SourceConfig("n" * 100, "t", 1.0)


# -- normalized -----------------------------------------------------------------------------

def test_normalized_scales_enabled_sources_only() -> None:
    cfg = DeltaConfig((SourceConfig("a", "t", 3.0), SourceConfig("b", "t", 1.0),
                       SourceConfig("off", "t", 4.0, enabled=False)))
    assert normalized(cfg) == {"a": 0.75, "b": 0.25}


def test_normalize_weights_persists_each_enabled_weight_as_one_group(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("context", weight=0.6)  # total 0.6 + 0.25 + 0.25 + 0.20 = 1.3
    dm.set_source("model_prior", enabled=False)  # total 1.1
    ch = dm.normalize_weights(actor="agent")
    assert ch.sources == ("context", "search", "database")
    w = {s.name: s.weight for s in dm.config().sources}
    assert math.isclose(w["context"], 0.6 / 1.1)
    assert math.isclose(w["search"], 0.25 / 1.1)
    assert math.isclose(w["database"], 0.25 / 1.1)
    assert w["model_prior"] == 0.20
    evs = [e for e in dm.events() if e.group_id == ch.group_id]
    assert sorted(e.target for e in evs) == ["context", "database", "search"]
    assert {(e.action, e.actor) for e in evs} == {("normalize", "agent")}

