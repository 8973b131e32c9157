"""Ctrl-C (SIGINT) in a terminal that started the GUI closes it cleanly: exit 130, no
traceback, whether it arrives while the window is up or while it is still starting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore


def qt_loaded(pid: int) -> bool:
    try:
        return "libQt6Widgets" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
@pytest.mark.parametrize("settle_s", [4.0, 0.0])
def test_ctrl_c_closes_the_gui_without_a_traceback(tmp_path: Path, settle_s: float) -> None:
    db = tmp_path / "s.db"
    s = MemoryStore.open(db)
    s.add(user_id="u", text="a memory to show", type="note")
    s.close()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1"}
    gui = subprocess.Popen([sys.executable, "-m", "memdesk.app.main", "--db", str(db)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while not qt_loaded(gui.pid):
            assert gui.poll() is None, gui.communicate()[1]
            assert time.monotonic() < deadline, "Qt never loaded"
            time.sleep(0.05)
        time.sleep(settle_s)  # 4 s: the window is up; 0: it may still be starting
        gui.send_signal(signal.SIGINT)
        _, err = gui.communicate(timeout=60)
    finally:
        if gui.poll() is None:
            gui.kill()
            gui.wait()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert gui.returncode == 130, err
