"""docs/architecture.md stays true: it names every package and top-level module of
memdesk.core, every kind of change (``Changed``) and every view of the desk.  Adding one
without a word on that page fails here (Datasette's tests/test_docs.py does the same for
its plugin hooks and settings).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import memdesk.core
from memdesk.core.store.records import Changed

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
CORE = Path(memdesk.core.__file__).parent
# The layer diagram: the first fenced block, from the memdesk.core box down.
DIAGRAM = DOC.split("```")[1].split("memdesk.core", 1)[1]


def _named(word: str, text: str = DOC) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(word)}(?!\w)", text) is not None


def _packages() -> list[str]:
    return sorted(p.name for p in CORE.iterdir() if (p / "__init__.py").is_file())


def _modules() -> list[str]:
    return sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")


def _kinds() -> list[str]:
    # The single kinds; NOTHING, DELTA and ALL are combinations of them.
    return [kind.name for kind in Changed if kind.name and kind.value & (kind.value - 1) == 0]


def _views() -> list[str]:
    pytest.importorskip("PySide6")
    from memdesk.ui.desk.views import VIEWS

    return [spec.title for spec in VIEWS]


def test_the_lists_are_not_empty() -> None:
    # Guards the tests below against passing on an empty list (a moved module).
    assert {"store", "read", "write"} <= set(_packages())
    assert {"errors", "ids"} <= set(_modules())
    assert {"MEMORIES", "JOBS"} <= set(_kinds())
    assert "Browse" in _views()


@pytest.mark.parametrize("package", _packages())
def test_every_core_package_is_described(package: str) -> None:
    assert f"{package}/" in DIAGRAM, (
        f"memdesk.core.{package} has no place in docs/architecture.md's layer diagram")


@pytest.mark.parametrize("module", _modules())
def test_every_top_level_core_module_is_described(module: str) -> None:
    assert _named(module, DIAGRAM), (
        f"memdesk.core.{module} has no place in docs/architecture.md's layer diagram")


@pytest.mark.parametrize("kind", _kinds())
def test_every_kind_of_change_is_described(kind: str) -> None:
    assert _named(kind), f"Changed.{kind} is not on docs/architecture.md"


def test_every_view_has_its_row_in_the_views_table() -> None:
    rows = {line.split("|")[1].strip() for line in DOC.splitlines()
            if line.startswith("| ") and line.count("|") >= 3}
    missing = [title for title in _views() if title not in rows]
    assert not missing, f"views without a row in docs/architecture.md's table: {missing}"
