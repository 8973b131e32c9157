"""memdesk.core type-checks under mypy with the settings in pyproject.toml ([tool.mypy]).

mypy cannot follow setuptools' editable-install finder, so the check runs on a staging
tree that lays the checkout out as the installed package (memdesk/core -> core/).  Its
cache lives in the temporary directory and is reused between runs, which keeps a warm
run to a few seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A cold cache (a fresh CI machine) checks SQLAlchemy and numpy too: about 80 s on a
# loaded 2-core machine; a warm one takes seconds.
@pytest.mark.timeout(600)
def test_core_type_checks(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    (stage / "memdesk").mkdir(parents=True)
    (stage / "memdesk" / "core").symlink_to(ROOT / "core", target_is_directory=True)
    cache = Path(tempfile.gettempdir()) / f"memdesk-mypy-{os.getuid()}"
    env = {**os.environ, "MYPYPATH": str(stage)}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cache), "--no-error-summary", "-p", "memdesk.core"],
        cwd=stage, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
