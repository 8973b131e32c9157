"""Errors the store raises, each carrying a message fit to show an operator."""

from __future__ import annotations


class MemdeskError(Exception):
    """Base class for errors with a message meant for people, not tracebacks."""


class ValidationError(MemdeskError, ValueError):
    """A value offered for a memory field is not acceptable; nothing was written."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class StoreOpenError(MemdeskError):
    """The store file could not be opened."""


class StoreLockedError(StoreOpenError):
    """Another process holds a lock on the store longer than the busy timeout."""


class StoreCorruptError(StoreOpenError):
    """The file is not a readable SQLite database."""


class StoreForeignError(StoreOpenError):
    """The file is another application's database (or not a store at all)."""


class StoreDamagedError(StoreCorruptError):
    """The store's own checks found damage; it was not written to.  ``health`` holds
    the check report (memdesk.core.store.check.CheckReport)."""

    def __init__(self, message: str, health: object = None) -> None:
        super().__init__(message)
        self.health = health


class StoreReadOnlyError(StoreOpenError):
    """A write was refused: the store (or its folder) is read-only, or it was opened
    read-only because it is damaged."""


class StoreFullError(StoreOpenError):
    """The disk (or the store's size limit) is full; the write was rolled back."""


class StoreDataError(StoreOpenError):
    """A row holds a value memdesk cannot read (undecodable text, a bad timestamp)."""


class EditConflictError(MemdeskError):
    """An edit was based on an older version of the memory than the one stored now.

    Carries both sides so a caller can show them: ``expected`` is the version the
    editor saw, ``actual`` the stored one, ``current`` the stored record."""

    def __init__(self, memory_id: str, expected: int, actual: int, current: object = None):
        super().__init__(
            f"Memory {memory_id} was changed by someone else since you read it (you edited "
            f"version {expected}; it is now at version {actual}). Nothing was written; "
            "reload it and apply your change again."
        )
        self.memory_id = memory_id
        self.expected = expected
        self.actual = actual
        self.current = current


class SchemaTooNewError(StoreOpenError):
    """The store was written by a newer memdesk whose schema this one does not know."""


class SchemaOutdatedError(StoreOpenError):
    """The store needs a migration and the caller asked not to upgrade."""


class NotFoundError(MemdeskError, KeyError):
    """No memory (or event) with that id."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want plain text
        return str(self.args[0]) if self.args else "not found"


class UndoConflictError(MemdeskError):
    """The fields an undo would restore were changed again since that action."""
