"""Running import-linter on this checkout or on a throw-away package tree, with
pyproject.toml's contracts (tests/docs/test_layering.py, tests/docs/test_core_layers.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
FLOORS = ("core-without-qt", "ui-without-sql")


def lint_imports(cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", "--no-logo"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
    )


def contracts_for(package: str, ids: tuple[str, ...] = FLOORS) -> str:
    """pyproject.toml's [tool.importlinter] tables, about ``package`` instead of memdesk:
    the root table and the contracts named by ``ids`` (the three floors by default)."""
    blocks: list[list[str]] = []
    inside = False
    for line in (ROOT / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            inside = line.lstrip("[").startswith("tool.importlinter")
            if inside:
                blocks.append([])
        if inside:
            blocks[-1].append(line.replace("memdesk.", f"{package}."))
    assert blocks, "pyproject.toml has no [tool.importlinter] section"
    kept = [b for b in blocks if not b[0].startswith("[[")
            or any(line == f'id = "{i}"' for line in b for i in ids)]
    assert len(kept) == len(ids) + 1, f"contracts {ids} not all in pyproject.toml"
    return "\n".join(line for b in kept for line in b) + "\n"


def lint_fake_tree(tmp_path: Path, files: dict[str, str],
                   ids: tuple[str, ...] = FLOORS) -> subprocess.CompletedProcess[str]:
    """import-linter's verdict on a throw-away package ``fakedesk``: ``files`` (path inside
    the package -> text) written under ``tmp_path``/pkgs, next to a pyproject.toml with the
    contracts named by ``ids`` (see ``contracts_for``)."""
    pkgs = tmp_path / "pkgs"
    for name, text in files.items():
        path = pkgs / "fakedesk" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(contracts_for("fakedesk", ids), encoding="utf-8")
    return lint_imports(tmp_path, pythonpath=pkgs)
