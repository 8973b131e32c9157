"""The one store opener of the GUI: start-up (``memdesk.app.gui``) and File → Open go
through ``open_store``, so both use the same timeout and report errors the same way.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memdesk.core.store.memory_store import MemoryStore

# Opening runs on the GUI thread; don't hang for the engine's full 10 s on a locked file.
OPEN_BUSY_TIMEOUT_S = 5.0


def open_store(target: str | Path | None, *, create: bool = True) -> MemoryStore:
    """Open (``create``: or create) the store; raises MemdeskError with a clear message.
    A damaged store opens read-only; an older one is upgraded only if the operator
    agrees (ui/store_safety/safety.py)."""
    from memdesk.ui.store_safety.safety import open_store_asking

    return open_store_asking(None, target, create=create, busy_timeout=OPEN_BUSY_TIMEOUT_S)


def store_path(store: MemoryStore) -> str:
    """The file of a SQLite store, else its URL (password hidden)."""
    return store.engine.url.database or store.url


def is_temporary(path: str | Path) -> bool:
    """Whether ``path`` lies in the system's temporary folder: such stores (tests, other
    processes' scratch files) do not belong in the operator's recent-stores list."""
    try:
        resolved = Path(path).resolve()
        tmp = Path(tempfile.gettempdir()).resolve()
    except OSError:
        return False
    return resolved == tmp or tmp in resolved.parents
