"""core/curation/sampling: the band and n checks, the choice between enumeration and
rejection sampling at its thresholds, and the rejection loop's probe sizing and
population estimate, made deterministic by a random source that probes seqs in order."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from memdesk.core.curation import sampling as sp
from memdesk.core.errors import ValidationError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import active_belief_state

T0 = datetime(2026, 6, 1)


class InOrder(random.Random):
    """randrange(a, b) gives a, a+1, ... (wrapping at b): probes every seq in order."""

    def __init__(self) -> None:
        super().__init__(0)
        self.k = 0

    def randrange(self, start, stop=None, step=1):  # type: ignore[override]
        v = start + self.k % (stop - start)
        self.k += 1
        return v


def _row(i: int, **kw) -> dict:
    base = dict(user_id="alice", text=f"memory {i}", type="note", importance=0.4,
                created_at=T0 + timedelta(minutes=i), valid_until=None, deleted_at=None)
    base.update(kw)
    return base


def test_constants() -> None:
    assert (sp.MAX_N, sp.PROBE_BUDGET, sp.PROBE_CHUNK, sp.ENUMERATE_MAX, sp.SMALL_TABLE) == (
        1000, 20_000, 5_000, 50_000, 5_000)


# -- checks ---------------------------------------------------------------------------


@pytest.mark.parametrize(("band", "want"), [
    ((0.3, 0.49), (0.3, 0.49)), ([0, 1], (0.0, 1.0)), ((0.5, 0.5), (0.5, 0.5)),
    (("0.1", "0.2"), (0.1, 0.2)),
])
def test_check_band_accepts(band, want) -> None:
    assert sp.check_band(band) == want


@pytest.mark.parametrize(("band", "message"), [
    ((0.1,), "band: expected two numbers (low, high)"),
    ((0.1, 0.2, 0.3), "band: expected two numbers (low, high)"),
    (5, "band: expected two numbers (low, high)"),
    (None, "band: expected two numbers (low, high)"),
    ((0.6, 0.2), "band: low (0.6) is above high (0.2)"),
    ((0.5, 0.49), "band: low (0.5) is above high (0.49)"),
    ((-0.1, 0.2), "band: must be in [0, 1], got -0.1"),
    ((0.1, 1.5), "band: must be in [0, 1], got 1.5"),
])
def test_check_band_refuses(band, message: str) -> None:
    with pytest.raises(ValidationError) as err:
        sp.check_band(band)
    assert (err.value.field, str(err.value)) == ("band", message)
    assert err.value.__suppress_context__ or err.value.__context__ is None


@pytest.mark.parametrize("n", [1, 2, 999, 1000])
def test_check_n_accepts(n: int) -> None:
    assert sp.check_n(n) == n


@pytest.mark.parametrize("n", [0, -1, 1001, True, False, 2.5, 5.0, "3", None])
def test_check_n_refuses(n) -> None:
    with pytest.raises(ValidationError) as err:
        sp.check_n(n)
    assert (err.value.field, str(err.value)) == (
        "n", f"n: must be a whole number from 1 to 1000, got {n!r}")


def test_planner_safe_active_only_rewords_for_sqlite() -> None:
    assert str(sp.planner_safe_active("postgresql")) == str(active_belief_state())
    assert str(sp.planner_safe_active("sqlite")) == (
        "memories.valid_until IS NULL AND +memories.superseded_by IS NULL "
        "AND +memories.deleted_at IS NULL AND +memories.quarantined_at IS NULL "
        "AND +memories.archived_at IS NULL AND +memories.framing IS NULL")


# -- which path -----------------------------------------------------------------------


def test_empty_store_gives_an_empty_enumeration(store: MemoryStore) -> None:
    with store.read() as conn:
        s = sp.sample_band(conn, (0.0, 1.0), 5, random.Random(1))
    assert s == sp.Sample((), "enumeration", 0, 0)


@pytest.fixture
def alternating(store: MemoryStore) -> tuple[MemoryStore, list[str], int]:
    """300 rows; the even ones (0, 2, ...) in band 0.3–0.49, the odd ones at 0.9."""
    ids = store.add_many([_row(i, importance=0.4 if i % 2 == 0 else 0.9) for i in range(300)],
                         audit=False)
    seqs = sorted(r.seq for r in store.get_many(ids))
    assert seqs == list(range(seqs[0], seqs[0] + 300))
    return store, ids, seqs[0]


def _sample(store: MemoryStore, n: int, rng: random.Random | None = None, **kw) -> sp.Sample:
    with store.read() as conn:
        return sp.sample_band(conn, (0.3, 0.49), n, rng or InOrder(), **kw)


@pytest.mark.parametrize(("small", "method"), [(300, "enumeration"), (299, "rejection")])
def test_tables_up_to_small_table_seqs_are_enumerated(alternating, small, method) -> None:
    store, _, _ = alternating
    s = _sample(store, 5, small_table=small)
    assert s.method == method
    assert len(s.rows) == 5 and all(imp == 0.4 for _, imp in s.rows)


def test_enumeration_counts_the_band_and_draws_from_it(alternating) -> None:
    store, ids, _ = alternating
    s = _sample(store, 1000, random.Random(3))
    assert (s.method, s.population, s.probes) == ("enumeration", 150, 0)
    assert sorted(r[0] for r in s.rows) == sorted(ids[::2])
    s = _sample(store, 4, random.Random(3))
    assert len(s.rows) == 4 and len({r[0] for r in s.rows}) == 4
    assert {r[0] for r in s.rows} <= set(ids[::2])


def test_rejection_probes_64_then_accepts_in_probe_order(alternating) -> None:
    store, ids, _ = alternating
    s = _sample(store, 5, small_table=0)
    # First chunk: Laplace rate 1/2, need 5: max(64, ceil(5 / 0.5 * 1.5)) = 64 probes,
    # seqs 1..64 of which 32 match; the first five matches are rows 0, 2, 4, 6, 8.
    assert s.method == "rejection" and s.probes == 64
    assert s.rows == tuple((ids[i], 0.4) for i in (0, 2, 4, 6, 8))
    assert s.population == 150  # round(32 / 64 * 300)


def test_first_chunk_is_three_times_need_over_64(alternating) -> None:
    store, ids, _ = alternating
    s = _sample(store, 60, small_table=0)
    # need 60, rate 1/2: ceil(60 / 0.5 * 1.5) = 180 probes (over the floor of 64), 90 hits
    assert (s.method, s.probes, s.population) == ("rejection", 180, 150)
    assert s.rows == tuple((ids[i], 0.4) for i in range(0, 120, 2))


def test_rejection_sizes_the_second_chunk_from_the_rate_seen(store: MemoryStore) -> None:
    ids = store.add_many([_row(i, importance=0.4 if i % 4 == 0 else 0.9) for i in range(400)],
                         audit=False)
    s = _sample(store, 80, small_table=0)
    # Chunk 1: ceil(80 / 0.5 * 1.5) = 240 probes, 60 hits.  Chunk 2: need 20, rate
    # (60+1)/(240+2): ceil(20 * 242 / 61 * 1.5) = ceil(119.02) = 120 probes, 30 hits.
    # Estimate: round(90 / 360 * 400) = 100.
    assert (s.method, s.probes, s.population) == ("rejection", 360, 100)
    assert s.rows == tuple((ids[i], 0.4) for i in range(0, 320, 4))


def test_probe_budget_caps_the_chunk_then_enumerates(alternating) -> None:
    store, _, _ = alternating
    s = _sample(store, 60, small_table=0, probe_budget=100)
    # 64 + 36 probes find 50 < 60 matches: enumeration takes over.
    assert (s.method, s.population, s.probes) == ("enumeration", 150, 0)
    assert len(s.rows) == 60


def test_budget_exactly_enough(alternating) -> None:
    store, _, _ = alternating
    s = _sample(store, 50, small_table=0, probe_budget=100)
    assert (s.method, s.probes, len(s.rows)) == ("rejection", 100, 50)


def test_fewer_matches_than_n_fall_back_after_repeats(store: MemoryStore) -> None:
    ids = store.add_many([_row(i) for i in range(10)], audit=False)
    s = _sample(store, 20, small_table=0, probe_budget=500)
    assert (s.method, s.population) == ("enumeration", 10)
    assert sorted(r[0] for r in s.rows) == sorted(ids)


def test_rejection_population_scales_by_the_seq_span(store: MemoryStore) -> None:
    # Rows 0..99 in band, 100..399 not: the first 64 probes all hit.
    store.add_many([_row(i, importance=0.4 if i < 100 else 0.9) for i in range(400)],
                   audit=False)
    s = _sample(store, 3, small_table=0)
    assert (s.method, s.probes, s.population) == ("rejection", 64, 400)


def test_filters_apply_on_the_rejection_path(store: MemoryStore) -> None:
    ids = store.add_many(
        [_row(0, user_id="bob"), _row(1, type="fact"), _row(2, valid_until=T0),
         _row(3, deleted_at=T0), _row(4, importance=0.3), _row(5, importance=0.49),
         _row(6, importance=0.5), _row(7, importance=0.29)] + [_row(8 + i) for i in range(92)],
        audit=False)
    with store.read() as conn:
        s = sp.sample_band(conn, (0.3, 0.49), 3, InOrder(), type_="note", small_table=0)
    # rows 0 (bob) passes without a user filter; 1 fact, 2 expired, 3 deleted do not.
    assert [r[0] for r in s.rows] == [ids[0], ids[4], ids[5]]


def test_user_with_few_live_rows_is_enumerated(store: MemoryStore, monkeypatch) -> None:
    ids = store.add_many([_row(i, user_id="alice" if i < 3 else "bob") for i in range(100)]
                         + [_row(100, valid_until=T0)], audit=False)
    monkeypatch.setattr(sp, "ENUMERATE_MAX", 3)  # alice has 3 live rows (1 expired)
    s = _sample(store, 2, small_table=0, user="alice")
    assert (s.method, s.population) == ("enumeration", 3)
    assert {r[0] for r in s.rows} <= set(ids[:3])
    monkeypatch.setattr(sp, "ENUMERATE_MAX", 2)
    s = _sample(store, 2, small_table=0, user="alice")
    assert s.method == "rejection" and s.rows == ((ids[0], 0.4), (ids[1], 0.4))


def test_probe_chunk_caps_a_chunk(alternating, monkeypatch) -> None:
    store, ids, _ = alternating
    monkeypatch.setattr(sp, "PROBE_CHUNK", 40)
    s = _sample(store, 5, small_table=0)
    # The sized chunk would be 64 (as above); the cap makes it 40: seqs 1..40, 20 hits.
    assert (s.method, s.probes, s.population) == ("rejection", 40, 150)  # 20/40*300
    assert s.rows == tuple((ids[i], 0.4) for i in (0, 2, 4, 6, 8))


def test_n_zero_is_an_empty_sample_without_probes(alternating) -> None:
    store, _, _ = alternating
    s = _sample(store, 0, small_table=0)
    assert (s.rows, s.probes, s.population) == ((), 0, 0)
