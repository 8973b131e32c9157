"""Keeping the WAL file bounded.

SQLite's automatic checkpoint (every 1,000 pages, PASSIVE) copies the WAL into the
database but can only *restart* the WAL from the beginning once no reader still
needs its older frames; under steady load from several processes that moment
rarely comes and the file keeps growing, and it never shrinks by itself.  So:

* ``journal_size_limit`` (set on every connection, core/store/db.py) truncates the
  WAL to 16 MB whenever it is reset;
* :func:`checkpoint` runs a PASSIVE checkpoint (never waits) or a TRUNCATE one
  with a short busy timeout: it waits briefly for readers, then shrinks the file to
  zero bytes, and gives up at once (``busy``) instead of blocking when others work;
* :class:`IdleCheckpointer` is the policy the GUI calls from an idle timer: a
  passive checkpoint when the WAL has grown, a truncating one when it is large.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from memdesk.core.store.db import DRIVER, connect_raw

TRUNCATE_ABOVE_BYTES = 4 * 1024 * 1024
TRUNCATE_BUSY_MS = 200


def wal_bytes(path: Path) -> int:
    """Size of ``path``'s WAL file (0 when there is none)."""
    try:
        return os.stat(str(path) + "-wal").st_size
    except OSError:
        return 0


@dataclass(frozen=True)
class CheckpointResult:
    """``busy``: it could not finish (readers or a writer were active)."""

    mode: str
    busy: bool
    wal_frames: int
    checkpointed: int
    wal_bytes_after: int


def checkpoint(
    path: Path, mode: str = "PASSIVE", *, busy_ms: int = TRUNCATE_BUSY_MS
) -> CheckpointResult:
    """Run ``PRAGMA wal_checkpoint(mode)`` on the store file at ``path``.

    Uses its own short-lived connection, so it never runs inside a caller's
    transaction and its busy timeout is short: the GUI may call it on its thread.
    """
    mode = mode.upper()
    if mode not in ("PASSIVE", "FULL", "RESTART", "TRUNCATE"):
        raise ValueError(f"unknown checkpoint mode {mode!r}")
    conn = connect_raw(path, read_only=False, timeout=busy_ms / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        try:
            busy, frames, done = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        except DRIVER.OperationalError as exc:
            if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                return CheckpointResult(mode, True, -1, -1, wal_bytes(path))
            raise
    finally:
        conn.close()
    return CheckpointResult(mode, bool(busy), int(frames), int(done), wal_bytes(path))


def journal_mode(engine: Engine) -> str | None:
    """The store's journal mode ("wal", "delete"…), None for other databases."""
    if engine.dialect.name != "sqlite":
        return None
    with engine.connect() as conn:
        return str(conn.exec_driver_sql("PRAGMA journal_mode").scalar()).lower()


class IdleCheckpointer:
    """Decides which checkpoint to run when the application is idle.

    Private state: the WAL size seen at the last call, so a WAL that did not grow
    is left alone (no work, no disk writes while nothing happens).
    """

    def __init__(self, path: Path, truncate_above: int = TRUNCATE_ABOVE_BYTES) -> None:
        self.path = Path(path)
        self.truncate_above = truncate_above
        self._seen = -1

    def tick(self) -> CheckpointResult | None:
        size = wal_bytes(self.path)
        if size == 0 or size == self._seen:
            return None
        mode = "TRUNCATE" if size >= self.truncate_above else "PASSIVE"
        result = checkpoint(self.path, mode)
        if mode == "PASSIVE" and not result.busy and result.wal_frames == result.checkpointed:
            # Everything is in the database file; a truncate costs nothing more now.
            result = checkpoint(self.path, "TRUNCATE")
        self._seen = result.wal_bytes_after
        return result
