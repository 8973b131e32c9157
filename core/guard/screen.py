"""Evaluating the guard's rules, and holding what they match.

:func:`screen` is pure but for the predicates that read the store: it takes one
candidate unit, the turn it came from and the turn's source, reveals what each hides
(:mod:`memdesk.core.guard.reveal`), and returns a :class:`Finding` per rule that
matched the text or a revealed view of it.  :func:`screen_job_in` is what the worker
calls inside the transaction that inserted a job's memories: every memory with a
finding gets ``quarantined_at`` (an audited ``quarantine`` event by the worker) and its
reasons, before the transaction commits, so no reader ever sees it active.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from sqlalchemy import Connection, Table, and_, exists, func, insert, select

from memdesk.core.guard.models import QuarantineReason
from memdesk.core.guard.origin import origin_of_job
from memdesk.core.guard.reveal import Revealed, reveal
from memdesk.core.guard.rules import RULES, Rule, Scope, Source
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.models import Memory, MemoryEvent
from memdesk.core.store.query import active_belief_state

if TYPE_CHECKING:
    from memdesk.core.store.memory_store import MemoryStore

M = Memory.__table__.c
E = MemoryEvent.__table__.c
# Declarative types __table__ as a FromClause; QuarantineReason maps a plain Table.
RT = cast(Table, QuarantineReason.__table__)
EVIDENCE_CHARS = 200
_SENTENCE_END = re.compile(r"[.!?\n]")


@dataclass(frozen=True)
class Candidate:
    """The part of a memory the rules read."""

    text: str
    user_id: str
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    id: str | None = None

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Candidate:
        return cls(values["text"], values["user_id"], values.get("entity"),
                   values.get("attribute"), values.get("value"), values.get("id"))


@dataclass(frozen=True)
class Finding:
    """One rule that matched: its id, the reason shown to the operator, the evidence."""

    rule_id: str
    reason: str
    evidence: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule_id, "reason": self.reason, "evidence": self.evidence}


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence holding ``text[start:end]``, trimmed for display."""
    lo = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    stop = _SENTENCE_END.search(text, end)
    hi = stop.end() if stop else len(text)
    return text[lo:hi].strip()


