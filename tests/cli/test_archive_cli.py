"""``memdesk archive ID…`` / ``memdesk unarchive ID…`` and ``memdesk tokens pause|resume``:
the change printed with its events and undone by ``memdesk undo``; ``list --status
archived`` shows what is archived; each bad request is a message and an exit code, with
nothing changed (unknown id 4, ambiguous prefix 2, a state that refuses it 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status


def seeded(tmp_path: Path) -> tuple[str, list[str]]:
    db = str(tmp_path / "s.db")
    store = MemoryStore.open(db, create=True)
    ids = [store.add(user_id="u", text=f"memory {i}", type="fact").id for i in range(3)]
    store.close()
    return db, ids


def statuses(db: str, ids: list[str]) -> list[Status]:
    store = MemoryStore.open(db, create=False)
    try:
        return [store.get(i).status for i in ids]
    finally:
        store.close()


def test_archive_list_undo_unarchive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, ids = seeded(tmp_path)
    assert main(["archive", ids[0], ids[1][:8], "--note", "stale", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith("archived 2 memories (events ")
    assert statuses(db, ids) == [Status.ARCHIVED, Status.ARCHIVED, Status.ACTIVE]
    assert main(["list", "--status", "archived", "--json", "--db", db]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in listed} == set(ids[:2])
    assert {r["status"] for r in listed} == {"archived"} and all(r["archived_at"] for r in listed)
    assert main(["show", ids[0], "--json", "--db", db]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["history"][0]["action"] == "archive"
    assert main(["undo", str(shown["history"][0]["event"]), "--db", db]) == 0
    capsys.readouterr()
    assert statuses(db, ids)[0] is Status.ACTIVE
    assert main(["unarchive", ids[1], "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["memory_ids"] == [ids[1]]
    assert statuses(db, ids) == [Status.ACTIVE] * 3


def test_bad_requests_exit_with_a_message_and_change_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, ids = seeded(tmp_path)
    store = MemoryStore.open(db, create=False)
    store.soft_delete(ids[2])
    store.close()
    assert main(["archive", ids[0], "--db", db]) == 0
    capsys.readouterr()
    cases = [
        (["archive", ids[1], "0123456789abcdef", "--db", db], 4, "No memory"),
        (["archive", ids[1], ids[2], "--db", db], 5, f"memory {ids[2]} is deleted"),
        (["archive", ids[1], ids[0], "--db", db], 5, f"memory {ids[0]} is archived already"),
        (["unarchive", ids[1], "--db", db], 5, f"memory {ids[1]} is not archived"),
    ]
    for argv, code, message in cases:
        assert main(argv) == code, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    with pytest.raises(SystemExit) as exited:  # argparse's own usage error
        main(["archive", "--db", db])
    assert exited.value.code == 2
    assert "the following arguments are required: ID" in capsys.readouterr().err
    assert statuses(db, ids) == [Status.ARCHIVED, Status.ACTIVE, Status.DELETED]


def test_tokens_pause_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["tokens", "add", "bot", "--user", "alice", "--db", db]) == 0
    secret = capsys.readouterr().out.strip()
    assert main(["tokens", "pause", "bot", "--db", db]) == 0
    assert "paused" in capsys.readouterr().out
    assert main(["tokens", "list", "--json", "--db", db]) == 0
    (t,) = json.loads(capsys.readouterr().out)
    assert t["state"] == "paused" and t["paused_at"] and secret not in json.dumps(t)
    assert main(["tokens", "list", "--db", db]) == 0
    assert "paused 20" in capsys.readouterr().out
    for argv, message in ((["pause", "bot"], "is paused already"),
                          (["pause", "ghost"], "no token named 'ghost'")):
        assert main(["tokens", *argv, "--db", db]) == 2
        assert message in capsys.readouterr().err
    assert main(["tokens", "resume", "bot", "--db", db]) == 0
    assert "resumed" in capsys.readouterr().out
    assert main(["tokens", "resume", "bot", "--db", db]) == 2
    assert "is not paused" in capsys.readouterr().err
    assert main(["tokens", "revoke", "bot", "--db", db]) == 0
    capsys.readouterr()
    assert main(["tokens", "pause", "bot", "--db", db]) == 2
    assert "a revoked token cannot be paused" in capsys.readouterr().err
    # Both are in the store's history, naming the token, never the secret.
    store = MemoryStore.open(db, create=False)
    try:
        rows = [(e.action, e.target) for e in store.events("*") if e.target == "bot"]
    finally:
        store.close()
    assert ("token_pause", "bot") in rows and ("token_resume", "bot") in rows


def test_an_export_keeps_the_archive_and_an_import_restores_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Archived is part of a memory's record: exported with it, imported as archived
    (never recalled in the new store either)."""
    db, ids = seeded(tmp_path)
    assert main(["archive", ids[0], "--db", db]) == 0
    out = tmp_path / "out.jsonl"
    assert main(["export", "--out", str(out), "--db", db]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["id"]: bool(r.get("archived_at")) for r in rows} == {
        ids[0]: True, ids[1]: False, ids[2]: False}
    other = str(tmp_path / "other.db")
    assert main(["import", str(out), "--db", other]) == 0
    capsys.readouterr()
    store = MemoryStore.open(other, create=False)
    try:
        got = {r.text: r.status for r in store.page(limit=None)}
    finally:
        store.close()
    assert got == {"memory 0": Status.ARCHIVED, "memory 1": Status.ACTIVE,
                   "memory 2": Status.ACTIVE}
