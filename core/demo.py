"""Deterministic demo-store generator.

Builds a realistic store: several users and sessions over months, every type and
layer, a crowded 0.30–0.49 importance band (seed 002 measured 56.7% there),
low-confidence hypotheticals (seed 003's "I'm actually a doctor"), preference
correction chains (seed 000), and contradicting facts (same entity+attribute,
different value).  Large sizes go through bulk executemany with the FTS triggers
dropped and the index rebuilt once, so 1,000,000 rows take about a minute.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import text

from memdesk.core.store.memory_store import MemoryStore, utcnow
from memdesk.core.store.records import encode_values

Progress = Callable[[int, int], None]

USERS = ["alice", "bob", "carol", "dmitri", "erin", "farah", "gus", "hana"]
TOPICS = ["tech", "work", "personal", "health", "finance", "travel", "learning"]
LANGS = ["Python", "Rust", "Go", "TypeScript", "Kotlin", "Elixir", "C++", "Haskell"]
TOOLS = ["pytest", "unittest", "ruff", "black", "mypy", "poetry", "uv", "tox", "nox"]
DBS = ["PostgreSQL", "SQLite", "DuckDB", "MySQL", "Redis", "ClickHouse"]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli", "Stark Analytics"]
CITIES = ["Lisbon", "Berlin", "Toronto", "Osaka", "Nairobi", "Montevideo", "Tallinn"]
PROJECTS = ["project-alpha", "ledger", "atlas", "beacon", "orchard", "quill", "harbor"]
EDITORS = ["VS Code", "Neovim", "Emacs", "PyCharm", "Helix", "Zed"]
SERVICES = ["ollama", "Redis", "the staging API", "S3", "the auth service", "Kafka"]
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

TYPE_WEIGHTS = {
    "preference": 18, "fact": 24, "decision": 14, "procedure": 10,
    "correction": 3, "error": 8, "note": 14, "reasoning": 6,
}
LAYER_FOR = {
    "preference": ("procedural", "semantic"),
    "procedure": ("procedural",),
    "fact": ("semantic",),
    "decision": ("episodic", "semantic"),
    "correction": ("semantic", "procedural"),
    "error": ("episodic",),
    # Working memory is never stored (core/write/router.py); the repeated entries keep
    # the tuples' lengths, so the seeded RNG draws, and every other demo row, unchanged.
    "note": ("episodic", "episodic"),
    "reasoning": ("semantic", "episodic", "episodic"),
}

BULK_ROWS = 50_000  # from this size on, load with triggers and indexes dropped
CONTRADICTION_RATE = 0.02  # share of repeated facts that disagree with the current value

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
    layer: str | None = None

    def as_tuple(self) -> tuple:
        return tuple(
            v.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(v, datetime) else v
            for v in (getattr(self, c) for c in COLUMNS)
        )


class DemoGenerator:
    """Generates rows; every choice comes from one seeded RNG."""

    def __init__(self, seed: int = 7, end: datetime | None = None, days: int = 180) -> None:
        self.rng = random.Random(seed)
        self.end = end or utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        self.days = days
        self.types = list(TYPE_WEIGHTS)
        self.type_weights = list(TYPE_WEIGHTS.values())
        # What is currently true per (user, subject, attribute): most mentions repeat it,
        # a few disagree (unresolved contradictions), corrections change it.
        self.truth: dict[tuple[str, ...], str] = {}

    def _stable(self, key: tuple[str, ...], options: list[str]) -> str:
        cur = self.truth.get(key)
        if cur is None:
            cur = self.truth[key] = self.rng.choice(options)
            return cur
        if self.rng.random() < CONTRADICTION_RATE:
            return self.rng.choice([o for o in options if o != cur])
        return cur

    def _correct(self, key: tuple[str, ...], options: list[str]) -> tuple[str, str]:
        """A correction: (new value, the value it replaces); the new one becomes true."""
        old = self.truth.get(key) or self.rng.choice(options)
        new = self.rng.choice([o for o in options if o != old])
        self.truth[key] = new
        return new, old

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
        self, kind: str, user: str
    ) -> tuple[str, str, str | None, str | None, str | None]:
        """(text, topic, entity, attribute, value) for one memory of ``kind`` by ``user``."""
        c = self.rng.choice
        w = c(NOISE_WORDS)
        if kind == "preference":
            opt = self.rng.randrange(4)
            if opt == 0:
                lang = self._stable((user, "user", "preferred_language"), LANGS)
                return (f"User prefers {lang} for backend work.", "tech", "user",
                        "preferred_language", lang)
            if opt == 1:
                ed = self._stable((user, "user", "editor"), EDITORS)
                return (f"User always uses dark mode in {ed}.", "tech", "user", "editor", ed)
            if opt == 2:
                return ("Prefer simplicity over cleverness, even when it costs performance.",
                        "work", "user", "design_value", "simplicity")
            tool = self._stable((user, "user", "preferred_tool"), TOOLS)
            return (f"User prefers {tool} for the {w} workflow.", "tech", "user",
                    "preferred_tool", tool)
        if kind == "fact":
            opt = self.rng.randrange(3)
            if opt == 0:
                co = self._stable((user, "user", "works_at"), COMPANIES)
                return (f"User works at {co}.", "work", "user", "works_at", co)
            if opt == 1:
                city = self._stable((user, "user", "lives_in"), CITIES)
                return (f"User lives in {city}.", "personal", "user", "lives_in", city)
            proj = c(PROJECTS)
            db = self._stable((user, proj, "database"), DBS)
            return (f"{proj} stores its data in {db}.", "tech", proj, "database", db)
        if kind == "decision":
            proj, db = c(PROJECTS), c(DBS)
            return (f"Chose {db} for {proj} because {c(REASONS)}.", "tech", None, None, None)
        if kind == "procedure":
            tool = c(TOOLS)
            return (f"Runs {tool} before every commit; deploys {c(PROJECTS)} on Fridays "
                    f"after the {w} check.", "work", None, None, None)
        if kind == "correction":
            a, b = self._correct((user, "user", "preferred_tool"), TOOLS)
            return (f"No, I use {a} not {b} for the {w} work.", "tech", "user", "preferred_tool", a)
        if kind == "error":
            return (f"Timeout connecting to {c(SERVICES)} during the {w} job.", "tech",
                    None, None, None)
        if kind == "note":
            if self.rng.random() < 0.35:
                return (c(CONTEMPLATIVE), "personal", None, None, None)
            return (f"Noted that the {w} for {c(PROJECTS)} slipped a week.", c(TOPICS),
                    None, None, None)
        a, b = self.rng.sample(DBS, 2)
        return (f"Reasoned that {a} is simpler than {b} for the {w} because {c(REASONS)}.",
                "tech", None, None, None)

    def rows(self, size: int):  # type: ignore[no-untyped-def]
        """Yield ``size`` rows (scenario rows first, then the generated body)."""
        users = self._users(size)
        emitted = 0
        for row in self._scenarios(users):
            if emitted >= size:
                return
            emitted += 1
            yield row
        # Recent preference per (user, attribute), to build correction chains later.
        last_pref: dict[tuple[str, str], _Row] = {}
        pending: list[_Row] = []
        while emitted < size:
            user = self.rng.choice(users)
            kind = self.rng.choices(self.types, self.type_weights)[0]
            text_, topic, ent, attr, val = self._content(kind, user)
            when = self._when()
            row = _Row(
                id=self._id(), user_id=user, text=text_, type=kind, topic=topic,
                importance=self._importance(), confidence=self._confidence(),
                source_session=self._session(user, when), created_at=when,
                entity=ent, attribute=attr, value=val,
                layer=self.rng.choice(LAYER_FOR[kind]),
            )
            if self.rng.random() < 0.3:
                row.access_count = self.rng.randrange(1, 40)
                row.last_accessed = when + timedelta(
                    seconds=self.rng.randrange(max(1, int((self.end - when).total_seconds())))
                )
            if kind in ("preference", "correction") and attr is not None:
                key = (user, attr)
                prev = last_pref.get(key)
                # Most corrections get linked to what they correct (seed 000's `maintain`);
                # the rest are left for the operator to link.
                if (prev is not None and prev.value != val and kind == "correction"
                        and self.rng.random() < 0.7):
                    newer, older = (row, prev) if row.created_at > prev.created_at else (prev, row)
                    if older.superseded_by is None and newer.superseded_by is None:
                        older.superseded_by = newer.id
                        older.valid_until = newer.created_at
                last_pref[key] = row
            pending.append(row)
            emitted += 1
            # Hold rows briefly so a later correction can still mark an earlier one.
            if len(pending) >= 5000:
                yield from pending
                pending.clear()
                last_pref.clear()
        yield from pending

    def _scenarios(self, users: list[str]):  # type: ignore[no-untyped-def]
        """Hand-shaped cases every demo store contains, generated per user."""
        for i, user in enumerate(users[: len(USERS)]):
            base = self.end - timedelta(days=150 - i * 7)
            sess = self._session(user, base)
            hyp, attr, val = HYPOTHETICALS[i % len(HYPOTHETICALS)]
            yield _Row(self._id(), user, f"User said: \"{hyp}\" (hypothetical framing)", "fact",
                       "personal", 0.8, round(0.15 + 0.03 * i, 2), sess, base,
                       entity="user", attribute=attr, value=val, layer="semantic")
            # Correction chain: unittest -> pytest, superseded and linked.
            old = _Row(self._id(), user, "User prefers unittest for testing.", "preference",
                       "tech", 0.6, 0.85, sess, base + timedelta(hours=1), entity="user",
                       attribute="test_framework", value="unittest", layer="procedural")
            new = _Row(self._id(), user, "No, I use pytest not unittest.", "correction", "tech",
                       0.9, 0.95, self._session(user, base + timedelta(days=12)),
                       base + timedelta(days=12), entity="user", attribute="test_framework",
                       value="pytest", layer="procedural")
            old.superseded_by, old.valid_until = new.id, new.created_at
            yield old
            yield new
            # Contradicting facts left unresolved: same entity+attribute, other value.
            c1, c2 = COMPANIES[i % len(COMPANIES)], COMPANIES[(i + 1) % len(COMPANIES)]
            yield _Row(self._id(), user, f"User works at {c1}.", "fact", "work", 0.7, 0.9,
                       sess, base + timedelta(hours=2), entity="user", attribute="works_at",
                       value=c1, layer="semantic")
            later = base + timedelta(days=40)
            yield _Row(self._id(), user, f"User works at {c2} now.", "fact", "work", 0.7, 0.8,
                       self._session(user, later), later, entity="user",
                       attribute="works_at", value=c2.upper() if i % 2 else c2,
                       layer="semantic")
            yield _Row(self._id(), user, f"User lives in {CITIES[i % len(CITIES)]}.", "fact",
                       "personal", 0.5, 0.9, sess, base + timedelta(hours=3), entity="user",
                       attribute="lives_in", value=CITIES[i % len(CITIES)], layer="semantic")
            yield _Row(self._id(), user, f"User lives in  {CITIES[i % len(CITIES)].lower()} ",
                       "fact", "personal", 0.4, 0.7, sess, base + timedelta(days=3),
                       entity="user", attribute="lives_in",
                       value=f" {CITIES[i % len(CITIES)].lower()} ", layer="semantic")
            # Hostile text, shown as plain text by the UI.
            yield _Row(self._id(), user, "Remember the tag <b>bold</b> and <img src=x> literally.",
                       "note", "tech", 0.35, 0.9, sess, base + timedelta(hours=4), layer="episodic")


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
        indexes: list[tuple[str, str]] = []
        if bulk:
            for name in ("memories_fts_ai", "memories_fts_ad", "memories_fts_au"):
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
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
        batch: list[tuple] = []
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
                "INSERT INTO memory_events (memory_id, actor, action, before, after, at, note) "
                "VALUES ('*', 'worker', 'demo_load', '{}', :after, :at, :note)"
            ),
            {"after": encode_values({"rows": written, "seed": seed}), "at": now,
             "note": f"demo generator, seed {seed}"},
        )
        for _name, sql_ in indexes:
            conn.exec_driver_sql(sql_)
        if bulk:
            from memdesk.core.store.migrations.versions.m0002_memdesk_v1 import FTS_SQLITE

            for stmt in FTS_SQLITE[1:4]:
                conn.exec_driver_sql(stmt)
            conn.exec_driver_sql("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')")
    if store.dialect == "sqlite":
        with store.write() as conn:
            conn.exec_driver_sql("ANALYZE")
    from memdesk.core.delta.demo import (
        generate_snapshots,  # delta memory (issue 5): snapshot series
    )

    generate_snapshots(store, seed=seed, end=gen.end)
    if progress:
        progress(written, size)
    return written
