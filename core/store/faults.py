"""One place that turns driver and data errors into the store's own, readable errors.

SQLite reports a damaged page, a full disk or a read-only file as exceptions whose
only distinguishing mark is the message (SQLAlchemy wraps them again).  Rows that
another program wrote can also fail while being *read*: text that is not UTF-8
(the driver raises) and timestamps that are not ISO-8601 (SQLAlchemy's result
processor raises ValueError).  The CLI's ``run`` and the GUI's op runner both call
:func:`as_store_error`, so every path reports these the same way.
"""

from __future__ import annotations

import errno

from memdesk.core.errors import (
    MemdeskError,
    StoreCorruptError,
    StoreDataError,
    StoreFullError,
    StoreLockedError,
    StoreOpenError,
    StoreReadOnlyError,
    ValidationError,
)


def _message(exc: BaseException) -> str:
    """The driver's own message, without what would show stored data: SQLAlchemy's
    ``[SQL: …] [parameters: …]`` (memory texts are parameters) and PostgreSQL's
    ``DETAIL: Failing row contains (…)``."""
    text = str(getattr(exc, "orig", None) or exc)
    for marker in ("\nDETAIL:", "DETAIL:", "[SQL:", "[parameters:", "\n(Background on"):
        text = text.split(marker, 1)[0]
    return text.strip()


def safe_message(exc: BaseException) -> str:
    """``exc`` as text fit for an operator: a database error never carries its SQL, its
    parameters or the failing row (they hold memory texts)."""
    from sqlalchemy.exc import StatementError

    if isinstance(exc, StatementError):
        return _message(exc)
    return str(exc)


def translate_driver_error(exc: BaseException, url: str) -> StoreOpenError:
    """Turn a driver error into a StoreOpenError subclass with a readable message."""
    raw = _message(exc)
    text = raw.lower()
    if "locked" in text or "busy" in text:
        return StoreLockedError(
            f"The store {url} is locked by another program. Close it or try again."
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreCorruptError(
            f"The store {url} is damaged or not a SQLite database ({raw}). Nothing more "
            "was written. Run `memdesk db check` and restore a backup (`memdesk db backups`)."
        )
    if "disk is full" in text or "database or disk is full" in text:
        return StoreFullError(
            f"The disk holding {url} is full; the change was rolled back and nothing was "
            "lost. Free some space and try again."
        )
    if "readonly" in text or "read-only" in text:
        return StoreReadOnlyError(
            f"The store {url} is read-only here (the file or its folder is not writable, "
            "or memdesk opened it read-only because it is damaged); nothing was written."
        )
    if "could not decode" in text or "invalid isoformat" in text or "utf-8" in text:
        return StoreDataError(
            f"The store {url} holds a value memdesk cannot read ({raw}). It was probably "
            "written by another program; `memdesk db check` checks the file itself."
        )
    if "unable to open" in text:
        return StoreOpenError(f"Cannot open {url}: the file or its folder is not accessible.")
    if "disk i/o" in text:
        return StoreOpenError(f"Reading or writing {url} failed (disk I/O error: {raw}).")
    return StoreOpenError(f"Cannot use the store {url}: {raw}")


def as_store_error(exc: BaseException, url: str = "the store") -> MemdeskError | None:
    """The readable error for ``exc``, or None when it is not a store or data problem."""
    if isinstance(exc, MemdeskError):
        return exc
    from sqlalchemy.exc import DBAPIError

    from memdesk.core.store.db import DRIVER

    if isinstance(exc, DBAPIError | DRIVER.Error):
        return translate_driver_error(exc, url)
    if isinstance(exc, ValueError) and "isoformat" in str(exc).lower():
        return StoreDataError(
            f"The store {url} holds a time memdesk cannot read ({exc}). It was probably "
            "written by another program."
        )
    if isinstance(exc, UnicodeError):
        if isinstance(exc, UnicodeEncodeError):
            return ValidationError("text", f"is not valid Unicode text ({exc.reason})")
        return StoreDataError(f"The store {url} holds text that is not valid UTF-8 ({exc}).")
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return StoreFullError(f"The disk is full ({exc.filename or url}); nothing was lost.")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return StoreReadOnlyError(f"Not allowed to write {exc.filename or url}.")
        return StoreOpenError(f"{exc.strerror or exc}: {exc.filename or url}")
    return None
