"""The duplicates queue: clusters of active memories of one user that restate one
another, a merge that keeps one of them, and "not duplicates" remembered.

Finding: per user, the memories with equal normalised text form groups; one member of
each group stands for it in a blocked vector product (``memdesk.core.write.duplicates``,
the matcher the write path shares); groups joined by a pair above the threshold whose
values do not differ are one cluster.  A cluster shows each joining pair's cosine.
Pairs inside an operator's "not duplicates" decision are no edge.  The scan reads one
user at a time, so a store of 1,000,000 memories never holds more than one user's
vectors in memory.

Merging keeps one member (the newest of the highest confidence is suggested); every
other member is superseded by it under one audit group (the ``merge`` action), each
row's note naming the cluster, so one undo restores them all.  "Not duplicates" writes
a dismissal and one ``dismiss_duplicates`` audit row per member (no memory changes);
undoing those rows lifts the dismissal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any

from sqlalchemy import Connection, insert, select

from memdesk.core import taxonomy as tx
from memdesk.core.curation.contradictions import StaleGroupError
from memdesk.core.curation.models import DuplicateDismissal
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.audit import is_undone
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes
from memdesk.core.write import duplicates as W

DT = DuplicateDismissal.__table__
D = DT.c
E = MemoryEvent.__table__.c
M = Memory.__table__.c
MAX_MEMBERS = 500  # a dismissal records every pair: larger groups are refused
DISMISSED = Changed.HISTORY


class StaleClusterError(StaleGroupError):
    """The cluster changed (a member merged, edited or deleted) since it was listed;
    a stale group like a contradiction's (the CLI's exit 5: nothing changed)."""


@dataclass(frozen=True)
class Member:
    id: str
    seq: int
    text: str
    confidence: float
    created_at: datetime
    flagged: bool = False  # the write path flagged it as a new duplicate

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "confidence": self.confidence,
                "created_at": self.created_at.isoformat(), "flagged": self.flagged}


@dataclass(frozen=True)
class Pair:
    a: str  # memory ids
    b: str
    cosine: float | None  # None: same text, no vectors to compare
    same_text: bool

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "cosine": self.cosine, "same_text": self.same_text}


@dataclass(frozen=True)
class Cluster:
    user_id: str
    members: tuple[Member, ...]  # newest first
    pairs: tuple[Pair, ...]  # the pairs that joined it (same-text groups: one pair each)
    suggested: str  # the member to keep: the newest of the highest confidence

    @property
    def id(self) -> str:
        return cluster_id(self.members)

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.members)

    @property
    def flagged(self) -> bool:
        return any(m.flagged for m in self.members)

    def to_json(self) -> dict[str, Any]:
        return {"cluster": self.id, "user_id": self.user_id, "size": len(self.members),
                "suggested_keep": self.suggested, "flagged": self.flagged,
                "members": [m.to_json() for m in self.members],
                "pairs": [p.to_json() for p in self.pairs]}


def cluster_id(members: Sequence[Member]) -> str:
    """``<lowest seq>-<hash of the member set>``: the seq finds the user (so acting on
    a listed cluster rescans one user only), the hash notices a changed member set."""
    seqs = sorted(m.seq for m in members)
    digest = hashlib.sha1(",".join(map(str, seqs)).encode()).hexdigest()[:8]
    return f"{seqs[0]}-{digest}"


def suggest(members: Sequence[Member]) -> str:
    return max(members, key=lambda m: (m.confidence, m.created_at, m.seq)).id


# -- dismissals ---------------------------------------------------------------------------
def _dismissed_pairs(conn: Connection, user_id: str) -> set[tuple[int, int]]:
    """(lower seq, higher seq) of every pair an operator said is not a duplicate, for
    dismissals whose audit rows are not undone."""
    first = (select(E.undone_by).where(E.group_id == D.group_id).order_by(E.id).limit(1)
             .scalar_subquery())
    out: set[tuple[int, int]] = set()
    for seqs, undone_by in conn.execute(select(D.member_seqs, first).where(D.user_id == user_id)):
        if not is_undone(conn, undone_by):
            out.update(combinations(sorted(json.loads(seqs)), 2))
    return out


# -- finding clusters ---------------------------------------------------------------------
class _Union:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        p = self.parent.setdefault(x, x)
        while p != self.parent.setdefault(p, p):
            self.parent[x] = p = self.parent[p]
        return p

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def user_clusters(rows: Sequence[W.Row], user_id: str, threshold: float,
                  dismissed: set[tuple[int, int]] = frozenset(),  # type: ignore[assignment]
                  flagged: frozenset[str] = frozenset()) -> list[Cluster]:
    """The clusters among one user's active memories."""
    groups = W.group_texts(rows)
    by_seq = {r.seq: r for r in rows}
    touched = {s for pair in dismissed for s in pair}
    uf = _Union()
    edges: list[W.Edge] = []

    def allowed(a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) not in dismissed

    for members in groups.values():
        # The member with a vector stands for its group (scan_rows reads only its).
        if members[0].vector is None:
            members.sort(key=lambda m: m.vector is None)
        head = members[0]
        if len(members) > 1 and allowed(head.seq, members[1].seq):
            edges.append(W.Edge(head.seq, members[1].seq, 1.0 if head.vector else None, True))
        if not touched or touched.isdisjoint(m.seq for m in members):
            if len(members) > 1:
                uf.find(head.seq)  # the group is one node: its head stands for all
        else:  # a dismissal splits this group: only its allowed pairs join
            for a, b in combinations(members, 2):
                if allowed(a.seq, b.seq):
                    uf.join(a.seq, b.seq)
    reps = [g[0] for g in groups.values()]
    group_of = {g[0].seq: g for g in groups.values()}
    for e in W.vector_edges(reps, threshold):
        ga, gb = group_of[e.a], group_of[e.b]
        if not touched or touched.isdisjoint(m.seq for m in (*ga, *gb)):
            uf.join(e.a, e.b)
            edges.append(e)
            continue
        # Said of one member, said of its restatements: a same-text newcomer of a
        # dismissed member is offered with that member, not with the other side again.
        if all(allowed(x.seq, y.seq) for x in ga for y in gb):
            uf.join(e.a, e.b)
            edges.append(e)
    comps: dict[int, list[W.Row]] = {}
    for members in groups.values():
        if not touched or touched.isdisjoint(m.seq for m in members):
            if members[0].seq in uf.parent:
                comps.setdefault(uf.find(members[0].seq), []).extend(members)
        else:
            for m in members:
                if m.seq in uf.parent:
                    comps.setdefault(uf.find(m.seq), []).append(m)
    out: list[Cluster] = []
    edges_of: dict[int, list[W.Edge]] = {}
    for e in edges:  # a same-text pair shows its group (whose head alone is a node)
        root = uf.find(e.a)
        if e.same_text or root == uf.find(e.b):
            edges_of.setdefault(root, []).append(e)
    for root, rows_ in comps.items():
        if len(rows_) < 2:
            continue
        members = tuple(sorted(
            (Member(r.id, r.seq, r.text, r.confidence, r.created, r.id in flagged)
             for r in rows_),
            key=lambda m: (m.created_at, m.seq), reverse=True))
        pairs = tuple(Pair(by_seq[e.a].id, by_seq[e.b].id, e.cosine, e.same_text)
                      for e in edges_of.get(root, []))
        out.append(Cluster(user_id, members, pairs, suggest(members)))
    out.sort(key=lambda c: (not c.flagged, -len(c.members), c.members[0].seq))
    return out


