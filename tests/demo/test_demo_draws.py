"""The demo's draws, seen in the rows it generates: the crowded 0.30–0.49 importance band
(the revaluation-sweep design's 56.7 %), a few low-confidence rows, sessions named by
user, day and quarter of the day, one more user per 2,000 rows past the eight, random
128-bit ids, and times that span the period up to its end."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from memdesk.core import demo

END = datetime(2026, 11, 1)


@pytest.fixture(scope="module")
def rows() -> list:  # type: ignore[type-arg]
    return list(demo.DemoGenerator(7, END).rows(6000))


def test_importances_crowd_the_low_band(rows) -> None:  # type: ignore[no-untyped-def]
    n = len(rows)
    band = sum(0.30 <= r.importance <= 0.49 for r in rows) / n
    assert 0.50 < band < 0.62
    assert all(0.0 <= r.importance <= 1.0 for r in rows)
    assert sum(r.importance < 0.30 for r in rows) / n > 0.08  # some trivia
    assert sum(r.importance >= 0.80 for r in rows) / n > 0.06  # some that matter a lot
    assert all(round(r.importance, 2) == r.importance for r in rows)


def test_a_few_rows_have_low_confidence(rows) -> None:  # type: ignore[no-untyped-def]
    low = sum(r.confidence < 0.4 for r in rows) / len(rows)
    assert 0.04 < low < 0.12
    assert all(0.1 <= r.confidence <= 0.98 for r in rows)


def test_a_session_is_the_users_day_and_quarter_of_the_day(rows) -> None:  # type: ignore[no-untyped-def]
    for r in rows[60:]:  # after the scenarios (a scenario's rows share its session)
        assert r.source_session == (f"{r.user_id}-{r.created_at:%Y%m%d}-"
                                    f"{r.created_at.hour // 6}")
    assert len({r.source_session for r in rows}) > 500


def test_users_grow_by_one_per_2000_rows_beyond_the_eight() -> None:
    def users(size: int) -> list[str]:
        return list(dict.fromkeys(r.user_id for r in demo.DemoGenerator(3, END).rows(size)))

    assert sorted(users(3000)) == sorted(demo.USERS)
    grown = users(22_000)
    assert set(grown) == {*demo.USERS, "user-00000", "user-00001", "user-00002"}


def test_ids_are_random_128_bit_hex_and_never_repeat(rows) -> None:  # type: ignore[no-untyped-def]
    ids = [r.id for r in rows]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert demo.DemoGenerator(7, END).rows(1).__next__().id != \
        demo.DemoGenerator(8, END).rows(1).__next__().id


def test_times_span_the_period_up_to_the_end(rows) -> None:  # type: ignore[no-untyped-def]
    created = [r.created_at for r in rows]
    assert max(created) <= END and min(created) >= END - timedelta(days=180)
    assert max(created) - min(created) > timedelta(days=170)
    for r in rows:
        if r.last_accessed is not None:
            assert r.created_at <= r.last_accessed <= END and r.access_count >= 1
    gen = demo.DemoGenerator(7, END, days=2)
    short = list(gen.rows(500))
    # The scenario (the first rows) and its users' conversations (episodes and the
    # agent's turn held for review, the last rows) keep their own dates; the body fills
    # the short period.
    assert all(END - timedelta(days=2) <= r.created_at <= END for r in short[60:]
               if r.type != "episode" and r.id not in gen.held)


def test_end_defaults_to_today_midnight() -> None:
    g = demo.DemoGenerator(7)
    today = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    assert g.end in (today, today + timedelta(days=1), today - timedelta(days=1))
    assert (g.end.hour, g.end.minute, g.end.second, g.end.microsecond) == (0, 0, 0, 0)
    assert g.days == 180
