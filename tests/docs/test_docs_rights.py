"""What is documented about rights is what is enforced: docs/agents.md's rights table,
``memdesk tokens add --help`` and ``memdesk mcp --help`` all come from the declaration
the MCP server checks (core/guard/rights.py; tests/mcp/test_mcp_rights_matrix.py checks
the server against it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from memdesk.app.main import main
from memdesk.core.guard.rights import (
    ARGUMENT_RIGHTS,
    DEFAULT_TOKEN_RIGHTS,
    MARK_BEGIN,
    MARK_END,
    RIGHTS,
    TOOL_RIGHTS,
    rights_markdown,
)

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "gen_rights_doc.py"


def tool() -> ModuleType:
    """tools/gen_rights_doc.py, loaded in this process (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("gen_rights_doc", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gen(*args: str) -> int:
    return int(tool().main(list(args)))


def test_the_docs_table_is_the_declared_one() -> None:
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert rights_markdown() in doc, "docs/agents.md is stale: run tools/gen_rights_doc.py"
    assert gen("--check") == 0
    # Every tool is in the row of the right it needs, and in no other.
    rows = {line.split("|")[1].strip(" `"): line for line in rights_markdown().splitlines()
            if line.startswith("| `")}
    assert set(rows) == set(RIGHTS)
    for tool, right in TOOL_RIGHTS.items():
        assert [r for r, line in rows.items() if f"`{tool}`" in line] == [right]
    for (tool, arg), right in ARGUMENT_RIGHTS.items():  # forget(purge: true): purge
        assert [r for r, line in rows.items() if f"`{tool}({arg}: true)`" in line] == [right]


def test_the_tool_rewrites_a_stale_table_and_nothing_else(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "agents.md"
    stale = (f"# Agents\n\nbefore\n\n{MARK_BEGIN}\n| right | tools |\n| `read` | x |\n"
             f"{MARK_END}\n\nafter\n")
    doc.write_text(stale, encoding="utf-8")
    assert gen("--check", str(doc)) == 1
    assert "stale" in capsys.readouterr().err
    assert doc.read_text(encoding="utf-8") == stale  # --check writes nothing
    assert gen(str(doc)) == 0
    assert doc.read_text(encoding="utf-8") == (
        f"# Agents\n\nbefore\n\n{rights_markdown()}\n\nafter\n")
    assert gen("--check", str(doc)) == 0
    doc.write_text("no markers here\n", encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        gen(str(doc))
    assert "markers are missing" in str(refused.value.code)
    assert doc.read_text(encoding="utf-8") == "no markers here\n"


@pytest.mark.parametrize("command", [["tokens", "add", "--help"], ["mcp", "--help"]])
def test_help_lists_each_right_with_its_tools(command: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(command)
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal
    assert "--rights" in out
    if command[0] == "tokens":
        assert f"(default: {','.join(DEFAULT_TOKEN_RIGHTS)})" in out
    for right in RIGHTS:
        needed = ", ".join(t for t, r in TOOL_RIGHTS.items() if r == right)
        assert f"{right}: {needed}" in out, (right, out)
