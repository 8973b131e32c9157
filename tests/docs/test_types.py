"""memdesk type-checks under mypy with the settings in pyproject.toml ([tool.mypy]):
the core, the UI and the app, strict, in one mypy process.

mypy cannot follow setuptools' editable-install finder, so the check runs on a staging
tree that lays the checkout out as the installed package (memdesk/core -> core/,
memdesk/ui -> ui/, memdesk/app -> app/).  Its cache lives in the temporary directory
and is reused between runs, which keeps a warm run to a few seconds.  One process for
the three packages: the UI and the app import the core, so a second run would analyse
the core (and SQLAlchemy, numpy) again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "ui", "app")


# A cold cache (a fresh CI machine) checks SQLAlchemy, numpy, PySide6's stubs and the
# MCP SDK too: 43-46 s at load 3 on 2 cores, the core alone 39 s (docs/testing.md); a
# warm one takes about a second.
@pytest.mark.timeout(600)
def test_memdesk_type_checks(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    (stage / "memdesk").mkdir(parents=True)
    for name in PACKAGES:
        (stage / "memdesk" / name).symlink_to(ROOT / name, target_is_directory=True)
    cache = Path(tempfile.gettempdir()) / f"memdesk-mypy-{os.getuid()}"
    env = {**os.environ, "MYPYPATH": str(stage)}
    packages = [arg for name in PACKAGES for arg in ("-p", f"memdesk.{name}")]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cache), "--no-error-summary", *packages],
        cwd=stage, env=env, capture_output=True, text=True, timeout=420,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
