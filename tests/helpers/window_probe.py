"""Run in a subprocess on a framed display (tests/helpers/window_manager.py): opens the
desk on the store given, shows every view in turn, and prints what an operator would
see of the window as JSON: its frame, the screen's free room, the status bar, the
window's minimum width, and each view's size against the least it needs."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from memdesk.app.gui import Launcher
    from memdesk.ui.desk.views import VIEWS

    app = QApplication(sys.argv)
    app.setStyle("Fusion")

    def settle(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    launcher = Launcher()
    assert launcher.open(Path(sys.argv[1]))
    w = launcher.window
    assert w is not None
    settle(3.0)  # framed by the window manager, then fitted
    views = {}
    for spec in VIEWS:
        w.show_view(spec.key)
        settle(0.6)
        v = w.views[spec.key]
        need, have = v.minimumSizeHint(), v.size()
        views[spec.key] = {"need": [need.width(), need.height()],
                           "have": [have.width(), have.height()]}
    settle(0.5)

    def rect(r):  # type: ignore[no-untyped-def]
        return [r.x(), r.y(), r.width(), r.height()]

    bar = w.statusBar()
    bottom_left = bar.mapToGlobal(bar.rect().bottomLeft())
    print(json.dumps({
        "frame": rect(w.frameGeometry()), "client": rect(w.geometry()),
        "room": rect(w.screen().availableGeometry()),
        "status_bottom": bottom_left.y(), "min_width": w.minimumSizeHint().width(),
        "views": views,
    }))
    w.close()


if __name__ == "__main__":
    main()
