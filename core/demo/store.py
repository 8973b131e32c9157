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


def build_demo(path: Path, size: int = DEMO_SIZE, progress: Progress | None = None,
               *, vectors: bool = False, embed_rest: bool = True) -> Path:
    """Generate a demo store at ``path`` atomically.  Long: run it off the GUI thread.

    ``progress(done, total)`` is called as rows are written; it may raise to cancel,
    which leaves no file behind.  ``vectors``: also give every memory its vector when the
    model is installed (the desk's first open does, so the Retrieval inspector's vector
    channel has something true to show at once: the default demo's vectors are shipped,
    core/demo/vectors.py; a missing model is not an error, the demo just has no
    vectors, as ``memdesk embed`` and the status bar then say).  ``embed_rest``: run the
    model on the texts the shipped vectors lack (another size or seed); the desk passes
    False and embeds those in the background once the window is open.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    store = MemoryStore.open(tmp)
    try:
        demo.generate(store, size, progress=_phase(progress, 0, 2 if vectors else 1))
        if vectors:
            _embed(store, _phase(progress, 1, 2), embed_rest)
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


def _phase(progress: Progress | None, i: int, n: int) -> Progress | None:
    """Progress of phase ``i`` of ``n`` as a share of one bar (rows, then vectors)."""
    if progress is None or n == 1:
        return progress

    def report(done: int, total: int) -> None:
        progress(i * 1000 + (1000 * done // total if total else 1000), n * 1000)

    return report


def _embed(store: MemoryStore, progress: Progress | None, embed_rest: bool) -> None:
    """The shipped vectors first (the default demo's are all there: a second or so), then
    the model for any text they lack (another size or seed)."""
    from memdesk.core import embeddings
    from memdesk.core.demo.vectors import write_shipped
    from memdesk.core.write.embed import backfill

    if (embeddings.unavailable_reason() is None and write_shipped(store, progress).missing
            and embed_rest):
        backfill(store, progress=progress)
