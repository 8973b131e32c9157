"""A real X display with a window manager (Xvfb and openbox), for the tests that must
see the window as an operator does: framed, on a screen of a given size.

Offscreen Qt has no window frame, so a window that fits its screen there can still
hang off a real one by its title bar.  Without the two programs the tests skip,
saying why; under CI (CI=true) they fail instead, as the PostgreSQL tests do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _need(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        why = f"{program} is not installed (Debian: apt-get install xvfb openbox)"
        if IN_CI:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return path


@contextmanager
def framed_display(width: int, height: int) -> Iterator[dict[str, str]]:
    """An X display ``width``×``height`` with openbox running; yields the environment
    a Qt process needs to use it."""
    xvfb, openbox = _need("Xvfb"), _need("openbox")
    # -displayfd: Xvfb picks a free display number and writes it when ready.
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0",
                               f"{width}x{height}x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    os.close(write)
    wm = None
    try:
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            pytest.fail("Xvfb did not start", pytrace=False)
        env = {**os.environ, "DISPLAY": f":{number}", "QT_QPA_PLATFORM": "xcb"}
        wm = subprocess.Popen([openbox], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # openbox takes the screen before the window maps
        yield env
    finally:
        for proc in (wm, server):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