def scan(store: MemoryStore, *, user: str | None = None,
         threshold: float = W.DEFAULT_THRESHOLD) -> Iterator[Cluster]:
    """Every open cluster, user by user (``user``: that user's only)."""
    threshold = W.check_threshold(threshold)
    with store.read() as conn:
        users = [user] if user is not None else W.active_users(conn)
    for u in users:
        with store.read() as conn:  # one short read per user: writers are not starved
            rows = W.scan_rows(conn, u)
            dismissed = _dismissed_pairs(conn, u)
            flagged = frozenset(W.flags_of(conn, u))
        yield from user_clusters(rows, u, threshold, dismissed, flagged)


def find_cluster(store: MemoryStore, ref: str, *,
                 threshold: float = W.DEFAULT_THRESHOLD) -> Cluster:
    """A listed cluster by its id; refuses one whose members changed since."""
    head, _, digest = ref.partition("-")
    if not head.isdigit() or len(digest) != 8 or not all(c in "0123456789abcdef" for c in digest):
        raise ValidationError("cluster", f"{ref!r} is not a cluster id (like 1234-ab12cd34)")
    with store.read() as conn:
        user = conn.execute(select(M.user_id).where(M.seq == int(head))).scalar()
    if user is None:
        raise NotFoundError(f"No duplicate cluster {ref!r}")
    for c in scan(store, user=user, threshold=threshold):
        if c.id == ref:
            return c
        if any(m.seq == int(head) for m in c.members):
            raise StaleClusterError(
                f"Cluster {ref} changed since it was listed (it is now {c.id}, "
                f"{len(c.members)} members). List the duplicates again and decide again.")
    raise NotFoundError(f"No open duplicate cluster {ref!r} (merged, dismissed or changed)")


# -- actions -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What a merge or a dismissal did; ``changes.group_id`` is its one undo step."""

    action: str  # "merge" | "dismiss"
    kept: str | None
    member_ids: tuple[str, ...]
    changes: Changes = field(default_factory=Changes)

    @property
    def group_id(self) -> str | None:
        return self.changes.group_id


