"""The search-memory bridge of the delta-memory design: turn a memory state and its last change into
search guidance (SearchBias) without touching search internals.

Rules (the seed's, made explicit):

* rerun when health is dangerous or the decision is to investigate;
* stop when memory has stabilised: healthy, volatility ≤ 0.1 and drift ≤ 0.05;
* depth: deep when rerunning, shallow when stopping, normal otherwise;
* suppress the primary cause when the decision is dampen or reject;
* prefer sources whose weighted total grew (the cause only when the change was accepted),
  or, with no diff, the sources holding at least a fair share of the set;
* expand the query with frequent words of added/strengthened candidates from sources that
  are not suppressed; suppress words that only the suppressed source brought in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from memdesk.core.delta.contracts import (
    Action,
    ChangeType,
    DeltaDiff,
    HealthStatus,
    MemorySet,
    SearchBias,
)

STABLE_VOLATILITY = 0.1
STABLE_DRIFT = 0.05
MAX_TERMS = 5
MAX_GROWN = 200
_WORD = re.compile(r"[^\W\d_][\w'-]{3,}", re.UNICODE)
STOPWORDS = frozenset({
    "this", "that", "with", "from", "have", "should", "would", "could", "their", "there",
    "they", "them", "what", "when", "where", "which", "while", "about", "into", "than", "then",
    "also", "only", "just", "more", "most", "very", "your", "user", "users", "been", "being",
    "were", "will", "does", "uses", "used", "using", "prefers",
})


def _top(counts: Counter[str], n: int) -> list[str]:
    """The n most frequent words, ties alphabetical (Counter order depends on hashing)."""
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def _terms(texts: Iterable[str], exclude: set[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for t in texts:
        for w in {m.group(0).casefold() for m in _WORD.finditer(t)}:
            if w not in STOPWORDS and w not in exclude:
                counts[w] += 1
    return counts


def build_search_bias(
    memory_set: MemorySet, diff: DeltaDiff | None = None, query: str | None = None
) -> SearchBias:
    query_words = {w.casefold() for w in _WORD.findall(query or memory_set.query or "")}
    if diff is None:
        totals = memory_set.source_totals()
        fair = 1.0 / max(1, sum(1 for v in totals.values() if v > 0))
        preferred = tuple(
            r.source for r in sorted(memory_set.source_reports, key=lambda r: -r.share)
            if r.share >= fair and r.weighted_total > 0
        )
        texts = [c.text for c in sorted(memory_set.contributions,
                                        key=lambda c: -c.weighted_score)[:20]]
        expansions = tuple(_top(_terms(texts, query_words), MAX_TERMS))
        return SearchBias(preferred, (), expansions, (), "normal", False, False,
                          "no previous memory state to compare with")

    h, d = diff.health, diff.decision
    cause = diff.attribution.primary_cause_source
    rerun = h.status is HealthStatus.DANGEROUS or d.action is Action.INVESTIGATE
    stop = (not rerun and h.status is HealthStatus.HEALTHY
            and h.volatility_score <= STABLE_VOLATILITY and h.drift_score <= STABLE_DRIFT)
    suppressed: tuple[str, ...] = ()
    if cause and d.action in (Action.DAMPEN, Action.REJECT):
        suppressed = (cause,)
    preferred = tuple(
        s.source for s in sorted(diff.source_deltas, key=lambda s: -s.weighted_score_delta)
        if s.weighted_score_delta > 0 and s.source not in suppressed
        and (s.source != cause or d.action is Action.ACCEPT)
    )
    # The largest gains only (deltas come largest first): expansions are about what
    # moved memory most, and a 10,000-candidate diff must not tokenise every text.
    grown = [c for c in diff.candidate_deltas
             if c.change_type in (ChangeType.ADDED, ChangeType.STRENGTHENED)][:MAX_GROWN]
    kept_terms = _terms((c.text for c in grown if c.source not in suppressed), query_words)
    flood_terms = _terms((c.text for c in grown if c.source in suppressed), query_words)
    expansions = tuple(_top(kept_terms, MAX_TERMS))
    suppressions = tuple(w for w in _top(flood_terms, MAX_TERMS * 2)
                         if w not in kept_terms)[:MAX_TERMS]
    depth = "deep" if rerun else ("shallow" if stop else "normal")
    if rerun:
        reason = f"{h.status.value} change ({d.action.value}): search again, deeper"
    elif stop:
        reason = "memory has stabilised: stop searching"
    elif suppressed:
        reason = f"{cause} over-steered memory: search elsewhere"
    else:
        reason = "memory is still moving: keep searching normally"
    return SearchBias(preferred, suppressed, expansions, suppressions, depth, rerun, stop,
                      reason)
