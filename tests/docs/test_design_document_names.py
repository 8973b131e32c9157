"""Code, tests and docs name a design document by what it is ("the write-phase design"),
never by a file number, an internal issue number or a decision-record number: readers of
this repository have none of those files.  Migration file names keep their history
(m0003_issue4.py): only a reference in words ("issue" + space + number) counts.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".sh"}
# Built from parts so that this file does not match itself.
BANNED = re.compile(
    "|".join([r"\bseeds? 0" + "0", "ADR" + "-003", r"\bissues? #?\d+\b"]), re.IGNORECASE
)


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode == 0 and listed.stdout.strip():
        paths = [ROOT / line for line in listed.stdout.splitlines()]
    else:  # not a git checkout (an sdist): walk the tree
        paths = [p for top in ("core", "ui", "app", "tests", "docs", "bench", "tools")
                 for p in (ROOT / top).rglob("*")]
        paths += [ROOT / "README.md", ROOT / "pyproject.toml"]
    return [p for p in paths if p.suffix in TEXT_SUFFIXES and p.is_file()]


def test_no_design_document_or_issue_numbers() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _tracked_text_files()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                 .splitlines(), 1)
        if BANNED.search(line)
    ]
    assert not found, "name the design instead:\n" + "\n".join(found)


def test_the_check_sees_a_reference() -> None:
    # The pattern is what the test above relies on: it must catch each form, and leave
    # historic migration file names alone.
    for bad in ("seed " + "003's schema", "(ADR" + "-003)", "(issue" + " 8)",
                "Issue" + " 9's target"):
        assert BANNED.search(bad), bad
    assert not BANNED.search("versions/m0003_issue4.py")
