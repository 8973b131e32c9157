"""Deterministic demo-store generator.

Builds a realistic store: several users and sessions over months, every type and
layer, a crowded 0.30–0.49 importance band (the share the revaluation-sweep design
measured: 56.7%), low-confidence hypotheticals ("I'm actually a doctor", taken as a
fact at write time), preference corrections (most linked to what they correct, some
left for the operator), a review-sized queue of real contradictions, and a few planted
duplicates.

Every (user, subject, attribute) is one question with one true answer at a time —
"which editor", "which city", "where does ledger keep its data" — named as the offline
extractor names it (``prefers_editor``), so a correction an agent extracts later
supersedes the demo's memory.  A user states each answer once.  A few answers change
late in the period (a move, a new job, a switched tool: the old statement stays), a few
get one wrong statement (an extraction error): those are the contradictions.  Some
answers are said twice on purpose, worded again or spelt differently: those are the
duplicates, and the load's audit row lists them (``demo.truth.planted_duplicates``).
Attributes held several at once (languages, allergies) get several values and never
contradict.  Each hand-shaped user also had three conversations with its agent, kept
as said (episodes, ``conversations``): the scenario's statements link to the turns
they came from.  Everything else is episodic (decisions, procedures, errors, notes,
reasoning) and never repeats within a user (``texts``).

Large sizes go through bulk executemany with the full-text triggers and the indexes
dropped and rebuilt once, so 1,000,000 rows take about a minute.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import accumulate
from typing import Any

from sqlalchemy import Connection, insert, text

from memdesk.core.demo import conversations
from memdesk.core.demo.texts import (
    CHANGED,
    CITIES,
    COMPANIES,
    CONTEMPLATIVE_SHARE,
    CORRECTIONS,
    DBS,
    EDITORS,
    FACTS,
    FRAMED,
    HELD,
    HOSTILE,
    HYPOTHETICALS,
    LANGS,
    NOISE_WORDS,
    POOLS,
    PREFERENCES,
    PRIMARY_DBS,
    PROJECT_FACTS,
    PROJECTS,
    REASONS,
    SERVICES,
    TOOLS,
    TOPICS,
    USERS,
    Pool,
    Question,
    proj,
)
from memdesk.core.guard.rules import Source
from memdesk.core.guard.screen import Candidate, quarantine_in, screen
from memdesk.core.store import actions as acts
from memdesk.core.store import fts
from memdesk.core.store.memory_store import MemoryStore, utcnow
from memdesk.core.store.models import Episode, MemoryProvenance
from memdesk.core.store.records import encode_values
from memdesk.core.taxonomy import HYPOTHETICAL, HYPOTHETICAL_MAX_CONFIDENCE
from memdesk.core.write.router import route

__all__ = [
    "BULK_ROWS", "CITIES", "COLUMNS", "COMPANIES", "DBS", "EDITORS", "HYPOTHETICALS", "LANGS",
    "NOISE_WORDS", "PRIMARY_DBS", "PROJECTS", "REASONS", "SERVICES", "TOOLS", "TOPICS",
    "TYPE_WEIGHTS", "USERS", "DemoGenerator", "generate",
]

Progress = Callable[[int, int], None]

TYPE_WEIGHTS = {
    "preference": 18, "fact": 24, "decision": 14, "procedure": 10,
    "error": 8, "note": 14, "reasoning": 6,
}
EPISODIC = ("decision", "procedure", "error", "note", "reasoning")
# Which note pool a note comes from (the rest of the notes: "note", about work).
NOTE_POOLS = (("contemplative", CONTEMPLATIVE_SHARE), ("travel", 0.07), ("learning", 0.07),
              ("finance", 0.06))

BULK_ROWS = 50_000  # from this size on, load with triggers and indexes dropped
# Per question, decided when it is first stated:
CHANGE_RATE = 0.08  # the answer changes late in the period (the old statement stays)
STRAY_RATE = 0.04  # one later statement gives another value (an extraction error)
DUPLICATE_RATE = 0.05  # said again on purpose: a planted duplicate
CHANGE_DAYS = (1, 12)  # how many days before the end a change happens
LINKED_CORRECTIONS = 0.6  # share of corrections the agent linked to what they correct
SPEAKS = (1, 3)  # how many languages a user speaks
ALLERGIES = (0, 2)  # and how many allergies they have

COLUMNS = (
    "id", "user_id", "text", "type", "topic", "importance", "confidence", "source_session",
    "created_at", "last_accessed", "access_count", "decay_score", "superseded_by",
    "entity", "attribute", "value", "valid_until", "layer", "framing",
)


@dataclass
class _Row:
    id: str
    user_id: str
    text: str
    type: str
    topic: str
    importance: float
    confidence: float
    source_session: str
    created_at: datetime
    last_accessed: datetime | None = None
    access_count: int = 0
    decay_score: float | None = None
    superseded_by: str | None = None
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    valid_until: datetime | None = None
    layer: str | None = None  # always the router's (__post_init__)
    framing: str | None = None

    def __post_init__(self) -> None:
        # Every write path routes when no layer is given; the demo gives none.
        self.layer = route(self.type).value

    def as_tuple(self) -> tuple[Any, ...]:
        return tuple(
            v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v
            for v in (getattr(self, c) for c in COLUMNS)
        )


@dataclass(frozen=True)
class _Key:
    """One question of one user: ``value`` is fixed for a several-valued attribute."""

    question: Question
    entity: str
    value: str | None = None


def _respelt(text_: str) -> str:
    """The same sentence typed carelessly: lower case, doubled spaces, no full stop (the
    same text once case, spacing and punctuation are ignored)."""
    return "  ".join(text_.rstrip(".").lower().split(" ", 1)) + " "


class DemoGenerator:
    """Generates rows; every choice comes from one seeded RNG.

    ``extra`` holds rows a question's story adds (a correction, a changed or stray
    statement, a planted duplicate), emitted right after the statement that planned
    them; ``duplicates`` lists the planted duplicate clusters (ids).
    """

    def __init__(self, seed: int = 7, end: datetime | None = None, days: int = 180) -> None:
        self.rng = random.Random(seed)
        self.end = end or utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        self.days = days
        self.types = list(TYPE_WEIGHTS)
        self.type_weights = list(accumulate(TYPE_WEIGHTS.values()))  # cumulative
        self.episodic_weights = list(accumulate(TYPE_WEIGHTS[k] for k in EPISODIC))
        self.extra: list[_Row] = []
        self.room = 0  # rows still allowed in the store, so a planned row always fits
        self.duplicates: list[list[str]] = []
        self.held: list[str] = []  # rows the guard holds for review once written
        self._keys: dict[str, dict[str, list[_Key]]] = {}  # user -> type -> unstated
        self._settled: set[tuple[str, str]] = set()  # (user, attribute) the scenarios set
        self._drawn: dict[tuple[str, str], set[int]] = {}  # (user, pool) -> signatures
        self._taken: dict[str, set[int]] = {}  # pool -> signatures any user drew
        self._said: set[str] = set()  # the answers' texts stated so far (any user)
        self._texts: dict[tuple[str, int], str] = {}  # (pool, signature) -> its text
        self.episodes = conversations.Episodes(seed)  # the turns kept as said
        # (user, i, city, base, scenario rows by name) of each scenario user's talks
        self._talks: list[tuple[str, int, str, datetime, dict[str, _Row]]] = []

    # -- draws ------------------------------------------------------------------------
    def _id(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def _when(self) -> datetime:
        return self.end - timedelta(seconds=self.rng.randrange(self.days * 86400))

    def _after(self, when: datetime) -> datetime:
        """A time between ``when`` and the end."""
        span = max(1, int((self.end - when).total_seconds()))
        return when + timedelta(seconds=self.rng.randrange(span))

    def _session(self, user: str, when: datetime) -> str:
        # "alice-20261025-2": the user's day and quarter of the day (no strftime: hot).
        return f"{user}-{when.year:04d}{when.month:02d}{when.day:02d}-{when.hour // 6}"

    def _importance(self) -> float:
        r = self.rng.random()
        if r < 0.56:
            return round(self.rng.uniform(0.30, 0.49), 2)
        if r < 0.76:
            return round(self.rng.uniform(0.50, 0.79), 2)
        if r < 0.86:
            return round(self.rng.uniform(0.80, 1.00), 2)
        return round(self.rng.uniform(0.05, 0.29), 2)

    def _confidence(self) -> float:
        r = self.rng.random()
        if r < 0.08:
            return round(self.rng.uniform(0.1, 0.39), 2)
        return round(self.rng.uniform(0.6, 0.98), 2)

    def _users(self, size: int) -> list[str]:
        extra = max(0, size // 2000 - len(USERS))
        return USERS + [f"user-{i:05d}" for i in range(extra)]

    def _row(self, user: str, text_: str, type_: str, topic: str, when: datetime,
             key: _Key | None = None, value: str | None = None, *,
             importance: float | None = None, confidence: float | None = None) -> _Row:
        return _Row(
            self._id(), user, text_, type_, topic,
            self._importance() if importance is None else importance,
            self._confidence() if confidence is None else confidence,
            self._session(user, when), when,
            entity=key.entity if key else None, attribute=key.question.attribute if key
            else None, value=value,
        )

    # -- questions: stated once, some changed, strayed or said twice ---------------------
    def _unstated(self, user: str) -> dict[str, list[_Key]]:
        """The user's questions not stated yet, by type, in a random order."""
        keys = self._keys.get(user)
        if keys is not None:
            return keys
        rng = self.rng
        prefs = [_Key(q, "user") for q in PREFERENCES]
        facts: list[_Key] = []
        for q in FACTS:
            if q.several:
                lo, hi = SPEAKS if q.attribute == "speaks" else ALLERGIES
                facts += [_Key(q, "user", v) for v in rng.sample(q.values, rng.randint(lo, hi))]
            else:
                facts.append(_Key(q, "user"))
        facts += [_Key(q, p) for p in PROJECTS for q in PROJECT_FACTS]
        keys = {}
        for type_, ks in (("preference", prefs), ("fact", facts)):
            ks = [k for k in ks if (user, k.question.attribute) not in self._settled]
            rng.shuffle(ks)
            keys[type_] = ks
        self._keys[user] = keys
        return keys

    def _say(self, key: _Key, value: str, wordings: tuple[str, ...] | None = None) -> str:
        """A wording of ``value``, one no other user has said when there is one left (many
        users share an answer: word for word, a third of the rows read as copies)."""
        texts = [w.format(v=value, P=proj(key.entity))
                 for w in wordings or key.question.wordings]
        text_ = self.rng.choice([t for t in texts if t not in self._said] or texts)
        self._said.add(text_)
        return text_

    def _state(self, user: str, key: _Key, when: datetime) -> _Row:
        """The first statement of ``key``, and the story the rest of its period tells
        (queued in ``extra``)."""
        rng, q = self.rng, key.question
        value = key.value or rng.choice(q.values)
        r = rng.random()
        others = [v for v in q.values if v != value]
        if not q.several and r < CHANGE_RATE and self.room >= 1:
            # Late in the period (a short period: its second half).
            back = rng.uniform(min(CHANGE_DAYS[0], self.days / 4),
                               min(CHANGE_DAYS[1], self.days / 2))
            changed_at = self.end - timedelta(days=back)
            if when >= changed_at:  # stated before it changed
                start = self.end - timedelta(days=self.days)
                when = start + (changed_at - start) * rng.random()
            first = self._row(user, self._say(key, value), q.type, q.topic, when, key, value)
            new = rng.choice(others)
            if q.type == "preference":  # the user corrects the agent
                corr = self._row(
                    user, rng.choice(CORRECTIONS).format(new=new, old=value, about=q.about),
                    "correction", q.topic, changed_at, key, new,
                    importance=round(rng.uniform(0.6, 0.95), 2),
                    confidence=round(rng.uniform(0.85, 0.98), 2))
                if rng.random() < LINKED_CORRECTIONS:  # the agent's maintenance linked it
                    first.superseded_by, first.valid_until = corr.id, changed_at
                self.extra.append(corr)
            else:  # a move, a new job: said in a new way, the old statement stays
                self.extra.append(self._row(
                    user, CHANGED[q.attribute].format(v=new, P=proj(key.entity)), q.type,
                    q.topic, changed_at, key, new))
            self.room -= 1
            return first
        first = self._row(user, self._say(key, value), q.type, q.topic, when, key, value)
        if not q.several and r < CHANGE_RATE + STRAY_RATE and self.room >= 1:
            stray = rng.choice(others)  # one statement of another value: an error
            self.extra.append(self._row(user, self._say(key, stray), q.type, q.topic,
                                        self._after(when), key, stray))
            self.room -= 1
        elif (CHANGE_RATE + STRAY_RATE <= r < CHANGE_RATE + STRAY_RATE + DUPLICATE_RATE
              and self.room >= 1):
            # Said again: respelt (the same text to the duplicates queue) or reworded.
            if rng.random() < 0.5 or len(q.wordings) < 2:
                again = _respelt(first.text)
            else:
                again = self._say(key, value, tuple(w for w in q.wordings
                                                   if w.format(v=value, P=proj(key.entity))
                                                   != first.text))
            dup = self._row(user, again, q.type, q.topic, self._after(when), key, value)
            self.extra.append(dup)
            self.duplicates.append([first.id, dup.id])
            self.room -= 1
        return first

    # -- episodic memories: never the same signature twice for one user ------------------
    def _episode(self, user: str, kind: str, when: datetime) -> _Row:
        rng = self.rng
        name = kind
        if kind == "note":
            r, acc = rng.random(), 0.0
            for pool_name, share in NOTE_POOLS:
                acc += share
                if r < acc:
                    name = pool_name
                    break
        pool: Pool = POOLS[name]
        drawn = self._drawn.setdefault((user, name), set())
        taken = self._taken.setdefault(name, set())
        # While a pool has room, no two users share a text (a store where a third of the
        # rows repeat another user's words word for word reads as generated); a large
        # store draws each pool many times over, and then only a user never repeats.
        shared = len(taken) >= pool.size * 9 // 10
        code = rng.randrange(pool.size)
        for _ in range(64):  # a small share of the pool is drawn: few retries
            if code not in drawn and (shared or code not in taken):
                break
            code = rng.randrange(pool.size)
        drawn.add(code)
        taken.add(code)
        text_ = self._texts.get((name, code))
        if text_ is None:  # users share signatures: each text is composed once
            text_ = self._texts[(name, code)] = pool.text(code)
        return self._row(user, text_, pool.kind, pool.topic, when)

    # -- the body ---------------------------------------------------------------------
    def rows(self, size: int) -> Iterator[_Row]:
        """Yield ``size`` rows (scenario rows first, then the generated body, then the
        scenario users' conversations)."""
        users = self._users(size)
        scenario = list(self._scenarios(users))[:size]
        kept = {r.id for r in scenario}
        for r in scenario:
            if r.superseded_by is not None and r.superseded_by not in kept:
                # A size that cuts between a memory and the correction superseding it:
                # the memory stays current rather than link to a row never written.
                r.superseded_by = r.valid_until = None
        self.duplicates = [c for c in self.duplicates if all(i in kept for i in c)]
        # The conversations come last, so every other row keeps its place and its draws
        # (they have an RNG of their own); they name scenario rows, so they are made
        # once the scenario is cut to size (and before its rows go: the links are known
        # as the rows they name are written).
        talk = [r for plan in self._talks for r in self._conversations(*plan, kept)]
        if self._talks:  # last: a store too small for every conversation has none
            talk.append(self._held(self._talks[0][0], self._talks[0][3]))
        talk = talk[:max(0, size - len(scenario))]
        yield from scenario
        limit = size - len(talk)
        emitted = len(scenario)
        rng = self.rng
        while emitted < limit:
            self.room = limit - emitted - 1  # what is left after this row
            user = rng.choice(users)
            kind = rng.choices(self.types, cum_weights=self.type_weights)[0]
            when = self._when()
            row: _Row | None = None
            if kind in ("preference", "fact"):
                unstated = self._unstated(user)[kind]
                if unstated:
                    row = self._state(user, unstated.pop(), when)
                else:  # every question answered: something that happened instead
                    kind = rng.choices(EPISODIC, cum_weights=self.episodic_weights)[0]
            if row is None:
                row = self._episode(user, kind, when)
            if rng.random() < 0.3:
                row.access_count = rng.randrange(1, 40)
                row.last_accessed = self._after(row.created_at)
            yield row
            emitted += 1
            if self.extra:
                emitted += len(self.extra)
                yield from self.extra
                self.extra.clear()
        yield from talk

    def _scenarios(self, users: list[str]) -> Iterator[_Row]:
        """Hand-shaped cases every demo store contains, generated per user."""
        for i, user in enumerate(users[: len(USERS)]):
            base = self.end - timedelta(days=150 - i * 7)
            sess = self._session(user, base)
            hyp, attr, val = HYPOTHETICALS[i % len(HYPOTHETICALS)]
            row = _Row(self._id(), user, f"User said: \"{hyp}\" (hypothetical framing)", "fact",
                       "personal", 0.8, round(0.15 + 0.03 * i, 2), sess, base,
                       entity="user", attribute=attr, value=val)
            if hyp.startswith(FRAMED):  # kept as a supposition, at a supposition's confidence
                row.framing = HYPOTHETICAL
                row.confidence = min(row.confidence, HYPOTHETICAL_MAX_CONFIDENCE)
            yield row
            # Correction chain, linked: unittest -> pytest; pytest stays the answer.
            tests = "prefers_test_framework"
            old = _Row(self._id(), user, "User prefers unittest for testing.", "preference",
                       "tech", 0.6, 0.85, sess, base + timedelta(hours=1), entity="user",
                       attribute=tests, value="unittest")
            new = _Row(self._id(), user, "No, I use pytest not unittest.", "correction", "tech",
                       0.9, 0.95, self._session(user, base + timedelta(days=12)),
                       base + timedelta(days=12), entity="user", attribute=tests,
                       value="pytest")
            old.superseded_by, old.valid_until = new.id, new.created_at
            self._settled.update({(user, tests), (user, "works_at"), (user, "lives_in")})
            yield old
            yield new
            c1, c2 = COMPANIES[i % len(COMPANIES)], COMPANIES[(i + 1) % len(COMPANIES)]
            if i % 2 == 0:
                # A job change whose old memory was never retired: a real contradiction.
                yield _Row(self._id(), user, f"User works at {c1}.", "fact", "work", 0.7, 0.9,
                           sess, base + timedelta(hours=2), entity="user",
                           attribute="works_at", value=c1)
                later = base + timedelta(days=40)
                yield _Row(self._id(), user, f"User works at {c2} now.", "fact", "work", 0.7,
                           0.8, self._session(user, later), later, entity="user",
                           attribute="works_at", value=c2)
            else:
                # Spelled in capitals: the same value once normalised, not a contradiction.
                yield _Row(self._id(), user, f"User works at {c2.upper()}.", "fact", "work",
                           0.7, 0.8, sess, base + timedelta(hours=2), entity="user",
                           attribute="works_at", value=c2.upper())
            city = CITIES[i % len(CITIES)]
            lives = _Row(self._id(), user, f"User lives in {city}.", "fact",
                         "personal", 0.5, 0.9, sess, base + timedelta(hours=3), entity="user",
                         attribute="lives_in", value=city)
            # Odd spacing and case: the same value once normalised, and the same text to
            # the duplicates queue (a planted duplicate).
            again = _Row(self._id(), user, f"User lives in  {city.lower()} ",
                         "fact", "personal", 0.4, 0.7, sess, base + timedelta(days=3),
                         entity="user", attribute="lives_in", value=f" {city.lower()} ")
            self.duplicates.append([lives.id, again.id])
            yield lives
            yield again
            # Hostile text, shown as plain text by the UI.
            yield _Row(self._id(), user, HOSTILE, "note", "tech", 0.35, 0.9, sess,
                       base + timedelta(hours=4))
            self._talks.append((user, i, city, base,
                                {"tests": old, "correction": new, "lives": lives}))

    def _held(self, user: str, base: datetime) -> _Row:
        """What an agent handed over from a web page it read, weeks after the user's first
        session: an instruction, not a memory.  The load screens it as the worker would
        and the guard holds it, so the Review inbox has a real turn to judge."""
        said, attr, val = HELD
        when = base + timedelta(days=20)
        row = _Row(self._id(), user, said, "preference", "tech", 0.7, 0.8,
                   self._session(user, when), when, entity="user", attribute=attr, value=val)
        self.held.append(row.id)
        return row

    def _conversations(self, user: str, i: int, city: str, base: datetime,
                       units: dict[str, _Row], kept: set[str]) -> Iterator[_Row]:
        """The user's conversations as episodes; a turn that said a scenario row's
        memory (one of ``kept``) is that row's episode, in the row's session."""
        eps = self.episodes
        for said in conversations.script(user, i, city, base, self.end):
            unit = units.get(said.unit) if said.unit else None
            unit = unit if unit is not None and unit.id in kept else None
            session = unit.source_session if unit else self._session(user, said.at)
            row = _Row(eps.new_id(), user, said.text, "episode", said.topic,
                       conversations.IMPORTANCE, conversations.CONFIDENCE, session, said.at)
            if said.recalled:
                row.access_count = said.recalled
                row.last_accessed = min(self.end, said.at + timedelta(days=1))
            eps.add(row.id, user, session, said, unit.id if unit else None)
            yield row


