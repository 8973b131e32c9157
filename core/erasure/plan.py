"""What a purge takes, and what its proof searches for.

**The family.**  A turn and what was extracted from it are one family: a unit quotes
or restates its turn, and the turn holds every unit's words.  So

- purging an **episode** (a turn kept as said) erases its units too;
- purging a **unit** erases the episode it came from, and so that episode's other
  units (they were made from the erased words);
- purging any other memory erases that memory alone;
- and whatever is purged takes along the same user's other memories holding exactly
  the same text (the same thing stored again: an agent that repeated itself, a
  re-import), with their families.  Another user's identical memory is theirs: it is
  left and named in the receipt, and that text is not searched for (it is still there).

The jobs that carried the turn (``episodes.job_id``, ``memory_provenance.job_id``) lose
its text as well.  A memory that a purged one had superseded (the old value of a
correction) stays retired: it is not brought back to life by the erasure.

**The needles.**  What the proof looks for afterwards, held in memory only (never
stored, never in the receipt): every version of every erased text (its current text,
every ``text`` its audit rows held, its jobs' turns), and their *distinctive words* —
words of four or more characters with a letter, not common English words, that no
memory outside the family contains (asked of the full-text index before the purge).
Texts shorter than :data:`MIN_TEXT` characters are erased where they are stored but not
searched for elsewhere: a copy of "yes" cannot be told from any other "yes".
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, select, text

from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.store.episodes import EPISODE_TYPE
from memdesk.core.store.erased import not_found_message
from memdesk.core.store.fts import PG_TS_CONFIG
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Episode, Memory, MemoryEvent, MemoryProvenance
from memdesk.core.store.records import MemoryRecord
from memdesk.core.store.vectors import VT, V
from memdesk.core.write.models import Job

M = Memory.__table__.c
P = MemoryProvenance.__table__.c
EP = Episode.__table__.c
EV = MemoryEvent.__table__.c
JT: Table = Job.__table__  # type: ignore[assignment]  # a declarative table
J = JT.c

MIN_TEXT = 10  # shorter texts are not searched for outside the rows erased
MAX_FAMILY = 10_000  # a purge never grows past this many memories
MIN_WORD = 4
_WORD = re.compile(r"\w+", re.UNICODE)
# Common words are never distinctive, whatever the store holds.
_COMMON = frozenset((
    "about", "above", "after", "again", "against", "also", "always", "among", "another",
    "anything", "around", "away", "back", "because", "been", "before", "being", "below",
    "between", "both", "came", "come", "could", "does", "doing", "done", "down", "during",
    "each", "even", "ever", "every", "from", "have", "having", "here", "into", "just",
    "know", "last", "like", "little", "long", "made", "make", "many", "might", "more",
    "most", "much", "must", "never", "next", "none", "only", "other", "over", "own",
    "really", "said", "same", "says", "should", "since", "some", "such", "take", "than",
    "that", "their", "them", "then", "there", "these", "they", "thing", "things", "think",
    "this", "those", "though", "through", "time", "today", "told", "under", "until",
    "upon", "very", "want", "wants", "was", "were", "what", "when", "where", "which",
    "while", "will", "with", "without", "would", "year", "years", "your", "yours",
    "yesterday", "tomorrow", "week", "month", "morning", "evening", "night", "user",
    "users",
))


class PurgeRefused(MemdeskError):
    """The store's current state refuses the purge (a worker still has the turn open,
    an agent may not erase it); nothing was erased."""


def sha256(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Target:
    """One memory a purge erases: what the receipt says of it (no text)."""

    id: str
    seq: int
    kind: str  # episode | unit | memory
    type: str
    user_id: str
    created_at: datetime
    held: bool  # quarantined: held for the operator's review
    why: str  # "requested", "unit of episode X", "episode of unit X"
    text_sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "type": self.type, "user_id": self.user_id,
                "created_at": self.created_at.isoformat(), "held_for_review": self.held,
                "why": self.why, "text_sha256": self.text_sha256}


@dataclass(frozen=True)
class Plan:
    """What one purge takes.  ``texts``, ``words`` and ``vectors`` are the proof's
    needles: kept in memory for the purge and its proof, never shown or stored."""

    requested: str
    targets: tuple[Target, ...]
    jobs: tuple[str, ...]
    retired: tuple[str, ...]  # memories a target superseded: they stay retired
    texts: tuple[str, ...] = field(repr=False)
    words: tuple[str, ...] = field(repr=False)
    vectors: tuple[bytes, ...] = field(repr=False)
    previews: tuple[str, ...] = field(repr=False, default=())  # for the confirmation only
    # Other users' memories holding exactly one of the texts: left, named in the receipt.
    shared: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.targets)

    @property
    def seqs(self) -> tuple[int, ...]:
        return tuple(t.seq for t in self.targets)

    @property
    def held(self) -> bool:
        return any(t.held for t in self.targets)

    def describe(self) -> list[str]:
        """What will be gone, one line per memory (the confirmation shows these; the
        text is cut short and shown only to the operator who asked)."""
        out = []
        for t, preview in zip(self.targets, self.previews or ("",) * len(self.targets),
                              strict=True):
            held = ", held for review" if t.held else ""
            out.append(f"{t.id}  {t.kind} ({t.type}{held}, {t.why}): {preview}")
        if self.jobs:
            out.append(f"the text of {len(self.jobs)} job(s) that carried the turn")
        return out


def kind_of(rec: MemoryRecord, episode_id: str | None) -> str:
    if rec.type == EPISODE_TYPE:
        return "episode"
    return "unit" if episode_id else "memory"


def plan_in(store: MemoryStore, conn: Connection, memory_id: str) -> Plan:
    """The plan of purging ``memory_id``, read in ``conn`` (the purge's own write
    transaction, so nothing changes between the plan and the erasure)."""
    try:
        first = store.get(memory_id, conn)
    except NotFoundError:
        raise NotFoundError(not_found_message(conn, memory_id)) from None
    why: dict[str, str] = {first.id: "requested"}
    episode_of: dict[str, str] = {}
    queue = [first.id]
    while queue and len(why) < MAX_FAMILY:  # the family, and the same text stored again
        mid = queue.pop(0)
        rec = store.get(mid, conn)
        found = _family_of(conn, rec, episode_of)
        found += [(i, f"the same text as {mid}, stored again") for i in conn.execute(
            select(M.id).where(M.user_id == rec.user_id, M.text == rec.text,
                               M.id != rec.id)).scalars()]
        for other, reason in found:
            if other not in why:
                why[other] = reason
                queue.append(other)
    records = [store.get(i, conn) for i in why if _exists(conn, i)]
    targets = tuple(Target(r.id, _seq(conn, r.id), kind_of(r, episode_of.get(r.id)), r.type,
                           r.user_id, r.created_at, r.quarantined_at is not None, why[r.id],
                           sha256(r.text)) for r in records)
    ids = [t.id for t in targets]
    jobs = _jobs(conn, ids)
    _refuse_open_jobs(conn, jobs)
    texts = _texts(conn, records, jobs)
    _refuse_pending_copies(conn, texts)
    # Another user's memory saying exactly the same is theirs: left, named in the
    # receipt, and its text is no needle (the proof would find it there, rightly).
    shared = {str(i): t for t in texts for i in conn.execute(select(M.id).where(
        M.text == t, M.id.not_in(ids))).scalars()}
    texts = tuple(t for t in texts if t not in set(shared.values()))
    retired = tuple(conn.execute(select(M.id).where(
        M.superseded_by.in_(ids), M.id.not_in(ids))).scalars())
    vectors = tuple(conn.execute(select(V.vector).select_from(VT).where(
        V.seq.in_([t.seq for t in targets]))).scalars())
    words = distinctive_words(conn, texts, [t.seq for t in targets])
    previews = tuple(_preview(r.text) for r in records)
    return Plan(first.id, targets, jobs, retired, texts, words, vectors, previews,
                tuple(sorted(shared)))


def _family_of(conn: Connection, rec: MemoryRecord, episode_of: dict[str, str]
               ) -> list[tuple[str, str]]:
    """The episode a unit came from, or an episode's units (see the module docstring)."""
    out: list[tuple[str, str]] = []
    episode = rec.id if rec.type == EPISODE_TYPE else conn.execute(
        select(P.episode_id).where(P.memory_id == rec.id, P.episode_id.is_not(None))).scalar()
    if episode is None:
        return out
    if episode != rec.id:
        episode_of[rec.id] = episode
        out.append((episode, f"the episode unit {rec.id} came from"))
    for unit in conn.execute(select(P.memory_id).where(P.episode_id == episode)).scalars():
        episode_of[unit] = episode
        out.append((unit, f"a unit of episode {episode}"))
    return out


