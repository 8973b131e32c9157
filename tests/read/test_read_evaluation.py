"""The dispositional evaluation's plumbing: the exact refusal of an unknown category,
progress counted over every trial, and a fresh, separate store per trial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.read import evaluation as ev

FIXTURES = Path(__file__).parents[1] / "data" / "dispositional"


def test_an_unknown_category_is_refused_by_file_and_name(tmp_path: Path) -> None:
    fx = {"id": "Z1", "query": "q", "memories": [{"key": "a", "text": "t"}], "expect": ["a"]}
    (tmp_path / "x.json").write_text(json.dumps({"category": "bogus", "fixtures": [fx]}))
    with pytest.raises(ValidationError) as e:
        ev.load_fixtures(tmp_path)
    assert e.value.field == "fixtures"
    assert str(e.value) == "fixtures: x.json: unknown category 'bogus'"


def test_progress_counts_every_trial_of_every_fixture() -> None:
    fixtures = ev.load_fixtures(FIXTURES)[:2]
    seen: list[tuple[int, int]] = []
    result = ev.run(fixtures, trials=2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert [len(c.trials) for c in result.cases] == [2, 2]


def test_each_trial_gets_its_own_empty_store() -> None:
    stores = ev._Stores()
    try:
        first = stores.fresh()
        first.add(user_id="u", text="only in the first store", type="note")
        second = stores.fresh()
        try:
            assert second.count() == 0 and first.count() == 1
            assert stores.n == 2
        finally:
            second.close()
            first.close()
    finally:
        stores.cleanup()
