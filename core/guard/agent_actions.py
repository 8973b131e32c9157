"""What an agent may do to the memories it serves: forget, correct, read one memory's
history, page through them.  The MCP tools (app/mcp_tools_*.py) call these; the rules
live here so any other entry point applies the same ones.

- **Scope.** Every function takes ``serves`` (may this caller act for a user?).  A
  memory of a user outside it, a deleted one and a missing id all raise the same
  :class:`NotFoundError` text, so an agent cannot learn that another user's id exists.
- **Operators outrank agents.** A memory an operator curated (any audited operator
  action on it: added, edited, approved, resolved; ``curated.curated_among``) is never
  changed by an agent: a forget is recorded as a request in its history and held for
  the operator; a correction is written but held for review, superseding nothing.
- **Held memories are the operator's.** An agent cannot forget, correct or approve a
  memory the guard holds, its own included.
- **Archive is reversible.** An agent with the right may archive a memory (kept, shown
  to the operator, never recalled) and unarchive one; never a memory an operator
  curated (an operator's archive curates it), so what the operator archived an agent
  cannot bring back.
- **History is kept.** A forget is a soft delete (``forget``, undoable from the desk);
  a correction is a new memory that supersedes the old one (``correct``), screened by
  the poisoning guard like any agent write.  Every row is audited under actor ``agent``
  with a note naming the client and session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.guard.agent_api import AGENT_FIELDS, HeldForReview, check_agent_text
from memdesk.core.guard.curated import SUPERSEDES_CURATED, curated_among
from memdesk.core.guard.rules import Source
from memdesk.core.guard.screen import Candidate, Finding, quarantine_in, screen
from memdesk.core.guard.secret_lane import SecretPolicy, mask_fields, secret_check
from memdesk.core.guard.secrets import find_secrets, mask_text
from memdesk.core.ids import new_id, utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.archive import Archive, ArchiveStateError, refusal
from memdesk.core.store.memory_store import validate_fields
from memdesk.core.store.query import Status
from memdesk.core.store.records import MEMORY_EDIT, Changed, Changes, MemoryRecord
from memdesk.core.taxonomy import Actor

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

Serves = Callable[[str], bool]
AGENT = Actor.AGENT.value

# What each audited action is, said to an agent (memory_history).
_SAID = {
    "add": "created", "edit": "edited", "bulk_edit": "edited", "delete": "deleted",
    "supersede": "replaced by a newer memory", "import": "imported",
    "undo": "a change was undone", "revalue": "importance re-rated",
    "review_keep": "kept in a review", "review_skip": "skipped in a review",
    "resolve_keep": "contradiction resolved", "resolve_keep_all": "contradiction kept",
    "resolve_edit": "edited to resolve a contradiction",
    "resolve_merge": "merged to resolve a contradiction",
    "quarantine": "held for an operator's review", "approve": "approved by the operator",
    "reject": "rejected by the operator", "forget": "forgotten by an agent",
    "correct": "corrected by an agent (replaced by the correction)",
    "forget_held": "an agent asked to forget it; held for the operator",
    "archive": "archived (kept, never recalled)", "unarchive": "unarchived (recalled again)",
}


def no_memory(memory_id: str) -> str:
    return f"No memory with id {memory_id!r}"


@dataclass(frozen=True)
class AgentChange:
    """What one agent action did: the memory, its outcome, the audit ``changes``."""

    memory_id: str
    status: Literal["forgotten", "corrected", "held_for_review"]
    message: str
    changes: Changes = field(default_factory=Changes)
    new_memory_id: str | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArchiveChange:
    """What an agent's archive or unarchive did: the memory, its new state, the audit."""

    memory_id: str
    status: Literal["archived", "unarchived"]
    message: str
    changes: Changes = field(default_factory=Changes)


def visible_in(store: MemoryStore, conn: Connection | None, memory_id: str,
               serves: Serves) -> MemoryRecord:
    """The memory if this caller may see it at all (deleted, missing, another user's:
    the same not-found)."""
    check_agent_text("memory_id", memory_id)
    try:
        rec = store.get(memory_id, conn)
    except NotFoundError:
        raise NotFoundError(no_memory(memory_id)) from None
    if rec.status is Status.DELETED or not serves(rec.user_id):
        raise NotFoundError(no_memory(memory_id))
    return rec


def _not_held(rec: MemoryRecord, verb: str) -> None:
    if rec.status is Status.QUARANTINED:
        raise HeldForReview(
            f"Memory {rec.id} is held for an operator's review; an agent cannot {verb} it "
            "(only the operator approves or rejects held memories)")


def forget(store: MemoryStore, memory_id: str, serves: Serves, *, note: str) -> AgentChange:
    """Soft-delete one memory for an agent (undoable), or hold the request when an
    operator curated it."""
    with store.write() as conn:
        rec = visible_in(store, conn, memory_id, serves)
        _not_held(rec, "forget")
        if curated_among(conn, [rec.id]):
            store.log_in(conn, rec.id, AGENT, acts.FORGET_HELD, {}, {}, note=note)
            return AgentChange(
                rec.id, "held_for_review",
                "An operator curated this memory: the request to forget it is held for "
                "their review; the memory stays as it is until they decide.",
                Changes((rec.id,), (), None, Changed.HISTORY, action=acts.FORGET_HELD))
        ev = store.apply_in(conn, rec.id, {"deleted_at": utcnow()}, actor=AGENT,
                            action=acts.FORGET, note=note)
    return AgentChange(rec.id, "forgotten", "Forgotten (the operator can undo it).",
                       Changes((rec.id,), () if ev is None else (ev,), None, MEMORY_EDIT,
                               action=acts.FORGET))


