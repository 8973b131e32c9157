"""Stage 1 of the delta-memory design: compose a weighted memory set from several sources.

``original = raw_score or relevance × confidence`` and ``weighted = weight × original``.
Each source's candidates are filtered by its confidence threshold and cut to its top-k
(by weighted score); disabled sources contribute nothing.  The dominant source is the
one with the largest weighted total; the dominance ratio is its share of the aggregate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from memdesk.core.delta.contracts import (
    Candidate,
    Contribution,
    DeltaConfig,
    MemorySet,
    SourceReport,
)
from memdesk.core.errors import ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.taxonomy import check_text, check_unit


def candidate_from_dict(data: Mapping[str, Any], source: str | None = None) -> Candidate:
    """Validate one candidate given as JSON; accepts the seed's search-hit shape too.

    A search hit (``hit_id``/``title``/``summary``/``score``) becomes a candidate whose
    text is "title: summary", with ``score`` as its raw score.
    """
    if not isinstance(data, Mapping):
        raise ValidationError("candidate", f"must be an object, got {type(data).__name__}")
    src = data.get("source", source)
    if not isinstance(src, str) or not src.strip():
        raise ValidationError("source", "every candidate needs a source name")
    text = data.get("text")
    if text is None and ("title" in data or "summary" in data):
        text = ": ".join(str(data[k]) for k in ("title", "summary") if data.get(k))
    text = check_text(text)
    raw = data.get("raw_score", data.get("score"))
    raw_score = None if raw is None else check_unit("raw_score", raw)
    conf = check_unit("confidence", data.get("confidence", 1.0 if raw is not None else None))
    rel = check_unit("relevance", data.get("relevance", 1.0 if raw is not None else None))
    cid = data.get("id", data.get("hit_id", data.get("memory_id")))
    prov = data.get("provenance") or {}
    if not isinstance(prov, Mapping):
        raise ValidationError("provenance", "must be an object")
    return Candidate(
        source=src.strip(), text=text, confidence=conf, relevance=rel, raw_score=raw_score,
        candidate_id=None if cid is None else str(cid), provenance=dict(prov),
        entity=_opt(data, "entity"), attribute=_opt(data, "attribute"), value=_opt(data, "value"),
    )


def _opt(data: Mapping[str, Any], key: str) -> str | None:
    v = data.get(key)
    return None if v is None else str(v)


def check_candidate(c: Candidate) -> Candidate:
    """Reject NaN/out-of-range scores and empty text before they reach the maths."""
    check_text(c.text)
    check_unit("confidence", c.confidence)
    check_unit("relevance", c.relevance)
    if c.raw_score is not None:
        check_unit("raw_score", c.raw_score)
    return c


def check_config(config: DeltaConfig) -> DeltaConfig:
    seen: set[str] = set()
    for s in config.sources:
        if not s.name.strip():
            raise ValidationError("source", "source names must not be empty")
        if s.name in seen:
            raise ValidationError("source", f"source {s.name!r} is configured twice")
        seen.add(s.name)
        if isinstance(s.weight, bool) or not math.isfinite(float(s.weight)) or s.weight < 0:
            raise ValidationError("weight", f"{s.name}: must be a finite number >= 0")
        if s.top_k < 0:
            raise ValidationError("top_k", f"{s.name}: must be >= 0 (0 means no limit)")
        check_unit("confidence_threshold", s.confidence_threshold)
    check_unit("dominance_threshold", config.dominance_threshold)
    return config


def build_memory_set(
    goal: str,
    query: str | None,
    candidates_by_source: Mapping[str, Iterable[Candidate]] | Iterable[Candidate],
    config: DeltaConfig,
    *,
    label: str = "",
    created_at: datetime | None = None,
    set_id: str | None = None,
    strict: bool = True,
) -> MemorySet:
    """Compose the active memory state for ``goal``.

    ``strict``: a candidate from a source that is not configured is an error (the
    operator must add the source first); otherwise it is dropped.
    """
    check_config(config)
    goal = check_text(goal, "goal")
    if isinstance(candidates_by_source, Mapping):
        flat = [c for cs in candidates_by_source.values() for c in cs]
    else:
        flat = list(candidates_by_source)
    weights = config.effective_weights()
    known = {s.name: s for s in config.sources}
    by_source: dict[str, list[Candidate]] = {}
    for c in flat:
        if c.source not in known:
            if strict:
                raise ValidationError(
                    "source", f"unknown source {c.source!r}; configured: {', '.join(known)}"
                )
            continue
        by_source.setdefault(c.source, []).append(check_candidate(c))

    contributions: list[Contribution] = []
    reports: list[SourceReport] = []
    for cfg in config.sources:
        offered = by_source.get(cfg.name, [])
        if not cfg.enabled:
            reports.append(SourceReport(cfg.name, cfg.source_type, 0.0, False, len(offered),
                                        0, 0, 0, 0.0, 0.0, 0.0))
            continue
        weight = weights.get(cfg.name, 0.0)
        passing = [c for c in offered if c.confidence >= cfg.confidence_threshold]
        below = len(offered) - len(passing)
        # One contribution per candidate identity within a source: keep the strongest.
        best: dict[str, Contribution] = {}
        for c in passing:
            original = c.raw_score if c.raw_score is not None else c.relevance * c.confidence
            item = Contribution(
                key=c.key, source=cfg.name, text=c.text, confidence=c.confidence,
                relevance=c.relevance, raw_score=c.raw_score, original_score=original,
                source_weight=weight, weighted_score=weight * original,
                provenance=dict(c.provenance), entity=c.entity, attribute=c.attribute,
                value=c.value,
            )
            prev = best.get(item.key)
            if prev is None or item.weighted_score > prev.weighted_score:
                best[item.key] = item
        kept = sorted(best.values(), key=lambda i: (-i.weighted_score, i.key))
        over = 0
        if cfg.top_k and len(kept) > cfg.top_k:
            over = len(kept) - cfg.top_k
            kept = kept[: cfg.top_k]
        contributions.extend(kept)
        total = sum((i.weighted_score for i in kept), 0.0)
        mean_conf = sum(i.confidence for i in kept) / len(kept) if kept else 0.0
        reports.append(SourceReport(cfg.name, cfg.source_type, weight, True, len(offered),
                                    len(kept), below, over, total, 0.0, mean_conf))

    aggregate = sum((i.weighted_score for i in contributions), 0.0)
    reports = [_with_share(r, aggregate) for r in reports]
    dominant, ratio = dominance(
        {r.source: r.weighted_total for r in reports if r.kept}, aggregate
    )
    return MemorySet(
        id=set_id or new_id(),
        goal=goal,
        query=query,
        label=label,
        created_at=created_at or utcnow(),
        contributions=contributions,
        source_reports=reports,
        aggregate_score=aggregate,
        dominant_source=dominant,
        dominance_ratio=ratio,
        weights=weights,
    )


def _with_share(r: SourceReport, aggregate: float) -> SourceReport:
    share = r.weighted_total / aggregate if aggregate > 0 else 0.0
    return SourceReport(r.source, r.source_type, r.weight, r.enabled, r.offered, r.kept,
                        r.below_threshold, r.over_top_k, r.weighted_total, share,
                        r.mean_confidence)


def dominance(totals: Mapping[str, float], aggregate: float) -> tuple[str | None, float | None]:
    """(source with the largest weighted total, its share); ties go to the first name."""
    if not totals:
        return None, None
    name = min(totals, key=lambda s: (-totals[s], s))
    return name, (totals[name] / aggregate if aggregate > 0 else 0.0)
