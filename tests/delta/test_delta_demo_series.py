"""The delta demo series: the seed the operator gives is the seed used, the preference
goal's context carries its (entity, attribute, value), the flood is ten hits, and repeated
search hits are labelled as copies."""

from __future__ import annotations

from datetime import datetime

from memdesk.core.delta.demo import SEARCH_ROUTE, build_series, generate_snapshots
from memdesk.core.delta.service import DeltaMemory

END = datetime(2026, 11, 1)
PREF = "answer preference questions"
ROUTE = "route artifact review task"


def test_the_given_seed_is_the_seed_used(store) -> None:  # type: ignore[no-untyped-def]
    cfg = DeltaMemory(store).config()
    want = {s.id for s in build_series(store, cfg, seed=3, end=END)}
    default = {s.id for s in build_series(store, cfg, end=END)}
    assert want.isdisjoint(default)
    n = generate_snapshots(store, seed=3, end=END)
    assert n == len(want) == 3 * 42 * 2
    stored = {i.id for i in DeltaMemory(store).snapshots(limit=1000)}
    assert stored == want


def test_preference_context_and_flood(store) -> None:  # type: ignore[no-untyped-def]
    sets = [s for s in build_series(store, DeltaMemory(store).config(), end=END) if s.goal == PREF]
    first = sets[0]
    ctx = [(c.entity, c.attribute, c.value) for c in first.contributions if c.source == "context"]
    assert ("user", "preferred_language", "Python") in ctx
    assert all(e is None and a is None for e, a, v in ctx if v is None)
    flooded = [s for s in sets
               if any((c.key or "").startswith("id:search:flood:") for c in s.contributions)]
    assert len(flooded) == 1
    search = next(r for r in flooded[0].source_reports if r.source == "search")
    assert search.offered == 10


def test_repeated_route_hits_are_labelled_as_copies(store) -> None:  # type: ignore[no-untyped-def]
    sets = [s for s in build_series(store, DeltaMemory(store).config(), end=END)
            if s.goal == ROUTE]
    n = len(SEARCH_ROUTE)
    seen = {}
    for s in sets:
        for c in s.contributions:
            if c.key.startswith("id:search:route:"):
                seen[int(c.key.rsplit(":", 1)[1])] = c.text
    assert max(seen) >= n  # the series does reach the copies
    for i, text in seen.items():
        want = SEARCH_ROUTE[i % n] + ("" if i < n else f" (copy {i // n})")
        assert text == want
