"""core/store/wal.py: checkpoint results, the busy case, and the idle policy's choices.

A small WAL-mode file is kept open by a writer connection (closing the last
connection would checkpoint and delete the WAL); a reader holding an old snapshot
makes checkpoints unable to finish.  Busy timeouts are kept at a few ms.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import create_engine

from memdesk.core.store import wal
from memdesk.core.store.db import connect_raw
from memdesk.core.store.wal import CheckpointResult, IdleCheckpointer, checkpoint, wal_bytes

PAGE = 4096


@pytest.fixture()
def writer(tmp_path: Path):
    p = tmp_path / "s.db"
    w = connect_raw(p, read_only=False)
    w.execute("PRAGMA journal_mode = WAL")
    w.execute("PRAGMA wal_autocheckpoint = 0")
    w.execute("CREATE TABLE t(x)")
    yield SimpleNamespace(path=p, conn=w)
    w.close()


def _write(w, n: int = 3) -> None:  # type: ignore[no-untyped-def]
    for _ in range(n):
        w.conn.execute("INSERT INTO t VALUES (randomblob(3000))")


def _old_reader(path: Path):  # type: ignore[no-untyped-def]
    r = connect_raw(path)
    r.execute("BEGIN")
    r.execute("SELECT count(*) FROM t").fetchall()
    return r


def test_wal_bytes(tmp_path: Path) -> None:
    p = tmp_path / "s.db"
    assert wal_bytes(p) == 0
    Path(f"{p}-wal").write_bytes(b"12345")
    assert wal_bytes(p) == 5


def test_unknown_mode_is_refused(writer) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as ei:
        checkpoint(writer.path, "bogus")
    assert str(ei.value) == "unknown checkpoint mode 'BOGUS'"


@pytest.mark.parametrize("mode", ["full", "restart", "Truncate"])
def test_every_sqlite_mode_is_accepted(writer, mode: str) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    r = checkpoint(writer.path, mode, busy_ms=5)
    assert (r.mode, r.busy) == (mode.upper(), False)


def test_passive_copies_everything_but_keeps_the_file(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    size = wal_bytes(writer.path)
    assert size > 0
    r = checkpoint(writer.path, "passive")
    assert r.mode == "PASSIVE"
    assert r.busy is False
    assert r.wal_frames == r.checkpointed > 0
    assert r.wal_bytes_after == size


def test_truncate_empties_the_wal(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    r = checkpoint(writer.path, "TRUNCATE", busy_ms=5)
    assert r == CheckpointResult("TRUNCATE", False, 0, 0, 0)
    assert wal_bytes(writer.path) == 0


def test_reader_on_an_old_snapshot_makes_truncate_busy(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    r = _old_reader(writer.path)
    try:
        _write(writer, 2)
        size = wal_bytes(writer.path)
        res = checkpoint(writer.path, "TRUNCATE", busy_ms=5)
        assert res.busy is True
        assert 0 < res.checkpointed < res.wal_frames
        assert res.wal_bytes_after == size
        passive = checkpoint(writer.path)
        assert (passive.mode, passive.busy) == ("PASSIVE", False)
        assert passive.checkpointed < passive.wal_frames
    finally:
        r.close()


def test_exclusive_lock_is_reported_busy_not_raised(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    writer.conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    writer.conn.execute("INSERT INTO t VALUES (1)")  # takes and keeps the lock
    size = wal_bytes(writer.path)
    res = checkpoint(writer.path, "passive", busy_ms=5)
    assert res == CheckpointResult("PASSIVE", True, -1, -1, size)


def test_journal_mode(writer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    eng = create_engine(f"sqlite:///{writer.path}")
    try:
        assert wal.journal_mode(eng) == "wal"
    finally:
        eng.dispose()
    eng = create_engine(f"sqlite:///{tmp_path / 'plain.db'}")
    try:
        assert wal.journal_mode(eng) == "delete"
    finally:
        eng.dispose()
    assert wal.journal_mode(SimpleNamespace(dialect=SimpleNamespace(name="postgresql"))) is None


# --- IdleCheckpointer --------------------------------------------------------------------


def test_no_wal_means_nothing_to_do(tmp_path: Path) -> None:
    ic = IdleCheckpointer(tmp_path / "s.db")
    assert ic.truncate_above == wal.TRUNCATE_ABOVE_BYTES == 4 * 1024 * 1024
    assert ic.tick() is None


def test_small_wal_fully_copied_is_then_truncated(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    ic = IdleCheckpointer(writer.path)
    res = ic.tick()
    assert res == CheckpointResult("TRUNCATE", False, 0, 0, 0)
    assert ic.tick() is None


def test_partly_copied_wal_stays_until_it_grows(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    r = _old_reader(writer.path)
    try:
        _write(writer, 2)
        size = wal_bytes(writer.path)
        ic = IdleCheckpointer(writer.path)
        res = ic.tick()
        assert res is not None
        assert (res.mode, res.busy, res.wal_bytes_after) == ("PASSIVE", False, size)
        assert res.checkpointed < res.wal_frames
        assert ic.tick() is None  # the WAL did not change: no work
        _write(writer, 1)
        again = ic.tick()
        assert again is not None and again.mode == "PASSIVE"
    finally:
        r.close()


def test_large_wal_goes_straight_to_truncate(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    r = _old_reader(writer.path)
    try:
        _write(writer, 2)
        size = wal_bytes(writer.path)
        # At the threshold exactly: TRUNCATE, which the old reader keeps busy.
        res = IdleCheckpointer(writer.path, truncate_above=size).tick()
        assert res is not None and (res.mode, res.busy) == ("TRUNCATE", True)
        below = IdleCheckpointer(writer.path, truncate_above=size + 1).tick()
        assert below is not None and (below.mode, below.busy) == ("PASSIVE", False)
    finally:
        r.close()


def test_seen_size_is_the_size_after_the_checkpoint(writer) -> None:  # type: ignore[no-untyped-def]
    _write(writer)
    ic = IdleCheckpointer(writer.path)
    ic.tick()  # truncated to 0 bytes
    _write(writer)
    res = ic.tick()
    assert res is not None and res.wal_bytes_after == 0
