"""Backups of a store: online copies, a list, restore, rotation and the automatic policy.

Automatic backups are the same wherever a store is written: the GUI keeps an
:class:`AutoBackup` per open store, and every other process that writes (the CLI's
commands, ``memdesk worker``, ``memdesk mcp``) calls :func:`keep_backed_up` once
when it opens its store, the one it created included: at its first write a backup is
taken when the latest is older than the interval and the file changed since, then
again on the interval while it keeps writing; processes that only read never back up.  Interval and
retention come from the environment (:class:`BackupPolicy`, docs/sqlite.md).

A backup is taken with SQLite's online backup API in one step, which holds one read
transaction: in WAL mode writers carry on meanwhile and the copy is the consistent
state at its start.  It is written to a temporary name, switched to a single-file
journal mode, checked, and only then renamed into place, so a listed backup is never
half-written.  Backups live in the user data dir, one folder per store file
(``backups/<name>-<hash of its path>/<UTC time>-<reason>.db``), and are thinned
like Anki's: every recent one, then one a day, a week, a month, within a size budget.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from memdesk.core.errors import MemdeskError, StoreOpenError
from memdesk.core.store.check import CheckReport, check_connection, check_file
from memdesk.core.store.db import DRIVER, WRITE_OPTION, connect_raw, sqlite_path

if TYPE_CHECKING:  # both import this module
    from sqlalchemy import Connection

    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.restore import RestoreReport

log = logging.getLogger("memdesk.store")

# A store file's (size, mtime) and its WAL's; None for a file that is missing.
Fingerprint = tuple[tuple[int, int] | None, ...]

KEEP_RECENT = 8
KEEP_DAILY, KEEP_WEEKLY, KEEP_MONTHLY = 7, 4, 12
SIZE_BUDGET_BYTES = 2 * 1024**3
AUTO_INTERVAL = timedelta(minutes=30)
AUTO_TICK_S = 60.0  # how often a writing process asks the policy (it decides)
INTERVAL_ENV = "MEMDESK_BACKUP_INTERVAL_MIN"  # minutes; 0 turns automatic backups off
KEEP_ENV = "MEMDESK_BACKUP_KEEP"  # the newest backups always kept (then daily, weekly…)
BUDGET_ENV = "MEMDESK_BACKUP_BUDGET_MB"  # total size the kept backups may take
REPLACED = "replaced"  # the reason of the copy a restore keeps of the store it replaced
# A write transaction with this execution option set never arms automatic backups.
NO_BACKUP_OPTION = "memdesk_no_backup"
_NAME = re.compile(r"^(\d{8}T\d{6}-\d{6})-([a-z0-9-]+)\.db$")
STAMP = "%Y%m%dT%H%M%S-%f"
_STAMP = STAMP


@dataclass(frozen=True)
class BackupPolicy:
    """The automatic backup interval and retention, from the environment."""

    interval: timedelta = AUTO_INTERVAL
    keep_recent: int = KEEP_RECENT
    budget: int = SIZE_BUDGET_BYTES

    @classmethod
    def from_env(cls) -> BackupPolicy:
        def number(name: str, default: float) -> float:
            try:
                value = float(os.environ.get(name, default))
            except ValueError:
                log.warning("%s is not a number; using %s", name, default)
                return default
            return value if value >= 0 and value == value else default  # no NaN

        return cls(timedelta(minutes=number(INTERVAL_ENV, AUTO_INTERVAL.total_seconds() / 60)),
                   max(1, int(number(KEEP_ENV, KEEP_RECENT))),
                   int(number(BUDGET_ENV, SIZE_BUDGET_BYTES / 1024**2) * 1024**2))


class BackupError(MemdeskError):
    """A backup or restore could not be made; the store itself is unchanged."""


@dataclass(frozen=True)
class BackupInfo:
    """One backup file: where, when (UTC, naive), why and how big."""

    path: Path
    when: datetime
    reason: str
    size: int


def backup_root() -> Path:
    """Where backups go: ``MEMDESK_BACKUP_DIR`` or the user data dir's ``backups``."""
    env = os.environ.get("MEMDESK_BACKUP_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "backups"


def backup_dir(store_path: Path) -> Path:
    """The folder holding ``store_path``'s backups (one per store file)."""
    resolved = str(Path(store_path).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return backup_root() / f"{Path(resolved).stem}-{digest}"


def _info(path: Path) -> BackupInfo | None:
    m = _NAME.match(path.name)
    if not m:
        return None
    when = datetime.strptime(m.group(1), _STAMP)
    return BackupInfo(path, when, m.group(2), path.stat().st_size)


def list_backups(store_path: Path) -> list[BackupInfo]:
    """Backups of ``store_path``, newest first."""
    folder = backup_dir(store_path)
    if not folder.is_dir():
        return []
    found = [i for p in folder.iterdir() if p.is_file() and (i := _info(p)) is not None]
    return sorted(found, key=lambda i: i.when, reverse=True)


def replaced_copies(store_path: Path) -> list[BackupInfo]:
    """The stores restores set aside, newest first: kept until the operator deletes them."""
    return [b for b in list_backups(store_path) if b.reason == REPLACED]


def latest_backup(store_path: Path) -> BackupInfo | None:
    backups = list_backups(store_path)
    return backups[0] if backups else None


def latest_good_backup(store_path: Path, *, budget_s: float = 2.0) -> BackupInfo | None:
    """The newest backup that passes a (bounded) check."""
    for info in list_backups(store_path)[:5]:
        report = check_file(info.path, level="quick", budget_s=budget_s)
        if report.ok:
            return info
    return None


def _target(store_path: Path, reason: str, to: Path | None, now: datetime) -> Path:
    if to is not None:
        return to
    folder = backup_dir(store_path)
    folder.mkdir(parents=True, exist_ok=True)
    note = folder / "store.txt"
    if not note.exists():
        note.write_text(str(Path(store_path).resolve()) + "\n", encoding="utf-8")
    safe = re.sub(r"[^a-z0-9-]+", "-", reason.lower()).strip("-") or "manual"
    return folder / f"{now.strftime(_STAMP)}-{safe}.db"


def backup_connection(
    src: sqlite3.Connection, store_path: Path, *, reason: str = "manual", to: Path | None = None,
    check: bool = True, rotate_after: bool = True,
) -> BackupInfo:
    """Copy the database behind driver connection ``src`` to a new backup file."""
    now = datetime.now(UTC).replace(tzinfo=None)
    dest = _target(store_path, reason, to, now)
    if dest.exists():
        raise BackupError(f"{dest} exists already; choose another name.")
    tmp = dest.with_name(dest.name + ".part")
    tmp.unlink(missing_ok=True)
    try:
        dst = DRIVER.connect(str(tmp))
        try:
            src.backup(dst)  # one step: a single read transaction, a consistent copy
            dst.isolation_level = None
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            if check:
                report = check_connection(dst, level="quick", schema=False)
                if report.damaged:
                    raise BackupError(
                        f"The backup copy failed its check ({report.summary()}); the store "
                        "itself may be damaged. Run `memdesk db check`."
                    )
        finally:
            dst.close()
        os.replace(tmp, dest)
    except DRIVER.Error as exc:
        raise BackupError(f"Could not back up {store_path}: {exc}") from exc
    except OSError as exc:
        raise BackupError(
            f"Could not write the backup {dest}: {exc.strerror or exc}. The store is unchanged."
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
    if rotate_after and to is None:
        rotate(store_path)
    return BackupInfo(dest, now, reason, dest.stat().st_size)


def backup_store(store_path: Path, *, reason: str = "manual", to: Path | None = None) -> BackupInfo:
    """Back up the store file at ``store_path`` (safe while other processes write)."""
    store_path = Path(store_path)
    if not store_path.is_file():
        raise StoreOpenError(f"There is no store at {store_path}.")
    src = connect_raw(store_path, read_only=True)
    try:
        return backup_connection(src, store_path, reason=reason, to=to)
    finally:
        src.close()


def thin(backups: list[BackupInfo], now: datetime, *,
         keep_recent: int = KEEP_RECENT, budget: int = SIZE_BUDGET_BYTES) -> list[BackupInfo]:
    """The backups to delete: keep the newest ``keep_recent``, then the newest of each
    day (7), ISO week (4) and month (12); then drop the oldest kept ones until the
    total fits ``budget`` (the newest two always stay).

    A ``replaced`` copy (the store a restore set aside) is never deleted nor counted:
    it holds the writes made after the restored backup, which exist nowhere else, so
    only the operator deletes it (``db backups`` lists them apart, with their size)."""
    ordered = sorted((b for b in backups if b.reason != REPLACED), key=lambda b: b.when,
                     reverse=True)
    keep: list[BackupInfo] = list(ordered[:keep_recent])
    buckets = (
        (KEEP_DAILY, lambda d: d.date()),
        (KEEP_WEEKLY, lambda d: tuple(d.isocalendar())[:2]),
        (KEEP_MONTHLY, lambda d: (d.year, d.month)),
    )
    for count, key in buckets:
        seen: set[object] = set()
        for b in ordered:
            k = key(b.when)
            if k in seen:
                continue
            seen.add(k)
            if len(seen) > count:
                break
            if b not in keep:
                keep.append(b)
    keep.sort(key=lambda b: b.when, reverse=True)
    while len(keep) > 2 and sum(b.size for b in keep) > budget:
        keep.pop()
    return [b for b in ordered if b not in keep]


def rotate(store_path: Path, now: datetime | None = None) -> list[Path]:
    """Delete the backups :func:`thin` drops; returns their paths."""
    now = now or datetime.now(UTC).replace(tzinfo=None)
    policy = BackupPolicy.from_env()
    gone = []
    for b in thin(list_backups(store_path), now, keep_recent=policy.keep_recent,
                  budget=policy.budget):
        b.path.unlink(missing_ok=True)
        Path(str(b.path) + "-wal").unlink(missing_ok=True)  # a replaced store's own WAL
        gone.append(b.path)
    return gone


def restore(store_path: Path, backup_path: Path, *, new: bool = False,
            checked: CheckReport | None = None) -> RestoreReport:
    """Replace ``store_path`` with ``backup_path``: see core/store/restore.py (refuses a
    target that is not a store, a store another program has open, a damaged backup;
    keeps the replaced store as a listed backup).  Returns a ``RestoreReport``."""
    from memdesk.core.store.restore import restore_store

    return restore_store(store_path, backup_path, new=new, checked=checked)


class AutoBackup:
    """The automatic backup policy for one store (the GUI keeps one per open store).

    ``due()``: a backup is wanted when none exists, or ``interval`` has passed since
    the last one and the file changed since (its size and mtime, with the WAL's).
    ``before_risky()``: before a migration, bulk action, merge or restore, unless a
    backup of the unchanged file already exists.  Private state: the file
    fingerprint at the last backup and its time.
    """

    def __init__(self, store_path: Path, interval: timedelta | None = None) -> None:
        self.store_path = Path(store_path)
        self.interval = BackupPolicy.from_env().interval if interval is None else interval
        self._last: datetime | None = None
        self._fingerprint: Fingerprint | None = None
        latest = latest_backup(self.store_path)
        if latest is not None:
            self._last = latest.when

    def fingerprint(self) -> Fingerprint:
        out: list[tuple[int, int] | None] = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.store_path) + suffix)
                out.append((st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def due(self, now: datetime | None = None) -> bool:
        now = now or datetime.now(UTC).replace(tzinfo=None)
        if self.interval <= timedelta(0):
            return False  # automatic backups are off (MEMDESK_BACKUP_INTERVAL_MIN=0)
        if self._last is None:
            return True
        if self._fingerprint is not None:
            if self.fingerprint() == self._fingerprint:
                return False
        elif not self._changed_since(self._last):
            return False  # a new process: unchanged since the latest backup on disk
        return now - self._last >= self.interval

    def _changed_since(self, when: datetime) -> bool:
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.store_path) + suffix)
            except OSError:
                continue
            if suffix and st.st_size == 0:
                continue  # an empty WAL: opened, nothing written
            if datetime.fromtimestamp(st.st_mtime, UTC).replace(tzinfo=None) > when:
                return True
        return False

    def run(self, reason: str) -> BackupInfo:
        info = backup_store(self.store_path, reason=reason)
        self._last = info.when
        self._fingerprint = self.fingerprint()
        return info

    def maybe(self, reason: str = "auto", now: datetime | None = None) -> BackupInfo | None:
        return self.run(reason) if self.due(now) else None

    def before_risky(self, reason: str) -> BackupInfo | None:
        if self._fingerprint is not None and self.fingerprint() == self._fingerprint:
            return None
        return self.run(reason)


class BackupKeeper:
    """Runs one store's :class:`AutoBackup` on a thread from its first write on.

    Private state: the thread (started once) and the event that stops it.  Errors are
    logged, never raised: a failed backup must not fail the write that prompted it.
    """

    def __init__(self, auto: AutoBackup, tick_s: float = AUTO_TICK_S) -> None:
        self.auto = auto
        self.tick_s = tick_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def arm(self) -> None:
        with self._lock:
            if self._thread is not None or self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._loop, name="memdesk-backups",
                                            daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        reason = "open"
        while True:
            try:
                self.auto.maybe(reason)
            except MemdeskError as exc:
                log.warning("automatic backup of %s: %s", self.auto.store_path, exc)
            reason = "auto"
            if self._stop.wait(self.tick_s):
                return

    def stop(self) -> None:
        """Stop ticking; a backup under way is finished first."""
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is not None:
            thread.join()


def keep_backed_up(store: MemoryStore, *, tick_s: float | None = None) -> BackupKeeper | None:
    """Automatic backups for a process writing ``store`` (a MemoryStore): armed by its
    first write transaction, stopped when the store closes.  None when there is
    nothing to do: not a SQLite file, opened read-only, or turned off.  A store this
    process just created is backed up like any other (a long-running ``mcp`` or
    ``worker`` that created it would otherwise never back up what it writes)."""
    path = sqlite_path(store.engine.url.render_as_string(hide_password=False))
    report = store.report
    policy = BackupPolicy.from_env()
    if path is None or policy.interval <= timedelta(0):
        return None
    if report is not None and report.read_only:
        return None
    from sqlalchemy import event

    if tick_s is None:  # ask a few times per interval, at most once a minute
        tick_s = min(AUTO_TICK_S, max(1.0, policy.interval.total_seconds() / 4))
    keeper = BackupKeeper(AutoBackup(path, policy.interval), tick_s)

    def on_begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        # A purge (core/erasure/) must not be what prompts a copy of what it erases.
        if options.get(WRITE_OPTION) and not options.get(NO_BACKUP_OPTION):
            keeper.arm()

    event.listen(store.engine, "begin", on_begin)
    store.on_close(keeper.stop)
    return keeper
