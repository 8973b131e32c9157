"""GUI start-up: open the store (a dialog, not a traceback, when that fails, offering
another store or the demo store) and show the main window.

``memdesk --demo`` works on a fresh machine: the demo store is generated in the user
data folder on first use, off the GUI thread, with a progress dialog if it takes more
than half a second (memdesk.ui.window.demo_builder).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from memdesk.core.demo.store import build_demo, demo_exists, demo_store_path

if TYPE_CHECKING:  # Qt is imported once the display is known to work
    from PySide6.QtCore import QCoreApplication, QTimer

    from memdesk.ui.window.demo_builder import DemoBuilder
    from memdesk.ui.window.main_window import MainWindow


def ensure_demo_store(size: int = 5000) -> Path:
    """Create the demo store on first use (synchronously); later runs reopen the same file."""
    path = demo_store_path()
    if demo_exists(path):
        return path
    print(f"memdesk: creating demo store with {size:,} memories at {path}", file=sys.stderr)
    return build_demo(path, size)


class Launcher:
    """Opens the first store, recovering from open errors by asking the operator.

    Holds the main window once one is shown; ``exit_code`` is 3 when the operator gave
    up after an error.
    """

    OTHER, DEMO, QUIT = "other", "demo", "quit"

    def __init__(self, demo_size: int = 5000) -> None:
        self.demo_size = demo_size
        self.window: MainWindow | None = None
        self.builder: DemoBuilder | None = None
        self.exit_code = 0
        self.last_error: str | None = None

    def ask_after_error(self, message: str) -> str:
        """A plain-text error dialog; returns OTHER, DEMO or QUIT."""
        from PySide6.QtWidgets import QMessageBox

        from memdesk.ui.desk.text import error_box

        box = error_box(None, "memdesk: cannot open the store", message)
        other = box.addButton("Open another store…", QMessageBox.ButtonRole.AcceptRole)
        demo = box.addButton("Open demo store", QMessageBox.ButtonRole.ActionRole)
        box.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
        box.exec()
        clicked = box.clickedButton()
        return self.OTHER if clicked is other else self.DEMO if clicked is demo else self.QUIT

    def open(self, target: str | Path | None) -> bool:
        """Open ``target`` and show the window; False when the operator quits instead."""
        from PySide6.QtWidgets import QFileDialog

        from memdesk.core.errors import MemdeskError
        from memdesk.ui.store_safety.opener import open_store
        from memdesk.ui.window.main_window import MainWindow

        while True:
            try:
                store = open_store(target)
                break
            except MemdeskError as exc:
                self.last_error = str(exc)
                choice = self.ask_after_error(str(exc))
                if choice == self.DEMO:
                    self.open_demo()
                    return True
                if choice == self.OTHER:
                    target, _ = QFileDialog.getOpenFileName(
                        None, "Open store", "", "memdesk stores (*.db);;All files (*)"
                    )
                    if target:
                        continue
                self.exit_code = 3
                return False
        window = self.window = MainWindow(store)
        window.demo_path = demo_store_path()
        # The default size must not run off a small screen (1280×700: the detail pane,
        # the Clear button and the status bar were cut off with no way to reach them),
        # frame included (ui/window/fit.py).
        room = window.screen().availableGeometry().size()
        window.resize(window.size().boundedTo(room))
        window.show()
        window.fit_to_screen()
        return True

    def open_demo(self) -> None:
        from PySide6.QtWidgets import QApplication

        from memdesk.ui.window.demo_builder import DemoBuilder

        def ready(path: str | Path) -> None:
            if not self.open(path):
                QApplication.exit(self.exit_code)
            elif self.window is not None and self.builder is not None:  # open() showed it
                self.window.write_service.embed_demo(self.builder.built_now)

        def failed(message: str) -> None:
            self.exit_code = 3
            if not self.open_after(message):
                QApplication.exit(self.exit_code)

        builder = self.builder = DemoBuilder(None, demo_store_path(), self.demo_size)
        builder.ready.connect(ready)
        builder.failed.connect(failed)
        builder.start()

    def open_after(self, message: str) -> bool:
        self.last_error = message
        if self.ask_after_error(message) != self.OTHER:
            return False
        from PySide6.QtWidgets import QFileDialog

        target, _ = QFileDialog.getOpenFileName(
            None, "Open store", "", "memdesk stores (*.db);;All files (*)"
        )
        return bool(target) and self.open(target)


def startup_store() -> str | None:
    """The store chosen in Settings ("Store opened at start"), else None: the default."""
    from memdesk.ui.window.settings import Settings

    return Settings().store_path or None


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as the CLI reports an interrupted command


class CtrlC:
    """Ctrl-C (SIGINT) closes the window as File → Quit does and ends with exit 130.

    Python runs signal handlers only between its own bytecodes, never while Qt's event
    loop waits in C++: the default handler's KeyboardInterrupt surfaced as a traceback
    in whatever slot ran next, and the app kept running.  This handler is installed
    before Qt is even imported (an interrupt while starting is remembered and acted on
    once the event loop runs), and a timer lets Python run every 200 ms.
    """

    def __init__(self, launcher: Launcher) -> None:
        import signal

        self.launcher = launcher
        self.app: QCoreApplication | None = None
        self.running = False
        self.asked = False
        self.ticker: QTimer | None = None
        signal.signal(signal.SIGINT, self._on_sigint)

    def attach(self, app: QCoreApplication) -> None:
        from PySide6.QtCore import QTimer

        self.app = app
        QTimer.singleShot(0, self._started)
        ticker = self.ticker = QTimer()
        ticker.timeout.connect(lambda: None)  # only gives Python a turn
        ticker.start(200)

    def _started(self) -> None:
        self.running = True
        if self.asked:
            self._quit()

    def _on_sigint(self, _signum: int, _frame: object) -> None:
        self.asked = True
        if self.running:
            self._quit()

    def _quit(self) -> None:
        window = self.launcher.window
        if window is not None:
            window.close()  # its closeEvent waits for background work
            if window.isVisible():  # asked about an unapplied edit, the operator stayed
                self.asked = False
                return
        assert self.app is not None  # attach() ran before the event loop did
        self.app.exit(EXIT_INTERRUPTED)


def run_gui(db: str | None = None, demo: bool = False, demo_size: int = 5000) -> int:
    from memdesk.app.display import platform_problem

    problem = platform_problem()
    if problem is not None:  # Qt would abort with a misleading message instead
        print(problem, file=sys.stderr)
        return 2
    launcher = Launcher(demo_size)
    ctrl_c = CtrlC(launcher)
    from PySide6.QtWidgets import QApplication

    # A widgets process: an existing instance is a QApplication.
    app = cast("QApplication | None", QApplication.instance()) or QApplication(sys.argv)
    ctrl_c.attach(app)
    app.setApplicationName("memdesk")
    app.setOrganizationName("memdesk")
    app.setStyle("Fusion")  # Fusion follows the system light/dark colour scheme in Qt 6
    if demo and db is None:
        launcher.open_demo()
    elif not launcher.open(db if db is not None else startup_store()):
        return launcher.exit_code
    code = app.exec()
    return launcher.exit_code or code
