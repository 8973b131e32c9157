"""A generator of damaged stores: every class memdesk must report, none it may repair
or truncate silently.

:func:`with_committed_wal` builds the probe of the "nothing lost" issue: a store and a
``-wal`` holding 5 committed transactions of 100 edits each (the edits set
``importance`` to a marker, so :func:`edits_seen` counts what a reader sees).  Each
function of :data:`CORPUS` then damages one thing in place — the main file, the WAL,
the full-text tables, the triggers, other schema objects — the way it happens: bytes
on disk, or SQL from another program that bypasses memdesk.  Stores whose WAL is not
the subject are checkpointed first (no WAL).
"""

from __future__ import annotations

import os
import random
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers import store_damage as dmg

MARK = 0.123
TRANSACTIONS, EDITS = 5, 100
WAL_HEADER, FRAME_HEADER = 32, 24


def with_committed_wal(dst: Path, seed: int = 1) -> None:
    """``dst``: a store of 120 memories, checkpointed, plus a WAL of 5 × 100 committed
    edits that nothing has checkpointed yet (what a process killed after committing,
    or a store copied while in use, leaves)."""
    s = MemoryStore.open(dst)
    dmg.fill(s, 120, seed=seed)
    s.checkpoint()
    s.close()
    work = dst.with_name(dst.name + ".work")
    shutil.copyfile(dst, work)
    conn = dmg.raw(work)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        seqs = [r[0] for r in conn.execute("SELECT seq FROM memories ORDER BY seq LIMIT ?",
                                           (EDITS,))]
        for t in range(TRANSACTIONS):
            conn.execute("BEGIN IMMEDIATE")
            for seq in seqs:  # each transaction edits the same 100 rows once more
                conn.execute("UPDATE memories SET importance = ?, version = version + 1 "
                             "WHERE seq = ?", (MARK + t, seq))
            conn.execute("COMMIT")
        dmg.snapshot_with_wal(work, dst)
    finally:
        conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(work) + suffix).unlink(missing_ok=True)
    Path(str(dst) + "-shm").unlink(missing_ok=True)


def edits_seen(path: Path) -> int:
    """Of the 500 committed edits, how many a reader of a scratch copy sees (the last
    transaction to reach a row says how many of the 5 it got)."""
    scratch = path.with_name(path.name + ".seen")
    for suffix in ("", "-wal"):
        if Path(str(path) + suffix).exists():
            shutil.copyfile(str(path) + suffix, str(scratch) + suffix)
    conn = dmg.raw(scratch)
    try:
        rows = conn.execute("SELECT importance FROM memories").fetchall()
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(scratch) + suffix).unlink(missing_ok=True)
    got = [round(r[0] - MARK) + 1 for r in rows
           if r[0] is not None and abs((r[0] - MARK) - round(r[0] - MARK)) < 1e-9]
    return sum(got)


def _wal(path: Path) -> Path:
    return Path(str(path) + "-wal")


def _rewrite_wal(path: Path, change: Callable[[bytearray], None]) -> None:
    data = bytearray(_wal(path).read_bytes())
    change(data)
    _wal(path).write_bytes(bytes(data))


def _frames(data: bytearray) -> tuple[int, int]:
    page = int.from_bytes(data[8:12], "big")
    return page, (len(data) - WAL_HEADER) // (FRAME_HEADER + page)


def wal_header_zeroed(path: Path) -> None:
    _rewrite_wal(path, lambda d: d.__setitem__(slice(0, WAL_HEADER), bytes(WAL_HEADER)))


def wal_header_random(path: Path) -> None:
    rng = random.Random(5)
    _rewrite_wal(path, lambda d: d.__setitem__(slice(0, WAL_HEADER), rng.randbytes(WAL_HEADER)))


def wal_magic_damaged(path: Path) -> None:
    def change(d: bytearray) -> None:
        d[3] ^= 0x10
    _rewrite_wal(path, change)


def wal_header_checksum_damaged(path: Path) -> None:
    def change(d: bytearray) -> None:
        d[31] ^= 0x01
    _rewrite_wal(path, change)


def wal_version_damaged(path: Path) -> None:
    def change(d: bytearray) -> None:
        d[4:8] = struct.pack(">I", 3007001)
    _rewrite_wal(path, change)


def wal_last_commit_salt(path: Path) -> None:
    """Change a salt in the last commit frame: the last transaction no longer counts."""
    def change(d: bytearray) -> None:
        page, frames = _frames(d)
        last = max(i for i in range(frames)
                   if int.from_bytes(d[WAL_HEADER + i * (FRAME_HEADER + page) + 4:][:4], "big"))
        d[WAL_HEADER + last * (FRAME_HEADER + page) + 8] ^= 0x01
    _rewrite_wal(path, change)


