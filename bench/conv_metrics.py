"""Figures of the conversational benchmark (bench/bench_conversations.py).

A system answers a question with a ranked list of results; each result maps to the
conversation turns it came from (a turn imported as a memory is one turn; an extracted
memory is the turn its job carried; a collapsed duplicate brings its twins' turns).
The ranking scored is the turns in that order, each counted once at its first place.

Per question: hit@5 / hit@10 (an evidence turn among the first 5 / 10 turns),
recall@10 (the share of evidence turns among the first 10: multi-hop questions have
two), MRR (1 / the place of the first evidence turn within 10) and the number of
results the system returned.  No-answer questions report only the results returned:
the fewer the better.  Means per category with numpy; no pooled figure across
categories (each asks something different).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# The per-category mean and the latency percentile are the recall benchmark's own.
from recall_metrics import percentile, summarise

__all__ = ["control_fails", "distinct", "percentile", "score", "summarise"]

K = 10


def distinct(turns: Iterable[str]) -> list[str]:
    """Turns in order of first appearance."""
    return list(dict.fromkeys(turns))


def score(cat: str, ranked: Sequence[str], evidence: Sequence[str],
          returned: int) -> dict[str, float]:
    """One question's figures; ``ranked`` the turns of the results, best first."""
    if cat == "no_answer":
        return {"returned": float(returned)}
    turns = distinct(ranked)
    want = set(evidence)
    first = next((i for i, t in enumerate(turns[:K], 1) if t in want), None)
    return {
        "hit@5": 1.0 if first is not None and first <= 5 else 0.0,
        "hit@10": 1.0 if first is not None else 0.0,
        "recall@10": len(want & set(turns[:K])) / len(want) if want else 0.0,
        "MRR": 1.0 / first if first is not None else 0.0,
        "returned": float(returned),
    }


def control_fails(table: dict[str, dict[str, dict[str, float]]], control: str = "shuffled",
                  margin: float = 0.2) -> list[str]:
    """Categories where the shuffled control's hit@10 is not at least ``margin`` below
    the best other system's: there the benchmark cannot tell a ranking from chance."""
    out = []
    cats = {c for name, v in table.items() if name != control for c in v}
    for cat in sorted(cats):
        others = [v[cat]["hit@10"] for name, v in table.items()
                  if name != control and "hit@10" in v.get(cat, {})]
        if not others or "hit@10" not in table.get(control, {}).get(cat, {}):
            continue
        best, shuffled = max(others), table[control][cat]["hit@10"]
        if shuffled > best - margin:
            out.append(f"{cat}: shuffled hit@10 {shuffled:.2f} vs best {best:.2f}")
    return out
