"""``maintain``: decay every active memory, and link corrections to what they correct.

Seed 000's harness forgot this step, so a preference and its correction both stayed
active and the correction-chain fixtures passed by accident.  Here a correction
supersedes the older active memories it corrects:

- with a triple: every older active memory of the same user, entity and attribute
  (compared trimmed and case-insensitively).  Along a chain each memory points at the
  *next* correction after it, so ``A → C1 → C2`` stays a readable history;
- without a triple: the single most similar older active memory of the same user,
  when the cosine of their vectors reaches ``similarity`` (word overlap when either has
  no vector).

Links are written in one transaction as one audited group (actor ``worker``), so the
whole run is undone with ``undo_group``.  Decay is one set-based UPDATE (decay.py) and
one audit row for the run.  Running it again changes nothing new.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, insert, select, update

from memdesk.core.errors import MemdeskError
from memdesk.core.ids import new_id, utcnow
from memdesk.core.read import decay
from memdesk.core.read import terms as qt
from memdesk.core.read.config import ReadConfig
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.records import encode_values
from memdesk.core.store.vectors import embedding_column

M = Memory.__table__.c
DEFAULT_SIMILARITY = 0.45
WORD_OVERLAP = 0.3

Progress = Callable[[str, float], None]


class Cancelled(MemdeskError):
    """The operator cancelled maintenance before it wrote anything."""


@dataclass(frozen=True)
class Link:
    old_id: str
    new_id: str
    how: str
    at: datetime


@dataclass
class MaintainReport:
    """What one run did."""

    decayed: int = 0
    links: list[Link] = field(default_factory=list)
    group_id: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"decayed": self.decayed, "linked": len(self.links), "group_id": self.group_id,
                "links": [{"old": x.old_id, "correction": x.new_id, "how": x.how}
                          for x in self.links],
                "seconds": round(self.seconds, 3)}


def _key(row: Any) -> tuple[str, str, str]:
    return (row.user_id, row.entity.strip().lower(), row.attribute.strip().lower())


def triple_links(conn: Any) -> list[Link]:
    cols = (M.seq, M.id, M.user_id, M.type, M.entity, M.attribute, M.created_at)
    has_triple = and_(active_belief_state(), M.entity.is_not(None), M.attribute.is_not(None))
    corrections = conn.execute(select(*cols).where(has_triple, M.type == "correction")).all()
    keys = {_key(c) for c in corrections if c.entity.strip() and c.attribute.strip()}
    if not keys:
        return []
    users = sorted({k[0] for k in keys})
    groups: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    for i in range(0, len(users), 500):
        rows = conn.execute(select(*cols).where(has_triple, M.user_id.in_(users[i : i + 500])))
        for r in rows:
            k = _key(r)
            if k in keys:
                groups[k].append(r)
    links: list[Link] = []
    for members in groups.values():
        members.sort(key=lambda r: (r.created_at, r.seq))
        nxt = None  # the next correction after each member, walking backwards
        for r in reversed(members):
            if nxt is not None:
                links.append(Link(r.id, nxt.id, "same user, entity and attribute",
                                  nxt.created_at))
            if r.type == "correction":
                nxt = r
    return links


def _overlap(a: str, b: str) -> float:
    x, y = set(qt.keywords(a)), set(qt.keywords(b))
    return len(x & y) / len(x | y) if x and y else 0.0


def text_links(conn: Any, similarity: float, taken: set[str]) -> list[Link]:
    import numpy as np

    from memdesk.core.embeddings import from_blob

    cols = (M.seq, M.id, M.user_id, M.type, M.text, M.created_at, embedding_column())
    lone = conn.execute(select(*cols).where(
        active_belief_state(), M.type == "correction",
        (M.entity.is_(None)) | (M.attribute.is_(None)))).all()
    links: list[Link] = []
    for c in sorted(lone, key=lambda r: (r.created_at, r.seq)):
        older = conn.execute(select(*cols).where(
            active_belief_state(), M.user_id == c.user_id, M.seq != c.seq,
            (M.created_at < c.created_at) | and_(M.created_at == c.created_at, M.seq < c.seq),
        )).all()
        best, best_sim, how = None, float("-inf"), ""
        cv = from_blob(c.embedding) if c.embedding else None
        for o in older:
            if o.id in taken:
                continue
            if cv is not None and o.embedding and len(o.embedding) == len(c.embedding):
                sim, kind = float(np.dot(cv, from_blob(o.embedding))), "cosine"
                threshold = similarity
            else:
                sim, kind = _overlap(c.text, o.text), "word overlap"
                threshold = WORD_OVERLAP
            if sim >= threshold and sim > best_sim:
                best, best_sim, how = o, sim, f"text similarity ({kind} {sim:.2f})"
        if best is not None:
            taken.add(best.id)
            links.append(Link(best.id, c.id, how, c.created_at))
    return links


def write_links(store: MemoryStore, conn: Any, links: list[Link], group: str,
                now: datetime) -> None:
    """Supersede in bulk and audit each link in the group (undoable as one action)."""
    ET = MemoryEvent.__table__
    conn.execute(
        update(Memory.__table__)
        .where(M.id == bindparam("old"), M.superseded_by.is_(None))
        # An audited change bumps the row version (optimistic concurrency): an operator
        # edit based on the version read before this link must be refused, not win.
        .values(superseded_by=bindparam("new"), valid_until=bindparam("at"),
                version=M.version + 1),
        [{"old": x.old_id, "new": x.new_id, "at": x.at} for x in links],
    )
    conn.execute(insert(ET), [
        dict(memory_id=x.old_id, actor="worker", action=acts.SUPERSEDE.name,
             before=encode_values({"superseded_by": None, "valid_until": None}),
             after=encode_values({"superseded_by": x.new_id, "valid_until": x.at}),
             at=now, group_id=group, note=f"maintain: correction linked by {x.how}")
        for x in links
    ])


def maintain(
    store: MemoryStore,
    config: ReadConfig | None = None,
    *,
    now: datetime | None = None,
    do_decay: bool = True,
    link: bool = True,
    similarity: float = DEFAULT_SIMILARITY,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> MaintainReport:
    """Link corrections, then decay; all in one write transaction."""
    cfg = (config or ReadConfig()).checked()
    now = now or utcnow()
    report = MaintainReport()
    t0 = time.perf_counter()

    def step(name: str, frac: float) -> None:
        if cancelled is not None and cancelled():
            raise Cancelled("Maintenance was cancelled; nothing was changed.")
        if progress is not None:
            progress(name, frac)

    with store.write() as conn:
        if link:
            step("linking corrections by triple", 0.05)
            links = triple_links(conn)
            step("linking corrections by text", 0.35)
            links += text_links(conn, similarity, {x.old_id for x in links})
            if links:
                report.group_id = new_id()
                step("writing links", 0.5)
                write_links(store, conn, links, report.group_id, now)
            report.links = links
        if do_decay:
            step("decaying scores", 0.6)
            report.decayed = decay.apply_decay(conn, now, cfg)
            store.log_in(conn, None, "worker", acts.DECAY, {},
                         {"rows": report.decayed, "at": now},
                         note="maintain: Ebbinghaus decay with per-type half-lives",
                         stream=acts.Stream.STORE)
        step("committing", 0.95)
    report.seconds = time.perf_counter() - t0
    if progress is not None:
        progress("done", 1.0)
    return report
