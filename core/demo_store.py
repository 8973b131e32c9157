"""The demo store on disk: where it lives and how it is built, for the GUI and the CLI.

Building writes to a temporary file and renames it when complete, so a cancelled or
failed build never leaves a half-filled demo store that later runs would open.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import platformdirs

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore

DEMO_SIZE = 5000

Progress = Callable[[int, int], None]


def demo_store_path() -> Path:
    """The demo store's default place: ``demo.db`` in the user's data dir."""
    return Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "demo.db"


def demo_exists(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def build_demo(path: Path, size: int = DEMO_SIZE, progress: Progress | None = None) -> Path:
    """Generate a demo store at ``path`` atomically.  Long: run it off the GUI thread.

    ``progress(done, total)`` is called as rows are written; it may raise to cancel,
    which leaves no file behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    store = MemoryStore.open(tmp)
    try:
        demo.generate(store, size, progress=progress)
        store.checkpoint()  # fold the WAL in so the renamed file is complete
    except BaseException:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        raise
    store.close()
    for suffix in ("-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    os.replace(tmp, path)
    return path
