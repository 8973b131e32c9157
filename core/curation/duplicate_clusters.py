"""Clusters of one user's duplicates, from a scan of that user (``W.scan_user``): the
values the duplicates queue lists (``Cluster``, its ``Member``s and joining ``Pair``s)
and how they are formed.

A same-text group is one node, its head standing for it, unless an operator's "not
duplicates" names one of its members: then its members are nodes of their own and only
the pairs not dismissed join them.  Groups joined by a vector pair (``W.head_edges``)
are one cluster: the connected components of that graph (scipy's, one call per user).
Members and pairs are named tuples, not dataclasses: a scan of the demo's 1,000,000
memories builds 860,000 members, and a frozen dataclass costs three times as much to
make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from memdesk.core.write import duplicates as W


class Member(NamedTuple):
    id: str
    seq: int
    text: str
    confidence: float
    created_at: datetime
    flagged: bool = False  # the write path flagged it as a new duplicate

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "confidence": self.confidence,
                "created_at": self.created_at.isoformat(), "flagged": self.flagged}


class Pair(NamedTuple):
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


def _newest_first(m: Member) -> tuple[datetime, int]:
    return (m.created_at, m.seq)


def user_clusters(scan: W.UserScan, threshold: float,
                  dismissed: Set[tuple[int, int]] = frozenset(),
                  flagged: frozenset[str] = frozenset()) -> list[Cluster]:
    """The clusters among one user's active memories, flagged ones first, then the
    largest."""
    with W.gc_paused():
        return _clusters(scan, threshold, dismissed, flagged)


def _clusters(scan: W.UserScan, threshold: float, dismissed: Set[tuple[int, int]],
              flagged: frozenset[str]) -> list[Cluster]:
    groups, heads = scan.groups, scan.heads
    touched = {s for pair in dismissed for s in pair}
    split = [bool(touched) and not touched.isdisjoint(m[0] for m in g) for g in groups]

    def allowed(a: int, b: int) -> bool:
        return not dismissed or (min(a, b), max(a, b)) not in dismissed

    # Nodes: group k is node k; a split group's members are nodes past the groups.
    node_rows: list[list[W.ScanRow]] = [g if not split[k] else [g[0]]
                                        for k, g in enumerate(groups)]
    src: list[int] = []
    dst: list[int] = []
    # (node of a, seq a, seq b, cosine, same text): the pairs a cluster shows
    shown: list[tuple[int, int, int, float | None, bool]] = []
    for k, g in enumerate(groups):
        if len(g) < 2:
            continue
        if allowed(g[0][0], g[1][0]):
            shown.append((k, g[0][0], g[1][0], 1.0 if heads[k].vector else None, True))
        if split[k]:
            node = {g[0][0]: k}
            for m in g[1:]:
                node[m[0]] = len(node_rows)
                node_rows.append([m])
            for a, b in combinations(g, 2):
                if allowed(a[0], b[0]):
                    src.append(node[a[0]])
                    dst.append(node[b[0]])
    ii, jj, ss = W.head_edges(heads, threshold)
    for i, j, cos in zip(ii.tolist(), jj.tolist(), ss.tolist(), strict=True):
        # Said of one member, said of its restatements: a same-text newcomer of a
        # dismissed member is offered with that member, not with the other side again.
        if touched and (split[i] or split[j]) and not all(
                allowed(x[0], y[0]) for x in groups[i] for y in groups[j]):
            continue
        src.append(i)
        dst.append(j)
        shown.append((i, groups[i][0][0], groups[j][0][0], cos, False))
    n = len(node_rows)
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    size = np.bincount(labels, weights=[len(r) for r in node_rows], minlength=n)
    label = labels.tolist()
    rows_of: dict[int, list[W.ScanRow]] = {}
    for k in np.flatnonzero(size[labels] >= 2).tolist():
        rows_of.setdefault(label[k], []).extend(node_rows[k])
    pairs_of: dict[int, list[tuple[int, int, int, float | None, bool]]] = {}
    for p in shown:
        pairs_of.setdefault(label[p[0]], []).append(p)
    # The driver's timestamps: text from SQLite (parsed here, for members only),
    # datetimes from PostgreSQL.
    parse: Callable[[Any], datetime] = W.parse_created
    if groups and isinstance(groups[0][0][7], str):
        parse = datetime.fromisoformat
    out: list[Cluster] = []
    for lab, rows in rows_of.items():
        members = sorted(
            (Member(m[1], m[0], m[2], m[6], parse(m[7]), m[1] in flagged) for m in rows),
            key=_newest_first, reverse=True)
        ids = {m.seq: m.id for m in members}
        pairs = tuple(Pair(ids[a], ids[b], cos, same)
                      for _, a, b, cos, same in pairs_of.get(lab, ()))
        out.append(Cluster(scan.user_id, tuple(members), pairs, suggest(members)))
    out.sort(key=lambda c: (not c.flagged, -len(c.members), c.members[0].seq))
    return out
