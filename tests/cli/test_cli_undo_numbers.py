"""`memdesk add` prints its undo number from the action's own Changes, `memdesk undo N`
takes it back, and a history record (a decay run) is refused as bad input (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore


def test_cli_add_prints_its_own_undo_number_and_history_records_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["--db", db, "add", "--user", "u", "--text", "hello there", "--type",
                 "fact", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert main(["--db", db, "undo", str(added["event_id"])]) == 0
    store = MemoryStore.open(db)
    try:
        assert store.get(added["id"]).deleted_at is not None
        maintain(store)
        [decay] = [e for e in store.events() if e.action == "decay"]
    finally:
        store.close()
    capsys.readouterr()
    assert main(["--db", db, "undo", str(decay.id)]) == 2
    assert "is a record in the store's history (decay run)" in capsys.readouterr().err
