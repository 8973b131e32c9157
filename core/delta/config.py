"""Persisted source configuration: read it, edit it (audited, undoable), normalise it."""

from __future__ import annotations

import math
from typing import Any, cast

from sqlalchemy import Connection, Table, func, insert, select, update

from memdesk.core.delta import audit
from memdesk.core.delta.contracts import DeltaConfig, SourceConfig, normalize_weights
from memdesk.core.delta.models import DeltaSetting, DeltaSource
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import utcnow
from memdesk.core.taxonomy import check_count, check_optional_str, check_unit

# Declarative types __table__ as a FromClause; these models map plain Tables.
SRC = cast(Table, DeltaSource.__table__)
SET = cast(Table, DeltaSetting.__table__)

SETTINGS_DEFAULTS = {"normalize_weights": "true", "dominance_threshold": "0.6"}
MAX_WEIGHT = 100.0


def check_weight(value: Any) -> float:
    if isinstance(value, bool):
        raise ValidationError("weight", f"must be a number >= 0, got {value!r}")
    try:
        w = float(value)
    except (TypeError, ValueError):
        raise ValidationError("weight", f"must be a number >= 0, got {value!r}") from None
    if not math.isfinite(w) or w < 0 or w > MAX_WEIGHT:
        raise ValidationError("weight", f"must be between 0 and {MAX_WEIGHT:g}, got {value!r}")
    return w


def check_source_fields(fields: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in fields.items():
        if k == "weight":
            out[k] = check_weight(v)
        elif k == "enabled":
            if not isinstance(v, bool):
                raise ValidationError(k, f"must be true or false, got {v!r}")
            out[k] = v
        elif k == "top_k":
            out[k] = check_count(k, v)
        elif k == "confidence_threshold":
            out[k] = check_unit(k, v)
        elif k == "source_type":
            t = check_optional_str(k, v, 64)
            if t is None:
                raise ValidationError(k, "must not be empty")
            out[k] = t
        else:
            raise ValidationError(k, "is not a source setting")
    return out


def load_config(conn: Connection) -> DeltaConfig:
    rows = conn.execute(select(SRC).order_by(SRC.c.position, SRC.c.id)).all()
    settings = dict(SETTINGS_DEFAULTS)
    settings.update({k: v for k, v in conn.execute(select(SET.c.key, SET.c.value))})
    return DeltaConfig(
        sources=tuple(
            SourceConfig(r.name, r.source_type, float(r.weight), bool(r.enabled), int(r.top_k),
                         float(r.confidence_threshold))
            for r in rows
        ),
        normalize_weights=settings["normalize_weights"] == "true",
        dominance_threshold=float(settings["dominance_threshold"]),
    )


def update_source(conn: Connection, name: str, fields: dict[str, Any], group: str, *,
                  action: str = acts.SOURCE_EDIT.name, actor: str = "operator",
                  note: str | None = None) -> bool:
    """Change one source's settings and log it; False when nothing actually changed."""
    values = check_source_fields(fields)
    row = conn.execute(select(SRC).where(SRC.c.name == name)).first()
    if row is None:
        raise NotFoundError(f"No memory source {name!r}")
    before = {k: row._mapping[k] for k in values if row._mapping[k] != values[k]}
    after = {k: values[k] for k in before}
    if not after:
        return False
    audit.apply(conn, "source", name, after)
    audit.log(conn, "source", name, action, before, after, group, actor=actor, note=note)
    return True


def add_source(conn: Connection, source: SourceConfig, group: str, *,
               actor: str = "operator") -> None:
    name = check_optional_str("name", source.name, 100)
    if name is None:
        raise ValidationError("name", "must not be empty")
    values = check_source_fields({
        "source_type": source.source_type, "weight": source.weight, "enabled": source.enabled,
        "top_k": source.top_k, "confidence_threshold": source.confidence_threshold,
    })
    if conn.execute(select(SRC.c.id).where(SRC.c.name == name)).first() is not None:
        raise ValidationError("name", f"a source named {name!r} exists already")
    pos = conn.execute(select(func.coalesce(func.max(SRC.c.position), -1))).scalar_one() + 1
    # Added disabled with weight 0 first, then switched on as a logged edit, so undoing
    # the addition leaves a harmless disabled source (nothing is hard-deleted).
    conn.execute(insert(SRC).values(name=name, source_type=values["source_type"], weight=0.0,
                                    enabled=False, top_k=values["top_k"],
                                    confidence_threshold=values["confidence_threshold"],
                                    position=pos, updated_at=utcnow()))
    update_source(conn, name, {"weight": values["weight"], "enabled": values["enabled"]},
                  group, action=acts.SOURCE_ADD.name, actor=actor)


def set_setting(conn: Connection, key: str, value: Any) -> None:
    if key == "normalize_weights":
        if not isinstance(value, bool):
            raise ValidationError(key, "must be true or false")
        text = "true" if value else "false"
    elif key == "dominance_threshold":
        text = repr(check_unit(key, value))
    else:
        raise ValidationError(key, "is not a delta-memory setting")
    if conn.execute(update(SET).where(SET.c.key == key).values(value=text)).rowcount == 0:
        conn.execute(insert(SET).values(key=key, value=text))


def normalized(config: DeltaConfig) -> dict[str, float]:
    """Each enabled source's weight scaled so the enabled weights sum to 1."""
    return normalize_weights({s.name: s.weight for s in config.sources if s.enabled})
