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
