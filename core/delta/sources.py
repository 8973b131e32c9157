"""The ``database`` memory source: real candidates from the open store.

For now it is the store's full-text search over active memories (the hybrid retriever
replaces it when it exists).  FTS matches all words; when that finds fewer than asked,
single words (longest first) widen the net, as an agent's recall would.  Relevance is
term overlap (share of the query's words the memory contains, the last word as a
prefix, like the FTS match); confidence is the memory's own.
"""

from __future__ import annotations

import re

from memdesk.core.delta.contracts import Candidate
from memdesk.core.store.fts import terms
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_WIDEN_TERMS = 6


def term_overlap(query_terms: list[str], text: str) -> float:
    if not query_terms:
        return 0.0
    words = {w.casefold() for w in _WORD.findall(text)}
    last = len(query_terms) - 1
    hits = 0
    for i, t in enumerate(query_terms):
        t = t.casefold()
        if t in words or (i == last and any(w.startswith(t) for w in words)):
            hits += 1
    return hits / len(query_terms)


def database_candidates(
    store: MemoryStore,
    query: str,
    *,
    source: str = "database",
    limit: int = 10,
    user_id: str | None = None,
) -> list[Candidate]:
    """Up to ``limit`` active memories matching ``query``, as candidates of ``source``."""
    qterms = terms(query)
    if not qterms or limit <= 0:
        return []
    base = MemoryFilter(statuses=(Status.ACTIVE,),
                        user_ids=(user_id,) if user_id else ())
    found = {r.id: r for r in store.page(base.with_(text=query), order_by="importance",
                                          limit=limit * 2)}
    if len(found) < limit and len(qterms) > 1:
        for t in sorted(set(qterms), key=len, reverse=True)[:MAX_WIDEN_TERMS]:
            for r in store.page(base.with_(text=t), order_by="importance", limit=limit):
                found.setdefault(r.id, r)
    out = []
    for r in found.values():
        rel = term_overlap(qterms, r.text)
        if rel <= 0:
            continue
        out.append(Candidate(
            source=source, text=r.text, confidence=r.confidence, relevance=rel,
            candidate_id=r.id,
            provenance={"memory_id": r.id, "user_id": r.user_id, "type": r.type},
            entity=r.entity, attribute=r.attribute, value=r.value,
        ))
    out.sort(key=lambda c: (-(c.relevance * c.confidence), c.candidate_id or ""))
    return out[:limit]
