"""Stage 2 of the delta-memory design: measure the change between two memory sets.

Candidates are matched by (source, stable id or normalised-text hash), so the same text
surfacing from two sources counts once per source.  Attribution is the appendix's
accounting: a source's influence is its share of the summed absolute weighted-score
deltas of its candidates; the largest share is the primary cause.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from operator import attrgetter

from memdesk.core.delta.bias import build_search_bias
from memdesk.core.delta.contracts import (
    Attribution,
    CandidateDelta,
    ChangeType,
    Contribution,
    DeltaDiff,
    MemorySet,
    SearchBias,
    SourceDelta,
)
from memdesk.core.delta.decision import decide
from memdesk.core.delta.health import evaluate_health

EPS = 1e-12  # float noise from re-weighting must not read as a change

ADDED, REMOVED = ChangeType.ADDED, ChangeType.REMOVED
STRENGTHENED, WEAKENED, UNCHANGED = (
    ChangeType.STRENGTHENED, ChangeType.WEAKENED, ChangeType.UNCHANGED,
)


def _abs_delta(d: CandidateDelta) -> float:
    return abs(d.delta)


def candidate_deltas(before: list[Contribution], after: list[Contribution]) -> list[CandidateDelta]:
    """Deltas for every candidate in either set, largest absolute change first (ties keep
    the after set's order, then the removed ones in the before set's order)."""
    b_map = {(c.source, c.key): c for c in before}
    pop = b_map.pop
    out: list[CandidateDelta] = []
    append = out.append
    for a in after:
        b = pop((a.source, a.key), None)
        aw = a.weighted_score
        if b is None:
            append(CandidateDelta(a.key, a.source, a.text, 0.0, aw, aw, ADDED, None,
                                  a.source_weight, None, a.original_score))
            continue
        bw = b.weighted_score
        delta = aw - bw
        if delta > EPS:
            kind = STRENGTHENED
        elif delta < -EPS:
            kind = WEAKENED
        else:
            kind, delta = UNCHANGED, 0.0
        append(CandidateDelta(a.key, a.source, a.text, bw, aw, delta, kind, b.source_weight,
                              a.source_weight, b.original_score, a.original_score))
    for b in b_map.values():
        bw = b.weighted_score
        append(CandidateDelta(b.key, b.source, b.text, bw, 0.0, -bw, REMOVED,
                              b.source_weight, None, b.original_score, None))
    out.sort(key=_abs_delta, reverse=True)  # stable: equal changes keep their order
    return out


def source_deltas(before: MemorySet, after: MemorySet,
                  deltas: list[CandidateDelta]) -> list[SourceDelta]:
    counts: dict[str, dict[ChangeType, int]] = defaultdict(lambda: defaultdict(int))
    for d in deltas:
        counts[d.source][d.change_type] += 1
    b = {r.source: r for r in before.source_reports}
    a = {r.source: r for r in after.source_reports}
    out = []
    for name in sorted(set(b) | set(a) | set(counts)):
        bt = b[name].weighted_total if name in b else 0.0
        at = a[name].weighted_total if name in a else 0.0
        bs = b[name].share if name in b else 0.0
        as_ = a[name].share if name in a else 0.0
        if bt == 0 and at == 0 and name not in counts:
            continue
        c = counts[name]
        out.append(SourceDelta(name, bt, at, at - bt, bs, as_, c[ADDED], c[REMOVED],
                               c[STRENGTHENED], c[WEAKENED]))
    return out


def attribute(deltas: list[CandidateDelta]) -> Attribution:
    totals: dict[str, float] = defaultdict(float)
    for d in deltas:
        totals[d.source] += abs(d.delta)
    total = sum(totals.values())
    if total <= 0:
        return Attribution({}, None, None)
    influence = {s: v / total for s, v in sorted(totals.items())}
    cause = min(influence, key=lambda s: (-influence[s], s))
    # candidate_deltas() lists the largest absolute change first.
    top = deltas[0] if deltas and deltas[0].delta != 0 else max(deltas, key=_abs_delta)
    return Attribution(influence, cause, top.key)


_weighted = attrgetter("weighted_score")


def _top(items: list[Contribution]) -> tuple[str, str] | None:
    if not items:
        return None
    best = max(items, key=_weighted)
    return best.source, best.key


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic GC while tens of thousands of acyclic objects are created: the
    collections it would trigger re-scan every live object and doubled the diff's time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# A diff's bias until it is built (``_diff``): never returned.
_BIAS_PENDING = SearchBias((), (), (), (), "normal", False, False, "")


def diff(before: MemorySet, after: MemorySet, *, dominance_threshold: float = 0.6) -> DeltaDiff:
    """The full transition: deltas, attribution, health, decision and search bias."""
    with _no_gc():
        return _diff(before, after, dominance_threshold)


def _diff(before: MemorySet, after: MemorySet, dominance_threshold: float) -> DeltaDiff:
    deltas = candidate_deltas(before.contributions, after.contributions)
    sources = source_deltas(before, after, deltas)
    attribution = attribute(deltas)
    changed_dominant = before.dominant_source != after.dominant_source
    health = evaluate_health(before, after, deltas, changed_dominant, dominance_threshold)
    decision = decide(attribution.primary_cause_source, health, changed_dominant)
    result = DeltaDiff(
        before_id=before.id,
        after_id=after.id,
        before_dominant_source=before.dominant_source,
        after_dominant_source=after.dominant_source,
        changed_top_candidate=_top(before.contributions) != _top(after.contributions),
        changed_dominant_source=changed_dominant,
        aggregate_score_delta=after.aggregate_score - before.aggregate_score,
        candidate_deltas=deltas,
        source_deltas=sources,
        attribution=attribution,
        health=health,
        decision=decision,
        bias=_BIAS_PENDING,  # replaced just below: the bias reads the finished diff
    )
    result.bias = build_search_bias(after, result)
    return result
