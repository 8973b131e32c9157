"""Is a SQLite store open in another connection?  SQLite's own lock answers it.

Every connection to a WAL-mode database maps the ``-shm`` wal-index and holds a
shared lock on its "dead man switch" byte for as long as it stays open, idle or not
(SQLite's unix VFS, ``os_unix.c``: ``UNIX_SHM_DMS`` = byte 128 of the ``-shm`` file);
the first connection to arrive takes it exclusively to reset the file.  memdesk
always opens stores in WAL mode, and its pooled connections stay open while a
program runs, so the GUI, ``memdesk worker``, ``memdesk mcp`` and any other SQLite
program using the store hold that lock.  Taking it exclusively, without waiting,
therefore succeeds only when nobody else has the store open, and holding it keeps
new connections out (they wait on their busy timeout) until it is released.

Linux's open-file-description locks are used where available: they conflict with
SQLite's locks even inside this process.  Closing any descriptor of a file drops the
process's own POSIX locks on it, so a descriptor whose lock attempt failed (this
process has the store open somewhere) is deliberately kept open, never closed.
A program using the store in rollback-journal mode holds no lock while idle and is
not seen; memdesk itself never does that.
"""

from __future__ import annotations

import contextlib
import os
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memdesk.core.errors import StoreLockedError

try:
    import fcntl
except ImportError:  # not POSIX: no way to ask; callers are told
    fcntl = None  # type: ignore[assignment]

DMS_BYTE = 128  # (22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK, SQLITE_SHM_NLOCK = 8
_KEPT: list[int] = []  # descriptors never to close (see the module docstring)


class StoreInUseError(StoreLockedError):
    """Another connection (a program, or this one) has the store open."""


def _shm(path: Path) -> str:
    return str(path) + "-shm"


def _try_lock(fd: int) -> bool:
    """An exclusive lock on the dead-man-switch byte, without waiting."""
    ofd = getattr(fcntl, "F_OFD_SETLK", None)
    try:
        if ofd is not None:
            # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks)
            arg = struct.pack("hhxxxxqqi4x", fcntl.F_WRLCK, os.SEEK_SET, DMS_BYTE, 1, 0)
            fcntl.fcntl(fd, ofd, arg)
        else:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, DMS_BYTE, os.SEEK_SET)
    except OSError:
        return False
    return True


def _unlock(fd: int) -> None:
    ofd = getattr(fcntl, "F_OFD_SETLK", None)
    if ofd is not None:
        arg = struct.pack("hhxxxxqqi4x", fcntl.F_UNLCK, os.SEEK_SET, DMS_BYTE, 1, 0)
        fcntl.fcntl(fd, ofd, arg)
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, DMS_BYTE, os.SEEK_SET)


def in_use(path: Path) -> bool | None:
    """Whether another connection has ``path`` open (None: cannot tell on this system)."""
    if fcntl is None:
        return None
    try:
        fd = os.open(_shm(path), os.O_RDWR)
    except FileNotFoundError:
        return False  # no wal-index: no connection has the store open in WAL mode
    except OSError:
        return None
    if _try_lock(fd):
        _unlock(fd)
        os.close(fd)
        return False
    _KEPT.append(fd)
    return True


IN_USE_MESSAGE = (
    "The store {path} is open in another program (the memdesk window, `memdesk mcp`, "
    "`memdesk worker` or another SQLite program). Close it and try again; nothing was "
    "changed."
)


@contextmanager
def exclusive(path: Path, *, wait_s: float = 2.0) -> Iterator[None]:
    """Hold ``path`` so no other connection has it open or can open it meanwhile.

    Raises :class:`StoreInUseError` when another connection still has it open after
    ``wait_s`` (a short-lived reader — a check, an automatic backup, a CLI command —
    is waited for; a program that keeps the store open is not).  The ``-shm`` file
    is created (empty, as SQLite would) when missing, so a program starting meanwhile
    waits too.
    """
    if fcntl is None:
        yield  # cannot tell here: the docs say to close other programs first
        return
    try:
        mode = os.stat(path).st_mode & 0o666
    except OSError:
        mode = 0o644
    created = not os.path.exists(_shm(path))
    try:
        fd = os.open(_shm(path), os.O_RDWR | os.O_CREAT, mode)
    except OSError as exc:
        raise StoreLockedError(
            f"Cannot lock {path} ({exc.strerror or exc}); nothing was changed.") from exc
    deadline = time.monotonic() + wait_s
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            _KEPT.append(fd)
            raise StoreInUseError(IN_USE_MESSAGE.format(path=path))
        time.sleep(0.05)
    try:
        yield
    finally:
        if created:  # ours, empty and unused (we hold it): leave no trace
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_size == 0:
                    os.unlink(_shm(path))
        _unlock(fd)
        os.close(fd)
