"""Curation at its edges: the contradiction suggestion exactly at the write-phase design's 0.4
confidence threshold, ties in the suggestion, and the sweep's population estimate."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import contradictions as C
from memdesk.core.curation import sweep
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import MemoryRecord

T0 = datetime(2026, 3, 1)


def card(i: int, value: str, days: int, conf: float, type_: str = "fact") -> C.Card:
    rec = MemoryRecord(
        id=f"m{i}", user_id="u", text=value, type=type_, topic=None, importance=0.5,
        confidence=conf, source_session=None, created_at=T0 + timedelta(days=days),
        last_accessed=None, access_count=0, decay_score=None, superseded_by=None,
        embedding=None, entity="user", attribute="a", value=value, valid_until=None,
        layer=None, deleted_at=None, seq=i + 1,
    )
    return C.Card(rec, C.normalise(value), (rec,))


@pytest.mark.parametrize(("newest_conf", "older_conf", "winner", "hypothetical"), [
    (0.4, 0.9, "m1", False),  # at the threshold: not under it, the newer wins
    (0.3999, 0.9, "m0", True),  # just under: possibly hypothetical, the certain one wins
    (0.3, 0.4, "m0", True),  # the other exactly at the threshold counts as certain
    (0.3, 0.3999, "m1", False),  # both under: facts change, the newer wins
])
def test_suggestion_at_the_confidence_threshold(newest_conf: float, older_conf: float,
                                                winner: str, hypothetical: bool) -> None:
    s = C.suggest([card(0, "nurse", 0, older_conf), card(1, "doctor", 9, newest_conf)])
    assert s is not None
    assert s.winner_id == winner and s.disagree is True
    assert ("under the 0.4 confidence threshold" in s.reason) is hypothetical
    if not hypothetical:
        assert "facts change" in s.reason


def test_equal_confidence_is_agreement_and_the_newer_wins() -> None:
    s = C.suggest([card(0, "Acme", 0, 0.8), card(1, "Globex", 3, 0.8)])
    assert s is not None and (s.winner_id, s.disagree) == ("m1", False)
    assert "newest (2026-03-04)" in s.reason and "highest confidence (0.80)" in s.reason


def test_same_day_ties_go_to_the_more_confident() -> None:
    s = C.suggest([card(0, "Acme", 2, 0.9), card(1, "Globex", 2, 0.6)])
    assert s is not None and (s.winner_id, s.disagree) == ("m0", False)


def test_three_values_pick_the_newest_and_name_the_gap() -> None:
    s = C.suggest([card(0, "A", 0, 0.95), card(1, "B", 5, 0.5), card(2, "C", 9, 0.6)])
    assert s is not None and s.winner_id == "m2" and s.disagree
    assert "newest has confidence 0.60, “A” has 0.95" in s.reason


def test_a_correction_under_the_threshold_still_wins() -> None:
    s = C.suggest([card(0, "unittest", 0, 0.95, "preference"),
                   card(1, "pytest", 9, 0.1, "correction")])
    assert s is not None and s.winner_id == "m1" and "corrections override" in s.reason


def test_store_level_suggestion_at_the_threshold(store: MemoryStore) -> None:
    def add(value: str, days: int, conf: float) -> str:
        return store.add(user_id="u", text=f"u is a {value}", type="fact", entity="user",
                         attribute="job", value=value, confidence=conf,
                         created_at=T0 + timedelta(days=days)).id

    nurse = add("nurse", 0, 0.9)
    doctor = add("doctor", 9, 0.4)
    g = C.load_group(store, ("u", "user", "job"))
    assert g.suggestion is not None and g.suggestion.winner_id == doctor
    store.update(doctor, confidence=0.39)
    g = C.load_group(store, ("u", "user", "job"))
    assert g.suggestion is not None and g.suggestion.winner_id == nurse


# -- the sweep's population estimate ----------------------------------------------------------

def _rows(n: int, matching_every: int) -> list[dict]:
    """``n`` rows; every ``matching_every``-th is in the band (importance 0.4)."""
    return [dict(user_id="alice", text=f"memory {i}", type="note",
                 importance=0.4 if i % matching_every == 0 else 0.9,
                 created_at=T0 + timedelta(minutes=i)) for i in range(n)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rejection_population_estimate_is_unbiased_within_its_error(store: MemoryStore,
                                                                    seed: int) -> None:
    n, every = 3000, 4  # 750 rows match
    store.add_many(_rows(n, every), audit=False)
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 40, random.Random(seed), small_table=0)
    assert s.method == "rejection" and len(s.rows) == 40
    assert s.probes >= 64  # at least one batch was probed
    # hits ~ Binomial(probes, 1/4): the estimate's standard error is n·sqrt(p(1−p)/probes).
    true = n // every
    se = n * math.sqrt(0.25 * 0.75 / s.probes)
    assert abs(s.population - true) <= 4 * se, (s.population, true, se)


def test_population_is_exact_when_enumerated(store: MemoryStore) -> None:
    store.add_many(_rows(400, 5), audit=False)
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 7, random.Random(0))
    assert s.method == "enumeration" and s.population == 80 and len(s.rows) == 7
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 500, random.Random(0))
    assert s.population == 80 and len(s.rows) == 80  # fewer rows than asked: all of them


def test_population_of_an_empty_store(store: MemoryStore) -> None:
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 5, random.Random(0))
    assert (s.rows, s.population) == ((), 0)


def test_sweep_records_the_population(store: MemoryStore) -> None:
    store.add_many(_rows(60, 3), audit=False)
    state = sweep.start_sweep(store, band=(0.3, 0.49), n=5, seed=4)
    assert state.population == 20
    assert sweep.get_sweep(store, state.id).population == 20


def test_first_probe_batch_is_sized_from_a_half_hit_rate(store: MemoryStore) -> None:
    # Every row matches.  Before any probe the hit rate is estimated as (0+1)/(0+2) = 1/2,
    # so the first batch is 40 / (1/2) × 1.5 = 120 draws: more than the 64 minimum, and
    # all 40 rows are found in it.
    store.add_many(_rows(3000, 1), audit=False)
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 40, random.Random(3), small_table=0)
    assert s.method == "rejection" and len(set(s.rows)) == 40
    assert 64 < s.probes <= 120


def test_one_users_rows_are_enumerated_when_few(store: MemoryStore) -> None:
    rows = _rows(50, 5) + [dict(r, user_id="bob", text=f"bob {r['text']}") for r in _rows(30, 3)]
    store.add_many(rows, audit=False)
    with store.read() as conn:
        s = sweep.sample_band(conn, (0.3, 0.49), 4, random.Random(0), user="bob", small_table=0)
    assert (s.method, s.population, len(set(s.rows))) == ("enumeration", 10, 4)
    assert all(imp == 0.4 for _, imp in s.rows)
