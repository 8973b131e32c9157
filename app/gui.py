"""GUI start-up: open the store (showing a dialog, not a traceback, when that fails)
and show the main window."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs


def demo_store_path() -> Path:
    return Path(platformdirs.user_data_dir("memdesk", appauthor=False)) / "demo.db"


def ensure_demo_store(size: int = 5000) -> Path:
    """Create the demo store on first use; later runs reopen the same file."""
    from memdesk.core import demo
    from memdesk.core.store import MemoryStore

    path = demo_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > 0:
        return path
    store = MemoryStore.open(path)
    try:
        print(f"memdesk: creating demo store with {size:,} memories at {path}", file=sys.stderr)
        demo.generate(store, size)
    finally:
        store.close()
    return path


def run_gui(db: str | None = None, demo: bool = False, demo_size: int = 5000) -> int:
    from PySide6.QtWidgets import QApplication

    from memdesk.core.errors import MemdeskError
    from memdesk.core.store import MemoryStore
    from memdesk.ui.main_window import MainWindow
    from memdesk.ui.text import error_box

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("memdesk")
    app.setOrganizationName("memdesk")
    try:
        target = str(ensure_demo_store(demo_size)) if demo and db is None else db
        store = MemoryStore.open(target)
    except MemdeskError as exc:
        error_box(None, "memdesk: cannot open the store", str(exc)).exec()
        return 3
    window = MainWindow(store)
    window.show()
    return app.exec()