def _exists(conn: Connection, memory_id: str) -> bool:
    return conn.execute(select(M.seq).where(M.id == memory_id)).first() is not None


def _seq(conn: Connection, memory_id: str) -> int:
    return int(conn.execute(select(M.seq).where(M.id == memory_id)).scalar_one())


def _preview(s: str, width: int = 70) -> str:
    one = " ".join(s.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def _jobs(conn: Connection, ids: list[str]) -> tuple[str, ...]:
    found = set(conn.execute(select(EP.job_id).where(
        EP.memory_id.in_(ids), EP.job_id.is_not(None))).scalars())
    found |= set(conn.execute(select(P.job_id).where(
        P.memory_id.in_(ids), P.job_id.is_not(None))).scalars())
    return tuple(sorted(str(j) for j in found))


def _refuse_open_jobs(conn: Connection, jobs: tuple[str, ...]) -> None:
    """A job still being worked on holds the turn open: its worker (another process,
    perhaps) would write units from it after the purge.  Refused, nothing changed."""
    if not jobs:
        return
    for jid, status, owner in conn.execute(select(J.id, J.status, J.lease_owner).where(
            J.id.in_(jobs), J.status.in_(("pending", "running")))):
        who = f" by {owner}" if owner else ""
        raise PurgeRefused(
            f"Job {jid}, which carried this turn, is {status}{who}: a worker "
            "still has its text open. Wait until it is done (or cancel it) and purge "
            "again; nothing was erased")


def _refuse_pending_copies(conn: Connection, texts: tuple[str, ...]) -> None:
    """A job still waiting to be stored whose turn holds the text would bring it back."""
    for t in texts:
        if len(t) < MIN_TEXT:
            continue
        row = conn.execute(select(J.id, J.status, J.lease_owner).where(
            J.status.in_(("pending", "running")), J.text.contains(t, autoescape=True))
            .limit(1)).first()
        if row is not None:
            jid, status, owner = row
            doing = (f"being stored by {owner}" if status == "running" and owner
                     else "waiting to be stored")
            raise PurgeRefused(
                f"Job {jid} holds this text and is {doing}: it would bring it back. "
                "Wait until it is done (or cancel it in the Jobs view) and purge again; "
                "nothing was erased")


def _texts(conn: Connection, records: list[MemoryRecord], jobs: tuple[str, ...]
           ) -> tuple[str, ...]:
    """Every text the family ever had: current ones, every ``text`` its audit rows
    hold (edits before and after), and the jobs' turns."""
    found: dict[str, None] = {r.text: None for r in records}
    ids = [r.id for r in records]
    for before, after in conn.execute(select(EV.before, EV.after).where(EV.memory_id.in_(ids))):
        for raw in (before, after):
            value = _json(raw).get("text")
            if isinstance(value, str) and value:
                found.setdefault(value, None)
    if jobs:
        for turn in conn.execute(select(J.text).where(J.id.in_(jobs))).scalars():
            if turn:
                found.setdefault(turn, None)
    return tuple(found)


def _json(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def candidate_words(texts: tuple[str, ...]) -> list[str]:
    """Words of the texts that could be distinctive (not yet checked against the store)."""
    out: dict[str, None] = {}
    for t in texts:
        for w in _WORD.findall(t):
            w = w.casefold()
            if (len(w) >= MIN_WORD and any(c.isalpha() for c in w) and "_" not in w
                    and w not in _COMMON):
                out.setdefault(w, None)
    return list(out)


def store_vocabulary(conn: Connection) -> set[str]:
    """Words memdesk itself writes into every store — its schema (table and column
    names), its declared actions, actors, types, layers and statuses, the tombstone's
    keys: never distinctive, since the file holds them whatever was erased."""
    from memdesk.core.store import actions as acts
    from memdesk.core.store.query import Status
    from memdesk.core.taxonomy import Actor, Layer, MemoryType

    if conn.dialect.name == "sqlite":
        schema = " ".join(r[0] or "" for r in conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master"))
    else:
        schema = " ".join(f"{t} {c}" for t, c in conn.execute(text(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema()")))
    names = [a.name for a in acts.ACTIONS] + [a.verb for a in acts.ACTIONS]
    names += [str(v) for e in (Actor, Layer, MemoryType, Status) for v in e]
    names += ["episode", "unit", "erased", "erasure", "kind", "who", "memory", "requested"]
    return {w.casefold() for w in _WORD.findall(schema + " " + " ".join(names))}


def distinctive_words(conn: Connection, texts: tuple[str, ...], seqs: list[int]
                      ) -> tuple[str, ...]:
    """Words of ``texts`` that no memory outside ``seqs`` contains (full-text index)
    and that memdesk does not write itself (:func:`store_vocabulary`)."""
    out = []
    ours = store_vocabulary(conn)
    for w in [w for w in candidate_words(texts) if w not in ours]:
        if conn.dialect.name == "sqlite":
            hit = conn.execute(text(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :q"), {
                "q": '"' + w.replace('"', '""') + '"'}).scalars().all()
            other = set(hit) - set(seqs)
        else:
            other = set(conn.execute(text(
                f"SELECT seq FROM memories WHERE to_tsvector('{PG_TS_CONFIG}', text) @@ "
                f"plainto_tsquery('{PG_TS_CONFIG}', :q) LIMIT 50"), {"q": w}).scalars())
            other -= set(seqs)
        if not other:
            out.append(w)
    return tuple(out)