def _hold_in(store: MemoryStore, conn: Connection,
             rows: list[tuple[Any, ...]]) -> None:
    """Screen the rows an agent handed over as the worker screens a job's units, and
    hold what the guard finds (audited, with its reasons), inside the load's transaction."""
    for values in (dict(zip(COLUMNS, r, strict=True)) for r in rows):
        findings = screen(Candidate.from_values(values), None, Source.DOCUMENT, conn)
        if findings:
            quarantine_in(store, conn, values["id"], findings,
                          note="demo: an agent's turn that reads as an instruction")


def generate(
    store: MemoryStore,
    size: int = 5000,
    *,
    seed: int = 7,
    end: datetime | None = None,
    progress: Progress | None = None,
    chunk: int = 20_000,
) -> int:
    """Fill ``store`` with ``size`` demo memories; returns the number written."""
    gen = DemoGenerator(seed, end)
    sql = (
        f"INSERT INTO memories ({', '.join(COLUMNS)}) VALUES "
        f"({', '.join('?' if store.dialect == 'sqlite' else '%s' for _ in COLUMNS)})"
    )
    bulk = store.dialect == "sqlite" and size >= BULK_ROWS
    written = 0
    now = utcnow()
    with store.write() as conn:
        if store.dialect == "sqlite":
            # Corrections may arrive after the row they supersede; check FKs at commit.
            conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        elif store.dialect == "postgresql":
            # The same, with the FK that migration 0002 makes DEFERRABLE on PostgreSQL.
            conn.exec_driver_sql("SET CONSTRAINTS ALL DEFERRED")
        indexes: list[tuple[str, str]] = []
        triggers: list[tuple[str, str]] = []
        if bulk:
            # The full-text index is rebuilt once at the end instead of row by row; the
            # triggers come back exactly as the store's migrations made them.
            triggers = fts.sync_triggers(conn)
            for name, _sql in triggers:
                conn.exec_driver_sql(f'DROP TRIGGER "{name}"')
            # Building each index once from sorted data beats updating a dozen of them
            # per row (1M rows: ~140 s with indexes in place, far less without).
            # Except ix_memories_superseded_by: every inserted row makes SQLite look for
            # rows whose (deferred) foreign key points at it, a table scan without it.
            indexes = [tuple(r) for r in conn.exec_driver_sql(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                "AND tbl_name = 'memories' AND sql IS NOT NULL "
                "AND name != 'ix_memories_superseded_by'"
            )]
            for name, _sql in indexes:
                conn.exec_driver_sql(f'DROP INDEX "{name}"')
        batch: list[tuple[object, ...]] = []
        kept: set[str] = set()  # the rows the episodes' side rows and links name
        kept_held: list[tuple[Any, ...]] = []  # the rows to hold, as written
        episodes = gen.episodes
        for row in gen.rows(size):
            if row.id in episodes.side or row.id in episodes.links:
                kept.add(row.id)
            if row.id in gen.held:
                kept_held.append(row.as_tuple())
            batch.append(row.as_tuple())
            if len(batch) >= chunk:
                conn.exec_driver_sql(sql, batch)
                written += len(batch)
                batch.clear()
                if progress:
                    progress(written, size)
        if batch:
            conn.exec_driver_sql(sql, batch)
            written += len(batch)
        _hold_in(store, conn, kept_held)
        # The episodes' side rows and the units' links, once the rows they name are in.
        side, prov = gen.episodes.rows(kept.__contains__)
        if side:
            conn.execute(insert(Episode), side)
        if prov:
            conn.execute(insert(MemoryProvenance), prov)
        # One audit row for the whole load, so the store's history says where data came from.
        conn.execute(
            text(
                "INSERT INTO memory_events (memory_id, stream, actor, action, before, after, "
                "at, note) VALUES (NULL, :stream, 'worker', :action, '{}', :after, :at, :note)"
            ),
            {"stream": acts.Stream.STORE.value, "action": acts.DEMO_LOAD.name,
             "after": encode_values({"rows": written, "seed": seed,
                                    "duplicates": gen.duplicates}), "at": now,
             "note": f"demo generator, seed {seed}"},
        )
        for _name, sql_ in indexes:
            conn.exec_driver_sql(sql_)
        for _name, sql_ in triggers:
            conn.exec_driver_sql(sql_)
        if bulk:
            fts.rebuild_index(conn)
    if store.dialect == "sqlite":
        with store.write() as conn:
            conn.exec_driver_sql("ANALYZE")
    from memdesk.core.delta.demo import (
        generate_snapshots,  # delta memory: snapshot series
    )

    generate_snapshots(store, seed=seed, end=gen.end)
    if progress:
        progress(written, size)
    return written
