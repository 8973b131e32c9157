"""core/store/faults.py: which store error each driver/data failure becomes, word for word.

The messages are what an operator reads in the CLI and the GUI, so each branch is
pinned with its exact text; the driver errors are built directly (no store needed).
"""

from __future__ import annotations

import errno

import pytest
from sqlalchemy.exc import OperationalError as SAOperationalError

from memdesk.core.errors import (
    MemdeskError,
    NotFoundError,
    StoreCorruptError,
    StoreDataError,
    StoreFullError,
    StoreLockedError,
    StoreOpenError,
    StoreReadOnlyError,
    ValidationError,
)
from memdesk.core.store.db import DRIVER
from memdesk.core.store.faults import as_store_error, translate_driver_error

URL = "/data/s.db"

LOCKED = f"The store {URL} is locked by another program. Close it or try again."
FULL = (f"The disk holding {URL} is full; the change was rolled back and nothing was "
        "lost. Free some space and try again.")
READ_ONLY = (f"The store {URL} is read-only here (the file or its folder is not writable, "
             "or memdesk opened it read-only because it is damaged); nothing was written.")


def _corrupt(raw: str) -> str:
    return (f"The store {URL} is damaged or not a SQLite database ({raw}). Nothing more "
            "was written. Run `memdesk db check` and restore a backup (`memdesk db backups`).")


def _data(raw: str) -> str:
    return (f"The store {URL} holds a value memdesk cannot read ({raw}). It was probably "
            "written by another program; `memdesk db check` checks the file itself.")


@pytest.mark.parametrize(
    ("raw", "cls", "message"),
    [
        ("database is locked", StoreLockedError, LOCKED),
        ("Database Is BUSY", StoreLockedError, LOCKED),
        ("file is not a database", StoreCorruptError, _corrupt("file is not a database")),
        ("database disk image is malformed", StoreCorruptError,
         _corrupt("database disk image is malformed")),
        ("index corrupted", StoreCorruptError, _corrupt("index corrupted")),
        ("database or disk is full", StoreFullError, FULL),
        ("the disk is full", StoreFullError, FULL),
        ("attempt to write a readonly database", StoreReadOnlyError, READ_ONLY),
        ("Read-Only file system", StoreReadOnlyError, READ_ONLY),
        ("Could not decode to UTF-8 column 'text'", StoreDataError,
         _data("Could not decode to UTF-8 column 'text'")),
        ("Could not decode to TEXT column 'x'", StoreDataError,
         _data("Could not decode to TEXT column 'x'")),
        ("Invalid isoformat string: 'x'", StoreDataError, _data("Invalid isoformat string: 'x'")),
        ("bad utf-8 byte", StoreDataError, _data("bad utf-8 byte")),
        ("unable to open database file", StoreOpenError,
         f"Cannot open {URL}: the file or its folder is not accessible."),
        ("Disk I/O error", StoreOpenError,
         f"Reading or writing {URL} failed (disk I/O error: Disk I/O error)."),
        ("no such table: x", StoreOpenError, f"Cannot use the store {URL}: no such table: x"),
    ],
)
def test_translate_driver_error(raw: str, cls: type, message: str) -> None:
    err = translate_driver_error(DRIVER.OperationalError(raw), URL)
    assert type(err) is cls
    assert str(err) == message


def test_translate_reads_the_wrapped_driver_error_not_sqlalchemys_text() -> None:
    wrapped = SAOperationalError("SELECT 1", {}, DRIVER.OperationalError("disk I/O error"))
    err = translate_driver_error(wrapped, URL)
    assert str(err) == f"Reading or writing {URL} failed (disk I/O error: disk I/O error)."


def test_locked_wins_over_later_rules() -> None:
    # "locked" is checked first: a message naming both is a lock problem.
    err = translate_driver_error(DRIVER.OperationalError("locked: readonly"), URL)
    assert type(err) is StoreLockedError


def test_corrupt_wins_over_full() -> None:
    err = translate_driver_error(DRIVER.OperationalError("malformed; disk is full"), URL)
    assert type(err) is StoreCorruptError


