"""``maintain``: decay every active memory, and link corrections to what they correct.

The dispositional-memory design's harness forgot this step, so a preference and its correction both
stayed
active and the correction-chain fixtures passed by accident.  Here a correction
supersedes the older active memories it corrects:

- with a specific triple: the older active memories of the same user, entity and
  attribute (compared trimmed and case-insensitively), by the rules of
  core/guard/curated.py, which the job worker applies as soon as a correction is
  written (so here it is the backfill: stores from before, imports, approvals).  Along
  a chain each memory points at the *next* correction after it, so ``A → C1 → C2``
  stays a readable history;
- without one: the single most similar older active memory of the same user, when the
  cosine of their vectors reaches ``similarity`` (word overlap when either has no
  vector).  A correction whose attribute is generic (``prefers``) is linked by neither:
  "I prefer light mode now" shares words with "I prefer tabs" and must not retire it;
  it stays active beside the old preference until the operator (or a specific
  attribute) decides.

Nothing an operator curated is superseded by a correction nobody curated, and no
correction retires a crowd at once: such a correction is held for review with the
evidence, as is a memory that contradicts a curated one of the same question (newer,
another value).  Links and holds are written in one transaction as one audited group
(actor ``worker``), so the whole run is undone with ``undo_group``.  Decay is one
set-based UPDATE (decay.py) and one audit row for the run.  Running it again changes
nothing new.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, select

from memdesk.core.errors import MemdeskError
from memdesk.core.guard.curated import (
    SUPERSEDES_CURATED,
    Link,
    Plan,
    contradiction_holds,
    curated_set,
    group_rows,
    plan_chain,
    supersede_links_in,
    triple_key,
    write_plan,
)
from memdesk.core.guard.screen import Finding
from memdesk.core.ids import new_id, utcnow
from memdesk.core.read import decay
from memdesk.core.read import terms as qt
from memdesk.core.read.config import ReadConfig
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory
from memdesk.core.store.query import active_belief_state
from memdesk.core.store.statistics import refresh_statistics
from memdesk.core.store.vectors import embedding_column

M = Memory.__table__.c
DEFAULT_SIMILARITY = 0.45
WORD_OVERLAP = 0.3

Progress = Callable[[str, float], None]


class Cancelled(MemdeskError):
    """The operator cancelled maintenance before it wrote anything."""


@dataclass
class MaintainReport:
    """What one run did."""

    decayed: int = 0
    links: list[Link] = field(default_factory=list)
    group_id: str | None = None
    seconds: float = 0.0
    # Held for the operator's review instead of linked (core/guard/curated.py): memory
    # id -> the rule ids that held it.
    held: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"decayed": self.decayed, "linked": len(self.links), "group_id": self.group_id,
                "links": [{"old": x.old_id, "correction": x.new_id, "how": x.how}
                          for x in self.links],
                "held": [{"id": k, "rules": v} for k, v in self.held.items()],
                "seconds": round(self.seconds, 3)}


def triple_links(conn: Any, curated: set[str] | None = None,
                 plan: Plan | None = None) -> list[Link]:
    """Every correction with a specific triple, decided by core/guard/curated.py's
    rules: its links (returned, and added to ``plan``), or a hold in ``plan.holds``.
    Also holds what contradicts a curated memory of the same question."""
    plan = plan if plan is not None else Plan()
    curated = curated if curated is not None else curated_set(conn)
    has_triple = and_(active_belief_state(), M.entity.is_not(None), M.attribute.is_not(None))
    corrections = conn.execute(select(M.user_id, M.entity, M.attribute).where(
        has_triple, M.type == "correction")).all()
    keys = {k for c in corrections if (k := triple_key(c.user_id, c.entity, c.attribute))}
    start = len(plan.links)
    if keys:
        groups = group_rows(conn, keys)
        for members in groups.values():
            plan_chain(members, curated, plan)
    contradiction_holds(conn, curated, plan)
    return [x for x in plan.links[start:] if x.new_id not in plan.holds]


def _overlap(a: str, b: str) -> float:
    x, y = set(qt.keywords(a)), set(qt.keywords(b))
    return len(x & y) / len(x | y) if x and y else 0.0


def text_links(conn: Any, similarity: float, taken: set[str],
               curated: set[str] | None = None, plan: Plan | None = None) -> list[Link]:
    """Corrections without a specific triple: each supersedes its most similar older
    memory; when that one is curated (and the correction is not), the correction is
    held in ``plan.holds`` instead."""
    import numpy as np

    from memdesk.core.embeddings import from_blob

    curated = curated if curated is not None else set()
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
            if o.id in taken or (plan is not None and o.id in plan.holds):
                continue
            if cv is not None and o.embedding and len(o.embedding) == len(c.embedding):
                sim, kind = float(np.dot(cv, from_blob(o.embedding))), "cosine"
                threshold = similarity
            else:
                sim, kind = _overlap(c.text, o.text), "word overlap"
                threshold = WORD_OVERLAP
            if sim >= threshold and sim > best_sim:
                best, best_sim, how = o, sim, f"text similarity ({kind} {sim:.2f})"
        if best is not None and best.id in curated and c.id not in curated:
            evidence = (f"would supersede what an operator curated: “{best.text}” "
                        f"({best.id}), by {how}")
            if plan is not None:
                plan.holds[c.id] = [Finding(SUPERSEDES_CURATED,
                                            f"A correction that {evidence}.", evidence[:200])]
            continue
        if best is not None:
            taken.add(best.id)
            links.append(Link(best.id, c.id, how, c.created_at))
    return links


def write_links(store: MemoryStore, conn: Any, links: list[Link], group: str,
                now: datetime) -> None:
    """Supersede in bulk and audit each link in the group (undoable as one action)."""
    supersede_links_in(conn, links, actor="worker", note="maintain", group_id=group, now=now)


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
            # One read of the operator's events (a partial index): nothing an operator
            # curated is superseded by a correction nobody curated (core/guard/curated.py).
            curated = curated_set(conn)
            plan = Plan()
            links = triple_links(conn, curated, plan)
            step("linking corrections by text", 0.35)
            links += text_links(conn, similarity, {x.old_id for x in links}, curated, plan)
            if links or plan.holds:
                report.group_id = new_id()
                step("writing links", 0.5)
                plan.links = []
                write_plan(store, conn, plan, actor="worker", note="maintain",
                           group_id=report.group_id, now=now)
                if links:
                    write_links(store, conn, links, report.group_id, now)
            report.links = links
            report.held = {k: [f.rule_id for f in v] for k, v in plan.holds.items()}
        if do_decay:
            step("decaying scores", 0.6)
            report.decayed = decay.apply_decay(conn, now, cfg)
            store.log_in(conn, None, "worker", acts.DECAY, {},
                         {"rows": report.decayed, "at": now},
                         note="maintain: Ebbinghaus decay with per-type half-lives",
                         stream=acts.Stream.STORE)
        step("committing", 0.95)
    refresh_statistics(store)  # what the store grew by since (core/store/statistics.py)
    report.seconds = time.perf_counter() - t0
    if progress is not None:
        progress("done", 1.0)
    return report