def wal_frame_page(path: Path) -> None:
    """A flipped byte in a page half-way through the WAL (later frames commit)."""
    dmg.damage_wal(path)


def wal_all_zero(path: Path) -> None:
    _wal(path).write_bytes(bytes(_wal(path).stat().st_size))


def wal_cut_short(path: Path) -> None:
    """A WAL cut inside its header (the disk filled, a copy was interrupted)."""
    with open(_wal(path), "r+b") as fh:
        fh.truncate(20)


def _checkpointed(path: Path) -> None:
    """Fold the WAL in first: the damage below is to the main file or its schema."""
    conn = dmg.raw(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")
    finally:
        conn.close()


def _sql(path: Path, *statements: str) -> None:
    _checkpointed(path)
    conn = dmg.raw(path)
    try:
        for stmt in statements:
            conn.execute(stmt)
    finally:
        conn.close()


def main_page(path: Path) -> None:
    _checkpointed(path)
    dmg.damage_page(path)


def main_index(path: Path) -> None:
    _checkpointed(path)
    dmg.damage_index(path)


def main_header(path: Path) -> None:
    """The database file's own header wiped (its first 100 bytes)."""
    _checkpointed(path)
    with open(path, "r+b") as fh:
        fh.write(bytes(100))


def fts_data(path: Path) -> None:
    _checkpointed(path)
    dmg.damage_fts_data(path)


def fts_docsize(path: Path) -> None:
    _checkpointed(path)
    dmg.damage_fts_docsize(path)


def fts_stale(path: Path) -> None:
    _checkpointed(path)
    dmg.stale_fts(path, rows=8)


def fts_table_dropped(path: Path) -> None:
    _sql(path, "DROP TRIGGER memories_fts_ai", "DROP TRIGGER memories_fts_ad",
         "DROP TRIGGER memories_fts_au", "DROP TABLE memories_fts")


def _drop_trigger(name: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        _sql(path, f"DROP TRIGGER {name}")
    damage.__name__ = f"trigger_{name}_dropped"
    return damage


def index_dropped(path: Path) -> None:
    _sql(path, "DROP INDEX ix_memories_user_valid")


def table_dropped(path: Path) -> None:
    _sql(path, "DROP TABLE memory_set_items")


def trigger_added(path: Path) -> None:
    """Another program's trigger that rewrites every edit."""
    _sql(path, "CREATE TRIGGER sneaky AFTER UPDATE ON memories BEGIN "
               "UPDATE memories SET importance = 0 WHERE seq = new.seq; END")


def shm_damaged(path: Path) -> None:
    """Random bytes in the shared-memory index (a cache SQLite rebuilds from the WAL)."""
    rng = random.Random(9)
    Path(str(path) + "-shm").write_bytes(rng.randbytes(32768))


# Damage that must be reported (db check exit 3, the open refused, files unchanged).
CORPUS: dict[str, Callable[[Path], None]] = {
    "wal-header-zeroed": wal_header_zeroed,
    "wal-header-random": wal_header_random,
    "wal-magic": wal_magic_damaged,
    "wal-header-checksum": wal_header_checksum_damaged,
    "wal-version": wal_version_damaged,
    "wal-last-commit-salt": wal_last_commit_salt,
    "wal-frame-page": wal_frame_page,
    "wal-all-zero": wal_all_zero,
    "wal-cut-short": wal_cut_short,
    "main-page": main_page,
    "main-index": main_index,
    "main-header": main_header,
    "fts-data": fts_data,
    "fts-docsize": fts_docsize,
    "fts-stale": fts_stale,
    "fts-table-dropped": fts_table_dropped,
    **{f"trigger-{n}-dropped": _drop_trigger(n)
       for n in ("memories_fts_ai", "memories_fts_ad", "memories_fts_au",
                 "job_origins_immutable_update")},
    "index-dropped": index_dropped,
    "table-dropped": table_dropped,
    "trigger-added": trigger_added,
}
# Found by `db check` only: FTS5's own check of its tables runs on a private copy
# (it needs a writable connection), which every open cannot afford.  The index is
# derived from the memories' text, so nothing committed is at risk: `db check
# --repair` rebuilds it.
FULL_CHECK_ONLY = frozenset({"fts-docsize"})
# Damage SQLite itself recovers from without losing anything (reported as healthy,
# and every committed edit must still be read).
HARMLESS: dict[str, Callable[[Path], None]] = {"shm-random": shm_damaged}


def file_digest(path: Path) -> dict[str, bytes | None]:
    """The store's files as they are (the shared memory is SQLite's to rebuild)."""
    out: dict[str, bytes | None] = {}
    for suffix in ("", "-wal"):
        p = Path(str(path) + suffix)
        out[suffix] = p.read_bytes() if p.exists() else None
    return out


def wal_size(path: Path) -> int:
    try:
        return os.stat(_wal(path)).st_size
    except OSError:
        return 0
