"""Restore a backup over a store: safe to run in a panic.

Before anything is written:

* the backup must be a memdesk (or Recall) store that passes the full check;
* the target must be a memdesk or Recall store (core/store/identity.py: memdesk's
  application id, or an older store's known revision and tables) — possibly a damaged
  one, which is when a restore is needed — never a folder, a named pipe, another
  application's database or a text file, whatever memdesk once did at that path.  A
  file that no longer reads as SQLite still counts when its header carries memdesk's
  application id; anything else is left alone (move it aside and restore ``--new``);
* the target must exist, unless ``new`` (restore into a new file);
* no other connection may have the store open: SQLite's own lock says so
  (core/store/inuse.py), and it is held for the whole swap, so a program starting
  meanwhile waits instead of writing into the file being replaced.

The replaced store is not thrown away: it is copied into the backups folder as a
``replaced`` backup that ``db backups`` lists apart and rotation never deletes (it
holds the writes made after the restored backup; its WAL folded in; when the WAL holds
changes SQLite would drop, it is kept beside the copy untouched instead).  Then the
backup is copied next to the store and renamed over it, and the old ``-wal`` and
``-shm`` are removed, still under the lock — an old WAL must never be replayed over
the restored file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memdesk.core.errors import StoreCorruptError, StoreLockedError, StoreOpenError
from memdesk.core.store.backup import REPLACED, STAMP, BackupError, backup_dir, rotate
from memdesk.core.store.check import CheckReport, check_file
from memdesk.core.store.db import DRIVER
from memdesk.core.store.identity import APPLICATION_ID, StoreKind, identify
from memdesk.core.store.inuse import exclusive
from memdesk.core.store.walcheck import wal_problems

SIDE_FILES = ("-wal", "-shm")


@dataclass(frozen=True)
class RestoreReport:
    """What restoring did: which backup went in, where the replaced store was kept
    (``set_aside``: a backup ``db backups`` lists; None for a new file)."""

    backup: Path
    store: Path
    set_aside: Path | None
    check: CheckReport


def _check_backup(store_path: Path, backup_path: Path,
                  checked: CheckReport | None = None) -> CheckReport:
    if not backup_path.is_file():
        raise StoreOpenError(f"There is no backup at {backup_path}.")
    if store_path.exists() and backup_path.resolve() == store_path.resolve():
        raise BackupError("The backup and the store are the same file.")
    ident = identify(backup_path)  # refuses non-SQLite files without touching them
    if ident.kind not in (StoreKind.MEMDESK, StoreKind.RECALL):
        raise BackupError(f"{backup_path} is not a memdesk store; nothing was restored.")
    report = checked if checked is not None else check_file(backup_path, level="full")
    if report.damaged:
        raise BackupError(
            f"The backup {backup_path} is damaged too ({report.summary()}); nothing was "
            "restored. Try an older one (`memdesk db backups`)."
        )
    return report


def _ours_by_header(path: Path) -> bool:
    """Does the first page still say "a SQLite file with memdesk's application id"?

    The 16-byte magic string is what damage most often hits first, so it is not
    required; the fixed values around the id are (page size a power of two, file
    format 1 or 2, payload fractions 64/32/32), so a text file that happens to hold
    "MDSK" at byte 68 does not pass."""
    try:
        with path.open("rb") as fh:
            h = fh.read(100)
    except OSError:
        return False
    if len(h) < 100 or int.from_bytes(h[68:72], "big") != APPLICATION_ID:
        return False
    page = int.from_bytes(h[16:18], "big")
    page = 65536 if page == 1 else page
    return (512 <= page <= 65536 and page & (page - 1) == 0 and h[18] in (1, 2)
            and h[19] in (1, 2) and tuple(h[21:24]) == (64, 32, 32))


def _check_target(path: Path, new: bool) -> None:
    nothing = "nothing was restored"
    aside = (f"If it is a store too damaged to be recognised, move it aside and restore "
             f"into a new file: memdesk db restore BACKUP --new --db {path}")
    if path.is_dir():
        raise BackupError(f"{path} is a folder, not a store file; {nothing}.")
    if not path.exists():
        if not new:
            raise BackupError(
                f"There is no store at {path}; {nothing}. To restore into a new file, "
                "add --new.")
        if not path.parent.is_dir():
            raise BackupError(f"The folder {path.parent} does not exist; {nothing}.")
        return
    if new:
        raise BackupError(f"{path} exists already; --new restores into a new file only.")
    # What the file is now decides, never what memdesk once did at this path: a store
    # that was backed up there may since have been replaced by anything.
    try:
        kind = identify(path).kind
    except StoreLockedError:
        raise
    except (StoreCorruptError, StoreOpenError) as exc:
        if path.is_file() and _ours_by_header(path):
            return  # a damaged store that still carries memdesk's id: what a restore is for
        raise BackupError(
            f"{path} is not a memdesk store (it does not read as one); {nothing}. "
            f"{aside}") from exc
    if kind in (StoreKind.MEMDESK, StoreKind.RECALL):
        return
    if kind is StoreKind.EMPTY and _ours_by_header(path):
        return
    raise BackupError(
        f"{path} is not a memdesk store ({kind.value}); {nothing}. Point --db at the store "
        f"to replace. {aside}")


@contextlib.contextmanager
def _held(path: Path) -> Iterator[None]:
    if not path.exists():
        yield
        return
    with exclusive(path):
        yield


def _keep_replaced(store_path: Path) -> Path:
    """Copy the store about to be replaced into its backups folder, as a backup."""
    folder = backup_dir(store_path)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).replace(tzinfo=None).strftime(STAMP)
    dest = folder / f"{stamp}-{REPLACED}.db"
    part = dest.with_name(dest.name + ".part")
    wal = Path(str(store_path) + "-wal")
    keep_wal = wal.is_file() and wal.stat().st_size > 0
    try:
        shutil.copyfile(store_path, part)
        if keep_wal:
            shutil.copyfile(wal, str(part) + "-wal")
    except OSError:
        for leftover in (part, Path(str(part) + "-wal")):
            leftover.unlink(missing_ok=True)
        raise
    if keep_wal and not wal_problems(part):
        # Fold the WAL into the copy, so the backup is one self-contained file.
        try:
            conn = DRIVER.connect(str(part))
            try:
                conn.isolation_level = None
                conn.execute("PRAGMA journal_mode = DELETE")
            finally:
                conn.close()
        except DRIVER.Error:
            pass  # a damaged copy: keep the WAL beside it, as it was
    os.replace(part, dest)
    for suffix in SIDE_FILES:
        side = Path(str(part) + suffix)
        if suffix == "-wal" and side.exists():
            os.replace(side, str(dest) + "-wal")  # kept untouched: frames to be rescued
        else:
            side.unlink(missing_ok=True)
    return dest


def _put_in_place(backup_path: Path, store_path: Path) -> None:
    tmp = store_path.with_name(store_path.name + ".restoring")
    try:
        shutil.copyfile(backup_path, tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, store_path)
    finally:
        tmp.unlink(missing_ok=True)
    src_wal = Path(str(backup_path) + "-wal")
    for suffix in SIDE_FILES:  # an old WAL replayed over the restored file would ruin it
        Path(str(store_path) + suffix).unlink(missing_ok=True)
    if src_wal.is_file():
        shutil.copyfile(src_wal, str(store_path) + "-wal")


def restore_store(store_path: Path, backup_path: Path, *, new: bool = False,
                  checked: CheckReport | None = None) -> RestoreReport:
    """Replace ``store_path`` with ``backup_path`` (see the module docstring).

    ``checked``: the full check of ``backup_path`` the caller already ran (the GUI runs
    it off its thread, then swaps on it), so it is not run twice.
    """
    store_path, backup_path = Path(store_path), Path(backup_path)
    report = _check_backup(store_path, backup_path, checked)
    _check_target(store_path, new)
    kept = None
    try:
        with _held(store_path):
            if store_path.exists():
                kept = _keep_replaced(store_path)
            _put_in_place(backup_path, store_path)
    except OSError as exc:
        raise BackupError(f"Could not restore: {exc.strerror or exc}.") from exc
    if kept is not None:
        rotate(store_path)
    return RestoreReport(backup_path, store_path, kept, report)
