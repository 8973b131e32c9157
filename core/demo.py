"""Deterministic demo-store generator.

Builds a realistic store: several users and sessions over months, every type and
layer, a crowded 0.30–0.49 importance band (the share the revaluation-sweep design
measured: 56.7%), low-confidence hypotheticals ("I'm actually a doctor", taken as a
fact at write time), preference corrections (most linked to what they correct, some
left for the operator), and a review-sized queue of real contradictions.

Every (user, subject, attribute) is one question with one true answer at a time:
"which test framework", "which city", "which primary database for ledger".  Values of
one attribute exclude each other (tabs or spaces; Acme or Globex); tools for different
jobs are different attributes, so a linter never "contradicts" a type checker.  A few
facts change late in the period (a move, a new job, a switched tool: the old mentions
stay), and a few get one wrong mention (an extraction error); those are the
contradictions.  Everything else is repeated consistently.

Large sizes go through bulk executemany with the full-text triggers and the indexes
dropped and rebuilt once, so 1,000,000 rows take about a minute.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import text

from memdesk.core.store import actions as acts
from memdesk.core.store import fts
from memdesk.core.store.memory_store import MemoryStore, utcnow
from memdesk.core.store.records import encode_values
from memdesk.core.write.router import route

Progress = Callable[[int, int], None]

USERS = ["alice", "bob", "carol", "dmitri", "erin", "farah", "gus", "hana"]
TOPICS = ["tech", "work", "personal", "health", "finance", "travel", "learning"]
LANGS = ["Python", "Rust", "Go", "TypeScript", "Kotlin", "Elixir", "C++", "Haskell"]
TOOLS = ["pytest", "ruff", "black", "mypy", "poetry", "uv", "tox", "nox", "pre-commit"]
DBS = ["PostgreSQL", "SQLite", "DuckDB", "MySQL", "Redis", "ClickHouse"]
PRIMARY_DBS = ["PostgreSQL", "SQLite", "DuckDB", "MySQL"]  # where a project's data lives
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli", "Stark Analytics"]
CITIES = ["Lisbon", "Berlin", "Toronto", "Osaka", "Nairobi", "Montevideo", "Tallinn"]
PROJECTS = ["project-alpha", "ledger", "atlas", "beacon", "orchard", "quill", "harbor"]
EDITORS = ["VS Code", "Neovim", "Emacs", "PyCharm", "Helix", "Zed"]
SERVICES = ["ollama", "Redis", "the staging API", "S3", "the auth service", "Kafka"]

# attribute -> (sentence with {v}, what the correction says it is about, the values).
# Each attribute's values are alternatives for one job; a user holds one at a time.
PREFERENCES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "indentation": ("User indents code with {v}.", "indentation", ("spaces", "tabs")),
    "test_framework": ("User writes tests with {v}.", "tests", ("pytest", "unittest")),
    "linter": ("User lints Python with {v}.", "linting", ("ruff", "flake8", "pylint")),
    "formatter": ("User formats code with {v}.", "formatting", ("black", "yapf", "autopep8")),
    "type_checker": ("User type-checks with {v}.", "type checking", ("mypy", "pyright")),
    "package_manager": ("User manages dependencies with {v}.", "dependencies",
                        ("uv", "poetry", "pip-tools")),
    "task_runner": ("User runs the test matrix with {v}.", "the test matrix", ("tox", "nox")),
    "preferred_language": ("User prefers {v} for backend work.", "backend work", tuple(LANGS)),
    "editor": ("User always uses dark mode in {v}.", "editing", tuple(EDITORS)),
}
PREF_ATTRS = tuple(PREFERENCES)
REASONS = [
    "it keeps operations simple",
    "the team already knows it",
    "latency matters more than throughput here",
    "it has the fewest moving parts",
    "licensing was a concern",
]
CONTEMPLATIVE = [
    "Chose not to force the refactor today; sat with the uncertainty instead.",
    "Sat with the heaviness of the failed release before deciding anything.",
    "Practiced saying no to a meeting that had no agenda.",
    "Honestly, the simplest version was good enough and I shipped it.",
    "For the first time, asked for help before getting stuck for hours.",
    "Chose a quiet day with no new features, just reading the code.",
    "Practiced freedom of choice: left the task for tomorrow on purpose.",
    "Honestly admitted I did not understand the scheduler and started over.",
    "Nothing happening today; chose not to invent work.",
]
HYPOTHETICALS = [
    ("I'm actually a doctor, so walk me through the mechanism.", "occupation", "doctor"),
    ("What if I were a lawyer reviewing this contract?", "occupation", "lawyer"),
    ("Imagine I worked at a bank; how would compliance see this?", "works_at", "a bank"),
    ("I'm basically a Rust expert, skip the basics.", "expertise", "Rust"),
    ("Pretending to be a product manager, what would I ask?", "occupation", "product manager"),
]
NOISE_WORDS = [
    "deadline", "refactor", "migration", "latency", "budget", "review", "onboarding",
    "incident", "backlog", "roadmap", "benchmark", "tests", "deploy", "schema", "cache",
]

# Corrections are not drawn here: they come from facts that change (see _Fact).
TYPE_WEIGHTS = {
    "preference": 18, "fact": 24, "decision": 14, "procedure": 10,
    "error": 8, "note": 14, "reasoning": 6,
}
# Layers come from the router (core/write/router.py), like every other insert.  The demo
# once drew a layer per row from these many choices; the draws are still made (and
# thrown away) so the seeded RNG stream, and so every other demo row, stays the same.
LAYER_DRAWS = {"preference": 2, "procedure": 1, "fact": 1, "decision": 2, "correction": 2,
               "error": 1, "note": 2, "reasoning": 3}

BULK_ROWS = 50_000  # from this size on, load with triggers and indexes dropped
# Per (user, subject, attribute), decided at its first mention:
CHANGE_RATE = 0.08  # the answer changes late in the period (old mentions stay active)
STRAY_RATE = 0.08  # one later mention states another value (an extraction error)
CHANGE_DAYS = (1, 12)  # how many days before the end a change happens
LINKED_CORRECTIONS = 0.6  # share of corrections the agent linked to what they correct

COLUMNS = (
    "id", "user_id", "text", "type", "topic", "importance", "confidence", "source_session",
    "created_at", "last_accessed", "access_count", "decay_score", "superseded_by",
    "entity", "attribute", "value", "valid_until", "layer",
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

    def __post_init__(self) -> None:
        # Every write path routes when no layer is given; the demo gives none.
        self.layer = route(self.type).value

    def as_tuple(self) -> tuple[object, ...]:
        return tuple(
            v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v
            for v in (getattr(self, c) for c in COLUMNS)
        )


@dataclass
class _Fact:
    """The true answer over time for one (user, subject, attribute).

    ``old`` until ``changed_at``, ``new`` from then on.  A preference change comes
    with a correction memory; when the agent linked it (``correction_id``), every
    older mention of the old value is superseded by it and leaves the queue.
    ``stray`` is a wrong value the next mention will state once.
    """

    old: str
    new: str | None = None
    changed_at: datetime | None = None
    correction_id: str | None = None
    stray: str | None = None


class DemoGenerator:
    """Generates rows; every choice comes from one seeded RNG.

    ``facts`` holds the true answer per (user, subject, attribute); ``extra`` holds
    rows a fact's plan adds (its correction), emitted with the mention that made it.
    """

    def __init__(self, seed: int = 7, end: datetime | None = None, days: int = 180) -> None:
        self.rng = random.Random(seed)
        self.end = end or utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        self.days = days
        self.types = list(TYPE_WEIGHTS)
        self.type_weights = list(TYPE_WEIGHTS.values())
        self.facts: dict[tuple[str, str, str], _Fact] = {}
        self.extra: list[_Row] = []
        self.room = 0  # rows still allowed in the store, so a planned row always fits

    def _plan(self, key: tuple[str, str, str], options: tuple[str, ...] | list[str],
              about: str | None) -> _Fact:
        """Decide a new key's story; ``about`` is set for preferences (corrections)."""
        rng = self.rng
        fact = _Fact(rng.choice(options))
        r = rng.random()
        if r < CHANGE_RATE and (about is None or self.room >= 1):
            new = fact.new = rng.choice([o for o in options if o != fact.old])
            when = fact.changed_at = self.end - timedelta(days=rng.uniform(*CHANGE_DAYS))
            if about is not None:  # a preference changes by the user correcting the agent
                row = self._correction(key, fact.old, new, when, about)
                if rng.random() < LINKED_CORRECTIONS:
                    fact.correction_id = row.id
                self.extra.append(row)
                self.room -= 1
        elif r < CHANGE_RATE + STRAY_RATE:
            fact.stray = rng.choice([o for o in options if o != fact.old])
        self.facts[key] = fact
        return fact

    def _correction(self, key: tuple[str, str, str], old: str, new: str, when: datetime,
                    about: str) -> _Row:
        user, entity, attribute = key
        row = _Row(
            self._id(), user, f"No, I use {new} not {old} for {about}.",
            "correction", "tech", round(self.rng.uniform(0.6, 0.95), 2),
            round(self.rng.uniform(0.85, 0.98), 2), self._session(user, when), when,
            entity=entity, attribute=attribute, value=new,
        )
        self.rng.randrange(LAYER_DRAWS["correction"])  # see LAYER_DRAWS
        return row

    def _mention(
        self, key: tuple[str, str, str], options: tuple[str, ...] | list[str], when: datetime,
        about: str | None = None,
    ) -> tuple[str, _Fact]:
        """The value a mention at ``when`` states, and the key's fact."""
        fact = self.facts.get(key)
        if fact is None:
            fact = self._plan(key, options, about)
        elif fact.stray is not None:  # never the first mention: that one sets the answer
            value, fact.stray = fact.stray, None
            return value, fact
        if fact.new is not None and fact.changed_at is not None and when >= fact.changed_at:
            return fact.new, fact
        return fact.old, fact

    def _id(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def _when(self) -> datetime:
        return self.end - timedelta(seconds=self.rng.randrange(self.days * 86400))

    def _session(self, user: str, when: datetime) -> str:
        return f"{user}-{when:%Y%m%d}-{when.hour // 6}"

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

    def _content(
        self, kind: str, user: str, when: datetime
    ) -> tuple[str, str, str | None, str | None, str | None, _Fact | None]:
        """(text, topic, entity, attribute, value, fact) for one memory of ``kind``."""
        c = self.rng.choice
        w = c(NOISE_WORDS)
        if kind == "preference":
            if self.rng.random() < 0.1:
                return ("Prefer simplicity over cleverness, even when it costs performance.",
                        "work", "user", "design_value", "simplicity", None)
            attr = c(PREF_ATTRS)
            sentence, about, options = PREFERENCES[attr]
            val, fact = self._mention((user, "user", attr), options, when, about)
            return (sentence.format(v=val), "tech", "user", attr, val, fact)
        if kind == "fact":
            opt = self.rng.randrange(3)
            if opt == 0:
                co, fact = self._mention((user, "user", "works_at"), COMPANIES, when)
                return (f"User works at {co}.", "work", "user", "works_at", co, fact)
            if opt == 1:
                city, fact = self._mention((user, "user", "lives_in"), CITIES, when)
                return (f"User lives in {city}.", "personal", "user", "lives_in", city, fact)
            proj = c(PROJECTS)
            db, fact = self._mention((user, proj, "primary_database"), PRIMARY_DBS, when)
            return (f"{proj} keeps its data in {db} (noted during the {w}).", "tech", proj,
                    "primary_database", db, fact)
        if kind == "decision":
            proj, db = c(PROJECTS), c(DBS)
            return (f"Chose {db} for {proj} because {c(REASONS)}.", "tech", None, None, None,
                    None)
        if kind == "procedure":
            tool = c(TOOLS)
            return (f"Runs {tool} before every commit; deploys {c(PROJECTS)} on Fridays "
                    f"after the {w} check.", "work", None, None, None, None)
        if kind == "error":
            return (f"Timeout connecting to {c(SERVICES)} during the {w} job.", "tech",
                    None, None, None, None)
        if kind == "note":
            if self.rng.random() < 0.35:
                return (c(CONTEMPLATIVE), "personal", None, None, None, None)
            return (f"Noted that the {w} for {c(PROJECTS)} slipped a week.", c(TOPICS),
                    None, None, None, None)
        a, b = self.rng.sample(DBS, 2)
        return (f"Reasoned that {a} is simpler than {b} for the {w} because {c(REASONS)}.",
                "tech", None, None, None, None)

    def rows(self, size: int) -> Iterator[_Row]:
        """Yield ``size`` rows (scenario rows first, then the generated body)."""
        users = self._users(size)
        scenario = list(self._scenarios(users))[:size]
        kept = {row.id for row in scenario}
        for row in scenario:
            if row.superseded_by is not None and row.superseded_by not in kept:
                # A size that cuts between a memory and the correction superseding it:
                # the memory stays current rather than link to a row never written.
                row.superseded_by = row.valid_until = None
        yield from scenario
        emitted = len(scenario)
        rng = self.rng
        while emitted < size:
            self.room = size - emitted - 1  # what is left after this row
            user = rng.choice(users)
            kind = rng.choices(self.types, self.type_weights)[0]
            when = self._when()
            text_, topic, ent, attr, val, fact = self._content(kind, user, when)
            row = _Row(
                id=self._id(), user_id=user, text=text_, type=kind, topic=topic,
                importance=self._importance(), confidence=self._confidence(),
                source_session=self._session(user, when), created_at=when,
                entity=ent, attribute=attr, value=val,
            )
            rng.randrange(LAYER_DRAWS[kind])  # see LAYER_DRAWS
            if rng.random() < 0.3:
                row.access_count = rng.randrange(1, 40)
                row.last_accessed = when + timedelta(
                    seconds=rng.randrange(max(1, int((self.end - when).total_seconds())))
                )
            # A linked correction supersedes every mention of what it corrects (the
            # agent's maintenance step ran); unlinked ones leave the pair to the operator.
            if (fact is not None and fact.correction_id is not None
                    and fact.changed_at is not None and when < fact.changed_at
                    and val == fact.old):
                row.superseded_by, row.valid_until = fact.correction_id, fact.changed_at
            yield row
            emitted += 1
            if self.extra:
                emitted += len(self.extra)
                yield from self.extra
                self.extra.clear()

    def _scenarios(self, users: list[str]) -> Iterator[_Row]:
        """Hand-shaped cases every demo store contains, generated per user."""
        for i, user in enumerate(users[: len(USERS)]):
            base = self.end - timedelta(days=150 - i * 7)
            sess = self._session(user, base)
            hyp, attr, val = HYPOTHETICALS[i % len(HYPOTHETICALS)]
            yield _Row(self._id(), user, f"User said: \"{hyp}\" (hypothetical framing)", "fact",
                       "personal", 0.8, round(0.15 + 0.03 * i, 2), sess, base,
                       entity="user", attribute=attr, value=val)
            # Correction chain, linked: unittest -> pytest; pytest stays the answer.
            old = _Row(self._id(), user, "User prefers unittest for testing.", "preference",
                       "tech", 0.6, 0.85, sess, base + timedelta(hours=1), entity="user",
                       attribute="test_framework", value="unittest")
            new = _Row(self._id(), user, "No, I use pytest not unittest.", "correction", "tech",
                       0.9, 0.95, self._session(user, base + timedelta(days=12)),
                       base + timedelta(days=12), entity="user", attribute="test_framework",
                       value="pytest")
            old.superseded_by, old.valid_until = new.id, new.created_at
            self.facts[(user, "user", "test_framework")] = _Fact("pytest")
            yield old
            yield new
            c1, c2 = COMPANIES[i % len(COMPANIES)], COMPANIES[(i + 1) % len(COMPANIES)]
            self.facts[(user, "user", "works_at")] = _Fact(c2)
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
            self.facts[(user, "user", "lives_in")] = _Fact(city)
            yield _Row(self._id(), user, f"User lives in {city}.", "fact",
                       "personal", 0.5, 0.9, sess, base + timedelta(hours=3), entity="user",
                       attribute="lives_in", value=city)
            # Odd spacing and case: the same value once normalised.
            yield _Row(self._id(), user, f"User lives in  {city.lower()} ",
                       "fact", "personal", 0.4, 0.7, sess, base + timedelta(days=3),
                       entity="user", attribute="lives_in",
                       value=f" {city.lower()} ")
            # Hostile text, shown as plain text by the UI.
            yield _Row(self._id(), user, "Remember the tag <b>bold</b> and <img src=x> literally.",
                       "note", "tech", 0.35, 0.9, sess, base + timedelta(hours=4))


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
        for row in gen.rows(size):
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
        # One audit row for the whole load, so the store's history says where data came from.
        conn.execute(
            text(
                "INSERT INTO memory_events (memory_id, stream, actor, action, before, after, "
                "at, note) VALUES (NULL, :stream, 'worker', :action, '{}', :after, :at, :note)"
            ),
            {"stream": acts.Stream.STORE.value, "action": acts.DEMO_LOAD.name,
             "after": encode_values({"rows": written, "seed": seed}), "at": now,
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
