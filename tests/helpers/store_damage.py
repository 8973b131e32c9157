"""Healthy stores of varied content and the kinds of damage ``db check`` must catch.

Each ``damage_*`` function takes a healthy, checkpointed store file (no WAL) and
damages it in place in one class: a table page, a table index, the full-text index's
shadow tables, text changed behind the full-text index (stale), and a WAL whose
committed frames SQLite would drop.  The damage is done the way it happens: bytes
on disk, or SQL from another program that bypasses memdesk's triggers.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from memdesk.core.store.db import DRIVER
from memdesk.core.store.memory_store import MemoryStore

WORDS = ["tea", "coffee", "Python", "Rust", "Berlin", "Lisbon", "piano", "chess", "hiking",
         "sushi", "ramen", "cats", "dogs", "zürich", "naïve", "東京", "données", "café",
         "ünïcödé", "emoji🙂", "deadline", "budget", "kernel"]
TYPES = ("preference", "fact", "decision", "procedure", "note")


def fill(store: MemoryStore, n: int, seed: int) -> None:
    """``n`` memories of varied text, types and users; some edited, deleted, superseded."""
    rng = random.Random(seed)
    ids = store.add_many(
        dict(user_id=f"user{rng.randint(1, 3)}", type=rng.choice(TYPES),
             text=" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40))) + f" #{i}",
             topic=rng.choice([None, "work", "home"]), importance=round(rng.random(), 2))
        for i in range(n))
    for mid in ids:
        roll = rng.random()
        if roll < 0.1:
            store.update(mid, text=f"edited {rng.choice(WORDS)}")
        elif roll < 0.15:
            store.soft_delete(mid)
    if len(ids) > 3 and rng.random() < 0.5:
        store.supersede(ids[0], ids[-1])


def raw(path: Path):  # type: ignore[no-untyped-def]
    conn = DRIVER.connect(str(path))
    conn.isolation_level = None
    return conn


def snapshot_with_wal(src: Path, dst: Path) -> None:
    """Copy ``src`` and its WAL while a connection holds it open: what a crash leaves."""
    shutil.copyfile(src, dst)
    shutil.copyfile(str(src) + "-wal", str(dst) + "-wal")


def page_size(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[16:18], "big") or 65536


def _root_page(path: Path, name: str) -> int:
    conn = raw(path)
    try:
        return int(conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                                (name,)).fetchone()[0])
    finally:
        conn.close()


def damage_page(path: Path) -> None:
    """Wipe the b-tree page header of the memories table's root page."""
    data = bytearray(path.read_bytes())
    size = page_size(path)
    at = (_root_page(path, "memories") - 1) * size
    data[at: at + 12] = b"\x00" * 12
    path.write_bytes(bytes(data))


def damage_index(path: Path) -> None:
    """Flip the last byte (the rowid) of the first entry of an index on memories."""
    conn = raw(path)
    try:
        name = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND "
                            "tbl_name = 'memories' AND sql IS NOT NULL ORDER BY name"
                            ).fetchone()[0]
    finally:
        conn.close()
    data = bytearray(path.read_bytes())
    size = page_size(path)
    base = (_root_page(path, name) - 1) * size
    header = 12 if data[base] in (2, 5) else 8
    cell = base + int.from_bytes(data[base + header: base + header + 2], "big")
    if data[base] == 2:  # an interior page: a 4-byte child pointer first
        cell += 4
    payload, n = 0, 0
    while True:  # the payload size, a varint
        byte = data[cell + n]
        payload = (payload << 7) | (byte & 0x7F)
        n += 1
        if byte < 0x80:
            break
    data[cell + n + payload - 1] ^= 0x01
    path.write_bytes(bytes(data))


def damage_fts_data(path: Path) -> None:
    """Zero the full-text index's segment blocks (another program's bad write)."""
    conn = raw(path)
    try:
        conn.execute("UPDATE memories_fts_data SET block = zeroblob(length(block)) "
                     "WHERE id > 10")
    finally:
        conn.close()


def damage_fts_docsize(path: Path) -> None:
    """Delete some rows of the full-text index's document-size table."""
    conn = raw(path)
    try:
        conn.execute("DELETE FROM memories_fts_docsize WHERE rowid IN "
                     "(SELECT rowid FROM memories_fts_docsize LIMIT 3)")
    finally:
        conn.close()


def stale_fts(path: Path, rows: int = 32) -> None:
    """Change memories' text behind the full-text index (the triggers bypassed)."""
    conn = raw(path)
    try:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                                    "AND sql LIKE '%memories_fts%'").fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("UPDATE memories SET text = 'zebra ' || text WHERE seq IN "
                     "(SELECT seq FROM memories ORDER BY seq LIMIT ?)", (rows,))
    finally:
        conn.close()


def committed_wal(src: Path, dst: Path, commits: int = 40) -> None:
    """``dst``: ``src`` plus a WAL of ``commits`` committed inserts, as a crash leaves it."""
    shutil.copyfile(src, dst)
    conn = raw(dst)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("CREATE TABLE IF NOT EXISTS wal_probe (x TEXT)")
        for i in range(commits):
            conn.execute("INSERT INTO wal_probe VALUES (?)", (f"row {i} " * 200,))
        snapshot_with_wal(dst, dst.with_name(dst.name + ".snap"))
    finally:
        conn.close()
    shutil.move(dst.with_name(dst.name + ".snap"), dst)
    shutil.move(str(dst.with_name(dst.name + ".snap")) + "-wal", str(dst) + "-wal")
    Path(str(dst) + "-shm").unlink(missing_ok=True)


def damage_wal(path: Path) -> None:
    """Flip a byte in the page of a frame half-way through ``path``'s WAL (frames after it
    commit).  Half-way, not at a fixed frame: the first frames hold the schema pages,
    whose number grows with the schema, and damaging one of those loses the probe
    table itself."""
    wal = Path(str(path) + "-wal")
    data = bytearray(wal.read_bytes())
    size = int.from_bytes(data[8:12], "big")
    frames = (len(data) - 32) // (24 + size)
    data[32 + (frames // 2) * (24 + size) + 24 + 100] ^= 0xFF
    wal.write_bytes(bytes(data))


def probe_rows(path: Path) -> int:
    """Rows of the WAL probe table SQLite sees (a copy is opened: the original stays)."""
    scratch = path.with_name(path.name + ".probe")
    shutil.copyfile(path, scratch)
    shutil.copyfile(str(path) + "-wal", str(scratch) + "-wal")
    conn = raw(scratch)
    try:
        return int(conn.execute("SELECT count(*) FROM wal_probe").fetchone()[0])
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(scratch) + suffix).unlink(missing_ok=True)
