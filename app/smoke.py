"""``memdesk --smoke-test``: prove that an installed or packaged app really starts.

Headless (Qt's offscreen platform unless another is set), it writes a small demo store
in a temporary folder (or opens ``--db``), opens the main window on it, builds every
view, waits until the browser shows its first page, closes everything and exits 0,
printing one line per step.  Settings go to the temporary folder, so it leaves no trace
in the user's profile.  The packaging test runs it inside the PyInstaller bundle,
where a missing Qt plugin, data file or hidden import shows up as a failure here
rather than on an operator's desktop.  Hidden from ``--help``: it is for packagers.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # Qt is imported once the platform is chosen
    from PySide6.QtWidgets import QApplication

    from memdesk.ui.browse.browser import BrowserView

SMOKE_ROWS = 300
TIMEOUT_S = 60.0


def run_smoke(db: str | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="memdesk-smoke-") as tmp:
        try:
            return _run(db, Path(tmp))
        except Exception as exc:  # a smoke test reports, it does not crash
            import traceback

            traceback.print_exc()
            print(f"smoke test FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1


def _run(db: str | None, tmp: Path) -> int:
    from memdesk.core import demo
    from memdesk.core.embeddings import unavailable_reason
    from memdesk.core.store.memory_store import MemoryStore

    if db is None:
        store = MemoryStore.open(tmp / "demo.db")
        demo.generate(store, SMOKE_ROWS, seed=7)
        print(f"store: demo, {SMOKE_ROWS} memories, schema migrated in {tmp}")
    else:
        store = MemoryStore.open(db, create=False)
        print(f"store: {store.url}")
    total = store.counts()["total"]

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    # The window's settings file goes to the temporary folder (ui/window/settings.py).
    os.environ["MEMDESK_CONFIG_DIR"] = str(tmp)
    # A widgets process: an existing instance is a QApplication.
    app = cast("QApplication | None", QApplication.instance()) or QApplication(
        [sys.argv[0], "-platform", os.environ["QT_QPA_PLATFORM"]])
    app.setApplicationName("memdesk-smoke")
    print(f"qt: {app.platformName()}")

    from memdesk.ui.window.main_window import MainWindow

    window = MainWindow(store)
    window.show()
    built: list[str] = []
    outcome: dict[str, object] = {}
    deadline = time.monotonic() + TIMEOUT_S

    def build_views() -> None:
        try:
            for key in window.views:
                window.show_view(key)
                built.append(key)
            window.show_view("browse")
        except Exception as exc:
            outcome["error"] = exc
            app.quit()
            return
        QTimer.singleShot(50, wait_for_rows)

    def wait_for_rows() -> None:
        browse = cast("BrowserView", window.views["browse"])
        rows = browse.model.rowCount()
        if rows or total == 0:
            outcome["rows"] = rows
            app.quit()
        elif time.monotonic() > deadline:
            outcome["error"] = TimeoutError(f"the browser showed no rows in {TIMEOUT_S:.0f} s")
            app.quit()
        else:
            QTimer.singleShot(50, wait_for_rows)

    QTimer.singleShot(0, build_views)
    app.exec()
    window.wait_idle()
    window.close()
    store.close()
    error = outcome.get("error")
    if isinstance(error, BaseException):  # what build_views or wait_for_rows caught
        raise error
    print(f"views: {', '.join(built)}")
    print(f"browser: {outcome['rows']} rows on the first page of {total}")
    print(unavailable_reason() or "vectors are on")
    print("smoke test ok")
    return 0
