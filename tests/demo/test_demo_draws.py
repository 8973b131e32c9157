"""The demo's draws at their thresholds: with the RNG's uniform draws scripted, each rule
of core/demo.py is checked at the value where it switches (56 % of importances in the
crowded 0.30-0.49 band, 8 % low-confidence rows, 8 % of answers changing late with a
correction 60 % of which are linked, 8 % with one stray mention)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from memdesk.core import demo

END = datetime(2026, 11, 1)


class Scripted(random.Random):
    """A seeded RNG whose ``random()`` returns the scripted values first (``uniform``
    is ``a + (b - a) * random()``); every other draw is the seeded stream's."""

    def __init__(self, script: list[float]) -> None:
        super().__init__(1)
        self.script = list(script)

    def random(self) -> float:
        return self.script.pop(0) if self.script else super().random()

    def getrandbits(self, k: int) -> int:
        # Defined so that choice() and randrange() keep drawing bits, not random().
        return super().getrandbits(k)


def gen(*script: float, days: int = 180) -> demo.DemoGenerator:
    g = demo.DemoGenerator(1, END, days=days)
    g.rng = Scripted(list(script))
    return g


@pytest.mark.parametrize(("r", "u", "want"), [
    (0.0, 0.0, 0.30), (0.5599, 0.0, 0.30), (0.5599, 1.0, 0.49), (0.0, 0.1, 0.32),
    (0.56, 0.0, 0.50), (0.7599, 1.0, 0.79), (0.56, 0.5, 0.65),
    (0.76, 0.0, 0.80), (0.8599, 1.0, 1.00), (0.76, 0.25, 0.85), (0.76, 0.123, 0.82),
    (0.86, 0.0, 0.05), (0.99, 1.0, 0.29), (0.86, 0.5, 0.17), (0.86, 0.321, 0.13),
])
def test_importance_bands(r: float, u: float, want: float) -> None:
    g = gen(r, u)
    assert g._importance() == want
    assert g.rng.script == []  # exactly two draws


@pytest.mark.parametrize(("r", "u", "want"), [
    (0.0, 0.0, 0.1), (0.0799, 1.0, 0.39), (0.0, 0.5, 0.25), (0.0, 0.111, 0.13),
    (0.08, 0.0, 0.6), (0.99, 1.0, 0.98), (0.5, 0.5, 0.79), (0.5, 0.123, 0.65),
])
def test_confidence_bands(r: float, u: float, want: float) -> None:
    g = gen(r, u)
    assert g._confidence() == want
    assert g.rng.script == []


@pytest.mark.parametrize(("when", "want"), [
    (datetime(2026, 3, 9, 0, 0), "erin-20260309-0"),
    (datetime(2026, 3, 9, 5, 59), "erin-20260309-0"),
    (datetime(2026, 3, 9, 6, 0), "erin-20260309-1"),
    (datetime(2026, 3, 9, 11, 59), "erin-20260309-1"),
    (datetime(2026, 3, 9, 12, 0), "erin-20260309-2"),
    (datetime(2026, 3, 9, 18, 0), "erin-20260309-3"),
    (datetime(2026, 12, 31, 23, 59), "erin-20261231-3"),
])
def test_session_is_user_day_and_quarter_of_the_day(when: datetime, want: str) -> None:
    assert gen()._session("erin", when) == want


def test_users_grow_by_one_per_2000_rows_beyond_the_eight() -> None:
    g = gen()
    assert g._users(0) == demo.USERS
    assert g._users(17_999) == demo.USERS  # 17999 // 2000 = 8: no extra
    assert g._users(18_000) == [*demo.USERS, "user-00000"]
    assert g._users(22_000) == [*demo.USERS, "user-00000", "user-00001", "user-00002"]
    assert len(g._users(1_000_000)) == 500
    assert g._users(1_000_000)[-1] == "user-00491"


class Bits(random.Random):
    def getrandbits(self, k: int) -> int:
        return (1 << k) - 1  # all ones: the width shows in the text

    def randrange(self, *args, **kw):  # type: ignore[no-untyped-def]
        self.last = args
        return args[0] - 1 if len(args) == 1 else args[1] - 1


