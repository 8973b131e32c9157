"""What the sweeps say about the whole band: the share of its memories an operator
would raise (and lower), with a 95 % interval, overall, per type and per source.

Only uniform draws enter the estimate; guided picks were chosen by a model, not at
random, so they say nothing unbiased about the rest of the band.  Each uniform draw is
weighted by the inverse of its inclusion probability (``n_uniform / population`` of its
sweep): the Hájek form of the Horvitz–Thompson estimator, which pools sweeps of
different sizes drawn when the band held different numbers of memories.  The interval
is Wilson's (statsmodels ``proportion_confint``) at Kish's effective sample size
``(Σw)² / Σw²``.  While no sweep of the band mixed in guided picks, every draw counts
the same and this is exactly the Wilson interval of the raw counts.

Sweeps filtered to one user or type sample a different population and are left out;
so are skipped items (no decision) and decisions undone since.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Connection, select

from memdesk.core.curation.decisions import Decision, load_decisions
from memdesk.core.curation.features import DIRECT
from memdesk.core.curation.sampling import check_band
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryProvenance

M = Memory.__table__.c
P = MemoryProvenance.__table__.c
Z_LEVEL = 0.05


@dataclass(frozen=True)
class Share:
    """An estimated share with its 95 % interval and, given the band size, counts."""

    p: float
    lo: float
    hi: float
    n: int  # uniform decisions behind it
    population: float | None

    @property
    def memories(self) -> int | None:
        return None if self.population is None else round(self.p * self.population)

    def to_json(self) -> dict[str, Any]:
        return {"share": round(self.p, 4), "low": round(self.lo, 4),
                "high": round(self.hi, 4), "decisions": self.n,
                "memories": self.memories,
                "population": None if self.population is None else round(self.population)}


@dataclass(frozen=True)
class Group:
    raised: Share
    lowered: Share


@dataclass(frozen=True)
class BandEstimate:
    band: tuple[float, float]
    population: int | None  # the band's size as the latest sweep found it
    sweeps: int
    uniform: int  # uniform decisions used
    guided: int  # guided decisions (not in the estimate)
    guided_raised: int
    raised: Share | None  # None: no uniform decision yet
    lowered: Share | None
    by_type: dict[str, Group] = field(default_factory=dict)
    by_source: dict[str, Group] = field(default_factory=dict)
    method: str = "wilson"  # "wilson" (equal weights) | "weighted" (Horvitz–Thompson)

    def headline(self) -> str:
        lo, hi = self.band
        if self.raised is None:
            return (f"No uniform sweep decisions over the {lo:.2f}–{hi:.2f} band yet: "
                    "nothing to estimate.")
        r = self.raised
        text = (f"about {r.p:.0%} ({r.lo:.0%}–{r.hi:.0%}) of the {lo:.2f}–{hi:.2f} band "
                f"would be raised")
        if r.memories is not None:  # beside the share it counts, not before "lowered"
            text += f" (≈ {r.memories:,} {'memory' if r.memories == 1 else 'memories'})"
        assert self.lowered is not None
        low = self.lowered
        text += (f", and {low.p:.0%} ({low.lo:.0%}–{low.hi:.0%}) lowered — from "
                 f"{_count(self.uniform, 'uniform decision', 'uniform decisions')} in "
                 f"{_count(self.sweeps, 'sweep', 'sweeps')}")
        if self.guided:
            text += (f"; {_count(self.guided, 'guided pick', 'guided picks')} "
                     f"({self.guided_raised} raised) not counted")
        return text

    def to_json(self) -> dict[str, Any]:
        def groups(g: dict[str, Group]) -> dict[str, Any]:
            return {k: {"raised": v.raised.to_json(), "lowered": v.lowered.to_json()}
                    for k, v in sorted(g.items())}
        return {
            "band": list(self.band), "population": self.population, "sweeps": self.sweeps,
            "uniform_decisions": self.uniform, "guided_decisions": self.guided,
            "guided_raised": self.guided_raised, "method": self.method,
            "raised": self.raised.to_json() if self.raised else None,
            "lowered": self.lowered.to_json() if self.lowered else None,
            "by_type": groups(self.by_type), "by_source": groups(self.by_source),
            "headline": self.headline(),
        }


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def weighted_share(y: np.ndarray, w: np.ndarray, population: float | None) -> Share:
    """Hájek share of ``y`` (0/1) under weights ``w`` with a Wilson interval at the
    effective sample size."""
    from statsmodels.stats.proportion import proportion_confint

    n = len(y)
    sw = float(w.sum())
    p = float((w * y).sum() / sw)
    n_eff = sw * sw / float((w * w).sum())
    lo, hi = proportion_confint(p * n_eff, n_eff, alpha=Z_LEVEL, method="wilson")
    return Share(p, float(lo), float(hi), n, population)


def _weights(ds: list[Decision]) -> np.ndarray:
    w = []
    for d in ds:
        pi = d.inclusion_p
        if pi is None:  # a sweep from before pick records: all its items were uniform
            pi = d.sweep_n / d.population if d.population else 1.0
        w.append(1.0 / max(pi, 1e-12))
    return np.asarray(w, dtype=np.float64)


def _descriptors(conn: Connection, ids: list[str]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        for r in conn.execute(select(M.id, M.type, P.extractor).select_from(
                Memory.__table__.outerjoin(MemoryProvenance.__table__, P.memory_id == M.id))
                .where(M.id.in_(part))):
            out[r[0]] = (r[1], r[2] or DIRECT)
    return out


def estimate_from(decisions: list[Decision], band: tuple[float, float],
                  descriptors: dict[str, tuple[str, str]] | None = None) -> BandEstimate:
    """The estimate from these decisions (those of whole-band sweeps over ``band``)."""
    mine = [d for d in decisions if d.whole_band and d.band == band]
    uni = [d for d in mine if not d.guided]
    guided = [d for d in mine if d.guided]
    pops = [d.population for d in mine if d.population]
    population = pops[-1] if pops else None
    sweeps = len({d.sweep_id for d in mine})
    if not uni:
        return BandEstimate(band, population, sweeps, 0, len(guided),
                            sum(d.raised for d in guided), None, None)
    # All uniform: every draw is equally likely, up to the memories earlier decisions
    # moved out of the band between sweeps: the plain Wilson interval of the counts.
    # Guided picks mixed in leave fewer uniform draws in those sweeps, so their draws
    # stand for more of the band: weight each by 1 / its inclusion probability.
    method = "weighted" if guided else "wilson"
    w = _weights(uni) if guided else np.ones(len(uni))
    up = np.array([d.raised for d in uni], dtype=float)
    down = np.array([d.lowered for d in uni], dtype=float)
    est = BandEstimate(band, population, sweeps, len(uni), len(guided),
                       sum(d.raised for d in guided),
                       weighted_share(up, w, population), weighted_share(down, w, population),
                       method=method)
    if descriptors:
        total_w = float(w.sum())
        for slot, attr in ((0, est.by_type), (1, est.by_source)):
            at: dict[str, list[int]] = defaultdict(list)
            for i, d in enumerate(uni):
                key = descriptors.get(d.memory_id)
                if key is not None:
                    at[key[slot]].append(i)
            for name, idx in at.items():
                ww = w[idx]
                size = None if population is None else population * float(ww.sum()) / total_w
                attr[name] = Group(weighted_share(up[idx], ww, size),
                                  weighted_share(down[idx], ww, size))
    return est


def band_estimate(store: MemoryStore, band: tuple[float, float] | None = None) -> BandEstimate:
    """The estimate for ``band`` (default: the band of the latest whole-band sweep)."""
    with store.read() as conn:
        decisions = load_decisions(conn)
        if band is None:
            from memdesk.core.curation.models import Sweep

            S = Sweep.__table__.c
            row = conn.execute(select(S.band_lo, S.band_hi)
                               .where(S.user_id.is_(None), S.type.is_(None))
                               .order_by(S.created_at.desc()).limit(1)).first()
            from memdesk.core.curation.sweep import DEFAULT_BAND

            band = (float(row[0]), float(row[1])) if row else DEFAULT_BAND
        band = check_band(band)
        ids = sorted({d.memory_id for d in decisions if d.band == band and not d.guided})
        return estimate_from(decisions, band, _descriptors(conn, ids))
