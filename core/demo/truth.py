"""Planted ground truth for a demo store, for measuring what the desk learns from
sweeps (bench/bench_learning.py and the tests of guided sweeps and calibration), and
the duplicates the demo planted (``planted_duplicates``).

``plant`` gives every active memory of the low band a *true* importance.  A share of
them is mislabelled: truly important (0.6–0.95) but recorded in the band.  Which ones
depends, through a logistic draw, on what a store can see — the memory's source (an
extractor known to under-rate), its type, how often agents read it, and contemplative
wording ("sat with", "chose not to"): some mislabelled memories have such wording, most
do not.  A few are over-rated (truly 0.05–0.25).  The rest are right to within noise.

Sources are planted as ``memory_provenance`` rows (extractors "llm" and "heuristic";
the rest stay "direct"); a memory that has one already (the demo's conversations link
their units to their turns) keeps it, and its extractor is its source.
``operator_decision`` is a simulated operator who decides by the true importance.
Nothing here changes a memory's recorded importance or text.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Table, insert, select

from memdesk.core.curation.contemplative import contemplative_hint
from memdesk.core.curation.sampling import planner_safe_active
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent, MemoryProvenance
from memdesk.core.store.records import decode_values

M = Memory.__table__.c
E = MemoryEvent.__table__.c
P = MemoryProvenance.__table__.c
BAND = (0.30, 0.49)
SOURCES = (("llm", 0.35), ("heuristic", 0.35))  # the rest: no provenance ("direct")
OVERRATED = 0.05
TOLERANCE = 0.05  # the operator leaves a memory alone within this of the band


@dataclass(frozen=True)
class Truth:
    band: tuple[float, float]
    true: dict[str, float]  # memory id -> true importance (band memories)
    mislabelled: frozenset[str]  # truly important, recorded in the band
    overrated: frozenset[str]

    @property
    def share_raised(self) -> float:
        return len(self.mislabelled) / len(self.true) if self.true else 0.0

    @property
    def share_lowered(self) -> float:
        return len(self.overrated) / len(self.true) if self.true else 0.0


def mislabel_logit(source: str, type_: str, access: int, contemplative: bool) -> float:
    """How likely the write-time scorer got this memory wrong (planted, not learned)."""
    # The "llm" extractor under-rates reflective kinds of memory (decisions, reasoning,
    # notes) almost always: the systematic error a per-source calibration should fix.
    reflective = type_ in ("decision", "reasoning", "note")
    z = -3.4
    z += {"llm": 1.6, "heuristic": 0.3}.get(source, 0.0)
    z += 1.0 if reflective else 0.0
    z += 3.6 if source == "llm" and reflective else 0.0
    z += 1.5 if access >= 10 else 0.0
    z += 4.5 if contemplative else 0.0
    return z


def plant(store: MemoryStore, seed: int = 11, band: tuple[float, float] = BAND) -> Truth:
    """Plant sources and a true importance for every active memory of ``band``."""
    rng = random.Random(seed)
    with store.read() as conn:
        rows = conn.execute(
            select(M.id, M.text, M.type, M.importance, M.access_count)
            .where(planner_safe_active(conn.dialect.name)).order_by(M.seq)).all()
        known: dict[str, str] = {mid: ext for mid, ext in conn.execute(
            select(P.memory_id, P.extractor))}
    prov = []
    true: dict[str, float] = {}
    mis: set[str] = set()
    over: set[str] = set()
    now = utcnow()
    for mid, text_, type_, imp, access in rows:
        r = rng.random()
        source = "direct"
        acc = 0.0
        for name, share in SOURCES:
            acc += share
            if r < acc:
                source = name
                break
        if mid in known:  # the same draws either way: the rest of the truth stays
            source = known[mid]
        elif source != "direct":
            prov.append({"memory_id": mid, "extractor": source, "model": None,
                         "job_id": None, "created_at": now})
        if not band[0] <= imp <= band[1]:
            continue
        contemplative = contemplative_hint(text_ or "", imp) is not None
        p = 1 / (1 + math.exp(-mislabel_logit(source, type_, access or 0, contemplative)))
        u = rng.random()
        if u < p:
            true[mid] = round(rng.uniform(0.6, 0.95), 2)
            mis.add(mid)
        elif rng.random() < OVERRATED:
            true[mid] = round(rng.uniform(0.05, 0.25), 2)
            over.add(mid)
        else:
            true[mid] = round(min(band[1], max(band[0], imp + rng.gauss(0, 0.03))), 2)
    with store.write() as conn:
        for i in range(0, len(prov), 5000):
            conn.execute(insert(cast(Table, MemoryProvenance.__table__)), prov[i:i + 5000])
    return Truth(band, true, frozenset(mis), frozenset(over))


def planted_duplicates(store: MemoryStore) -> tuple[frozenset[str], ...]:
    """The duplicate clusters the demo planted (memory ids), as its load's audit row
    lists them: a fact said again, respelt or reworded.  Nothing else in a demo store
    restates another memory of its user.  Empty for a store the demo did not fill."""
    with store.read() as conn:
        raw = conn.execute(
            select(E.after).where(E.action == acts.DEMO_LOAD.name).order_by(E.id.desc())
            .limit(1)).scalar()
    clusters = decode_values(raw).get("duplicates") or []
    return tuple(frozenset(c) for c in clusters)


def operator_decision(truth: Truth, memory_id: str, before: float
                      ) -> tuple[str, float | None]:
    """What the simulated operator decides: ("revalue", true importance) when the truth
    lies outside the band by more than the tolerance, else ("keep", None)."""
    t = truth.true.get(memory_id)
    lo, hi = truth.band
    if t is None or lo - TOLERANCE <= t <= hi + TOLERANCE or t == before:
        return "keep", None
    return "revalue", t