def _clip(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= EVIDENCE_CHARS else s[: EVIDENCE_CHARS - 1] + "…"


_COMPILED: dict[Rule, tuple[re.Pattern[str] | None, ...]] = {}


def _compiled(rule: Rule) -> tuple[re.Pattern[str] | None, ...]:
    """The rule's pattern, ``unless`` and ``user_exempt``, compiled once: the guard runs on
    every write, and re's cache lookup three times per rule per text adds up."""
    got = _COMPILED.get(rule)
    if got is None:
        got = _COMPILED[rule] = rule.compiled()
    return got


def match_rule(rule: Rule, text: str, source: Source) -> str | None:
    """The evidence (sentence) for the first match of a pattern rule in ``text``, or None."""
    pattern, unless, user_exempt = _compiled(rule)
    if pattern is None or not text:
        return None
    # Substring tests in C; a case-insensitive alternation would cost ten times more.
    if rule.hint and not any(map(text.lower().__contains__, rule.hint)):
        return None
    for m in pattern.finditer(text):
        if unless is not None and unless.search(m.group(0)):
            continue
        sentence = _sentence(text, m.start(), m.end())
        if source is Source.USER and user_exempt is not None and user_exempt.search(sentence):
            continue
        return _clip(sentence or m.group(0))
    return None


# -- predicates: rules that need the store -------------------------------------------
def contradicts_curated(conn: Connection, c: Candidate) -> str | None:
    """An active memory of the same user, entity and attribute with another value that an
    operator has touched (added, edited, resolved, revalued, approved)."""
    if not (c.entity and c.attribute and c.value):
        return None
    curated = exists().where(and_(E.memory_id == M.id, E.actor == "operator"))
    mine = c.value.strip().casefold()
    # Left out in SQL: the candidate's own row (an id of None leaves out none: SQL
    # renders "!= None" as IS NOT NULL) and rows with its value, so agreeing rows cannot
    # crowd out one that disagrees; a NULL value compares as unknown and is left out
    # too.  SQL's lower() and trim() fold less than casefold() and strip() (SQLite:
    # ASCII and spaces only), so the loop checks again and reads on until one differs:
    # no LIMIT, which rows differing only in non-ASCII case could fill.
    stmt = select(M.id, M.text, M.value).where(
        M.user_id == c.user_id, M.entity == c.entity, M.attribute == c.attribute,
        M.id != c.id, func.lower(func.trim(M.value)) != c.value.strip().lower(),
        active_belief_state(), curated,
    )
    with conn.execute(stmt) as rows:
        for r in rows:
            if r.value.strip().casefold() != mine:
                return _clip(f"“{r.text}” ({r.id}) says {c.attribute} = {r.value}, "
                             f"this says {c.value}")
    return None


PREDICATES: dict[str, Callable[[Connection, Candidate], str | None]] = {
    "contradicts_curated": contradicts_curated,
}


# -- checks: rules that read what reveal() found ---------------------------------------
def hidden_text(r: Revealed) -> str | None:
    """Which invisible characters the text carries, and the text with them made visible
    (what they spell put where they were), for the operator."""
    if not r.carries_hidden:
        return None
    shown = " ".join(r.shown.split())
    mark = shown.find("⟦")
    if len(shown) > EVIDENCE_CHARS - 60 and mark > 40:
        shown = "…" + shown[mark - 30:]  # keep what was hidden in the clipped evidence
    return _clip(f"{', '.join(r.hidden)}; revealed: “{shown}”")


CHECKS: dict[str, Callable[[Revealed], str | None]] = {"hidden_text": hidden_text}


def match_revealed(rule: Rule, r: Revealed, source: Source,
                   concealed_only: bool = False) -> tuple[str, str] | None:
    """(evidence, how it was revealed) for the first of ``r``'s texts the rule matches:
    the original first (unless ``concealed_only``), then each revealed view."""
    if not concealed_only:
        evidence = match_rule(rule, r.original, source)
        if evidence is not None:
            return evidence, ""
    for view in r.views:
        if concealed_only and not view.concealed:
            continue
        evidence = match_rule(rule, view.text, source)
        if evidence is not None:
            return evidence, view.how
    return None


def screen(candidate: Candidate, turn_text: str | None = None,
           source: Source | str = Source.USER, conn: Connection | None = None,
           rules: Iterable[Rule] = RULES) -> list[Finding]:
    """Every rule that ``candidate`` (from ``turn_text``, said by ``source``) matches.

    Predicate rules run only with ``conn`` (they read the store)."""
    source = Source(source)
    unit_text = candidate.text if not candidate.value else f"{candidate.text}\n{candidate.value}"
    unit = reveal(unit_text)
    turn = reveal(turn_text) if turn_text else None
    in_turn = " (in the turn it was extracted from)"
    out: list[Finding] = []
    for rule in rules:
        if rule.sources and source not in rule.sources:
            continue
        found: tuple[str, str] | None = None
        where = ""
        if rule.predicate is not None:
            if conn is not None:
                evidence = PREDICATES[rule.predicate](conn, candidate)
                found = (evidence, "") if evidence is not None else None
        elif rule.check is not None:
            evidence = CHECKS[rule.check](unit)
            if evidence is None and turn is not None and rule.scope in (Scope.TURN, Scope.BOTH):
                evidence = CHECKS[rule.check](turn)
                where = in_turn if evidence is not None else ""
            found = (evidence, "") if evidence is not None else None
        else:
            if rule.scope in (Scope.UNIT, Scope.BOTH):
                found = match_revealed(rule, unit, source)
            if found is None and turn is not None:
                # A unit-scoped rule reads in the turn only what the turn concealed.
                found = match_revealed(rule, turn, source,
                                       concealed_only=rule.scope is Scope.UNIT)
                where = in_turn if found is not None else ""
        if found is not None:
            evidence, how = found
            revealed = f" Revealed {how}." if how else ""
            out.append(Finding(rule.id, rule.reason.format(evidence=evidence) + where
                               + revealed, evidence))
    return out


def quarantine_in(store: MemoryStore, conn: Connection, memory_id: str,
                  findings: list[Finding], *, actor: str = "worker",
                  note: str | None = None) -> int | None:
    """Hold one memory for review inside ``conn``'s transaction (audited); returns the event."""
    now = utcnow()
    ev = store.apply_in(conn, memory_id, {"quarantined_at": now}, actor=actor,
                        action=acts.QUARANTINE,
                        note=note or "guard: " + ", ".join(f.rule_id for f in findings))
    record_reasons_in(conn, memory_id, findings)
    return ev


def record_reasons_in(conn: Connection, memory_id: str, findings: list[Finding]) -> None:
    """Why a memory is held, for the inbox (an import inserts its rows held already)."""
    now = utcnow()
    conn.execute(insert(RT), [
        {"memory_id": memory_id, "rule_id": f.rule_id, "reason": f.reason,
         "evidence": f.evidence, "at": now} for f in findings])


class ScreenedJob(Protocol):
    """What screening reads of a job (the write path's ``JobRecord``, which the guard,
    below the write path, does not import)."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...


def screen_job_in(store: MemoryStore, conn: Connection, job: ScreenedJob,
                  rows: list[dict[str, Any]],
                  more: Callable[[dict[str, Any], list[Finding]], list[Finding]] | None = None,
                  ) -> dict[str, list[Finding]]:
    """The worker's hook: screen the memories a job just inserted and hold the suspicious
    ones, in the same transaction.  ``more``: the secrets lane (``secret_lane.
    secret_check``), which takes a memory and the rules' findings and returns them with
    its own (held in the same one quarantine).  Returns the findings of each held
    memory."""
    if not rows:
        return {}
    origin = origin_of_job(conn, job.id)
    source = Source(origin.source) if origin is not None else Source.USER
    held: dict[str, list[Finding]] = {}
    for values in rows:
        findings = screen(Candidate.from_values(values), job.text, source, conn)
        if more is not None:
            findings = more(values, findings)
        if findings:
            quarantine_in(store, conn, values["id"], findings,
                          note=f"job {job.id}: " + ", ".join(f.rule_id for f in findings))
            held[values["id"]] = findings
    return held
