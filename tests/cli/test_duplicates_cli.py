"""`memdesk duplicates list|merge|dismiss|undo`: clusters listed (text and JSON), a merge
by cluster id that prints its event numbers and its group, `memdesk undo N` and
`duplicates undo GROUP` taking it back, dismissals remembered, and bad input refused
with exit 2 and the field named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.memory_store import MemoryStore


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "s.db")
    store = MemoryStore.open(path)
    for conf in (0.9, 0.5, 0.9):
        store.add(user_id="u", text="User lives in Lisbon.", type="fact", confidence=conf)
    store.add(user_id="u", text="user lives in lisbon", type="fact", confidence=0.3)
    store.add(user_id="u", text="User works at Acme.", type="fact")
    store.close()
    return path


def listed(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["--db", db, "duplicates", "list", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def active(db: str) -> list[str]:
    store = MemoryStore.open(db)
    try:
        return [r.text for r in store.active()]
    finally:
        store.close()


def test_list_merge_by_cluster_and_undo_the_whole_merge(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", db, "duplicates", "list"]) == 0
    out = capsys.readouterr().out
    assert "4 memories" in out and "keep?" in out and "1 open cluster(s)" in out
    [cluster] = listed(db, capsys)["clusters"]
    assert cluster["size"] == 4
    # Nothing here was flagged by the worker at write time: each member says so.
    assert [m["flagged"] for m in cluster["members"]] == [False] * 4
    assert main(["--db", db, "duplicates", "merge", cluster["cluster"], "--keep",
                 "suggested", "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["kept"] == cluster["suggested_keep"] and len(merged["events"]) == 3
    assert sorted(active(db)) == ["User lives in Lisbon.", "User works at Acme."]
    assert listed(db, capsys)["total"] == 0
    assert main(["--db", db, "duplicates", "undo", merged["action_group"]]) == 0
    assert "undone: 3 change(s)" in capsys.readouterr().out
    assert len(active(db)) == 5


def test_merge_by_ids_prints_the_event_memdesk_undo_takes_back(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    [cluster] = listed(db, capsys)["clusters"]
    a, b = (m["id"] for m in cluster["members"][:2])
    assert main(["--db", db, "duplicates", "merge", a[:10], b[:10], "--keep", a[:10]]) == 0
    out = capsys.readouterr().out
    event = out.split("`memdesk undo ")[1].split("`")[0]
    assert len(active(db)) == 4
    assert main(["--db", db, "undo", event]) == 0
    assert len(active(db)) == 5


def test_dismissed_clusters_are_not_listed_again(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    [cluster] = listed(db, capsys)["clusters"]
    assert main(["--db", db, "duplicates", "dismiss", cluster["cluster"]]) == 0
    assert "not offered together again" in capsys.readouterr().out
    assert listed(db, capsys)["total"] == 0
    assert len(active(db)) == 5


def test_dismiss_as_json_names_the_action_and_its_undo_group(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    [cluster] = listed(db, capsys)["clusters"]
    assert main(["--db", db, "duplicates", "dismiss", cluster["cluster"], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["action"] == "dismiss" and out["kept"] is None
    assert sorted(out["members"]) == sorted(m["id"] for m in cluster["members"])
    assert main(["--db", db, "duplicates", "undo", out["action_group"]]) == 0
    capsys.readouterr()
    assert listed(db, capsys)["total"] == 1


@pytest.mark.parametrize(("args", "field"), [
    (["list", "--threshold", "0.1"], "threshold"),
    (["list", "--threshold", "high"], "threshold"),
    (["list", "--limit", "0"], "limit"),
    (["merge", "not-a-cluster", "--keep", "x"], "members"),
    (["dismiss", "12-zz"], "cluster"),
])
def test_bad_input_exits_2_naming_the_field(db: str, capsys: pytest.CaptureFixture[str],
                                            args: list[str], field: str) -> None:
    assert main(["--db", db, "duplicates", *args]) == 2
    assert f"{field}:" in capsys.readouterr().err
    assert len(active(db)) == 5


def test_merge_keep_outside_the_members_is_refused(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    data = listed(db, capsys)
    acme = next(t for t in ["User works at Acme."])
    store = MemoryStore.open(db)
    other = next(r.id for r in store.active() if r.text == acme)
    store.close()
    cid = data["clusters"][0]["cluster"]
    assert main(["--db", db, "duplicates", "merge", cid, "--keep", other]) == 2
    assert "keep:" in capsys.readouterr().err
