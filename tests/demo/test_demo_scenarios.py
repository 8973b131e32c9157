"""The demo's hand-shaped scenarios, row by row: every demo store opens with the same
cases for each of the first eight users (a hypothetical taken as a fact, a linked
correction chain, a job change or a capitalised company, a city spelt two ways, hostile
markup), and the answers they set are the answers the generated body repeats."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memdesk.core import demo

END = datetime(2026, 11, 1)
SCENARIOS = 60  # 4 even users x 8 rows + 4 odd users x 7
HOSTILE = "Remember the tag <b>bold</b> and <img src=x> literally."


def _scenario_rows() -> list[demo._Row]:
    # 8 users: even ones have 8 scenario rows (job change), odd ones 7 (one capitalised
    # mention): 4 * 8 + 4 * 7 = 60.
    return list(demo.DemoGenerator(7, END).rows(60))


def _by_user(rows: list[demo._Row]) -> dict[str, list[demo._Row]]:
    out: dict[str, list[demo._Row]] = {}
    for r in rows:
        out.setdefault(r.user_id, []).append(r)
    return out


def _fields(r: demo._Row) -> tuple:
    return (r.text, r.type, r.topic, r.importance, r.confidence, r.source_session,
            r.created_at, r.entity, r.attribute, r.value)


def test_alice_scenario_rows_exactly() -> None:
    """User 0 (alice): base is 150 days before the end, 2026-06-04 00:00 (session "-0")."""
    rows = _by_user(_scenario_rows())["alice"]
    base = datetime(2026, 6, 4)
    sess = "alice-20260604-0"
    assert [_fields(r) for r in rows] == [
        ('User said: "I\'m actually a doctor, so walk me through the mechanism." '
         "(hypothetical framing)", "fact", "personal", 0.8, 0.15, sess, base,
         "user", "occupation", "doctor"),
        ("User prefers unittest for testing.", "preference", "tech", 0.6, 0.85, sess,
         base + timedelta(hours=1), "user", "prefers_test_framework", "unittest"),
        ("No, I use pytest not unittest.", "correction", "tech", 0.9, 0.95,
         "alice-20260616-0", datetime(2026, 6, 16), "user", "prefers_test_framework",
         "pytest"),
        ("User works at Acme Corp.", "fact", "work", 0.7, 0.9, sess,
         base + timedelta(hours=2), "user", "works_at", "Acme Corp"),
        ("User works at Globex now.", "fact", "work", 0.7, 0.8, "alice-20260714-0",
         datetime(2026, 7, 14), "user", "works_at", "Globex"),
        ("User lives in Lisbon.", "fact", "personal", 0.5, 0.9, sess,
         base + timedelta(hours=3), "user", "lives_in", "Lisbon"),
        ("User lives in  lisbon ", "fact", "personal", 0.4, 0.7, sess, datetime(2026, 6, 7),
         "user", "lives_in", " lisbon "),
        (HOSTILE, "note", "tech", 0.35, 0.9, sess, base + timedelta(hours=4),
         None, None, None),
    ]
    # The chain is linked: the old preference ends where the correction begins.
    old, new = rows[1], rows[2]
    assert (old.superseded_by, old.valid_until) == (new.id, new.created_at)
    assert all(r.superseded_by is None and r.valid_until is None
               for r in rows if r is not old)
    # Nothing is accessed yet, and every layer is the router's for its type.
    assert all(r.access_count == 0 and r.last_accessed is None for r in rows)
    assert [r.layer for r in rows] == ["semantic", "procedural", "episodic", "semantic",
                                      "semantic", "semantic", "semantic", "episodic"]


def test_bob_odd_user_has_one_capitalised_company_mention() -> None:
    """User 1 (bob): base is 143 days before the end (2026-06-11); an odd user's company
    is the next one, spelt in capitals, and no job change."""
    rows = _by_user(_scenario_rows())["bob"]
    sess = "bob-20260611-0"
    assert len(rows) == 7
    assert _fields(rows[0]) == (
        'User said: "What if I were a lawyer reviewing this contract?" (hypothetical framing)',
        "fact", "personal", 0.8, 0.18, sess, datetime(2026, 6, 11), "user", "occupation",
        "lawyer")
    assert _fields(rows[3]) == ("User works at INITECH.", "fact", "work", 0.7, 0.8, sess,
                                datetime(2026, 6, 11, 2), "user", "works_at", "INITECH")
    assert [r.text for r in rows[4:]] == ["User lives in Berlin.", "User lives in  berlin ",
                                          HOSTILE]
    assert rows[2].source_session == "bob-20260623-0"


@pytest.mark.parametrize("i", range(8))
def test_every_user_scenario_follows_the_rule(i: int) -> None:
    user = demo.USERS[i]
    rows = _by_user(_scenario_rows())[user]
    base = END - timedelta(days=150 - i * 7)
    hyp, attr, val = demo.HYPOTHETICALS[i % 5]
    assert rows[0].text == f'User said: "{hyp}" (hypothetical framing)'
    assert (rows[0].attribute, rows[0].value, rows[0].created_at) == (attr, val, base)
    # Low confidence, rising by 0.03 per user from 0.15; a supposition the extractor
    # framed as one ("What if…", "Imagine…") is kept as a hypothetical, at 0.3 at most.
    framed = hyp.startswith(("What if", "Imagine", "Pretending"))
    assert rows[0].framing == ("hypothetical" if framed else None)
    assert rows[0].confidence == min([0.15, 0.18, 0.21, 0.24, 0.27, 0.3, 0.33, 0.36][i],
                                     0.3 if framed else 1.0)
    c1, c2 = demo.COMPANIES[i % 6], demo.COMPANIES[(i + 1) % 6]
    works = [(r.text, r.value) for r in rows[1:] if r.attribute == "works_at"]
    if i % 2 == 0:
        assert works == [(f"User works at {c1}.", c1), (f"User works at {c2} now.", c2)]
        assert len(rows) == 8
    else:
        assert works == [(f"User works at {c2.upper()}.", c2.upper())]
        assert len(rows) == 7
    city = demo.CITIES[i % 7]
    assert [r.value for r in rows if r.attribute == "lives_in"] == [city, f" {city.lower()} "]


def test_scenarios_are_the_first_rows_and_a_short_store_holds_only_some() -> None:
    assert list(demo.DemoGenerator(7, END).rows(0)) == []
    five = [r.as_tuple() for r in demo.DemoGenerator(7, END).rows(5)]
    assert five == [r.as_tuple() for r in _scenario_rows()[:5]]
    assert [r[1] for r in five] == ["alice"] * 5
    sixty_one = list(demo.DemoGenerator(7, END).rows(61))
    assert [r.as_tuple() for r in sixty_one[:60]] == [r.as_tuple() for r in _scenario_rows()]
    # Scenario users in order, each block contiguous.
    order = [r.user_id for r in _scenario_rows()]
    assert list(dict.fromkeys(order)) == demo.USERS


def test_every_scenario_row_has_its_own_random_id() -> None:
    ids = [r.id for r in _scenario_rows()]
    assert len(set(ids)) == 60
    assert all(isinstance(i, str) and len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_the_body_never_restates_what_the_scenarios_settled() -> None:
    """The scenarios answer the test framework, the employer and the city for each of the
    eight users; the generated body asks those questions of nobody else and never again
    of them (a second statement would be a duplicate nobody planted)."""
    rows = list(demo.DemoGenerator(7, END).rows(3000))[SCENARIOS:]
    settled = {"prefers_test_framework", "works_at", "lives_in"}
    assert not [r.text for r in rows if r.user_id in demo.USERS and r.attribute in settled]
    assert any(r.attribute == "prefers_editor" for r in rows)  # other questions are asked


def test_only_the_first_eight_users_get_scenarios() -> None:
    """Big stores add users ("user-00000", ...); the hand-shaped cases stay the eight's."""
    rows = list(demo.DemoGenerator(7, END).rows(20_000))
    hypothetical = {r.user_id for r in rows if r.text.endswith("(hypothetical framing)")}
    assert hypothetical == set(demo.USERS)
    assert {r.user_id for r in rows} > set(demo.USERS)
    # The users past the eight answer the same questions in the body instead.
    assert any(r.user_id == "user-00000" and r.attribute == "works_at" for r in rows)
