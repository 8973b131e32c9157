"""Contradiction groups built in a real store, for tests that check the suggestion and
the cards through the ``Contradictions`` façade (not through hand-built records)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import datetime, timedelta

from memdesk.core.curation.contradictions import GroupDetail, Key, Suggestion
from memdesk.core.curation.service import Contradictions
from memdesk.core.store.memory_store import MemoryStore

T0 = datetime(2026, 3, 1)
_attrs = itertools.count()

# One memory of a group: (value, days after T0, confidence, type).
Spec = tuple[str, int | float, float, str]


def group_of(store: MemoryStore, *specs: Spec, user: str = "u",
             attribute: str | None = None) -> tuple[GroupDetail, list[str]]:
    """Add one memory per spec (in order: later ones get higher seqs) to a group of its
    own and load it; returns the group and the new memories' ids in spec order."""
    attr = attribute or f"a{next(_attrs)}"
    ids = [store.add(user_id=user, text=f"{user} {attr} {value}", type=type_,
                     entity="user", attribute=attr, value=value, confidence=conf,
                     created_at=T0 + timedelta(days=days)).id
           for value, days, conf, type_ in specs]
    key: Key = (user, "user", attr)
    return Contradictions(store).load(key), ids


def suggest_for(store: MemoryStore, *specs: Spec) -> Suggestion | None:
    """The suggested resolution of a group of ``specs``, its winner named ``m0``, ``m1``…
    by position in ``specs`` (so expectations read off the specs)."""
    detail, ids = group_of(store, *specs)
    s = detail.suggestion
    if s is None:
        return None
    return replace(s, winner_id=f"m{ids.index(s.winner_id)}")
