"""Decay's formulas, both the numpy form and the set-based SQL UPDATE, by hand arithmetic.

core/read/decay.py: recency ``1 / (1 + days / 30)``; retention ``2 ** (-days / h)`` with
``h = half_life(type) * (1 + r * ln(1 + access_count))``, days counted from the last
retrieval else creation, never negative; a stored score within 0.001 of the new one is
not rewritten.
"""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import update

from memdesk.core.read import decay
from memdesk.core.read.config import ReadConfig
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from tests.helpers.read import NOW, put

CFG = ReadConfig()
M = Memory.__table__.c


def test_recency_is_one_over_one_plus_days_over_thirty() -> None:
    got = decay.recency(np.array([0.0, 30.0, 60.0, 15.0, -5.0]), CFG)
    assert got.tolist() == pytest.approx([1.0, 0.5, 1 / 3, 1 / 1.5, 1.0])
    ten = decay.recency(np.array([30.0]), CFG.with_(recency_days=10.0))
    assert ten.tolist() == pytest.approx([0.25])


def test_retention_per_type_half_life_default_and_clamps() -> None:
    got = decay.retention(["note", "preference", "unknown", "error", "note"],
                          np.array([14.0, 120.0, 30.0, 60.0, -3.0]),
                          np.array([0, 0, 0, -4, 0]), CFG)
    assert got.tolist() == pytest.approx([0.5, 0.5, 0.5, 0.25, 1.0])


def test_retention_grows_the_half_life_with_use() -> None:
    got = decay.retention(["note", "decision"], np.array([14.0, 90.0]), np.array([9, 1]), CFG)
    assert got.tolist() == pytest.approx([
        2 ** (-14 / (14 * (1 + 0.5 * math.log(10)))),
        2 ** (-90 / (90 * (1 + 0.5 * math.log(2)))),
    ])
    strong = decay.retention(["note"], np.array([14.0]), np.array([9]),
                             CFG.with_(reinforcement=2.0))
    assert strong.tolist() == pytest.approx([2 ** (-1 / (1 + 2 * math.log(10)))])
    custom = decay.retention(["zzz"], np.array([10.0]), np.array([0]),
                             CFG.with_(default_half_life=5.0))
    assert custom.tolist() == pytest.approx([0.25])


def test_days_between_in_fractional_days_none_is_zero() -> None:
    got = decay.days_between(NOW, [NOW - timedelta(days=1, hours=12), None,
                                   NOW + timedelta(days=1), NOW])
    assert got.tolist() == pytest.approx([1.5, 0.0, -1.0, 0.0])
    assert got.dtype == np.float64
    assert decay.days_between(NOW, []).tolist() == []


def scores(store: MemoryStore, ids: list[str]) -> list[float | None]:
    return [store.get(i).decay_score for i in ids]


def test_apply_decay_counts_from_the_last_retrieval_and_reinforces(store: MemoryStore) -> None:
    ids = put(store, [
        {"type": "note", "text": "Fourteen days, never recalled.", "days_ago": 14},
        {"type": "note", "text": "Old, recalled seven days ago.", "days_ago": 100},
        {"type": "note", "text": "Recalled nine times.", "days_ago": 14},
        {"type": "preference", "text": "Half a day old.", "days_ago": 0.5},
        {"type": "note", "text": "Written in the future.", "days_ago": -5},
        {"type": "fact", "text": "Two fact half-lives.", "days_ago": 180},
    ], embed=False)
    with store.write() as conn:
        conn.execute(update(Memory.__table__).where(M.id == ids[1])
                     .values(last_accessed=NOW - timedelta(days=7)))
        conn.execute(update(Memory.__table__).where(M.id == ids[2]).values(access_count=9))
        n = decay.apply_decay(conn, NOW, CFG)
    assert n == 6
    assert scores(store, ids) == pytest.approx([
        0.5,
        2 ** (-7 / 14),
        2 ** (-14 / (14 * (1 + 0.5 * math.log(10)))),
        2 ** (-0.5 / 120),
        1.0,
        0.25,
    ])


def test_apply_decay_with_no_per_type_half_lives_and_own_reinforcement(
    store: MemoryStore,
) -> None:
    ids = put(store, [{"type": "note", "text": "Twenty days.", "days_ago": 20},
                      {"type": "preference", "text": "Forty days.", "days_ago": 40}],
              embed=False)
    with store.write() as conn:
        conn.execute(update(Memory.__table__).where(M.id == ids[1]).values(access_count=3))
        cfg = ReadConfig(half_lives={}, default_half_life=20.0, reinforcement=1.0)
        assert decay.apply_decay(conn, NOW, cfg) == 2
    assert scores(store, ids) == pytest.approx([0.5, 2 ** (-40 / (20 * (1 + math.log(4))))])


def test_apply_decay_rewrites_only_scores_that_moved_more_than_the_tolerance(
    store: MemoryStore,
) -> None:
    # Tolerance 0.001: of 0.5005, 0.4996 and 0.502, only the last is rewritten to 0.5.
    ids = put(store, [{"type": "note", "text": f"Note {i}.", "days_ago": 14} for i in range(3)],
              embed=False)
    with store.write() as conn:
        for i, stored in zip(ids, (0.5005, 0.4996, 0.502), strict=True):
            conn.execute(update(Memory.__table__).where(M.id == i).values(decay_score=stored))
        assert decay.apply_decay(conn, NOW, CFG) == 1
    assert scores(store, ids) == pytest.approx([0.5005, 0.4996, 0.5])
    with store.write() as conn:
        assert decay.apply_decay(conn, NOW, CFG) == 0


def test_apply_decay_skips_inactive_memories(store: MemoryStore) -> None:
    ids = put(store, [{"text": "Old.", "days_ago": 14}, {"text": "New.", "days_ago": 1}],
              embed=False)
    store.supersede(ids[0], ids[1])
    store.soft_delete(ids[1])
    with store.write() as conn:
        assert decay.apply_decay(conn, NOW, CFG) == 0
    assert scores(store, ids) == [None, None]
