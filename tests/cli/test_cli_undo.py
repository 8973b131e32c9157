"""``memdesk undo EVENT_ID`` end to end: what it restores, and its exit codes for an
unknown event (4), an already-undone event (5), a conflicting later change (5) and a
store that cannot be opened (3); 5 is "refused by the store's current state"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import run as cli


@pytest.fixture
def edited(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A store with one memory edited once: (db path, memory id, add event, edit event)."""
    db = tmp_path / "s.db"
    s = MemoryStore.open(db)
    rec = s.add(user_id="u", text="User prefers tea.", type="preference", importance=0.4)
    [add_ev] = s.events(rec.id)
    edit = s.update(rec.id, importance=0.9, text="User prefers coffee.")
    s.close()
    return str(db), rec.id, add_ev.id, edit.event_ids[0]


def history(db: str, mid: str) -> list[tuple[str, int | None, int | None]]:
    s = MemoryStore.open(db)
    try:
        return [(e.action, e.undoes, e.undone_by) for e in reversed(s.events(mid))]
    finally:
        s.close()


def test_undo_restores_and_reports_the_new_event(edited, capsys) -> None:
    db, mid, _add, edit = edited
    assert main(["undo", "--db", db, str(edit)]) == 0
    out = capsys.readouterr().out
    s = MemoryStore.open(db)
    rec = s.get(mid)
    [undo_ev] = [e for e in s.events(mid) if e.action == "undo"]
    s.close()
    assert (rec.importance, rec.text) == (0.4, "User prefers tea.")
    assert out.strip() == f"undone: event {edit} (new event {undo_ev.id})"
    assert history(db, mid) == [("add", None, None), ("edit", None, undo_ev.id),
                                ("undo", edit, None)]


def test_redo_by_undoing_the_undo(edited, capsys) -> None:
    db, mid, _add, edit = edited
    assert main(["undo", "--db", db, str(edit)]) == 0
    new = int(capsys.readouterr().out.split("new event ")[1].rstrip(")\n"))
    assert main(["undo", "--db", db, str(new)]) == 0
    s = MemoryStore.open(db)
    assert (s.get(mid).importance, s.get(mid).text) == (0.9, "User prefers coffee.")
    s.close()


def test_unknown_event_exits_4(edited, capsys) -> None:
    db, mid, _add, _edit = edited
    before = history(db, mid)
    assert main(["undo", "--db", db, "999"]) == 4
    err = capsys.readouterr().err
    assert "999" in err and err.startswith("memdesk: ")
    assert history(db, mid) == before


def test_already_undone_exits_5_and_changes_nothing(edited, capsys) -> None:
    db, mid, _add, edit = edited
    assert main(["undo", "--db", db, str(edit)]) == 0
    capsys.readouterr()
    before = history(db, mid)
    assert main(["undo", "--db", db, str(edit)]) == 5
    assert "already undone" in capsys.readouterr().err
    assert history(db, mid) == before


def test_conflicting_later_change_exits_5_and_changes_nothing(edited, capsys) -> None:
    db, mid, _add, edit = edited
    s = MemoryStore.open(db)
    s.update(mid, importance=0.2)
    s.close()
    before = history(db, mid)
    assert main(["undo", "--db", db, str(edit)]) == 5
    err = capsys.readouterr().err
    assert "importance" in err and "Undo the later change first" in err
    assert history(db, mid) == before
    s = MemoryStore.open(db)
    assert s.get(mid).importance == 0.2 and s.get(mid).text == "User prefers coffee."
    s.close()


def test_undo_of_the_add_hides_the_memory(edited, capsys) -> None:
    db, mid, add, _edit = edited
    # Undoing an add checks only that the row is not deleted (later edits do not block
    # it) and hides the row: nothing is hard-deleted.
    assert main(["undo", "--db", db, str(add)]) == 0
    capsys.readouterr()
    assert main(["list", "--db", db, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "0"
    assert main(["show", "--db", db, mid, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "deleted"


def test_undo_on_a_missing_store_exits_3_and_creates_nothing(tmp_path: Path, capsys) -> None:
    db = tmp_path / "absent.db"
    assert main(["undo", "--db", str(db), "1"]) == 3
    assert "no store" in capsys.readouterr().err
    assert not db.exists()


def test_undo_as_a_real_process(edited) -> None:
    db, _mid, _add, edit = edited
    r = cli("undo", "--db", db, str(edit))
    assert r.returncode == 0 and r.stdout.startswith(f"undone: event {edit} ")
    r = cli("undo", "--db", db, str(edit))
    assert r.returncode == 5 and "already undone" in r.stderr and "Traceback" not in r.stderr
    r = cli("undo", "--db", db, "12345")
    assert r.returncode == 4 and "12345" in r.stderr and "Traceback" not in r.stderr
    r = cli("undo", "--db", db, "not-a-number")
    assert r.returncode == 2 and "not-a-number" in r.stderr and "Traceback" not in r.stderr