def test_ids_are_128_random_bits_in_32_hex_digits() -> None:
    g = gen()
    g.rng = Bits()
    assert g._id() == "f" * 32
    g.rng = random.Random(0)
    ids = {g._id() for _ in range(200)}
    assert len(ids) == 200 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_when_spans_the_period_up_to_the_end() -> None:
    g = gen(days=3)
    g.rng = Bits()
    # The largest draw is one second short of three days back.
    assert g._when() == END - timedelta(seconds=3 * 86400 - 1)
    assert g.rng.last == (3 * 86400,)
    g = demo.DemoGenerator(2, END, days=2)
    whens = [g._when() for _ in range(500)]
    assert all(END - timedelta(days=2) < w <= END for w in whens)
    assert min(whens) < END - timedelta(days=1.5) and max(whens) > END - timedelta(days=0.5)


def test_end_defaults_to_today_midnight() -> None:
    from memdesk.core.store.memory_store import utcnow

    g = demo.DemoGenerator(1)
    today = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
    assert g.end in (today, today + timedelta(days=1))  # a run across midnight
    assert (g.end.hour, g.end.minute, g.end.second, g.end.microsecond) == (0, 0, 0, 0)
    assert g.days == 180


KEY = ("alice", "user", "indentation")
OPTS = ("spaces", "tabs")


def test_a_late_change_with_a_linked_correction() -> None:
    # r just under 0.08 changes; days = 1 + 11 * 0.5; the correction's scores are the
    # bottom and top of their ranges; 0.5999 < 0.6 links it.
    g = gen(0.0799, 0.5, 0.0, 1.0, 0.5999)
    g.room = 3
    fact = g._plan(KEY, OPTS, "indentation")
    assert fact.old in OPTS and fact.new in OPTS and fact.new != fact.old
    assert fact.changed_at == END - timedelta(days=6.5)
    assert fact.stray is None
    [row] = g.extra
    assert row.text == f"No, I use {fact.new} not {fact.old} for indentation."
    assert (row.type, row.topic, row.importance, row.confidence) == (
        "correction", "tech", 0.6, 0.98)
    assert (row.user_id, row.entity, row.attribute, row.value) == (
        "alice", "user", "indentation", fact.new)
    assert row.created_at == fact.changed_at
    assert row.source_session == "alice-20261025-2"  # 2026-10-25 12:00
    assert row.layer == "episodic"
    assert fact.correction_id == row.id
    assert isinstance(row.id, str) and len(row.id) == 32 and int(row.id, 16) >= 0
    assert g.room == 2
    assert g.facts[KEY] is fact


def test_an_unlinked_correction_at_the_link_threshold() -> None:
    g = gen(0.0, 0.0, 0.123, 0.4, 0.6)
    g.room = 1
    fact = g._plan(KEY, OPTS, "indentation")
    assert fact.changed_at == END - timedelta(days=1)
    assert fact.correction_id is None
    [row] = g.extra
    assert (row.importance, row.confidence) == (0.64, 0.9)  # 0.6+0.35*0.123, 0.85+0.13*0.4
    assert g.room == 0


def test_a_change_of_the_last_days_is_at_most_twelve_days_back() -> None:
    g = gen(0.0, 1.0)
    fact = g._plan(("bob", "atlas", "primary_database"), demo.PRIMARY_DBS, None)
    assert fact.changed_at == END - timedelta(days=12)
    # A fact (no ``about``) changes without a correction and without needing room.
    assert g.extra == [] and g.room == 0 and fact.correction_id is None
    assert fact.new in demo.PRIMARY_DBS and fact.new != fact.old


def test_no_room_means_no_correction_and_the_answer_gets_a_stray_instead() -> None:
    g = gen(0.01)
    g.room = 0
    fact = g._plan(KEY, OPTS, "indentation")
    assert fact.new is None and fact.changed_at is None and g.extra == []
    assert fact.stray == ({"spaces", "tabs"} - {fact.old}).pop()


@pytest.mark.parametrize(("r", "stray"), [(0.08, True), (0.1599, True), (0.16, False),
                                          (0.9, False)])
