"""memdesk.core never imports Qt; the CLI does not pay for Qt either."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys, pkgutil, importlib
import memdesk.core as core
for m in pkgutil.walk_packages(core.__path__, 'memdesk.core.'):
    if '.migrations.versions.' in m.name or m.name.endswith('migrations.env'):
        continue
    importlib.import_module(m.name)
import memdesk.app.cli
bad = sorted(k for k in sys.modules if k.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))
heavy = sorted(k for k in sys.modules if k.split('.')[0] in ('torch', 'sentence_transformers'))
print(bad, heavy)
assert not bad, bad
assert not heavy, heavy
"""


def test_core_and_cli_import_no_qt() -> None:
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ui_never_writes_sql() -> None:
    from pathlib import Path

    ui = Path(__file__).resolve().parent.parent / "ui"
    offenders = []
    for f in ui.rglob("*.py"):
        src = f.read_text()
        for needle in ("exec_driver_sql", "INSERT INTO", "UPDATE memories", "DELETE FROM",
                       "from sqlalchemy", "import sqlalchemy", "import sqlite3"):
            if needle in src:
                offenders.append(f"{f.name}: {needle}")
    assert offenders == []