def _members_in(store: MemoryStore, conn: Connection, ids: Sequence[str]) -> list[Any]:
    ids = list(dict.fromkeys(ids))
    if len(ids) < 2:
        raise ValidationError("ids", "name at least two memories (or a cluster id)")
    if len(ids) > MAX_MEMBERS:
        raise ValidationError("ids", f"at most {MAX_MEMBERS} memories at once, not {len(ids)}")
    recs = [store.get(i, conn) for i in ids]  # NotFoundError names a missing one
    gone = [r.id for r in recs if not r.is_active]
    if gone:
        raise StaleClusterError(
            f"Memory {gone[0]} is no longer active ({len(gone)} of {len(ids)} are not); "
            "list the duplicates again.")
    if len({r.user_id for r in recs}) > 1:
        raise ValidationError("ids", "duplicates are of one user: these memories are of "
                              f"{len({r.user_id for r in recs})} users")
    return recs


def merge(store: MemoryStore, ids: Sequence[str], keep: str, *, cluster: str | None = None,
          note: str | None = None, actor: str = "operator") -> Outcome:
    """Keep ``keep``; every other member is superseded by it (one audit group)."""
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    if keep not in ids:
        raise ValidationError("keep", f"{keep!r} is not one of the members to merge")
    gid = new_id()
    with store.write() as conn:
        recs = _members_in(store, conn, ids)
        ref = cluster or cluster_id([Member(r.id, r.seq, r.text, r.confidence, r.created_at)
                                     for r in recs])
        why = f"merged as a duplicate into {keep} (cluster {ref})" + (
            f": {note}" if note else "")
        now = utcnow()
        events = [ev for r in recs if r.id != keep
                  if (ev := store.supersede_in(conn, r.id, keep, actor=actor,
                                               action=acts.MERGE, group_id=gid, note=why,
                                               at=now))]
    member_ids = tuple(r.id for r in recs)
    return Outcome("merge", keep, member_ids,
                   Changes(member_ids, tuple(events), gid, MEMORY_EDIT, action=acts.MERGE))


def dismiss(store: MemoryStore, ids: Sequence[str], *, note: str | None = None,
            actor: str = "operator") -> Outcome:
    """"Not duplicates": no pair among these memories is offered again (until undone)."""
    note = tx.check_optional_str("note", note, 10_000)
    actor = str(tx.Actor(actor))
    gid = new_id()
    with store.write() as conn:
        recs = _members_in(store, conn, ids)
        conn.execute(insert(DT).values(
            id=new_id(), user_id=recs[0].user_id,
            member_seqs=json.dumps(sorted(r.seq for r in recs)),
            member_ids=json.dumps([r.id for r in recs]), group_id=gid,
            created_at=utcnow(), actor=actor, note=note))
        events = [store.log_in(conn, r.id, actor, acts.DISMISS_DUPLICATES, {}, {},
                               group_id=gid, note=note or "not duplicates")
                  for r in recs]
    member_ids = tuple(r.id for r in recs)
    return Outcome("dismiss", None, member_ids, Changes(
        member_ids, tuple(events), gid, DISMISSED, action=acts.DISMISS_DUPLICATES))


class Duplicates:
    """The duplicates queue over one store (the façade the CLI and the view call)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def find(self, *, user: str | None = None, threshold: float = W.DEFAULT_THRESHOLD,
             limit: int | None = None) -> list[Cluster]:
        out: list[Cluster] = []
        for c in scan(self.store, user=user, threshold=threshold):
            out.append(c)
            if limit is not None and len(out) >= limit:
                break
        return out

    def cluster(self, ref: str, *, threshold: float = W.DEFAULT_THRESHOLD) -> Cluster:
        return find_cluster(self.store, ref, threshold=threshold)

    def members(self, ids: Sequence[str]) -> list[Member]:
        """The named memories as cluster members (refused unless active, one user)."""
        with self.store.read() as conn:
            recs = _members_in(self.store, conn, ids)
        return [Member(r.id, r.seq, r.text, r.confidence, r.created_at) for r in recs]

    def merge(self, ids: Sequence[str], keep: str, **kwargs: Any) -> Outcome:
        return merge(self.store, ids, keep, **kwargs)

    def merge_cluster(self, cluster: Cluster, keep: str | None = None,
                      **kwargs: Any) -> Outcome:
        return merge(self.store, cluster.member_ids, keep or cluster.suggested,
                     cluster=cluster.id, **kwargs)

    def dismiss(self, ids: Sequence[str], **kwargs: Any) -> Outcome:
        return dismiss(self.store, ids, **kwargs)

    def undo(self, outcome: Outcome, *, actor: str = "operator") -> Changes:
        return self.store.undo_group(outcome.changes.group_id or "", actor=actor)
