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

import json
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select

from memdesk.core import taxonomy as tx
from memdesk.core.curation.contradictions import StaleGroupError
from memdesk.core.curation.duplicate_clusters import (  # re-exported: the queue's values
    Cluster,
    Member,
    Pair,
    cluster_id,
    suggest,
    user_clusters,
)

__all__ = ["Cluster", "Duplicates", "Member", "Outcome", "Pair", "StaleClusterError",
           "cluster_id", "suggest"]
from memdesk.core.curation.models import DuplicateDismissal
from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.audit import is_undone
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes
from memdesk.core.write import duplicate_flags as F
from memdesk.core.write import duplicates as W
from memdesk.core.write import settings

# Declarative types __table__ as a FromClause; this model maps a plain Table.
DT = cast(Table, DuplicateDismissal.__table__)
D = DT.c
E = MemoryEvent.__table__.c
M = Memory.__table__.c
READERS = 2  # users read ahead, each on its own thread and connection
MAX_MEMBERS = 500  # a dismissal records every pair: larger groups are refused
DISMISSED = Changed.HISTORY


class StaleClusterError(StaleGroupError):
    """The cluster changed (a member merged, edited or deleted) since it was listed;
    a stale group like a contradiction's (the CLI's exit 5: nothing changed)."""


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
def _read_user(store: MemoryStore, user: str
               ) -> tuple[W.UserScan, set[tuple[int, int]], frozenset[str]]:
    with store.read() as conn:  # one short read per user: writers are not starved
        return W.scan_user(conn, user), _dismissed_pairs(conn, user), frozenset(
            F.flags_of(conn, user))


def scan(store: MemoryStore, *, user: str | None = None,
         threshold: float | None = None) -> Iterator[Cluster]:
    """Every open cluster, user by user (``user``: that user's only), at ``threshold``
    (None: the operator's, the store setting).

    The next user is read on a second thread while this one is clustered: SQLite and
    the similarity product let go of the GIL, so the two overlap (on a shared machine
    a second runnable thread also gets its own share of the CPU)."""
    with store.read() as conn:
        threshold = _threshold(conn, threshold)
        users = [user] if user is not None else W.active_users(conn)
    if not users:
        return
    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="duplicates-read") as pool:
        ahead = deque(pool.submit(_read_user, store, u) for u in users[:READERS])
        for k in range(len(users)):
            rows, dismissed, flagged = ahead.popleft().result()
            if k + READERS < len(users):
                ahead.append(pool.submit(_read_user, store, users[k + READERS]))
            yield from user_clusters(rows, threshold, dismissed, flagged)


def _threshold(conn: Connection, threshold: float | None) -> float:
    if threshold is None:
        return float(settings.get_in(conn, settings.DUPLICATE_THRESHOLD))
    return W.check_threshold(threshold)


def clusters_with(store: MemoryStore, user: str, extra: Sequence[W.Row], *,
                  threshold: float | None = None, in_store: bool = True) -> list[Cluster]:
    """The clusters ``scan`` would list for ``user`` if ``extra`` (memories not written
    yet: an import preview) were among that user's active memories; only the clusters
    holding at least one of them.  ``extra`` rows have seqs below 0 and times as ISO
    text (``W.with_rows``); ``in_store`` False: the user has nothing stored (no read)."""
    if in_store:
        rows, dismissed, flagged = _read_user(store, user)
    else:
        rows, dismissed, flagged = W.UserScan(user, [], []), set(), frozenset()
    if threshold is None:
        with store.read() as conn:
            threshold = _threshold(conn, None)
    merged = W.with_rows(rows, extra)
    return [c for c in user_clusters(merged, W.check_threshold(threshold), dismissed, flagged)
            if any(m.seq < 0 for m in c.members)]


def find_cluster(store: MemoryStore, ref: str, *,
                 threshold: float | None = None) -> Cluster:
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

    def find(self, *, user: str | None = None, threshold: float | None = None,
             limit: int | None = None) -> list[Cluster]:
        out: list[Cluster] = []
        for c in scan(self.store, user=user, threshold=threshold):
            out.append(c)
            if limit is not None and len(out) >= limit:
                break
        return out

    def find_with(self, user: str, extra: Sequence[W.Row], *, threshold: float | None = None,
                  in_store: bool = True) -> list[Cluster]:
        """The clusters ``extra`` (memories not in the store yet) would be in, among
        ``user``'s memories and each other: ``clusters_with``."""
        return clusters_with(self.store, user, extra, threshold=threshold, in_store=in_store)

    def threshold(self) -> float:
        """The operator's similarity threshold (the store setting the write path's flag
        uses too)."""
        return float(settings.get(self.store, settings.DUPLICATE_THRESHOLD))

    def set_threshold(self, value: float, *, actor: str = "operator",
                      note: str | None = None) -> Changes:
        """Store the operator's threshold: one audited, undoable step (kinds NOTHING
        when it was the one in force already)."""
        return settings.set_value(self.store, settings.DUPLICATE_THRESHOLD, value,
                                  actor=actor, note=note)

    def cluster(self, ref: str, *, threshold: float | None = None) -> Cluster:
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
