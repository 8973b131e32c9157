"""Who may supersede what: corrections, curated memories and the review inbox.

One set of rules for every path that links a correction to what it corrects (the job
worker, as soon as a correction is written; the guard's approve; ``maintain``'s
backfill), so the same correction never supersedes one memory on one path and is held
on another.

**Curated** is read from the audit log: a memory is the operator's once any audited
action on it was the operator's (added, edited, approved from the inbox, resolved,
revalued).  Imports (actor ``import``) and the worker's and agents' writes do not
curate.  Migration 0013's partial index on ``memory_events(memory_id) WHERE actor =
'operator'`` holds only those few rows, so the whole curated set is one small index
read even over a million memories.

A **correction** (type ``correction``, said as a belief, not held) with a specific
triple may supersede the memories that

- have the same user, entity and attribute (compared trimmed, case-insensitively);
  a generic attribute (``prefers``) is no triple at all: "I prefer light mode" must
  not supersede the tabs preference;
- are in the active belief state (not superseded, expired, deleted, held or
  hypothetical) and older than the correction (creation time, then seq);
- are not curated, unless the correction itself is (an operator's correction, or one
  the operator approved): operators outrank agents, never the other way round;
- hold at most ``MAX_AUTO_VALUES`` different values between them.  A correction
  corrects one belief: retiring every repeated mention of it ("User prefers unittest"
  said twenty times) is what it is for, but a question that already has three
  answers alive is a contradiction for the operator to settle, not for one agent turn
  to sweep away (the issue's "No, actually I work at Evil Corp now." that retired 56
  of a user's 57 works_at memories).

A correction that would break one of the last two rules supersedes nothing: it is held
for review, with the memories it would have superseded as evidence.  A correction that
repeats a curated memory's value is held too (it would supersede it all the same).

There is no MCP tool that updates or deletes a memory yet; one added later must decide
through these rules (and ``origin.check_agent_may_change``), like every path here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

from sqlalchemy import (
    Connection,
    Table,
    and_,
    bindparam,
    func,
    insert,
    literal_column,
    select,
    update,
)

from memdesk.core.guard.models import QuarantineReason
from memdesk.core.guard.screen import Finding
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.records import encode_values
from memdesk.core.taxonomy import Actor

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.records import AnyRow

M = Memory.__table__.c
E = MemoryEvent.__table__.c
# Declarative types __table__ as a FromClause; these models map plain Tables.
ET = cast(Table, MemoryEvent.__table__)
MT = cast(Table, Memory.__table__)
QT = cast(Table, QuarantineReason.__table__)

MAX_AUTO_VALUES = 2
# Attributes that name no single question: one value does not exclude another.
GENERIC_ATTRIBUTES = frozenset({"prefers", "prefer", "preference", "preferences", "likes"})
SUPERSEDES_CURATED = "supersedes-curated"
SUPERSEDES_MANY = "supersedes-many"
CONTRADICTS_CURATED = "contradicts-curated"  # the guard's rule id, so the inbox groups them
# The reasons this module holds a correction for, as `memdesk review rules` lists them.
HOLD_RULES = {
    SUPERSEDES_CURATED: "A correction would supersede a memory an operator curated (or "
                        "repeats its value); the operator decides.",
    SUPERSEDES_MANY: f"A correction would supersede memories holding more than "
                     f"{MAX_AUTO_VALUES} different values at once.",
}
_EVIDENCE_ITEMS = 3
_COLS = (M.seq, M.id, M.user_id, M.type, M.text, M.entity, M.attribute, M.value,
         M.created_at)


Key = tuple[str, str, str]


def triple_key(user_id: str, entity: str | None, attribute: str | None) -> Key | None:
    """The (user, entity, attribute) a correction is about, or None when it names no
    specific question (a missing or generic attribute)."""
    e = (entity or "").strip().lower()
    a = (attribute or "").strip().lower()
    if not e or not a or a in GENERIC_ATTRIBUTES:
        return None
    return (user_id, e, a)


def curated_set(conn: Connection) -> set[str]:
    """Every memory an operator has acted on.  The literal (not a bound parameter) lets
    both backends answer from the partial index on operator events; rows about no memory
    (an operator's job cancel, an embedding pass: memory_id NULL) are no memory's."""
    return set(conn.execute(
        select(E.memory_id).where(E.actor == literal_column(f"'{Actor.OPERATOR.value}'"),
                                  E.memory_id.is_not(None))
        .distinct()).scalars())


def curated_among(conn: Connection, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are curated (for a handful of ids: one index probe each)."""
    out: set[str] = set()
    ids = list(dict.fromkeys(ids))
    for i in range(0, len(ids), 500):
        out.update(conn.execute(
            select(E.memory_id).where(
                E.memory_id.in_(ids[i:i + 500]),
                E.actor == literal_column(f"'{Actor.OPERATOR.value}'")).distinct()).scalars())
    return out


@dataclass(frozen=True)
class Link:
    """``old_id`` is superseded by the correction ``new_id`` (valid until ``at``)."""

    old_id: str
    new_id: str
    how: str
    at: datetime


@dataclass
class Plan:
    """What a set of corrections does: the links to write and the corrections to hold."""

    links: list[Link]
    holds: dict[str, list[Finding]]

    def __init__(self) -> None:
        self.links, self.holds = [], {}


def _describe(rows: Iterable[AnyRow]) -> str:
    rows = list(rows)
    shown = "; ".join(f"“{r.text}” ({r.id})" for r in rows[:_EVIDENCE_ITEMS])
    more = len(rows) - _EVIDENCE_ITEMS
    return shown + (f"; and {more} more" if more > 0 else "")


def plan_chain(members: list[AnyRow], curated: set[str], plan: Plan,
               max_auto: int = MAX_AUTO_VALUES) -> None:
    """Walk one (user, entity, attribute) group oldest first and decide each correction.

    ``members``: the group's active rows (``_COLS``).  Along the chain each memory is
    superseded by the *next* accepted correction after it, so ``A → C1 → C2`` stays a
    readable history; a held correction leaves the chain as if it were not there."""
    members = sorted(members, key=lambda r: (r.created_at, r.seq))
    pending: list[AnyRow] = []
    for r in members:
        if r.type != "correction" or r.id in plan.holds:
            pending.append(r)
            continue
        mine = r.id in curated
        theirs = [p for p in pending if p.id in curated]
        if theirs and not mine:
            same = [p for p in theirs if (p.value or "").strip().casefold()
                    == (r.value or "").strip().casefold()]
            what = "repeats" if same and len(same) == len(theirs) else "would supersede"
            evidence = f"{what} what an operator curated: {_describe(theirs)}"
            plan.holds[r.id] = [Finding(SUPERSEDES_CURATED,
                                        f"A correction that {evidence}.", evidence[:200])]
            continue
        values = {(p.value or "").strip().casefold() for p in pending}
        if len(values) > max_auto and not mine:
            evidence = (f"would supersede {len(pending)} memories holding {len(values)} "
                        f"different values (more than {max_auto}): {_describe(pending)}")
            plan.holds[r.id] = [Finding(SUPERSEDES_MANY, f"A correction that {evidence}.",
                                        evidence[:200])]
            continue
        plan.links.extend(Link(p.id, r.id, "same user, entity and attribute", r.created_at)
                          for p in pending)
        pending = [r]


def group_rows(conn: Connection, keys: set[Key]) -> dict[Key, list[AnyRow]]:
    """The active rows of each (user, entity, attribute) in ``keys``."""
    groups: dict[Key, list[AnyRow]] = {k: [] for k in keys}
    users = sorted({k[0] for k in keys})
    has_triple = and_(active_belief_state(), M.entity.is_not(None), M.attribute.is_not(None))
    for i in range(0, len(users), 500):
        for r in conn.execute(select(*_COLS).where(has_triple,
                                                   M.user_id.in_(users[i:i + 500]))):
            k = triple_key(r.user_id, r.entity, r.attribute)
            if k in groups:
                groups[k].append(r)
    return groups


def contradiction_holds(conn: Connection, curated: set[str], plan: Plan) -> None:
    """Hold what contradicts a curated memory: a memory nobody curated, newer than a
    curated one of the same question, with another value (maintain's check; on write,
    the guard's rule of the same name does it before the memory is ever active).

    One join per 500 curated memories, answered from the contradiction scan's covering
    partial index on (user, entity, attribute): the work is the curated memories'
    groups, never the whole store.  The triple is compared as stored, as the guard's
    rule and the contradiction groups do; values trimmed and case-folded."""
    if not curated:
        return
    c = Memory.__table__.alias("c")
    r = Memory.__table__.alias("r")
    C, R = c.c, r.c
    live = and_(R.valid_until.is_(None), R.superseded_by.is_(None), R.deleted_at.is_(None),
                R.quarantined_at.is_(None), R.framing.is_(None), R.archived_at.is_(None),
                R.entity.is_not(None),
                R.attribute.is_not(None), R.value.is_not(None))
    ids = sorted(curated)
    linked = {x.old_id for x in plan.links}  # superseded in this run already
    for i in range(0, len(ids), 500):
        stmt = (
            select(R.id, R.attribute, R.value, C.id.label("cid"), C.text.label("ctext"),
                   C.value.label("cvalue"))
            .select_from(c.join(r, and_(R.user_id == C.user_id, R.entity == C.entity,
                                        R.attribute == C.attribute)))
            .where(C.id.in_(ids[i:i + 500]), C.valid_until.is_(None),
                   C.superseded_by.is_(None), C.deleted_at.is_(None),
                   C.quarantined_at.is_(None), C.framing.is_(None), C.archived_at.is_(None),
                   C.value.is_not(None),
                   live, func.lower(func.trim(R.value)) != func.lower(func.trim(C.value)),
                   (R.created_at > C.created_at)
                   | and_(R.created_at == C.created_at, R.seq > C.seq))
            .order_by(C.created_at, C.seq)
            # SQLite would otherwise walk all of the user's rows (ix_memories_user_valid)
            # for every curated memory; the partial index holds just the live triples.
            .with_hint(r, "INDEXED BY ix_memories_active_triple", "sqlite")
        )
        for row in conn.execute(stmt):
            if row.id in curated or row.id in plan.holds or row.id in linked:
                continue
            if row.value.strip().casefold() == row.cvalue.strip().casefold():
                continue  # differs only where SQL's lower() and trim() fold less
            evidence = (f"“{row.ctext}” ({row.cid}) says {row.attribute} = {row.cvalue}, "
                        f"this says {row.value}")[:200]
            plan.holds[row.id] = [Finding(
                CONTRADICTS_CURATED,
                f"Contradicts a memory an operator curated: {evidence}.", evidence)]


def write_plan(store: MemoryStore, conn: Connection, plan: Plan, *, actor: str, note: str,
               group_id: str | None, now: datetime | None = None) -> None:
    """Hold, then link, in ``conn``'s transaction; every change audited in ``group_id``
    (links whose correction is held are dropped)."""
    now = now or utcnow()
    if plan.holds:
        # As the guard's quarantine (core/guard/screen.py), set-based (a first maintain
        # of a large store may hold thousands), and in this run's group, so undoing the
        # run releases what it held.
        held = [{"mid": mid} for mid in plan.holds]
        conn.execute(update(MT)
                     .where(M.id == bindparam("mid"), M.quarantined_at.is_(None))
                     .values(quarantined_at=now, version=M.version + 1), held)
        conn.execute(insert(ET), [
            dict(memory_id=mid, actor=actor, action=acts.QUARANTINE.name,
                 before=encode_values({"quarantined_at": None}),
                 after=encode_values({"quarantined_at": now}), at=now, group_id=group_id,
                 note=f"{note}: " + ", ".join(f.rule_id for f in findings))
            for mid, findings in plan.holds.items()])
        conn.execute(insert(QT), [
            {"memory_id": mid, "rule_id": f.rule_id, "reason": f.reason,
             "evidence": f.evidence, "at": now}
            for mid, findings in plan.holds.items() for f in findings])
    links = [x for x in plan.links if x.new_id not in plan.holds]
    if links:
        supersede_links_in(conn, links, actor=actor, note=note, group_id=group_id, now=now)


def supersede_links_in(conn: Connection, links: Sequence[Link], *, actor: str, note: str,
                       group_id: str | None, now: datetime) -> None:
    """Supersede each link's old memory by its correction, set-based, and audit each
    link in ``group_id`` (undoable as one action).  The worker, review approval and
    ``maintain`` all link through here."""
    conn.execute(
        update(MT)
        .where(M.id == bindparam("old"), M.superseded_by.is_(None))
        # An audited change bumps the row version (optimistic concurrency): an operator
        # edit based on the version read before this link must be refused, not win.
        .values(superseded_by=bindparam("new"), valid_until=bindparam("at"),
                version=M.version + 1),
        [{"old": x.old_id, "new": x.new_id, "at": x.at} for x in links],
    )
    conn.execute(insert(ET), [
        dict(memory_id=x.old_id, actor=actor, action=acts.SUPERSEDE.name,
             before=encode_values({"superseded_by": None, "valid_until": None}),
             after=encode_values({"superseded_by": x.new_id, "valid_until": x.at}),
             at=now, group_id=group_id, note=f"{note}: correction linked by {x.how}")
        for x in links
    ])


def link_new_corrections_in(store: MemoryStore, conn: Connection, ids: Sequence[str], *,
                            actor: str, note: str, group_id: str | None = None) -> Plan:
    """Link the corrections among ``ids`` (just written or just approved) to what they
    supersede, or hold them, inside ``conn``'s transaction.  Other corrections of the
    same questions are left as they are: only the new ones are decided here."""
    if not ids:
        return Plan()
    rows = conn.execute(select(*_COLS).where(
        M.id.in_(list(ids)), M.type == "correction", active_belief_state())).all()
    keys = {k for r in rows if (k := triple_key(r.user_id, r.entity, r.attribute))}
    plan = Plan()
    if not keys:
        return plan
    groups = group_rows(conn, keys)
    wanted = {r.id for r in rows}
    curated = curated_among(conn, [r.id for g in groups.values() for r in g])
    for members in groups.values():
        full = Plan()
        plan_chain(members, curated, full)
        # Every link of the question, so nothing older than the new correction stays
        # active beside it (a correction written before links were made at once is
        # linked too); but only the new corrections are held: an older one's hold is
        # maintain's decision, not this job's.
        plan.holds.update({k: v for k, v in full.holds.items() if k in wanted})
        plan.links.extend(x for x in full.links if x.new_id not in full.holds)
    write_plan(store, conn, plan, actor=actor, note=note, group_id=group_id)
    return plan


__all__ = [
    "CONTRADICTS_CURATED", "GENERIC_ATTRIBUTES", "HOLD_RULES", "MAX_AUTO_VALUES",
    "SUPERSEDES_CURATED",
    "SUPERSEDES_MANY", "Link", "Plan", "contradiction_holds", "curated_among", "curated_set",
    "group_rows", "link_new_corrections_in", "plan_chain", "triple_key", "write_plan",
]
