"""Stores for the scaling benchmark (bench_backends.py --concurrency): the demo data with
real vectors at 100k or 1M rows, as a SQLite file and as a PostgreSQL database.

SQLite: the 1M store is a copy of the cached demo store (bench/common.million_store,
vectors filled by bench/read_data.py); the 100k store is the same generator (seed 7)
with each text's vector taken from the 1M store, so both sizes hold the same texts.

PostgreSQL: the rows of that SQLite file (and their vectors, in ``memory_vectors``
since migration 0012) are bulk-loaded with COPY into a database memdesk has just
migrated.  The tables' secondary indexes and foreign keys are dropped first and rebuilt
once afterwards (building an index from all rows is far faster than updating a dozen of
them per row), then the database is VACUUM ANALYZEd.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

from common import CACHE, END

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore

MILLION = Path("/work/main/bench/.cache/demo-1000000.db")  # READ-ONLY source, copied


def _vectors_by_text(src: Path) -> dict[str, bytes]:
    """Each text's vector in ``src``, which may predate migration 0012 (vector column)."""
    con = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(memories)")}
        sql = ("SELECT text, min(embedding) FROM memories WHERE embedding IS NOT NULL "
               "GROUP BY text") if "embedding" in cols else (
               "SELECT m.text, min(v.vector) FROM memories m JOIN memory_vectors v "
               "ON v.seq = m.seq GROUP BY m.text")
        return dict(con.execute(sql))
    finally:
        con.close()


def _migrate(path: Path) -> None:
    """Upgrade a cached store in place; its pre-migration backup goes in the cache and
    is deleted (the cache can be rebuilt), never in the user's data folder."""
    backups = CACHE / "backups"
    os.environ["MEMDESK_BACKUP_DIR"] = str(backups)
    MemoryStore.open(path, allow_upgrade=True).close()
    shutil.rmtree(backups, ignore_errors=True)


def sqlite_store(size: int, million: Path = MILLION) -> Path:
    """A SQLite demo store of ``size`` rows with a vector on every row (cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"scale-{size}.db"
    ok = path.with_suffix(".ok")
    if ok.exists():
        _migrate(path)  # a cache built by an older checkout
        return path
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    t = time.perf_counter()
    if size == 1_000_000:
        shutil.copyfile(million, path)
        _migrate(path)  # the copy, to this checkout's schema
    else:
        store = MemoryStore.open(path)
        demo.generate(store, size, seed=7, end=END)
        store.close()
        vecs = _vectors_by_text(million)
        con = sqlite3.connect(path)
        con.execute("CREATE TEMP TABLE vf (text TEXT PRIMARY KEY, v BLOB)")
        con.executemany("INSERT INTO vf VALUES (?, ?)", vecs.items())
        con.execute("INSERT INTO memory_vectors (seq, vector) SELECT m.seq, vf.v FROM "
                    "memories m JOIN vf ON vf.text = m.text ORDER BY m.seq")
        con.commit()
        con.close()
        from read_data import fill_embeddings  # texts the 1M store lacks (none, usually)

        store = MemoryStore.open(path)
        fill_embeddings(store)
        store.checkpoint()
        store.close()
    ok.write_text(f"built in {time.perf_counter() - t:.1f}s\n")
    return path


def _pg_conninfo(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


TABLES = ("memories", "memory_vectors")  # in foreign-key order


def load_pg(url: str, src: Path, batch: int = 5000) -> float:
    """Bulk-load ``src``'s memories and vectors into the empty store at ``url``; returns
    seconds.  (Nothing else: retrieval needs no more, and the audit trail starts empty.)"""
    import psycopg

    MemoryStore.open(url).close()  # create the schema (every migration)
    t = time.perf_counter()
    lite = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    with psycopg.connect(_pg_conninfo(url)) as pg:
        indexes, fks = [], []
        for table in TABLES:
            indexes += pg.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND "
                "indexname NOT IN (SELECT conname FROM pg_constraint "
                "WHERE conrelid = %s::regclass)", (table, table)).fetchall()
            fks += [(table, *r) for r in pg.execute(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                "WHERE conrelid = %s::regclass AND contype = 'f'", (table,)).fetchall()]
        for table, name, _ in fks:
            pg.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        for name, _ in indexes:
            pg.execute(f'DROP INDEX "{name}"')
        for table in TABLES:
            pg_cols = {r[0] for r in pg.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                (table,))}
            cols = [r[1] for r in lite.execute(f"PRAGMA table_info({table})")
                    if r[1] in pg_cols]
            collist = ", ".join(cols)
            with pg.cursor() as cur, cur.copy(f"COPY {table} ({collist}) FROM STDIN") as cp:
                rows = lite.execute(f"SELECT {collist} FROM {table} ORDER BY seq")
                while chunk := rows.fetchmany(batch):
                    for row in chunk:
                        cp.write_row(row)
        for _, sql in indexes:
            pg.execute(sql)
        for table, name, sql in fks:
            pg.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {sql}')
        pg.execute("SELECT setval(pg_get_serial_sequence('memories', 'seq'), "
                   "(SELECT max(seq) FROM memories))")
        pg.commit()
        pg.autocommit = True
        pg.execute("VACUUM ANALYZE")
    lite.close()
    return time.perf_counter() - t
