"""Shoot the Duplicates view and the sweep card on a store full of hostile text
(tests/helpers/hostile_store.py: right-to-left overrides in user ids and texts,
zero-width characters, tags, line breaks, controls): docs/guarantees.md's
pictures of store text shown visibly, isolated, never as HTML.

Not a test: it writes pictures.  Run it offscreen, once per size:

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/hostile_text.py --size 1600x1000
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/hostile_text.py --size 1280x700

Each picture's name ends in its size; the store and the settings live in a temporary
folder.  Look at every picture before committing it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # the repository: tests.helpers
from refresh import settle, wait_until  # noqa: E402 - the sibling script, on the path set above


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1600x1000")
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-shots-"))
    os.environ["MEMDESK_CONFIG_DIR"] = str(tmp / "config")
    os.environ["XDG_DATA_HOME"] = str(tmp / "data")

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from memdesk.core.curation.service import Sweeps
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.ui.window.main_window import MainWindow
    from memdesk.ui.window.settings import Settings
    from tests.helpers.hostile_store import EVE, fill

    app = QApplication(sys.argv)
    app.setStyle("Fusion")
    store = MemoryStore.open(tmp / "hostile.db")
    fill(store)
    sweep = Sweeps(store).start((0.3, 0.49), 40, user=EVE, seed=3)
    settings = Settings(QSettings(str(tmp / "memdesk.ini"), QSettings.Format.IniFormat))
    w = MainWindow(store, settings)
    w.resize(width, height)
    w.show()

    def shoot(name: str) -> None:
        settle(app)
        w.grab().save(str(out / f"{name}-{width}x{height}.png"))

    # Duplicates: the queue, and eve's cluster (her id carries U+202E) selected.
    w.show_view("duplicates")
    dup = w.views["duplicates"]
    wait_until(app, lambda: dup.cluster is not None, timeout=60)
    dup.queue.setCurrentRow(next(i for i, c in enumerate(dup.clusters) if c.user_id == EVE))
    shoot("hostile-duplicates")

    # The sweep card on the invoice text ("… ⟨U+202E⟩99.0 latot 12345").
    w.show_view("sweep")
    view = w.views["sweep"]
    view.wait_idle()
    view.open_sweep(sweep.id)
    while view.state is not None and view.state.current is not None and (
            "RTLTEST" not in view.review.text.toPlainText()):
        done = view.state.done
        view.decide("skip")
        wait_until(app, lambda d=done: view.state is not None and view.state.done > d)
    shoot("hostile-sweep-card")

    w.close()
    store.close()
    print(f"wrote hostile-text screenshots at {width}x{height} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
