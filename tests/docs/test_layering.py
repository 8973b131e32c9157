"""The layering rules hold: import-linter contracts (pyproject.toml) and what the CLI loads.

The contracts are checked on the real code, and once more on a throw-away package tree
that breaks each rule, so a contract that silently checks nothing fails here too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.layering import ROOT, lint_fake_tree, lint_imports

CORE_CONTRACT = "never imports Qt, pyqtgraph, the UI or the app"
UI_CONTRACT = "never imports the app or a database library"


def test_import_contracts_hold() -> None:
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"memdesk.core {CORE_CONTRACT} KEPT" in r.stdout
    assert f"memdesk.ui {UI_CONTRACT}" in r.stdout and ", 0 broken" in r.stdout


CLEAN = {
    # no fakedesk/__init__.py: a namespace package, like memdesk itself
    "core/__init__.py": "", "core/store.py": "import sqlalchemy\n", "core/plot.py": "",
    "ui/__init__.py": "",
    "ui/view.py": "import PySide6.QtWidgets\nfrom fakedesk.core import store\n",
    "app/__init__.py": "", "app/main.py": "from fakedesk.ui import view\n",
}
CORE_BREAKS = {  # file -> added line, and the violation import-linter must report
    "core/store.py": ("import PySide6.QtCore", "fakedesk.core is not allowed to import PySide6"),
    "core/plot.py": ("import pyqtgraph", "fakedesk.core is not allowed to import pyqtgraph"),
    "core/__init__.py": ("from fakedesk.ui import view",
                         "fakedesk.core is not allowed to import fakedesk.ui"),
    "core/extra.py": ("import fakedesk.app.main",
                      "fakedesk.core is not allowed to import fakedesk.app"),
}
UI_BREAKS = {
    "ui/view.py": ("from sqlalchemy import text",
                   "fakedesk.ui is not allowed to import sqlalchemy"),
    "ui/db.py": ("import sqlite3", "fakedesk.ui is not allowed to import sqlite3"),
    "ui/__init__.py": ("from fakedesk.app import main",
                       "fakedesk.ui is not allowed to import fakedesk.app"),
}


@pytest.mark.parametrize("breaks", [{}, CORE_BREAKS, UI_BREAKS], ids=["clean", "core", "ui"])
def test_contracts_catch_violations(tmp_path: Path, breaks: dict[str, tuple[str, str]]) -> None:
    """The same contracts on a throw-away tree: clean it passes; each added import that
    breaks a rule is reported (the clean run shows the failures are the violations)."""
    files = dict(CLEAN)
    for name, (line, _message) in breaks.items():
        files[name] = files.get(name, "") + line + "\n"
    r = lint_fake_tree(tmp_path, files)
    if not breaks:
        assert r.returncode == 0 and "2 kept, 0 broken" in r.stdout, r.stdout + r.stderr
        return
    assert r.returncode == 1 and "1 kept, 1 broken" in r.stdout, r.stdout + r.stderr
    for _line, message in breaks.values():
        assert message in r.stdout, (message, r.stdout)


CODE = """
import sys, pkgutil, importlib
import memdesk.core as core
for m in pkgutil.walk_packages(core.__path__, 'memdesk.core.'):
    if '.migrations.versions.' in m.name or m.name.endswith('migrations.env'):
        continue
    importlib.import_module(m.name)
import memdesk.app.cli.main
bad = sorted(k for k in sys.modules if k.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))
heavy = sorted(k for k in sys.modules if k.split('.')[0] in ('torch', 'sentence_transformers'))
print(bad, heavy)
assert not bad, bad
assert not heavy, heavy
"""


def test_core_and_cli_load_no_qt_and_no_torch() -> None:
    """What the contracts cannot see: the CLI must not pay for Qt or torch at run time
    (core may import torch lazily, inside the embedder)."""
    r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
