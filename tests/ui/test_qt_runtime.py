"""Guards against a Qt binding that corrupts Python's refcounts (PySide6 6.12.0 on
Python 3.11 aborts with ``none_dealloc`` after some thousands of calls)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from PySide6.QtCore import QObject
o = QObject()
before = (sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False))
for _ in range(50_000):
    o.setObjectName("x")
    o.blockSignals(False)
    o.signalsBlocked()
after = (sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False))
drift = [a - b for a, b in zip(after, before)]
assert all(abs(d) < 100 for d in drift), drift
print("ok", drift)
"""


def test_qt_binding_keeps_refcounts() -> None:
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ok"), r.stdout + r.stderr
