"""When a turn's event happened: relative times resolved against the session's time
(memdesk.core.write.when), and the bad cases said rather than guessed."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from memdesk.core.write.when import EventDate, Prefer, episode_dates, resolve_event_date

# A Wednesday afternoon; "now" is later, so the session time is in the past.
SAID = datetime(2026, 11, 25, 15, 0)
NOW = datetime(2026, 11, 29, 8, 0)


def when(text: str, said_at: datetime | None = SAID, prefer: Prefer | None = None
         ) -> EventDate:
    """The reading; a test that expects none checks ``resolve_event_date`` itself."""
    got = resolve_event_date(text, said_at, prefer=prefer, now=NOW)
    assert got is not None, f"no time read in {text!r}"
    return got


@pytest.mark.parametrize(("text", "start", "end", "granularity", "phrase"), [
    ("I went to a LGBTQ support group yesterday and it was so powerful.",
     date(2026, 11, 24), date(2026, 11, 24), "day", "yesterday"),
    ("I ran a charity race for mental health last Saturday.",
     date(2026, 11, 21), date(2026, 11, 21), "day", "last Saturday"),
    ("We adopted a puppy two weeks ago.", date(2026, 11, 9), date(2026, 11, 15), "week",
     "two weeks ago"),
    ("We're moving to Denver next month.", date(2026, 12, 1), date(2026, 12, 31), "month",
     "next month"),
    ("That trip was in 2022.", date(2022, 1, 1), date(2022, 12, 31), "year", "in 2022"),
    ("I've been painting for 7 years.", date(2019, 11, 25), date(2026, 11, 25), "year",
     "for 7 years"),
    ("We got married on March 3rd, 2021.", date(2021, 3, 3), date(2021, 3, 3), "day",
     "on March 3rd, 2021"),
    ("She visited in May.", date(2026, 5, 1), date(2026, 5, 31), "month", "in May"),
])
def test_relative_and_absolute_times_resolve_against_the_session(
        text: str, start: date, end: date, granularity: str, phrase: str) -> None:
    got = when(text)
    assert got is not None
    assert (got.start, got.end, got.granularity, got.phrase) == (start, end, granularity, phrase)


def test_the_dates_read_in_words_for_a_memory() -> None:
    assert when("I ran a race last Saturday.").describe() == "on 21 November 2026"
    assert when("It was in 2022.").describe() == "in 2022"
    assert when("We move next month.").describe() == "in December 2026"
    assert when("We adopted a puppy two weeks ago.").describe() == "in the week of 9 November 2026"


def test_without_a_session_time_a_relative_phrase_is_kept_as_said() -> None:
    got = when("I ran a charity race last Saturday.", None)
    assert got is not None and got.start is None and got.end is None
    assert got.phrase == "last Saturday"
    assert "no session time" in (got.note or "")
    assert "no session time" in (when("I've been painting for 7 years.", None).note or "")


def test_without_a_session_time_an_absolute_date_still_resolves() -> None:
    got = when("We got married on March 3rd, 2021.", None)
    assert got is not None and got.start == date(2021, 3, 3) and got.note is None
    assert when("That was in 2022.", None).start == date(2022, 1, 1)


def test_a_date_nothing_can_read_gives_nothing() -> None:
    assert resolve_event_date("It happened on the 45th of Smarch.", SAID, now=NOW) is None
    assert resolve_event_date("the 45th of Smarch", None, now=NOW) is None


@pytest.mark.parametrize("text", [
    "I love it here.", "I may go to the gym.", "We should talk.", "I was 7 years old then.",
    "I go swimming every Monday.", "I have 2 kids and 3 cats.", "",
])
def test_no_time_is_read_into_words_that_are_not_times(text: str) -> None:
    got = resolve_event_date(text, SAID, now=NOW)
    assert got is None or got.start is None


def test_a_session_time_in_the_future_is_used_and_said() -> None:
    future = NOW + timedelta(days=400)
    got = when("I went there yesterday.", future)
    assert got is not None and got.start == (future - timedelta(days=1)).date()
    assert "later than now" in (got.note or "")


def test_an_aware_session_time_is_read_in_its_own_zone() -> None:
    got = when("I went there yesterday.", datetime(2026, 11, 25, 23, 30, tzinfo=UTC))
    assert got is not None and got.start == date(2026, 11, 24)


@pytest.mark.parametrize(("text", "says"), [
    ("I met her on 03/04/2021.", "month/day or day/month"),
    ("On Saturday we went hiking.", "names no week"),
    ("Next Friday we fly out.", "this coming one or the one after"),
    ("I moved here in 2019 and started a job last month.", "several times"),
])
def test_ambiguous_phrases_are_resolved_with_a_note(text: str, says: str) -> None:
    got = when(text)
    assert got is not None and got.start is not None
    assert says in (got.note or "")


def test_a_vague_phrase_is_kept_without_dates() -> None:
    got = when("We went camping last summer.")
    assert got is not None and got.start is None and "too vague" in (got.note or "")


def test_a_plan_reads_a_bare_weekday_forward() -> None:
    assert when("I'm flying out on Saturday.", prefer="future").start == date(2026, 11, 28)
    assert when("I flew out on Saturday.").start == date(2026, 11, 21)


def test_the_answer_is_plain_json() -> None:
    got = when("I ran a race last Saturday.")
    assert got is not None
    assert got.to_json() == {"start": "2026-11-21", "end": "2026-11-21", "granularity": "day",
                             "phrase": "last Saturday", "note": None}


@pytest.mark.parametrize(("said", "text", "start", "end"), [
    (SAID, "I ran a bake sale last weekend.", date(2026, 11, 21), date(2026, 11, 22)),
    (SAID, "We're away this weekend.", date(2026, 11, 28), date(2026, 11, 29)),
    (datetime(2026, 11, 28, 10), "We're away this weekend.", date(2026, 11, 28),
     date(2026, 11, 29)),
    (datetime(2026, 11, 29, 10), "I ran a bake sale last weekend.", date(2026, 11, 21),
     date(2026, 11, 22)),
])
def test_a_weekend_is_its_saturday_and_sunday(said: datetime, text: str, start: date,
                                              end: date) -> None:
    got = when(text, said)
    assert (got.start, got.end) == (start, end)
    assert got.describe().startswith("the weekend of")


def test_a_word_that_is_also_a_month_is_not_one() -> None:
    got = when("I went to a protest march on Saturday with friends.")
    assert (got.phrase, got.start) == ("on Saturday", date(2026, 11, 21))
    assert when("We got engaged in 2021 in Lisbon.").phrase == "in 2021"


def test_an_episode_gets_a_date_or_the_reason_it_has_none() -> None:
    got, why = episode_dates("I ran a race last Saturday.", SAID)
    assert got is not None and got.start == date(2026, 11, 21) and why is None
    got, why = episode_dates("I ran a race last Saturday.", None)
    assert got is None and "no session time" in (why or "")
    assert episode_dates("Nice weather.", SAID) == (None, None)


def test_a_weekend_just_past_is_read_back_for_what_happened_and_ahead_for_a_plan() -> None:
    monday = datetime(2026, 11, 23, 9)
    done = when("Over the weekend we repainted the nursery.", monday, prefer="past")
    assert (done.start, done.end) == (date(2026, 11, 21), date(2026, 11, 22))
    plan = when("We're repainting the nursery over the weekend.", monday, prefer="future")
    assert (plan.start, plan.end) == (date(2026, 11, 28), date(2026, 11, 29))


def test_a_year_followed_by_a_place_is_still_the_year() -> None:
    got = when("We got married in 2015 in a tiny chapel.")
    assert (got.phrase, got.start, got.granularity) == ("in 2015", date(2015, 1, 1), "year")