def test_stray_band_follows_the_change_band(r: float, stray: bool) -> None:
    g = gen(r)
    g.room = 5
    fact = g._plan(KEY, OPTS, "indentation")
    assert fact.new is None and fact.changed_at is None and g.extra == [] and g.room == 5
    assert (fact.stray is not None) is stray
    if stray:
        assert fact.stray != fact.old and fact.stray in OPTS


def test_a_stray_is_stated_once_by_the_second_mention() -> None:
    g = gen(0.1)
    when = END - timedelta(days=30)
    first, fact = g._mention(KEY, OPTS, when, "indentation")
    assert first == fact.old and fact.stray not in (None, fact.old)
    stray = fact.stray
    assert g._mention(KEY, OPTS, when) == (stray, fact)
    assert fact.stray is None
    assert g._mention(KEY, OPTS, when)[0] == fact.old
    assert g._mention(KEY, OPTS, END)[0] == fact.old


def test_mentions_state_the_new_answer_from_the_change_on() -> None:
    g = gen(0.0, 0.5, 0.5, 0.5, 0.9)
    g.room = 1
    changed = END - timedelta(days=6.5)
    before, fact = g._mention(KEY, OPTS, changed - timedelta(seconds=1), "indentation")
    assert before == fact.old
    assert g._mention(KEY, OPTS, changed)[0] == fact.new
    assert g._mention(KEY, OPTS, END)[0] == fact.new
    assert g._mention(KEY, OPTS, changed - timedelta(days=3))[0] == fact.old
    assert len(g.extra) == 1  # planned once: later mentions do not plan again


def test_content_branches_at_their_thresholds() -> None:
    when = END - timedelta(days=40)
    assert gen(0.0999)._content("preference", "gus", when) == (
        "Prefer simplicity over cleverness, even when it costs performance.",
        "work", "user", "design_value", "simplicity", None)
    text, topic, ent, attr, val, fact = gen(0.1, 0.9)._content("preference", "gus", when)
    sentence, _about, options = demo.PREFERENCES[attr]
    assert (text, topic, ent, val) == (sentence.format(v=fact.old), "tech", "user", fact.old)
    assert val in options
    text, topic, *rest = gen(0.3499)._content("note", "gus", when)
    assert text in demo.CONTEMPLATIVE and topic == "personal" and rest == [None] * 4
    text, topic, *rest = gen(0.35)._content("note", "gus", when)
    assert text.startswith("Noted that the ") and text.endswith(" slipped a week.")
    assert topic in demo.TOPICS and rest == [None] * 4


class Opt(Scripted):
    """``randrange`` returns the scripted ``opts`` first (the fact kind's 0, 1 or 2)."""

    def __init__(self, *opts: int) -> None:
        super().__init__([0.9] * 10)  # no change, no stray: every mention states ``old``
        self.opts = list(opts)

    def randrange(self, *args, **kw):  # type: ignore[no-untyped-def]
        return self.opts.pop(0) if self.opts else super().randrange(*args, **kw)


def test_a_fact_is_an_employer_a_city_or_a_projects_database() -> None:
    when = END - timedelta(days=40)
    g = gen()
    g.rng = Opt(0, 1, 2, 2)
    text, topic, ent, attr, val, fact = g._content("fact", "gus", when)
    assert val in demo.COMPANIES and fact is g.facts[("gus", "user", "works_at")]
    assert (text, topic, ent, attr, val) == (f"User works at {val}.", "work", "user",
                                             "works_at", fact.old)
    text, topic, ent, attr, val, fact = g._content("fact", "gus", when)
    assert val in demo.CITIES and fact is g.facts[("gus", "user", "lives_in")]
    assert (text, topic, ent, attr, val) == (f"User lives in {val}.", "personal", "user",
                                             "lives_in", fact.old)
    text, topic, proj, attr, val, fact = g._content("fact", "gus", when)
    assert proj in demo.PROJECTS and val in demo.PRIMARY_DBS
    assert fact is g.facts[("gus", proj, "primary_database")]
    assert (topic, attr, val) == ("tech", "primary_database", fact.old)
    assert text.startswith(f"{proj} keeps its data in {val} (noted during the ")
    # Another user's project is a question of its own, with its own answer.
    _text, _topic, other_proj, _attr, _val, other = g._content("fact", "hana", when)
    assert other is g.facts[("hana", other_proj, "primary_database")] and other is not fact