def set_archived(store: MemoryStore, memory_id: str, serves: Serves, *, archiving: bool,
                 note: str) -> ArchiveChange:
    """Archive (``archiving``) or unarchive one memory for an agent: undoable by the
    operator; refused, changing nothing, for a held, curated or already archived (not
    archived) memory."""
    verb = "archive" if archiving else "unarchive"
    action = acts.ARCHIVE if archiving else acts.UNARCHIVE
    with store.write() as conn:
        rec = visible_in(store, conn, memory_id, serves)
        _not_held(rec, verb)
        why = refusal(rec, archiving)
        if why is not None:
            raise ArchiveStateError(f"Memory {rec.id} {why}; nothing changed.")
        if curated_among(conn, [rec.id]):
            raise ArchiveStateError(
                f"An operator curated memory {rec.id}; an agent cannot {verb} it (the "
                "operator can, in the desk or with memdesk " + verb + ").")
        ev = Archive(store).archive_in(conn, rec, archiving=archiving, actor=AGENT,
                                       note=note, group_id=None)
    return ArchiveChange(
        rec.id, "archived" if archiving else "unarchived",
        "Archived: kept, but no longer retrieved (the operator can undo it)." if archiving
        else "Unarchived: retrieved again (the operator can undo it).",
        Changes((rec.id,), () if ev is None else (ev,), None, MEMORY_EDIT, action=action))


def correct(store: MemoryStore, memory_id: str, text: str, serves: Serves, *, note: str,
            source: str = Source.USER.value, agent_id: str | None = None,
            run_id: str | None = None, secrets: SecretPolicy | None = None) -> AgentChange:
    """Write ``text`` as the correction of one active memory, superseding it (history
    kept); held for review instead when the guard flags the text or an operator curated
    the memory.  ``secrets``: the store's secrets policy (the MCP server passes it):
    what it masks is masked before the write, what it holds is held."""
    check_agent_text("text", text)
    with store.write() as conn:
        rec = visible_in(store, conn, memory_id, serves)
        _not_held(rec, "edit")
        if rec.status is not Status.ACTIVE:
            raise ValidationError(
                "memory_id", f"memory {rec.id} is {rec.status.value}; only an active memory "
                "can be corrected" + (f" (its replacement is {rec.superseded_by})"
                                      if rec.superseded_by else ""))
        # The old triple's value no longer holds; entity and attribute still name what
        # the memory is about (so the contradiction scan and the guard can compare).
        values = validate_fields({
            "user_id": rec.user_id, "text": text, "type": rec.type, "topic": rec.topic,
            "importance": rec.importance, "confidence": rec.confidence,
            "source_session": rec.source_session, "entity": rec.entity,
            "attribute": rec.attribute, "agent_id": agent_id or rec.agent_id,
            "run_id": run_id or rec.run_id,
        }, creating=True)
        if secrets is not None:
            values, _ = mask_fields(values, secrets)
        group = new_id()
        add_ev = store.add_in(conn, values, actor=AGENT, note=note, group_id=group)
        findings = screen(Candidate.from_values(values), values["text"], source, conn)
        if secrets is not None:
            findings = secret_check(secrets, values["text"])(values, findings)
        if curated_among(conn, [rec.id]):
            findings.append(Finding(
                SUPERSEDES_CURATED, f"would correct memory {rec.id}, which an operator "
                "curated", rec.text[:200]))
        if findings:
            q = quarantine_in(store, conn, values["id"], findings, actor=AGENT,
                              note=f"{note}: correction of {rec.id}")
            events = (add_ev, q) if q else (add_ev,)
            return AgentChange(
                rec.id, "held_for_review",
                "The correction is held for an operator's review; the memory stays as it "
                "is until they approve it.",
                Changes((rec.id, values["id"]), events, group, MEMORY_EDIT, action=acts.ADD,
                        new_memory_ids=(values["id"],)),
                values["id"], tuple(f.reason for f in findings))
        ev = store.supersede_in(conn, rec.id, values["id"], actor=AGENT, action=acts.CORRECT,
                                group_id=group, note=note)
    return AgentChange(rec.id, "corrected", "Corrected: the old memory is superseded by "
                       "the correction (its history is kept).",
                       Changes((rec.id, values["id"]), (add_ev, ev) if ev else (add_ev,),
                               group, MEMORY_EDIT, action=acts.CORRECT,
                               new_memory_ids=(values["id"],)),
                       values["id"])


def _plain(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v


def _masked(v: Any) -> Any:
    return mask_text(v, find_secrets(v)) if isinstance(v, str) else v


def history(store: MemoryStore, memory_id: str, serves: Serves, limit: int = 100
            ) -> list[dict[str, Any]]:
    """One memory's audit trail as an agent reads it, oldest first: when, by whom
    (agent, operator, worker, import), what happened, and the visible fields changed."""
    with store.read() as conn:
        rec = visible_in(store, conn, memory_id, serves)
        if rec.status is Status.QUARANTINED:
            _not_held(rec, "read")
    events = sorted(store.events(rec.id, limit=limit), key=lambda e: e.id)
    out: list[dict[str, Any]] = []
    for ev in events:
        shown = set(AGENT_FIELDS) - {"id", "user_id"}
        # A value's earlier wording may hold a secret the operator took out in review
        # (or one held then approved): an agent reads every secret in history masked.
        changed = {k: {"from": _masked(_plain(ev.before.get(k))),
                       "to": _masked(_plain(ev.after.get(k)))}
                   for k in sorted(set(ev.before) | set(ev.after))
                   if k in shown and ev.action != "add"}
        out.append({"event_id": ev.id, "at": ev.at.isoformat(), "by": ev.actor,
                    "action": ev.action,
                    "what": _SAID.get(ev.action, acts.declared(ev).verb),
                    "changed": changed, "undone": ev.undone_by is not None})
    return out
