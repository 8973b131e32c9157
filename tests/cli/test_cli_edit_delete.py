"""``memdesk edit`` and ``memdesk delete`` on both backends: audited, undoable with the
event number they print, refused with exit 5 when ``--if-version`` is stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return out


@pytest.fixture
def added(store_path: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    db = str(store_path)
    rec = json.loads(ok(capsys, "add", "--db", db, "--user", "alice", "--type", "fact",
                        "--text", "User works at Acme", "--entity", "user",
                        "--attribute", "works_at", "--value", "Acme", "--json"))
    return db, rec["id"]


def shown(capsys: pytest.CaptureFixture[str], db: str, mid: str) -> dict:
    return json.loads(ok(capsys, "show", "--db", db, mid, "--json"))


def test_edit_changes_every_content_field_in_one_undoable_event(
        added: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, mid = added
    before = shown(capsys, db, mid)
    out = json.loads(ok(capsys, "edit", "--db", db, mid[:8], "--text", "User works at Globex",
                        "--type", "decision", "--topic", "work", "--importance", "0.9",
                        "--confidence", "0.6", "--entity", "alice", "--attribute",
                        "employer", "--value", "Globex", "--if-version",
                        str(before["version"]), "--json"))
    now = shown(capsys, db, mid)
    assert out == {"id": mid, "event_id": out["event_id"], "version": before["version"] + 1}
    assert {k: now[k] for k in ("text", "type", "topic", "importance", "confidence",
                                "entity", "attribute", "value")} == {
        "text": "User works at Globex", "type": "decision", "topic": "work",
        "importance": 0.9, "confidence": 0.6, "entity": "alice", "attribute": "employer",
        "value": "Globex"}
    assert now["history"][0]["action"] == "edit" and now["history"][0]["actor"] == "operator"
    ok(capsys, "undo", "--db", db, str(out["event_id"]))
    again = shown(capsys, db, mid)
    assert {k: again[k] for k in ("text", "type", "topic", "value")} == {
        k: before[k] for k in ("text", "type", "topic", "value")}


def test_edit_prints_the_event_to_undo_and_an_empty_value_clears(
        added: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, mid = added
    out = ok(capsys, "edit", "--db", db, mid, "--topic", "work")
    event = int(out.split("(event ", 1)[1].split(",", 1)[0])
    assert f"`memdesk undo {event}`" in out
    ok(capsys, "edit", "--db", db, mid, "--topic", "")
    assert shown(capsys, db, mid)["topic"] is None
    assert "unchanged" in ok(capsys, "edit", "--db", db, mid, "--topic", "")


def test_a_stale_if_version_is_refused_with_exit_5_and_nothing_written(
        added: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, mid = added
    seen = shown(capsys, db, mid)["version"]
    ok(capsys, "edit", "--db", db, mid, "--value", "Initech")  # someone else's change
    code, _, err = run(capsys, "edit", "--db", db, mid, "--value", "Globex",
                       "--if-version", str(seen))
    assert code == 5
    assert "changed by someone else" in err and f"version {seen}" in err
    code, _, err = run(capsys, "delete", "--db", db, mid, "--if-version", str(seen))
    assert code == 5
    now = shown(capsys, db, mid)
    assert now["value"] == "Initech" and now["status"] == "active"


def test_delete_is_soft_audited_and_undone_by_its_event(
        added: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, mid = added
    out = json.loads(ok(capsys, "delete", "--db", db, mid, "--note", "wrong user", "--json"))
    assert ok(capsys, "list", "--db", db, "--count").strip() == "0"
    now = shown(capsys, db, mid)
    assert now["status"] == "deleted" and now["text"] == "User works at Acme"
    assert now["history"][0]["action"] == "delete"
    code, _, err = run(capsys, "delete", "--db", db, mid)
    assert code == 5 and "already deleted" in err
    ok(capsys, "undo", "--db", db, str(out["event_id"]))
    assert ok(capsys, "list", "--db", db, "--count").strip() == "1"


@pytest.mark.parametrize(("args", "code", "says"), [
    ([], 2, "name at least one field"),
    (["--importance", "2"], 2, "importance:"),
    (["--confidence", "nan"], 2, "confidence:"),
    (["--type", "bogus"], 2, "type:"),
    (["--if-version", "-1", "--topic", "x"], 2, "--if-version"),
])
def test_bad_edits_exit_2_naming_the_field(
        added: tuple[str, str], capsys: pytest.CaptureFixture[str],
        args: list[str], code: int, says: str) -> None:
    db, mid = added
    before = shown(capsys, db, mid)
    got, _, err = run(capsys, "edit", "--db", db, mid, *args)
    assert (got, says in err) == (code, True), err
    assert shown(capsys, db, mid) == before


def test_an_unknown_memory_is_exit_4(added: tuple[str, str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = added
    assert run(capsys, "edit", "--db", db, "ffffffffffff", "--topic", "x")[0] == 4
    assert run(capsys, "delete", "--db", db, "ffffffffffff")[0] == 4
