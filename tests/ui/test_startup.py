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
from memdesk.ui.window.main_window import MainWindow
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


# -- display and platform-plugin checks (before Qt could abort) ----------------------------
def test_no_display_says_so_and_how_to_run_headless() -> None:
    from memdesk.app.display import platform_problem

    msg = platform_problem({})
    assert msg is not None and "no display found" in msg
    assert "QT_QPA_PLATFORM=offscreen" in msg and "xvfb-run" in msg
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}) is None  # the operator chose


def test_missing_xcb_libraries_are_named_with_their_packages(monkeypatch, tmp_path) -> None:
    from memdesk.app import display

    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"not a shared object")
    monkeypatch.setattr(display, "xcb_plugin", lambda: plugin)
    monkeypatch.setattr(display, "missing_libraries",
                        lambda _p: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    msg = display.platform_problem({"DISPLAY": ":0"})
    assert msg is not None and "libxcb-icccm.so.4" in msg
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1" in msg
    monkeypatch.setattr(display, "missing_libraries", lambda _p: [])
    assert display.platform_problem({"DISPLAY": ":0"}) is None


def test_missing_libraries_reads_ldd_when_the_plugin_does_not_load(tmp_path) -> None:
    from memdesk.app.display import missing_libraries

    broken = tmp_path / "libqxcb.so"
    broken.write_bytes(b"not a shared object")
    assert missing_libraries(broken)  # cannot load: something is reported, never []


def test_gui_start_without_display_exits_cleanly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, "-m", "memdesk.app.main", "--demo"],
                       capture_output=True, text=True, timeout=120, env=env)
    if not sys.platform.startswith("linux"):
        return
    assert r.returncode == 2, r.stderr
    assert "no display found" in r.stderr and "Traceback" not in r.stderr


def test_availability_checks() -> None:
    from memdesk.core import embeddings
    from memdesk.core.write import availability

    vec = availability.embedding_vectors()
    assert vec.ok is (embeddings.unavailable_reason() is None)
    down = availability.ollama("http://127.0.0.1:9", timeout=0.5)  # nothing listens there
    assert not down.ok and down.detail


def test_a_missing_glib_is_named_and_the_whole_set_matches_readme(monkeypatch, tmp_path) -> None:
    """The hint names the package of every missing library, glib's included, and the
    whole set for a minimal Debian 12 — the same set README.md tells a new user."""
    import re

    from memdesk.app import display

    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"not a shared object")
    monkeypatch.setattr(display, "xcb_plugin", lambda: plugin)
    monkeypatch.setattr(display, "missing_libraries", lambda _p: ["libglib-2.0.so.0"])
    msg = display.platform_problem({"DISPLAY": ":0"})
    assert msg is not None and "apt-get install libglib2.0-0\n" in msg
    whole = re.search(r"whole set.*\n\s+sudo apt-get install (.+)", msg)
    assert whole is not None
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    # The apt-get line of README's first block, with its continuation lines.
    block = re.search(r"sudo apt-get install -y (libxcb-cursor0(?:[^\n]*\\\n)*[^\n]*)", readme)
    assert block is not None
    assert set(whole.group(1).split()) == set(block.group(1).replace("\\", " ").split())
