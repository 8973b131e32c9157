"""Ranking metrics for bench/bench_recall.py (binary relevance, cut-off k = 10).

Each function scores one query's ranking (a list of memory ids, best first) against
its answers; :func:`summarise` averages them per category with numpy.  No pooled
number across categories: each category asks something different of a system.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

K = 10


def recall_at(ranked: Sequence[str], answers: Sequence[str], k: int = K) -> float:
    """Share of the answers among the first ``k`` (1.0 for a query without answers)."""
    if not answers:
        return 1.0
    top = set(ranked[:k])
    return sum(a in top for a in answers) / len(answers)


def reciprocal_rank(ranked: Sequence[str], answers: Sequence[str], k: int = K) -> float:
    """1 / rank of the first answer within the first ``k``; 0 when none is there."""
    want = set(answers)
    for i, mid in enumerate(ranked[:k], 1):
        if mid in want:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[str], answers: Sequence[str], k: int = K) -> float:
    """Normalised discounted cumulative gain, binary gains: DCG / ideal DCG."""
    want = set(answers)
    if not want:
        return 1.0
    gains = np.array([1.0 if mid in want else 0.0 for mid in ranked[:k]])
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = float(gains @ discounts[: len(gains)]) if len(gains) else 0.0
    ideal = float(discounts[: min(len(want), k)].sum())
    return dcg / ideal


def stale_at(ranked: Sequence[str], stale: Sequence[str], k: int = K) -> float:
    """1.0 when any superseded memory is among the first ``k``, else 0.0."""
    top = set(ranked[:k])
    return 1.0 if any(s in top for s in stale) else 0.0


@dataclass
class Outcome:
    """What one system returned for one query."""

    ranked: list[str]
    injected: list[str] = field(default_factory=list)
    ms: float = 0.0


def score(cat: str, out: Outcome, answers: Sequence[str],
          stale: Sequence[str] = ()) -> dict[str, float]:
    """The figures a category reports for one query."""
    m: dict[str, float] = {}
    if cat == "no_answer":
        m["returned"] = float(len(out.ranked))
        m["injected"] = float(len(out.injected))
        return m
    m["recall@10"] = recall_at(out.ranked, answers)
    m["MRR"] = reciprocal_rank(out.ranked, answers)
    m["nDCG@10"] = ndcg_at(out.ranked, answers)
    if cat == "superseded":
        m["stale@10"] = stale_at(out.ranked, stale)
    if cat == "preference":
        shown = set(out.ranked[:K]) | set(out.injected)
        m["hit_or_injected"] = 1.0 if any(a in shown for a in answers) else 0.0
    return m


def summarise(rows: list[dict[str, float]]) -> dict[str, float]:
    """Mean of every figure over a category's queries."""
    if not rows:
        return {}
    keys = list(rows[0])
    arr = np.array([[r[k] for k in keys] for r in rows], dtype=np.float64)
    return dict(zip(keys, arr.mean(axis=0).tolist(), strict=True))


def percentile(ms: Sequence[float], p: float) -> float:
    return float(np.percentile(np.asarray(ms, dtype=np.float64), p)) if len(ms) else float("nan")


def paired_ci(a: Sequence[float], b: Sequence[float], reps: int = 10_000,
              seed: int = 3) -> tuple[float, float, float]:
    """Mean of ``a - b`` over the same queries and its 95 % bootstrap interval.

    Queries are resampled in pairs, so an interval that excludes 0 says the two
    systems differ on this set beyond what the choice of queries explains.
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if not len(d):
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(reps, len(d)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(d.mean()), float(lo), float(hi)
