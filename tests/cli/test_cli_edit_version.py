"""``memdesk edit --json`` and ``delete --json`` print the version their own change wrote,
even when another writer commits right after it: a script's next ``--if-version`` is
then refused (exit 5) instead of overwriting a change it never saw."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.pool import Pool

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli


@pytest.fixture
def memory(tmp_path: Path) -> tuple[str, str]:
    db = str(tmp_path / "s.db")
    code, out, err = cli("add", "--db", db, "--user", "alice", "--type", "fact",
                         "--text", "User works at Acme", "--json")
    assert code == 0, err
    return db, json.loads(out)["id"]


@pytest.fixture
def writer_right_after(memory: tuple[str, str]) -> Iterator[Callable[[], None]]:
    """Arm another writer (an agent's edit) that commits the moment the CLI's own change
    has committed and its connection gone back to the pool, before anything else."""
    db, mid = memory
    other = MemoryStore.open(db, create=False)
    state: dict[str, Any] = {"armed": False, "busy": False, "done": False}

    def after_checkin(dbapi_conn: Any, record: Any) -> None:
        if not state["armed"] or state["busy"] or state["done"]:
            return
        state["busy"] = True  # the other writer's own connections come back here too
        try:
            if other.get(mid).version > state["version"]:  # the CLI's change committed
                other.update(mid, actor="agent", topic="written-by-the-other-writer")
                state["done"] = True
        finally:
            state["busy"] = False

    def arm() -> None:
        state.update(armed=True, version=other.get(mid).version)

    event.listen(Pool, "checkin", after_checkin)
    try:
        yield arm
    finally:
        event.remove(Pool, "checkin", after_checkin)
        other.close()
    assert state["done"], "the other writer never ran: the test proved nothing"


def shown(db: str, mid: str) -> dict[str, Any]:
    code, out, err = cli("show", "--db", db, mid, "--json")
    assert code == 0, err
    return dict(json.loads(out))


@pytest.mark.parametrize("command", [("edit", "--importance", "0.9"), ("delete",)],
                         ids=["edit", "delete"])
def test_the_printed_version_is_the_commands_own_and_the_next_if_version_is_refused(
        memory: tuple[str, str], writer_right_after: Callable[[], None],
        command: tuple[str, ...]) -> None:
    db, mid = memory
    before = shown(db, mid)["version"]
    writer_right_after()
    code, out, err = cli(command[0], "--db", db, mid, *command[1:], "--json")
    assert code == 0, err
    printed = json.loads(out)["version"]
    now = shown(db, mid)
    assert now["topic"] == "written-by-the-other-writer"  # the other writer came after
    assert printed == before + 1 and now["version"] == before + 2
    # The script goes on from what it printed: the other writer's change is not lost.
    code, _, err = cli("edit", "--db", db, mid, "--topic", "script",
                       "--if-version", str(printed))
    assert code == 5, err
    assert shown(db, mid)["topic"] == "written-by-the-other-writer"
