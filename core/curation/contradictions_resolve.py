"""Resolving a contradiction group: keep one value, keep all (a dismissal), edit the
winner then keep it, or merge into a new memory.  Each resolution runs in one write
transaction, audited under one ``group_id`` that the generic undo (or
``Contradictions.undo``) reverts as one.  The implementation of
:class:`memdesk.core.curation.service.Contradictions`' actions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert

from memdesk.core import taxonomy as tx
from memdesk.core.curation.contradictions import (
    DT,
    GroupDetail,
    StaleGroupError,
    _detail,
    _members,
    _normalise,
)
from memdesk.core.errors import ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.core.store.validation import validate_fields

# -- resolutions ----------------------------------------------------------------------


# A resolution supersedes (or adds) memories; a "keep both" only records a dismissal.
RESOLVED = Changed.CONTRADICTIONS | Changed.MEMORIES | Changed.HISTORY
DISMISSED = Changed.CONTRADICTIONS | Changed.HISTORY


@dataclass(frozen=True)
class Resolution:
    action: str  # keep | keep_all | edit | merge
    group_id: str  # audit group: Contradictions.undo(group_id) undoes all of it
    winner_id: str | None
    changes: Changes


def _fresh(store: MemoryStore, conn: Connection, seen: GroupDetail) -> GroupDetail:
    """The group as it is now, its members locked until the resolution commits;
    refuses if it is not what the operator saw (a member added, gone or edited: every
    change bumps a memory's version)."""
    store.lock_in(conn, seen.member_ids)
    now = _detail(seen.key, _members(conn, seen.key))
    if ({m.id: m.version for m in now.members}
            != {m.id: m.version for m in seen.members}):
        raise StaleGroupError(
            "This contradiction changed since it was shown (a member was added, edited "
            "or resolved elsewhere). Reload it and decide again."
        )
    return now


def _supersede_losers(
    store: MemoryStore, conn: Connection, group: GroupDetail, winner: str, win_norm: str,
    *, actor: str, action: acts.Action, gid: str, note: str | None,
) -> list[int]:
    events = []
    now = utcnow()
    for m in group.members:
        if m.id == winner or _normalise(m.value or "") == win_norm:
            continue
        ev = store.supersede_in(conn, m.id, winner, actor=actor, action=action,
                                group_id=gid, note=note, at=now, expected_version=m.version)
        if ev:
            events.append(ev)
    return events


def _keep(
    store: MemoryStore, group: GroupDetail, winner_id: str, *,
    note: str | None = None, actor: str = "operator",
) -> Resolution:
    """Keep ``winner_id``'s value: every member with another value is superseded by it."""
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    gid = new_id()

    with store.write() as conn:
        cur = _fresh(store, conn, group)
        card = cur.card_for(winner_id)
        events = _supersede_losers(store, conn, cur, winner_id, card.norm, actor=actor,
                                   action=acts.RESOLVE_KEEP, gid=gid, note=note)
    return Resolution("keep", gid, winner_id, Changes(
        cur.member_ids, tuple(events), gid, RESOLVED, action=acts.RESOLVE_KEEP))


def _keep_all(
    store: MemoryStore, group: GroupDetail, *, note: str | None = None, actor: str = "operator"
) -> Resolution:
    """"Keep both": the values legitimately coexist.  Recorded as a dismissal plus one
    audit row per member (nothing about the memories changes); undoing those audit
    rows lifts the dismissal.  A member added later makes the group show again."""
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    gid = new_id()

    with store.write() as conn:
        cur = _fresh(store, conn, group)
        conn.execute(insert(DT).values(
            id=new_id(), user_id=cur.key[0], entity=cur.key[1], attribute=cur.key[2],
            member_seqs=json.dumps(sorted(m.seq for m in cur.members)),
            member_ids=json.dumps([m.id for m in cur.members]),
            norm_values=json.dumps(sorted(c.norm for c in cur.cards), ensure_ascii=False),
            group_id=gid, created_at=utcnow(), actor=actor, note=note,
        ))
        events = [
            store.log_in(conn, m.id, actor, acts.RESOLVE_KEEP_ALL, {}, {}, group_id=gid,
                       note=note or "values may coexist: not a contradiction")
            for m in cur.members
        ]
    return Resolution("keep_all", gid, None, Changes(
        cur.member_ids, tuple(events), gid, DISMISSED, action=acts.RESOLVE_KEEP_ALL))


def _edit(
    store: MemoryStore, group: GroupDetail, winner_id: str, *,
    value: str | None = None, text_: str | None = None, confidence: float | None = None,
    note: str | None = None, actor: str = "operator",
) -> Resolution:
    """Edit the winner (value, text, confidence) then keep it, in one audited group."""
    fields: dict[str, Any] = {}
    if value is not None:
        fields["value"] = value
    if text_ is not None:
        fields["text"] = text_
    if confidence is not None:
        fields["confidence"] = confidence
    if not fields:
        raise ValidationError("value", "an edit needs a new value, text or confidence")
    fields = validate_fields(fields, creating=False)
    if "value" in fields and fields["value"] is None:
        raise ValidationError("value", "must not be empty")
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    gid = new_id()

    with store.write() as conn:
        cur = _fresh(store, conn, group)
        cur.card_for(winner_id)
        ev = store.apply_in(conn, winner_id, fields, actor=actor, action=acts.RESOLVE_EDIT,
                          group_id=gid, note=note,
                          expected_version=next(m.version for m in cur.members
                                                if m.id == winner_id))
        winner = store.get(winner_id, conn)
        events = ([ev] if ev else []) + _supersede_losers(
            store, conn, cur, winner_id, _normalise(winner.value or ""), actor=actor,
            action=acts.RESOLVE_KEEP, gid=gid, note=note)
    return Resolution("edit", gid, winner_id, Changes(
        cur.member_ids, tuple(events), gid, RESOLVED, action=acts.RESOLVE_EDIT))


def _merge(
    store: MemoryStore, group: GroupDetail, *, text_: str, value: str,
    note: str | None = None, actor: str = "operator", **overrides: Any,
) -> Resolution:
    """A new memory (text and value given; other fields from the newest member,
    importance and confidence the members' highest) supersedes every member."""
    actor = str(tx.Actor(actor))
    note = tx.check_optional_str("note", note, 10_000)
    gid = new_id()

    with store.write() as conn:
        cur = _fresh(store, conn, group)
        base = max(cur.members, key=lambda m: (m.created_at, m.seq))
        values = validate_fields({
            "user_id": base.user_id, "entity": base.entity, "attribute": base.attribute,
            "type": base.type, "topic": base.topic, "layer": base.layer,
            "importance": max(m.importance for m in cur.members),
            "confidence": max(m.confidence for m in cur.members),
            "text": text_, "value": value, **overrides,
        }, creating=True)
        if values.get("value") is None:
            raise ValidationError("value", "must not be empty")
        # Logged as "add" so undoing the group hides the merged memory again.
        events = [store.add_in(conn, values, actor=actor, group_id=gid,
                               note=note or f"merge of contradiction {cur.id}")]
        now = utcnow()
        for m in cur.members:
            ev = store.supersede_in(conn, m.id, values["id"], actor=actor,
                                    action=acts.RESOLVE_MERGE, group_id=gid, note=note, at=now,
                                    expected_version=m.version)
            if ev:
                events.append(ev)
    return Resolution("merge", gid, values["id"], Changes(
        (*cur.member_ids, values["id"]), tuple(events), gid, RESOLVED,
        action=acts.RESOLVE_MERGE, new_memory_ids=(values["id"],)))


def _suggested(
    store: MemoryStore, group: GroupDetail, *, note: str | None = None, actor: str = "operator"
) -> Resolution:
    if group.suggestion is None:
        raise ValidationError("group", "this group has no contradiction left to resolve")
    return _keep(store, group, group.suggestion.winner_id, note=note, actor=actor)
