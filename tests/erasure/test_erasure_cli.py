"""``memdesk forget ID --purge``: confirmation, the receipt, the bad inputs (unknown id,
already erased, a turn a worker of another process still has open), the backups that
still hold it, and ``forget`` without ``--purge`` (a soft delete, undoable)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from memdesk.core.store.backup import backup_store
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from tests.helpers.cli import cli
from tests.helpers.episodes import say

SECRET = "Mel's Gravenstrop vault code is Tulliwhump"


def seeded(tmp_path: Path) -> tuple[str, str]:
    db = tmp_path / "s.db"
    store = MemoryStore.open(db)
    mid = store.add(user_id="mel", text=SECRET, type="fact").id
    store.add(user_id="mel", text="Mel likes green tea", type="preference")
    store.close()
    return str(db), mid


def test_purge_with_yes_erases_writes_the_receipt_and_says_so(tmp_path: Path) -> None:
    db, mid = seeded(tmp_path)
    receipt = tmp_path / "receipt.json"
    code, out, err = cli("forget", mid[:8], "--purge", "--yes", "--receipt", str(receipt),
                         "--db", db, "--note", "ticket 42")
    assert code == 0, err
    assert "erased — 1 memory" in out and str(receipt) in out
    data = json.loads(receipt.read_text(encoding="utf-8"))
    assert data["verdict"] == "erased" and data["erased"][0]["id"] == mid
    assert data["by"] == {"actor": "operator", "who": "ticket 42"}
    text = receipt.read_text(encoding="utf-8").lower()
    assert "gravenstrop" not in text and "tulliwhump" not in text
    code, _, err = cli("show", mid, "--db", db)
    assert code == 4 and "erased permanently" in err
    code, _, err = cli("forget", mid, "--purge", "--yes", "--db", db)
    assert code == 4 and "was erased permanently on" in err


def test_without_yes_nothing_is_erased(tmp_path: Path) -> None:
    db, mid = seeded(tmp_path)
    code, out, err = cli("forget", mid, "--purge", "--db", db)
    assert code == 2 and out == ""
    assert "cannot be undone" in err and mid in err and "pass --yes" in err
    assert cli("show", mid, "--db", db).returncode == 0


def test_bad_input_gets_a_message_and_exit_code(tmp_path: Path) -> None:
    db, mid = seeded(tmp_path)
    code, _, err = cli("forget", "no-such-id", "--purge", "--yes", "--db", db)
    assert code == 4 and "No memory with id 'no-such-id'" in err
    code, _, err = cli("forget", mid, "--receipt", str(tmp_path / "r.json"), "--db", db)
    assert code == 2 and "go with --purge" in err
    code, _, err = cli("forget", mid, "--purge", "--yes", "--receipt",
                       str(tmp_path / "no-dir" / "r.json"), "--db", db)
    assert code == 1 and "could not be written" in err  # erased: the store keeps it
    assert "erased permanently" in cli("show", mid, "--db", db).stderr


def test_a_turn_another_process_is_storing_is_not_purged(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = MemoryStore.open(db)
    turn = "I live in Zqvorthax and I love blemmivants."
    episode = say(store, turn).episode_id
    assert episode is not None
    JobQueue(store).enqueue(Turn(turn, "mel", "s2"))
    claimed = JobQueue(store).claim("otherhost:4242:abc")
    assert claimed is not None
    store.close()
    code, _, err = cli("forget", episode, "--purge", "--yes", "--db", str(db))
    assert code == 5, err
    assert "being stored by otherhost:4242:abc" in err and "nothing was erased" in err
    store = MemoryStore.open(db)
    try:
        assert store.get(episode).text == turn
    finally:
        store.close()


def test_the_receipt_lists_backups_that_still_hold_it_with_the_command(
        tmp_path: Path) -> None:
    db, mid = seeded(tmp_path)
    backup = backup_store(Path(db), reason="manual").path
    code, out, err = cli("forget", mid, "--purge", "--yes", "--json", "--db", db)
    assert code == 0, err
    [held] = json.loads(out)["still_held_by"]["backups"]
    assert held["path"] == str(backup) and held["holds_it"] is True
    # The command it gives erases it there too.
    args = shlex.split(held["purge_command"])[1:]
    code, out, err = cli(*args)
    assert code == 0, err
    assert "erased — 1 memory" in out


def test_forget_without_purge_is_an_undoable_soft_delete(tmp_path: Path) -> None:
    db, mid = seeded(tmp_path)
    code, out, _ = cli("forget", mid, "--json", "--db", db)
    assert code == 0
    event = json.loads(out)["event_id"]
    store = MemoryStore.open(db)
    try:
        assert store.get(mid).status is Status.DELETED
    finally:
        store.close()
    assert cli("undo", str(event), "--db", db).returncode == 0
    assert cli("forget", mid, "--db", db).returncode == 0
    code, _, err = cli("forget", mid, "--db", db)
    assert code == 5 and "already deleted" in err
