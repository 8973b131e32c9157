"""One shape of undo: `memdesk undo EVENT|GROUP` takes back one event by its number or a
whole action group (an import, a merge, a resolution) by its id or a unique prefix; the
older spellings (`import --undo GROUP`, `contradictions undo`, `duplicates undo`) stay
as aliases for scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import cli


def _import(db: str, tmp_path: Path, name: str) -> str:
    f = tmp_path / f"{name}.jsonl"
    f.write_text(json.dumps({"id": name, "user_id": "u", "text": name, "type": "fact"}) + "\n")
    code, out, err = cli("--db", db, "import", str(f))
    assert code == 0, err
    [hint] = [x for x in out.splitlines() if x.startswith("undo this import: ")]
    group = hint.removeprefix("undo this import: memdesk undo ")
    assert len(group) == 32 and hint == f"undo this import: memdesk undo {group}"
    return group


def _status(db: str, mid: str) -> str:
    code, out, _ = cli("--db", db, "show", mid, "--json")
    assert code == 0
    return str(json.loads(out)["status"])


def test_undo_takes_a_group_by_its_id_or_a_prefix_and_redoes_it(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    group = _import(db, tmp_path, "one")
    code, out, err = cli("--db", db, "undo", group[:8])
    assert code == 0, err
    assert out.startswith(f"undone: action group {group}, 1 change ")
    assert _status(db, "one") == "deleted"
    redo = out.split("`memdesk undo ")[1].split("`")[0]
    assert cli("--db", db, "undo", redo).returncode == 0
    assert _status(db, "one") == "active"


def test_the_old_spelling_still_undoes_an_import(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    group = _import(db, tmp_path, "two")
    assert cli("--db", db, "import", "--undo", group).returncode == 0
    assert _status(db, "two") == "deleted"
    assert cli("--db", db, "undo", group).returncode == 5  # already undone


@pytest.mark.parametrize(("target", "code", "words"), [
    ("twelve", 2, "expected an event number like 12 or an action group id"),
    ("#0", 2, "event numbers start at 1"),
    ("abcdef12", 4, "abcdef12"),
])
def test_what_undo_refuses(tmp_path: Path, target: str, code: int, words: str) -> None:
    db = str(tmp_path / "s.db")
    _import(db, tmp_path, "three")
    r = cli("--db", db, "undo", target)
    assert r.returncode == code and words in r.stderr and "Traceback" not in r.stderr
    assert _status(db, "three") == "active"


def test_help_names_both_targets_and_the_aliases() -> None:
    _, out, _ = cli("undo", "--help")
    text = " ".join(out.split())
    assert "EVENT|GROUP" in text and "import --undo GROUP" in text
