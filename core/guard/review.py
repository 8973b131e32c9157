"""The operator's review inbox: what the guard holds, and approve / edit / reject.

Every action is an ordinary audited change of the memory (one action group, so it is
undone as one): **approve** clears ``quarantined_at`` (the memory joins the active
belief state, and counts as operator-curated from then on; an approved correction
supersedes what it corrects at once, curated or not: the operator decided); **reject**
soft-deletes it and leaves it marked, so undoing a rejection puts it back in the inbox;
**edit** changes its fields and leaves it held until approved.

The **secrets lane** is a filter of the same inbox (``lane="secrets"``): memories held
by a ``secret.<category>`` finding (core/guard/secret_lane.py), decided by the same
approve / reject / edit.  Their text is listed masked (:meth:`HeldItem.shown_text`)
until the operator reveals it, and their JSON carries the masked text unless asked.

:class:`Review` is the public surface (the inbox view, ``memdesk review``); the
functions below it are its implementation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, exists, func, select

from memdesk.core.errors import ValidationError
from memdesk.core.guard.curated import link_new_corrections_in
from memdesk.core.guard.models import QuarantineReason
from memdesk.core.guard.origin import AgentOrigin, origin_of_memory
from memdesk.core.guard.screen import Finding
from memdesk.core.guard.secret_lane import RULE_PREFIX, category_of_rule, shown_text
from memdesk.core.guard.secrets import SecretCategory
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import Changes, MemoryRecord

M = Memory.__table__.c
R = QuarantineReason.__table__.c
HELD = MemoryFilter(statuses=(Status.QUARANTINED,))
LANES = ("all", "secrets", "guard")  # every held memory; the secrets lane; the rest


@dataclass(frozen=True)
class HeldItem:
    """One memory in the inbox, with every reason it is held and where it came from."""

    memory: MemoryRecord
    findings: tuple[Finding, ...] = ()
    origin: AgentOrigin | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def reasons(self) -> str:
        return "\n".join(f.reason for f in self.findings) or "held for review"

    @property
    def secret_categories(self) -> tuple[SecretCategory, ...]:
        """The categories of secret it is held for (empty: held by other rules only)."""
        cats = (category_of_rule(f.rule_id) for f in self.findings)
        return tuple(dict.fromkeys(c for c in cats if c is not None))

    def shown_text(self, reveal: bool = False) -> str:
        """Its text as listed: secrets masked until the operator reveals them."""
        if reveal:
            return self.memory.text
        return shown_text(self.memory.text, self.secret_categories)

    def to_json(self, reveal: bool = False) -> dict[str, Any]:
        out = self.memory.to_json()
        out["reasons"] = [f.to_json() for f in self.findings]
        out["origin"] = self.origin.to_json() if self.origin else None
        out["secrets"] = [c.value for c in self.secret_categories]
        if self.secret_categories and not reveal:
            out["text"] = self.shown_text()
            for k in ("value", "entity", "attribute"):
                if isinstance(out.get(k), str):
                    out[k] = shown_text(out[k], self.secret_categories)
            out.pop("embedding", None)  # derived from the unmasked text
        return out


def _findings_in(conn: Connection, memory_id: str) -> tuple[Finding, ...]:
    rows = conn.execute(select(R.rule_id, R.reason, R.evidence)
                        .where(R.memory_id == memory_id).order_by(R.id)).all()
    return tuple(Finding(r.rule_id, r.reason, r.evidence or "") for r in rows)


def _lane_clause(lane: str) -> tuple[Any, ...]:
    """SQL for one lane of the inbox: held, not deleted, with or without a secret."""
    if lane not in LANES:
        raise ValidationError("lane", f"{lane!r} is not a lane of the inbox (known: "
                                      f"{', '.join(LANES)})")
    secret = exists().where(R.memory_id == M.id, R.rule_id.like(RULE_PREFIX + "%"))
    held = (M.quarantined_at.is_not(None), M.deleted_at.is_(None))
    return (*held, secret) if lane == "secrets" else (*held, ~secret)


def _decide(store: MemoryStore, ids: Sequence[str], values: dict[str, Any],
            action: acts.Action, note: str | None, actor: str) -> Changes:
    if not ids:
        raise ValidationError("ids", "name at least one held memory")
    group = new_id()

    events: list[int] = []
    with store.write() as conn:
        store.lock_in(conn, ids)  # a concurrent decision waits, then finds it decided
        for mid in ids:
            rec = store.get(mid, conn)
            if rec.status is not Status.QUARANTINED:
                raise ValidationError(
                    "id", f"memory {mid} is {rec.status.value}, not waiting for review")
            ev = store.apply_in(conn, mid, values, actor=actor, action=action,
                                group_id=group, note=note, expected_version=rec.version)
            if ev:
                events.append(ev)
        if action is acts.APPROVE:
            # An approved correction is the operator's: it takes effect now, as a
            # correction does when the worker writes it (core/guard/curated.py), in this
            # group, so undoing the approval undoes its links too.
            plan = link_new_corrections_in(store, conn, list(ids), actor=actor,
                                           note="approved in review", group_id=group)
            superseded = tuple(x.old_id for x in plan.links if x.new_id not in plan.holds)
            if superseded:
                return Changes((*ids, *superseded), tuple(events), group, action=action)
    return Changes(tuple(ids), tuple(events), group, action=action)


class Review:
    """The operator's review inbox over one open store.  Cheap to construct.

    Reads return plain values; each action runs in one write transaction and returns
    ``Changes`` whose ``group_id`` the generic undo reverts as one.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- reading --------------------------------------------------------------------
    def held_count(self, lane: str = "all") -> int:
        """How many memories wait for review (the status-bar badge), in one lane."""
        if lane == "all":
            return int(self.store.count(HELD))
        with self.store.read() as conn:
            return int(conn.execute(select(func.count()).select_from(Memory.__table__)
                                    .where(*_lane_clause(lane))).scalar_one())

    def inbox(self, limit: int = 500, user_id: str | None = None,
              lane: str = "all") -> list[HeldItem]:
        """The held memories, oldest first (the order they arrived in), each with its
        reasons and agent origin; ``lane``: all, secrets (held for a secret) or guard
        (held by the guard's other rules only)."""
        if lane == "all":
            flt = HELD.with_(user_ids=(user_id,)) if user_id else HELD
            records = self.store.page(flt, order_by="created_at", descending=False,
                                      limit=limit)
        else:
            with self.store.read() as conn:
                stmt = select(M.id).where(*_lane_clause(lane))
                if user_id:
                    stmt = stmt.where(M.user_id == user_id)
                ids = list(conn.execute(stmt.order_by(M.created_at, M.id).limit(limit))
                           .scalars())
            order = {i: n for n, i in enumerate(ids)}
            records = sorted(self.store.get_many(ids), key=lambda r: order[r.id])
        with self.store.read() as conn:
            return [HeldItem(r, _findings_in(conn, r.id), origin_of_memory(conn, r.id))
                    for r in records]

    def item(self, memory_id: str) -> HeldItem:
        """One memory with the reasons it was held and where it came from (a memory no
        longer held keeps its reasons: they say why it was held)."""
        with self.store.read() as conn:
            rec = self.store.get(memory_id, conn)
            return HeldItem(rec, _findings_in(conn, rec.id), origin_of_memory(conn, rec.id))

    def rule_counts(self) -> dict[str, int]:
        """How many held memories each rule holds (the inbox header, `review list`)."""
        with self.store.read() as conn:
            rows = conn.execute(
                select(R.rule_id, func.count(func.distinct(R.memory_id)))
                .select_from(QuarantineReason.__table__.join(Memory.__table__,
                                                             R.memory_id == M.id))
                .where(M.quarantined_at.is_not(None), M.deleted_at.is_(None))
                .group_by(R.rule_id)
            ).all()
        return {rule: int(n) for rule, n in rows}

    def secret_categories(self, memory_ids: Sequence[str]) -> list[str]:
        """The categories of secret these memories are held for (a job's result)."""
        if not memory_ids:
            return []
        with self.store.read() as conn:
            rules = conn.execute(select(R.rule_id).where(
                R.memory_id.in_(list(memory_ids)), R.rule_id.like(RULE_PREFIX + "%"))
                .join(Memory.__table__, R.memory_id == M.id)
                .where(M.quarantined_at.is_not(None)).order_by(R.id)).scalars()
            cats = (category_of_rule(r) for r in rules)
            return list(dict.fromkeys(c.value for c in cats if c is not None))

    # -- deciding -------------------------------------------------------------------
    def approve(self, ids: Sequence[str], *, note: str | None = None,
                actor: str = "operator") -> Changes:
        """Release held memories into the active belief state (one undoable group).
        Refused, with nothing changed, if any of them is not held."""
        return _decide(self.store, ids, {"quarantined_at": None}, acts.APPROVE, note, actor)

    def reject(self, ids: Sequence[str], *, note: str | None = None,
               actor: str = "operator") -> Changes:
        """Soft-delete held memories (one undoable group; undo returns them to the
        inbox).  Refused, with nothing changed, if any of them is not held."""
        return _decide(self.store, ids, {"deleted_at": utcnow()}, acts.REJECT, note, actor)

    def edit(self, memory_id: str, *, actor: str = "operator", **fields: Any) -> Changes:
        """Edit a held memory's fields (it stays held until approved)."""
        rec = self.store.get(memory_id)
        if rec.status is not Status.QUARANTINED:
            raise ValidationError("id", f"memory {memory_id} is {rec.status.value}, "
                                        "not waiting for review")
        changes: Changes = self.store.update(memory_id, actor=actor, note="edited in review",
                                             expected_version=rec.version, **fields)
        return changes
