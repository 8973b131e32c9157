"""Start-up stays light: the window opens without pyqtgraph, numpy-heavy views or torch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CODE = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.main_window import MainWindow
store = MemoryStore.open(sys.argv[1])
w = MainWindow(store)
w.show()
app.processEvents()
built = [k for k in w.views if w.views.is_built(k)]
heavy = [m for m in ('pyqtgraph', 'torch', 'sentence_transformers', 'alembic') if m in sys.modules]
print(built, heavy)
assert built == ['browse'], built
assert heavy == [], heavy
w.show_view('snapshots')  # built on demand
assert w.views.is_built('snapshots') and w.stack.currentWidget() is w.views['snapshots']
w.close()
print('ok')
"""


def test_window_builds_only_the_first_view(tmp_path: Path) -> None:
    from memdesk.core.store.memory_store import MemoryStore

    db = tmp_path / "s.db"
    s = MemoryStore.open(db)
    s.add(user_id="u", text="hello", type="note")
    s.close()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    r = subprocess.run([sys.executable, "-c", CODE, str(db)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_window_never_writes_the_real_profile(tmp_path: Path) -> None:
    """A window opened without explicit settings writes only to $MEMDESK_CONFIG_DIR
    (the test profile), never Qt's "Unknown Organization/PySideApp" fallback."""
    from memdesk.core.store.memory_store import MemoryStore

    db = tmp_path / "s.db"
    MemoryStore.open(db).close()
    home = tmp_path / "home"
    home.mkdir()
    # The store counts as a real one (not in the temp folder), so it is remembered as
    # recent: the settings file must be written, and only where the profile says.
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home),
           "TMPDIR": str(home.parent / "elsewhere")}
    (home.parent / "elsewhere").mkdir()
    env.pop("XDG_CONFIG_HOME", None)  # Qt would fall back to $HOME/.config
    r = subprocess.run([sys.executable, "-c", CODE, str(db)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    written = [p.relative_to(home) for p in home.rglob("*") if p.is_file()]
    assert written == [], written
    assert (Path(os.environ["MEMDESK_CONFIG_DIR"]) / "memdesk.ini").exists()
