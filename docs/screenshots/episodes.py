"""Shoot the desk's episode views on a fresh demo store (docs/write-path.md, "Episodes
in the desk"): the browser's "Episodes" filter with the detail pane on an episode, the
detail pane on a unit showing the turn it came from, the Retrieval inspector's Episode
column, and the prune dialog's dry run.

Not a test: it writes pictures.  Run it under a virtual display, once per size:

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python docs/screenshots/episodes.py \
        --size 1600x1000
    xvfb-run -s "-screen 0 1280x700x24" .venv/bin/python docs/screenshots/episodes.py \
        --size 1280x700

Each picture's name ends in its size.  No embedding (the inspector's full-text and
graph channels suffice to find turns by their words); the store and the settings live
in a temporary folder.  Look at every picture before committing it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from refresh import settle, wait_until  # the sibling script's helpers

HERE = Path(__file__).resolve().parent
USER = "alice"


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

    from PySide6.QtWidgets import QApplication, QScrollArea

    from memdesk.core import demo
    from memdesk.core.store.episodes import Episodes
    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.store.query import MemoryFilter
    from memdesk.ui.window.main_window import MainWindow

    app = QApplication(sys.argv)
    app.setStyle("Fusion")
    store = MemoryStore.open(tmp / "demo.db")
    demo.generate(store, 3000, seed=11, end=datetime(2026, 11, 1))
    w = MainWindow(store)
    w.resize(width, height)
    w.show()
    browse = w.views["browse"]
    wait_until(app, lambda: not browse.model.loading and browse.model.total is not None)

    def shoot(name: str, *, screen: bool = False) -> None:
        settle(app)
        # A dialog is a window of its own: the screen shows it over the main window.
        shot = app.primaryScreen().grabWindow(0) if screen else w.grab()
        shot.save(str(out / f"{name}-{width}x{height}.png"))

    def show_episode_box() -> None:
        scroll = browse.detail.findChild(QScrollArea)
        if scroll is not None:
            scroll.ensureWidgetVisible(browse.detail.episode, 0, 0)

    episodes = Episodes(store)
    lives = next(r for r in store.page(MemoryFilter(user_ids=(USER,), text="lives in"),
                                       limit=None) if episodes.source_of(r.id) is not None)
    source = episodes.source_of(lives.id)
    assert source is not None

    # The Episodes filter, the pane on the turn that said where Alice lives.
    w.show_filter("Episodes")
    wait_until(app, lambda: not browse.model.loading)
    browse.open_memory(source.id)
    show_episode_box()
    shoot("episode-browser")

    # The unit, and the turn it came from.
    browse.apply_filter(MemoryFilter(user_ids=(USER,), text="lives"))
    wait_until(app, lambda: not browse.model.loading)
    browse.open_memory(lives.id)
    show_episode_box()
    shoot("episode-unit")

    # The inspector: units and turns, each with its episode.
    w.show_view("retrieval")
    inspector = w.views["retrieval"]
    wait_until(app, lambda: inspector.user.findData(USER) >= 0)
    # Her city's name: with no vectors, a word the full-text channel finds in the
    # statement, its turn and the assistant's reply.
    inspector.prompt.setText(lives.value or "Lisbon")
    inspector.user.setCurrentIndex(inspector.user.findData(USER))
    inspector.retrieve()
    wait_until(app, lambda: inspector.result is not None, timeout=120)
    inspector.fused_view.selectRow(0)
    shoot("episode-inspector")

    # Memory → Prune old episodes…, its dry run in.
    w.show_view("browse")
    browse.prune_action.trigger()
    dialog = browse.prune_dialog
    assert dialog is not None
    wait_until(app, lambda: dialog.plan is not None)
    shoot("episode-prune", screen=True)
    dialog.reject()

    w.close()
    store.close()
    print(f"wrote episode screenshots at {width}x{height} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
