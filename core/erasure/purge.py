"""The erasure itself: one write transaction, then the scrub of the file.

In the transaction (SQLite's ``secure_delete`` on, so every cell it deletes or
rewrites, and every page it frees, is overwritten with zeros):

1. memories a target had superseded stay retired (``superseded_by`` cleared,
   ``valid_until`` set), one ``purge`` audit row each;
2. the targets' audit rows become tombstones: ``before`` empty, ``after`` saying what
   was erased (id, kind, when, by whom, the erasure), the note cleared — so their
   undo payloads are gone with them;
3. rows that only point at a target go: the retrieval log's items, the duplicates
   queue's flags; a delta snapshot's item of it keeps its place but not its text;
4. the jobs that carried the turn keep their status but not its text, log or error;
5. the memory rows are deleted (their vector, episode, provenance and quarantine
   reasons go with them by foreign key; the full-text index by trigger on SQLite, its
   GIN index on PostgreSQL);
6. any copy of a text left in any text column of any other table (audit notes, job
   logs, retrieval queries and drop notes, delta snapshots and diffs, quarantine
   evidence…) is replaced by ``[erased]``; a retrieval or snapshot query holding one
   of the distinctive words is replaced whole (it was a search for the erased text);
7. one ``purge`` audit row per target (the tombstone), the ``erasures`` record and an
   ``erased_memories`` row per target;
8. SQLite: the full-text index is merged (``optimize``), so no segment keeps the
   deleted entries that FTS5 otherwise keeps until a merge.

Then :func:`scrub`: on SQLite a truncating WAL checkpoint (waiting for readers), a
search of the file's raw bytes, and a ``VACUUM`` (and checkpoint) when bytes remain
(free space of pages written before secure delete, interior index keys); statistics
(``sqlite_stat4``) holding a sample of the text are rebuilt.  On PostgreSQL a ``VACUUM``
of the tables the purge touched.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Table, delete, insert, text, update
from sqlalchemy.exc import DatabaseError, OperationalError

from memdesk.core.erasure.columns import text_columns
from memdesk.core.erasure.plan import MIN_TEXT, Plan
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.backup import NO_BACKUP_OPTION
from memdesk.core.store.db import WRITE_OPTION
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import ErasedMemory, Erasure, Memory, MemoryEvent
from memdesk.core.store.schema import translate

ERASED = "[erased]"
# Declarative types __table__ as a FromClause; these models map plain Tables.
MT = cast(Table, Memory.__table__)
EVT = cast(Table, MemoryEvent.__table__)
ERT = cast(Table, Erasure.__table__)
EMT = cast(Table, ErasedMemory.__table__)
M = MT.c
EV = EVT.c
Progress = Callable[[str], None]
# How long the WAL checkpoint waits for other connections' reads to finish.
CHECKPOINT_WAIT_S = 30.0


@contextmanager
def purge_transaction(store: MemoryStore) -> Iterator[Connection]:
    """``store.write()``, except that it never prompts an automatic backup: a copy
    taken as the purge starts would hold exactly what it erases."""
    engine = store.engine.execution_options(**{WRITE_OPTION: True, NO_BACKUP_OPTION: True})
    try:
        with engine.begin() as conn:
            yield conn
    except (OperationalError, DatabaseError) as exc:
        raise translate(exc, store.url) from exc


def needle_forms(s: str) -> list[str]:
    """A text as it may be stored: as is, and inside JSON (escaped or not)."""
    forms = [s, json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1]]
    return list(dict.fromkeys(f for f in forms if f))


def searchable(plan: Plan) -> list[str]:
    """The needle forms of every text long enough to search for."""
    out: dict[str, None] = {}
    for t in plan.texts:
        if len(t) >= MIN_TEXT:
            for f in needle_forms(t):
                out.setdefault(f, None)
    return list(out)


def tombstone(target_id: str, kind: str, at: datetime, actor: str, who: str | None,
              erasure_id: str) -> dict[str, Any]:
    return {"erased": {"id": target_id, "kind": kind, "at": at.isoformat(),
                       "by": actor, "who": who, "erasure": erasure_id}}


@dataclass
class Removed:
    """Where the purge removed things from: place -> rows."""

    places: dict[str, int] = field(default_factory=dict)

    def add(self, place: str, n: int) -> None:
        if n:
            self.places[place] = self.places.get(place, 0) + n


def erase_in(store: MemoryStore, conn: Connection, plan: Plan, *, erasure_id: str,
             actor: str, who: str | None) -> Removed:
    """Steps 1–8 of the module docstring, in the caller's purge transaction."""
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        conn.exec_driver_sql("PRAGMA secure_delete = ON")
    at = utcnow()
    out = Removed()
    ids, kinds = list(plan.ids), {t.id: t.kind for t in plan.targets}
    for old in plan.retired:  # 1
        rec = store.get(old, conn)
        store.apply_in(conn, old, {"superseded_by": None,
                                   "valid_until": rec.valid_until or at},
                       actor=actor, action=acts.PURGE, group_id=erasure_id,
                       note="superseded by a memory that was erased; it stays retired")
    for t in plan.targets:  # 2
        n = conn.execute(update(EVT).where(EV.memory_id == t.id).values(
            before="{}", note=None,
            after=json.dumps(tombstone(t.id, t.kind, at, actor, who, erasure_id)))).rowcount
        out.add("memory_events (audit rows turned into tombstones)", n or 0)
    out.add("retrieval_items (the retrieval log)", _delete_where(
        conn, "retrieval_items", "memory_id", ids))
    out.add("duplicate_flags (the duplicates queue)", _delete_where(
        conn, "duplicate_flags", "memory_id", ids) + _delete_where(
        conn, "duplicate_flags", "duplicate_of", ids))
    out.add("memory_set_items (delta snapshots)", _redact_set_items(conn, ids))
    if plan.jobs:  # 4
        out.add("jobs (the turn's text, log and error)", conn.execute(text(
            "UPDATE jobs SET text = :e, log = NULL, error = NULL WHERE id IN ("
            + ", ".join(f":j{i}" for i in range(len(plan.jobs))) + ")"),
            {"e": ERASED, **{f"j{i}": j for i, j in enumerate(plan.jobs)}}).rowcount or 0)
    _count_dependents(conn, plan, out)
    n = conn.execute(delete(MT).where(M.id.in_(ids))).rowcount  # 5
    out.add("memories", n or 0)
    if sqlite:
        out.add("memories_fts (full-text index entries)", n or 0)
    for place, count in redact_copies(conn, searchable(plan)).items():  # 6
        out.add(place, count)
    for place, count in redact_queries(conn, plan.words).items():
        out.add(place, count)
    for t in plan.targets:  # 7
        store.log_in(conn, t.id, actor, acts.PURGE, {},
                     tombstone(t.id, t.kind, at, actor, who, erasure_id),
                     group_id=erasure_id, note=who)
    conn.execute(insert(ERT).values(
        id=erasure_id, memory_id=plan.requested, at=at, actor=actor, who=who,
        erased=len(ids), verdict="pending", receipt="{}"))
    conn.execute(insert(EMT), [
        {"memory_id": t.id, "erasure_id": erasure_id, "kind": kinds[t.id],
         "text_sha256": t.text_sha256, "at": at} for t in plan.targets])
    if sqlite:  # 8
        conn.exec_driver_sql("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        conn.exec_driver_sql("PRAGMA secure_delete = OFF")
    return out


def _delete_where(conn: Connection, table: str, column: str, ids: list[str]) -> int:
    params = {f"i{k}": v for k, v in enumerate(ids)}
    sql = (f"DELETE FROM {table} WHERE {column} IN ("
           + ", ".join(f":i{k}" for k in range(len(ids))) + ")")
    return int(conn.execute(text(sql), params).rowcount or 0)


def _redact_set_items(conn: Connection, ids: list[str]) -> int:
    params: dict[str, Any] = {f"k{k}": f"id:{v}" for k, v in enumerate(ids)}
    params["e"] = ERASED
    sql = ("UPDATE memory_set_items SET text = :e, entity = NULL, attribute = NULL, "
           "value = NULL, provenance = NULL WHERE key IN ("
           + ", ".join(f":k{k}" for k in range(len(ids))) + ")")
    return int(conn.execute(text(sql), params).rowcount or 0)


def _count_dependents(conn: Connection, plan: Plan, out: Removed) -> None:
    """What the foreign keys take along with the memory rows (counted before)."""
    ids = list(plan.ids)
    for table, column, place in (
            ("episodes", "memory_id", "episodes"),
            ("memory_provenance", "memory_id", "memory_provenance"),
            ("quarantine_reasons", "memory_id", "quarantine_reasons (review inbox)")):
        params = {f"i{k}": v for k, v in enumerate(ids)}
        n = conn.execute(text(f"SELECT count(*) FROM {table} WHERE {column} IN ("
                              + ", ".join(f":i{k}" for k in range(len(ids))) + ")"),
                         params).scalar_one()
        out.add(place, int(n))
    out.add("memory_vectors (vectors)", len(plan.vectors))


def redact_copies(conn: Connection, needles: list[str]) -> dict[str, int]:
    """Replace every copy of ``needles`` in every text column of the other tables."""
    out: dict[str, int] = {}
    if not needles:
        return out
    find = "instr" if conn.dialect.name == "sqlite" else "strpos"
    for col in text_columns(conn):
        table, name = col.sql()
        for needle in needles:
            n = conn.execute(text(
                f"UPDATE {table} SET {name} = replace({name}, :n, :e) "
                f"WHERE {find}({name}, :n) > 0"), {"n": needle, "e": ERASED}).rowcount
            if n:
                out[col.where] = out.get(col.where, 0) + int(n)
    return out


# Logs of searches: a query holding a distinctive word of the erased text was a search
# for it, and is replaced whole.  (table, its key, the query column)
QUERY_LOGS = (("retrievals", "id", "query"), ("memory_sets", "id", "query"))


def word_pattern(words: tuple[str, ...] | list[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)",
                      re.IGNORECASE)


# JSON made from memories' words: a delta diff's search bias (query expansions drawn
# from the memories' texts), a retrieval's drop and notes.  The words are replaced
# inside the JSON's strings and keys.  (table, its key, the JSON columns)
WORD_JSON = (("memory_diffs", "id", ("bias", "decision", "warnings", "influence")),
             ("retrievals", "id", ("dropped", "notes")))


def _rows_with(conn: Connection, table: str, key: str, column: str, words: tuple[str, ...],
               pattern: re.Pattern[str]) -> dict[str, str]:
    find = "instr" if conn.dialect.name == "sqlite" else "strpos"
    found: dict[str, str] = {}
    for w in words:
        rows = conn.execute(text(
            f"SELECT {key}, {column} FROM {table} WHERE {find}(lower({column}), :w) > 0"),
            {"w": w.lower()}).all()
        found.update({str(k): v for k, v in rows if v and pattern.search(v)})
    return found


def _scrub_json(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(ERASED, value)
    if isinstance(value, list):
        return [_scrub_json(v, pattern) for v in value]
    if isinstance(value, dict):
        return {pattern.sub(ERASED, k): _scrub_json(v, pattern) for k, v in value.items()}
    return value


def redact_queries(conn: Connection, words: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    pattern = word_pattern(words)
    if pattern is None:
        return out
    for table, key, column in QUERY_LOGS:
        hits = _rows_with(conn, table, key, column, words, pattern)
        for k in hits:
            conn.execute(text(f"UPDATE {table} SET {column} = :e WHERE {key} = :k"),
                         {"e": ERASED, "k": k})
        if hits:
            out[f"{table}.{column} (searches for it)"] = len(hits)
    for table, key, columns in WORD_JSON:
        for column in columns:
            hits = _rows_with(conn, table, key, column, words, pattern)
            for k, raw in hits.items():
                try:
                    new = json.dumps(_scrub_json(json.loads(raw), pattern), ensure_ascii=False)
                except ValueError:  # not JSON after all: the words in the plain text
                    new = pattern.sub(ERASED, raw)
                conn.execute(text(f"UPDATE {table} SET {column} = :v WHERE {key} = :k"),
                             {"v": new, "k": k})
            if hits:
                out[f"{table}.{column} (its words)"] = len(hits)
    return out


@dataclass
class Scrub:
    """What the scrub of the file did."""

    steps: list[str] = field(default_factory=list)
    wal_truncated: bool | None = None  # None: not SQLite
    vacuumed: bool = False


def checkpoint(store: MemoryStore, wait_s: float = CHECKPOINT_WAIT_S) -> bool:
    """A truncating WAL checkpoint, retried while other connections' reads hold it
    (True: the WAL is empty and every page is back in the main file)."""
    deadline = time.monotonic() + wait_s
    while True:
        raw = store.engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert driver is not None  # None only once detached; this one was just checked out
            busy = driver.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        finally:
            raw.close()
        if not busy:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def vacuum_sqlite(store: MemoryStore) -> None:
    raw = store.engine.raw_connection()
    try:
        driver = raw.driver_connection
        assert driver is not None  # None only once detached; this one was just checked out
        driver.execute("VACUUM")
    finally:
        raw.close()


def analyze_if_sampled(store: MemoryStore, needles: list[str]) -> bool:
    """Rebuild the planner's statistics when a sample of them holds a text."""
    with store.read() as conn:
        if conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'"
                                ).first() is None:
            return False
        found = any(conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_stat4 WHERE instr(sample, CAST(? AS BLOB)) > 0 LIMIT 1",
            (n,)).first() for n in needles)
    if found:
        with purge_transaction(store) as conn:
            conn.exec_driver_sql("PRAGMA secure_delete = ON")
            conn.exec_driver_sql("ANALYZE")
            conn.exec_driver_sql("PRAGMA secure_delete = OFF")
    return found


def scrub(store: MemoryStore, path: Path | None, plan: Plan,
          raw_hits: Callable[[MemoryStore, Path, Plan], list[Any]],
          progress: Progress) -> Scrub:
    """Leave no bytes of the texts in the store's files (see the module docstring)."""
    out = Scrub()
    if store.dialect != "sqlite":
        _vacuum_pg(store)
        out.steps.append("VACUUM of the touched tables (PostgreSQL)")
        return out
    if analyze_if_sampled(store, searchable(plan)):
        out.steps.append("statistics rebuilt (ANALYZE): a sample held the text")
    progress("checkpointing the WAL")
    out.wal_truncated = checkpoint(store)
    out.steps.append("WAL checkpoint (TRUNCATE)" if out.wal_truncated else
                     "WAL checkpoint could not finish: another connection kept reading")
    if path is not None and raw_hits(store, path, plan):
        progress("compacting the file (VACUUM)")
        vacuum_sqlite(store)
        out.vacuumed = True
        out.steps.append("VACUUM: bytes of the text remained in free space")
        out.wal_truncated = checkpoint(store)
    return out


# The tables a purge writes to, vacuumed on PostgreSQL.
PG_TOUCHED = ("memories", "memory_vectors", "memory_events", "episodes", "memory_provenance",
              "quarantine_reasons", "jobs", "retrievals", "retrieval_items",
              "memory_set_items", "memory_sets", "memory_diffs", "delta_events",
              "duplicate_flags", "sweep_items", "contradiction_dismissals")


def _vacuum_pg(store: MemoryStore) -> None:
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        try:
            for table in PG_TOUCHED:
                conn.exec_driver_sql(f"VACUUM {table}")
        except (OperationalError, DatabaseError) as exc:
            raise translate(exc, store.url) from exc