def test_full_wins_over_read_only() -> None:
    err = translate_driver_error(DRIVER.OperationalError("disk is full, readonly"), URL)
    assert type(err) is StoreFullError


def test_read_only_wins_over_data() -> None:
    err = translate_driver_error(DRIVER.OperationalError("readonly utf-8"), URL)
    assert type(err) is StoreReadOnlyError


def test_data_wins_over_unable_to_open() -> None:
    err = translate_driver_error(DRIVER.OperationalError("utf-8: unable to open"), URL)
    assert type(err) is StoreDataError


def test_unable_to_open_wins_over_disk_io() -> None:
    err = translate_driver_error(DRIVER.OperationalError("unable to open: disk I/O"), URL)
    assert str(err) == f"Cannot open {URL}: the file or its folder is not accessible."


# --- as_store_error -------------------------------------------------------------------


def test_memdesk_errors_pass_through_unchanged() -> None:
    e = NotFoundError("no memory abc")
    assert as_store_error(e) is e


def test_driver_errors_are_translated_with_the_url() -> None:
    err = as_store_error(DRIVER.OperationalError("database is locked"), URL)
    assert type(err) is StoreLockedError and str(err) == LOCKED
    err = as_store_error(DRIVER.DatabaseError("x"))
    assert str(err) == "Cannot use the store the store: x"


def test_sqlalchemy_errors_are_translated() -> None:
    wrapped = SAOperationalError("SELECT 1", {}, DRIVER.OperationalError("database is busy"))
    assert str(as_store_error(wrapped, URL)) == LOCKED


def test_bad_timestamp_is_a_data_error() -> None:
    err = as_store_error(ValueError("Invalid IsoFormat string: '7'"), URL)
    assert type(err) is StoreDataError
    assert str(err) == (f"The store {URL} holds a time memdesk cannot read (Invalid IsoFormat "
                        "string: '7'). It was probably written by another program.")


def test_other_value_errors_are_not_store_errors() -> None:
    assert as_store_error(ValueError("bad number"), URL) is None
    assert as_store_error(KeyError("x"), URL) is None


def test_undecodable_text_is_a_data_error() -> None:
    exc = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    err = as_store_error(exc, URL)
    assert type(err) is StoreDataError
    assert str(err) == (f"The store {URL} holds text that is not valid UTF-8 ({exc}).")


def test_unencodable_text_is_a_validation_error() -> None:
    exc = UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
    err = as_store_error(exc, URL)
    assert type(err) is ValidationError
    assert err.field == "text"
    assert str(err) == "text: is not valid Unicode text (surrogates not allowed)"


def test_full_disk_os_error() -> None:
    err = as_store_error(OSError(errno.ENOSPC, "No space left", "/d/s.db-wal"), URL)
    assert type(err) is StoreFullError
    assert str(err) == "The disk is full (/d/s.db-wal); nothing was lost."
    err = as_store_error(OSError(errno.ENOSPC, "No space left"), URL)
    assert str(err) == f"The disk is full ({URL}); nothing was lost."


@pytest.mark.parametrize("code", [errno.EACCES, errno.EPERM, errno.EROFS])
def test_permission_os_errors_are_read_only(code: int) -> None:
    err = as_store_error(OSError(code, "denied", "/d/x"), URL)
    assert type(err) is StoreReadOnlyError
    assert str(err) == "Not allowed to write /d/x."
    assert str(as_store_error(OSError(code, "denied"), URL)) == f"Not allowed to write {URL}."


def test_other_os_errors_are_open_errors() -> None:
    err = as_store_error(OSError(errno.ENOENT, "No such file", "/d/x"), URL)
    assert type(err) is StoreOpenError
    assert str(err) == "No such file: /d/x"
    bare = OSError("plain")
    assert str(as_store_error(bare, URL)) == f"plain: {URL}"


def test_default_url_wording() -> None:
    err = as_store_error(OSError(errno.EACCES, "denied"))
    assert str(err) == "Not allowed to write the store."


def test_unrelated_errors_are_none() -> None:
    assert as_store_error(RuntimeError("x")) is None
    assert isinstance(StoreOpenError("x"), MemdeskError)
