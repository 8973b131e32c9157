"""The erasure façade: ``Erasure(store).preview(id)`` and ``.purge(id, …)``.

One service for the three interfaces (``memdesk forget ID --purge``, the MCP ``forget``
tool with ``purge: true``, the desk's "Erase permanently…").  The purge is the declared
action ``purge`` (``memdesk.core.store.actions.PURGE``): audited, irreversible, never
undoable; each interface asks for confirmation before calling it.

Who may purge what:

- the **operator** (CLI, desk) may purge any memory, a held one included (erasing a
  held secret is the strongest way to reject it), soft-deleted or not;
- an **agent** (MCP, with the ``purge`` right) may purge only what it may see and
  forget: a memory of a user it serves that is not deleted, not held for review
  (held memories are the operator's) and not curated by the operator (operators
  outrank agents) — for every memory of the family the purge would take.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, select, update

from memdesk.core.erasure import receipt as rc
from memdesk.core.erasure.plan import Plan, PurgeRefused, plan_in
from memdesk.core.erasure.proof import prove, raw_hits
from memdesk.core.erasure.purge import erase_in, purge_transaction, scrub
from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.guard.agent_actions import Serves, no_memory, visible_in
from memdesk.core.guard.agent_api import HeldForReview
from memdesk.core.guard.curated import curated_among
from memdesk.core.ids import new_id
from memdesk.core.store import actions as acts
from memdesk.core.store.db import sqlite_path
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Erasure as ErasureRow
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes
from memdesk.core.taxonomy import Actor

Progress = Callable[[str], None]
ERT = cast(Table, ErasureRow.__table__)  # a declarative table
ER = ERT.c


@dataclass(frozen=True)
class Erased:
    """What one purge did: its receipt (JSON-ready, no text) and its ``Changes``."""

    receipt: dict[str, Any]
    changes: Changes

    @property
    def verdict(self) -> str:
        return str(self.receipt["verdict"])

    @property
    def erasure_id(self) -> str:
        return str(self.receipt["erasure_id"])

    def summary(self) -> list[str]:
        return rc.summary(self.receipt)

    def save(self, path: Path) -> None:
        """Write the receipt to ``path`` (a clear message when it cannot be written)."""
        try:
            path.write_text(rc.dumps(self.receipt) + "\n", encoding="utf-8")
        except OSError as exc:
            raise MemdeskError(f"The erasure is done, but its receipt could not be written "
                               f"to {path}: {exc.strerror or exc}. It is kept in the store "
                               f"(erasure {self.erasure_id}).") from exc


@dataclass(frozen=True)
class ErasureInfo:
    """One stored erasure record (the list of receipts)."""

    id: str
    memory_id: str
    at: datetime
    actor: str
    who: str | None
    erased: int
    verdict: str

    def receipt(self, store: MemoryStore) -> dict[str, Any]:
        with store.read() as conn:
            raw = conn.execute(select(ER.receipt).where(ER.id == self.id)).scalar_one()
        data: dict[str, Any] = json.loads(raw)
        return data


class Erasure:
    """The erasure service over one open store."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def preview(self, memory_id: str, *, serves: Serves | None = None) -> Plan:
        """What a purge of ``memory_id`` would erase (for the confirmation)."""
        with self.store.read() as conn:
            if serves is not None:
                self._agent_may(conn, memory_id, serves)
            plan = plan_in(self.store, conn, memory_id)
            if serves is not None:
                self._agent_may_all(conn, plan)
            return plan

    def purge(self, memory_id: str, *, actor: str = Actor.OPERATOR.value,
              who: str | None = None, serves: Serves | None = None,
              progress: Progress | None = None) -> Erased:
        """Erase ``memory_id`` (and its family, see ``plan``) from every place the store
        keeps it, scrub the file, prove it and keep the receipt.  ``serves`` (an
        agent's scope): the agent rules of the module docstring apply."""
        say = progress or (lambda _msg: None)
        erasure_id = new_id()
        say("erasing")
        with purge_transaction(self.store) as conn:
            if serves is not None:
                self._agent_may(conn, memory_id, serves)
            plan = plan_in(self.store, conn, memory_id)
            if serves is not None:
                self._agent_may_all(conn, plan)
            removed = erase_in(self.store, conn, plan, erasure_id=erasure_id, actor=actor,
                               who=who)
            at = conn.execute(select(ER.at).where(ER.id == erasure_id)).scalar_one()
        path = sqlite_path(self.store.engine.url.render_as_string(hide_password=False))
        say("scrubbing the store's files")
        scrubbed = scrub(self.store, path, plan, raw_hits, say)
        say("proving the erasure")
        proof = prove(self.store, path, plan)
        receipt = rc.build(
            erasure_id=erasure_id, at=at, actor=actor, who=who, store_url=self.store.url,
            plan=plan, removed=removed, scrub=scrubbed, proof=proof,
            backups=rc.backups_holding(path, plan), postgres=self.store.dialect != "sqlite")
        with purge_transaction(self.store) as conn:
            conn.execute(update(ERT).where(ER.id == erasure_id).values(
                verdict=proof.verdict, receipt=rc.dumps(receipt)))
        ids = plan.ids + plan.retired
        changes = Changes(ids, (), erasure_id, MEMORY_EDIT | Changed.JOBS | Changed.SNAPSHOTS,
                          action=acts.PURGE)
        return Erased(receipt, changes)

    def receipts(self, limit: int = 100) -> list[ErasureInfo]:
        """The stored erasure records, newest first."""
        with self.store.read() as conn:
            rows = conn.execute(select(ER.id, ER.memory_id, ER.at, ER.actor, ER.who,
                                       ER.erased, ER.verdict)
                                .order_by(ER.at.desc()).limit(limit)).all()
        return [ErasureInfo(*r) for r in rows]

    # -- agents ---------------------------------------------------------------------
    def _agent_may(self, conn: Any, memory_id: str, serves: Serves) -> None:
        try:
            rec = visible_in(self.store, conn, memory_id, serves)
        except NotFoundError:
            raise NotFoundError(no_memory(memory_id)) from None
        if rec.quarantined_at is not None:
            raise HeldForReview(
                f"Memory {rec.id} is held for an operator's review; an agent cannot erase "
                "it (only the operator approves, rejects or erases held memories)")

    def _agent_may_all(self, conn: Any, plan: Plan) -> None:
        others = [t for t in plan.targets if t.held]
        if others:
            raise HeldForReview(
                f"Erasing {plan.requested} would erase {others[0].id} too, which is held "
                "for an operator's review; an agent cannot erase it. Nothing was erased")
        curated = curated_among(conn, list(plan.ids))
        if curated:
            raise PurgeRefused(
                f"An operator curated {sorted(curated)[0]}: an agent cannot erase it (ask "
                "the operator). Nothing was erased")
