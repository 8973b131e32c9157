"""On a real display with a window manager, the desk's window fits the screen with its
frame (title bar and borders) and its status bar on screen, at 1280×700 and at
1024×640, and no view needs more room than it gets there (a view laid out in less than
its minimum is cut off)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.window_manager import framed_display

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from datetime import datetime

    from memdesk.core import demo

    path = tmp_path_factory.mktemp("framed") / "demo.db"
    store = MemoryStore.open(path)
    demo.generate(store, 400, seed=11, end=datetime(2026, 11, 1))
    store.close()
    return path


@pytest.mark.parametrize("size", [(1280, 700), (1024, 640)])
def test_the_window_and_every_view_fit_the_screen(demo_file: Path, tmp_path: Path,
                                                  size: tuple[int, int]) -> None:
    import shutil

    store = tmp_path / "demo.db"
    shutil.copy(demo_file, store)
    with framed_display(*size) as env:
        out = subprocess.run([sys.executable, "-m", "tests.helpers.window_probe", str(store)],
                             env=env, capture_output=True, text=True, timeout=240,
                             cwd=Path(__file__).resolve().parents[3])
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    fx, fy, fw, fh = seen["frame"]
    rx, ry, rw, rh = seen["room"]
    assert seen["frame"] != seen["client"], "no window manager framed the window"
    assert rx <= fx and ry <= fy and fx + fw <= rx + rw and fy + fh <= ry + rh, seen
    assert seen["status_bottom"] < ry + rh, "the status bar is off the screen"
    assert seen["min_width"] <= size[0], seen["min_width"]
    cut = {k: v for k, v in seen["views"].items()
           if v["need"][0] > v["have"][0] or v["need"][1] > v["have"][1]}
    assert not cut, f"views laid out in less room than they need (cut off): {cut}"
