"""Every generated demo row tells a consistent story: its type, topic and triple fit
together, a user never says the same thing twice except where a duplicate is planted,
each question is answered once (then changed, contradicted once, or said again on
purpose), a correction supersedes what it corrects when linked, the attribute names are
the offline extractor's, and a store holds exactly the rows asked for."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta

import pytest

from memdesk.core import demo
from memdesk.core.write.cardinality import multi_valued
from memdesk.core.write.duplicates import normalise_text

END = datetime(2026, 11, 1)
SCENARIO_ROWS = 60  # the eight users' hand-shaped cases come first


@pytest.fixture(scope="module")
def gen_rows() -> tuple[demo.DemoGenerator, list]:  # type: ignore[type-arg]
    g = demo.DemoGenerator(7, END)
    return g, list(g.rows(8000))


def test_types_topics_and_triples_fit_together(gen_rows) -> None:  # type: ignore[no-untyped-def]
    _g, rows = gen_rows
    for r in rows:
        triple = (r.entity, r.attribute, r.value)
        assert all(triple) or not any(triple), (r.text, triple)
        if r.type in ("decision", "procedure", "error", "reasoning", "note"):
            assert not any(triple), r.text
        if r.type in ("preference", "correction"):
            assert r.attribute and r.attribute.startswith("prefers_"), r.attribute
        assert r.topic in demo.TOPICS
    assert {r.topic for r in rows} == set(demo.TOPICS)
    # corrections come from the questions' stories, episodes from the conversations
    assert {r.type for r in rows} == set(demo.TYPE_WEIGHTS) | {"correction", "episode"}


def test_a_user_never_repeats_a_text_except_the_planted_duplicates(gen_rows) -> None:  # type: ignore[no-untyped-def]
    g, rows = gen_rows
    said: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        said[(r.user_id, normalise_text(r.text))].append(r.id)
    repeated = {frozenset(ids) for ids in said.values() if len(ids) > 1}
    planted = {frozenset(c) for c in g.duplicates}
    assert repeated and repeated <= planted  # every repeat was planted
    # Some planted duplicates are reworded, not respelt: only vectors find those.
    assert len(planted) > len(repeated)
    # And the texts are many: no sentence said ten times over.
    assert len({r.text for r in rows}) > 0.6 * len(rows)


def test_each_question_is_answered_once_unless_its_story_says_more(gen_rows) -> None:  # type: ignore[no-untyped-def]
    g, rows = gen_rows
    planted = {i for c in g.duplicates for i in c}
    stated: dict[tuple, list] = defaultdict(list)  # type: ignore[type-arg]
    for r in rows[SCENARIO_ROWS:]:
        if r.attribute and r.type != "correction" and not multi_valued(r.attribute):
            stated[(r.user_id, r.entity, r.attribute)].append(r)
    assert len(stated) > 300
    stories = Counter()
    for key, rs in stated.items():
        assert len(rs) <= 2, (key, [r.text for r in rs])
        if len(rs) == 2:
            same = rs[0].value == rs[1].value
            stories["duplicate" if same else "changed or stray"] += 1
            if same:
                assert {r.id for r in rs} <= planted
    # A few answers change or get a wrong statement; a few are said twice.
    assert 0.05 < stories["changed or stray"] / len(stated) < 0.2
    assert 0.02 < stories["duplicate"] / len(stated) < 0.1


def test_several_valued_attributes_hold_several_values(gen_rows) -> None:  # type: ignore[no-untyped-def]
    _g, rows = gen_rows
    speaks: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r.attribute == "speaks":
            speaks[r.user_id].add(r.value)
    assert any(len(v) >= 2 for v in speaks.values())


def test_corrections_name_both_values_and_supersede_when_linked(gen_rows) -> None:  # type: ignore[no-untyped-def]
    _g, rows = gen_rows
    by_id = {r.id: r for r in rows}
    body = rows[SCENARIO_ROWS:]
    corrections = [r for r in body if r.type == "correction"]
    assert corrections
    linked = {r.superseded_by for r in rows if r.superseded_by}
    for c in corrections:
        assert c.value in c.text and c.entity == "user"
        assert END - timedelta(days=12) <= c.created_at <= END - timedelta(days=1)
        old = [r for r in body if r.type == "preference" and
               (r.user_id, r.attribute) == (c.user_id, c.attribute)]
        assert old and all(o.created_at < c.created_at and o.value != c.value for o in old)
        assert all(o.value in c.text for o in old)
        if c.id in linked:
            assert all(o.superseded_by == c.id and o.valid_until == c.created_at for o in old)
        else:
            assert all(o.superseded_by is None for o in old)
    assert all(by_id[r.superseded_by].type == "correction" for r in rows if r.superseded_by)
    assert 0 < sum(c.id in linked for c in corrections) < len(corrections) or \
        len(corrections) < 3


@pytest.mark.parametrize(("seed", "size"), [(7, 61), (7, 62), (7, 333), (7, 1000), (3, 2500)])
def test_a_store_holds_exactly_the_rows_asked_for(seed: int, size: int) -> None:
    """A story's extra rows are planned only when they still fit: no size is overshot."""
    g = demo.DemoGenerator(seed, END)
    rows = list(g.rows(size))
    assert len(rows) == size and g.extra == []
    ids = {r.id for r in rows}
    assert len(ids) == size
    assert all(r.superseded_by in ids for r in rows if r.superseded_by)
    assert all(set(c) <= ids for c in g.duplicates)
