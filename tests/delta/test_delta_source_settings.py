"""Delta source configuration through ``DeltaMemory``: each bound of a source setting and
the exact message a refusal shows, what an edit logs, where an added source goes, the
settings' defaults and how a setting is stored.

Expected values come from the rules in config.py and taxonomy.py (weights in [0, 100],
counts non-negative integers, thresholds in [0, 1], names up to 100 and types up to 64
characters), worked out by hand."""

from __future__ import annotations

import math

import pytest
from sqlalchemy import delete, select

from memdesk.core.delta.config import SET, SRC
from memdesk.core.delta.contracts import SourceConfig
from memdesk.core.delta.service import DeltaMemory
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store.records import Changed

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
def test_weight_refusals_name_weight_and_the_value(store, value: object,  # type: ignore[no-untyped-def]
                                                   message: str) -> None:
    dm = DeltaMemory(store)
    assert refusal(lambda v: dm.set_source("search", weight=v), value) == ("weight", message)
    assert list(dm.config().sources) == DEFAULTS


def test_a_weight_accepts_both_bounds_and_numeric_text(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)

    def weight_after(value: object) -> float:
        dm.set_source("search", weight=value)
        src = dm.config().source("search")
        assert src is not None
        return src.weight

    assert weight_after(0) == 0.0
    assert weight_after(100) == 100.0
    assert weight_after("2.5") == 2.5
    assert isinstance(weight_after(3), float)


# -- check_source_fields ------------------------------------------------------------------

def test_a_source_edit_checks_and_converts_every_field(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("search", weight="2", enabled=False, top_k=0, confidence_threshold=1,
                  source_type="lens_memory")
    src = dm.config().source("search")
    assert src == SourceConfig("search", "lens_memory", 2.0, False, 0, 1.0)
    assert (type(src.weight), type(src.top_k), type(src.confidence_threshold)) == (
        float, int, float)
    assert not dm.set_source("search").kinds  # nothing asked, nothing changed


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
    ({"position": 3}, "position", "position: is not a source setting"),
])
def test_source_edit_refusals_change_nothing(store, fields: dict, field: str,  # type: ignore[no-untyped-def]
                                             message: str) -> None:
    dm = DeltaMemory(store)
    assert refusal(lambda f: dm.set_source("search", **f), fields) == (field, message)
    assert list(dm.config().sources) == DEFAULTS and dm.events() == []


def test_a_source_type_of_exactly_64_characters_is_kept(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("search", source_type="t" * 64)
    src = dm.config().source("search")
    assert src is not None and src.source_type == "t" * 64


# -- load_config and the settings ----------------------------------------------------------

def test_load_config_reads_the_seeded_sources_in_order_with_their_types(store) -> None:  # type: ignore[no-untyped-def]
    cfg = DeltaMemory(store).config()
    assert list(cfg.sources) == DEFAULTS
    assert cfg.normalize_weights is True and cfg.dominance_threshold == 0.6
    s = cfg.sources[0]
    assert (type(s.weight), type(s.enabled), type(s.top_k), type(s.confidence_threshold)) == (
        float, bool, int, float)


def test_load_config_falls_back_to_the_defaults_without_settings_rows(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SET))
    cfg = DeltaMemory(store).config()
    assert cfg.normalize_weights is True
    assert cfg.dominance_threshold == 0.6


def test_a_setting_reads_back(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    assert dm.set_setting("normalize_weights", False).kinds == Changed.SETTINGS
    dm.set_setting("dominance_threshold", 0.75)
    cfg = dm.config()
    assert cfg.normalize_weights is False and cfg.dominance_threshold == 0.75
    dm.set_setting("normalize_weights", True)
    dm.set_setting("dominance_threshold", 1)
    cfg = dm.config()
    assert cfg.normalize_weights is True and cfg.dominance_threshold == 1.0
    assert isinstance(cfg.dominance_threshold, float)


def test_a_setting_without_its_row_is_stored_again(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SET))
    dm = DeltaMemory(store)
    dm.set_setting("dominance_threshold", 0.5)
    dm.set_setting("normalize_weights", False)
    cfg = dm.config()
    assert (cfg.dominance_threshold, cfg.normalize_weights) == (0.5, False)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("normalize_weights", "true", "normalize_weights: must be true or false"),
    ("normalize_weights", 1, "normalize_weights: must be true or false"),
    ("dominance_threshold", 1.5, "dominance_threshold: must be in [0, 1], got 1.5"),
    ("dominance_threshold", "x",
     "dominance_threshold: must be a number in [0, 1], got 'x'"),
    ("colour", "red", "colour: is not a delta-memory setting"),
])
def test_set_setting_refusals_change_nothing(store, key: str, value: object, message: str) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    assert refusal(dm.set_setting, key, value) == (key, message)
    cfg = dm.config()
    assert (cfg.normalize_weights, cfg.dominance_threshold) == (True, 0.6)


# -- update_source ----------------------------------------------------------------------------

def test_a_source_edit_logs_only_the_fields_that_changed(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    ch = dm.set_source("search", weight=0.25, top_k=4, enabled=True, actor="agent",
                       note="why")
    cfg = dm.config()
    assert cfg.source("search") == SourceConfig("search", "search_memory", 0.25, True, 4, 0.0)
    [ev] = dm.events()
    assert (ev.kind, ev.target, ev.action, ev.actor, ev.group_id, ev.note) == (
        "source", "search", "edit", "agent", ch.group_id, "why")
    assert (ev.before, ev.after) == ({"top_k": 10}, {"top_k": 4})
    assert ev.undoes is None and ev.undone_by is None


def test_a_source_edit_with_nothing_new_logs_nothing(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    assert dm.set_source("search", weight=0.25, enabled=True).group_id is None
    assert dm.events() == []


def test_a_source_edit_defaults_to_the_operator(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.set_source("context", confidence_threshold=0.5)
    [ev] = dm.events()
    assert (ev.action, ev.actor, ev.note) == ("edit", "operator", None)
    assert (ev.before, ev.after) == ({"confidence_threshold": 0.0}, {"confidence_threshold": 0.5})


def test_an_edit_of_an_unknown_source_says_which(store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as e:
        DeltaMemory(store).set_source("nope", weight=1)
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


def test_sources_added_to_an_empty_list_keep_their_order(store) -> None:  # type: ignore[no-untyped-def]
    with store.write() as conn:
        conn.execute(delete(SRC))
    dm = DeltaMemory(store)
    dm.add_source(SourceConfig("only", "t", 1.0))
    dm.add_source(SourceConfig("second", "t", 1.0))
    assert [s.name for s in dm.config().sources] == ["only", "second"]


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
    assert refusal(DeltaMemory(store).add_source, source) == (field, message)
    assert list(DeltaMemory(store).config().sources) == DEFAULTS


def test_a_name_of_exactly_100_characters_is_accepted(store) -> None:  # type: ignore[no-untyped-def]
    dm = DeltaMemory(store)
    dm.add_source(SourceConfig("n" * 100, "t", 1.0))
    assert dm.config().source("n" * 100) == SourceConfig("n" * 100, "t", 1.0)


# -- normalized -----------------------------------------------------------------------------

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

