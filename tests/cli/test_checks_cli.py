"""``memdesk checks``: add, list, run (its exit status for scripts and CI), remove, undo,
and every bad input as a message and an exit code, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli
from tests.helpers.read import put


@pytest.fixture
def db(tmp_path: Path) -> tuple[str, list[str]]:
    path = tmp_path / "s.db"
    store = MemoryStore.open(path)
    ids = put(store, [{"text": "The kayak club meets on Tuesdays.", "days_ago": 2},
                      {"text": "My sister lives in Lisbon.", "days_ago": 3}])
    put(store, [{"text": "Bob's dog is called Rex.", "days_ago": 1}], user="bob")
    store.close()
    return str(path), ids


def test_run_without_checks_says_so_with_its_own_status(db: tuple[str, list[str]]) -> None:
    path, _ = db
    code, out, err = cli("checks", "run", "--db", path)
    assert code == 5 and "no recall checks" in err and out == ""
    code, out, _ = cli("checks", "list", "--db", path)
    assert code == 0 and "no recall checks" in out


def test_add_run_pass_then_fail_then_undo(db: tuple[str, list[str]]) -> None:
    path, ids = db
    code, out, err = cli("checks", "add", "--db", path, "--user", "u", "--query",
                         "when does the kayak club meet?", "--expect", ids[0][:8],
                         "--expect-not", ids[1], "--json")
    assert code == 0, err
    added = json.loads(out)
    assert added["expect"] == [ids[0]] and added["expect_not"] == [ids[1]]
    code, out, _ = cli("checks", "run", "--db", path)
    assert code == 0 and out.startswith("PASS") and "1 check: 1 passed, 0 failed" in out

    code, out, _ = cli("delete", ids[0], "--db", path)
    assert code == 0
    code, out, _ = cli("checks", "run", "--db", path)
    assert code == 1 and "FAIL" in out and "(was passing)" in out
    assert f"expected {ids[0]}: deleted on" in out
    code, out, _ = cli("checks", "run", "--db", path, "--json")
    report = json.loads(out)
    assert code == 1 and report["failed"] == 1
    assert report["checks"][0]["expected"][0]["state"] == "deleted"

    code, out, _ = cli("checks", "list", "--db", path)
    assert code == 0 and "FAILED" in out and added["id"][:8] in out
    code, out, _ = cli("checks", "remove", added["id"][:8], "--db", path)
    assert code == 0 and "memdesk undo" in out
    event = out.split("`memdesk undo ")[1].split("`")[0]
    assert cli("checks", "run", "--db", path).returncode == 5
    assert cli("checks", "remove", added["id"], "--db", path).returncode == 5  # already
    code, out, _ = cli("undo", event, "--db", path)
    assert code == 0
    code, out, _ = cli("checks", "list", "--db", path, "--json")
    assert [c["id"] for c in json.loads(out)] == [added["id"]]


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--user", "u", "--query", "", "--expect", "X"], 2, "query: is empty"),
    (["--user", "", "--query", "q", "--expect", "X"], 2, "user_id"),
    (["--user", "u", "--query", "q", "--expect", "EXP", "--expect-not", "EXP"], 2,
     "both expected and forbidden"),
    (["--user", "u", "--query", "q", "--expect", "feedface0000"], 4, "feedface0000"),
    (["--user", "u", "--query", "q", "--expect", "BOB"], 2, "another user's"),
    (["--user", "u", "--query", "q" * 10_001, "--expect", "EXP"], 2, "limit"),
    (["--user", "u", "--query", "q"], 2, "--expect"),
])
def test_bad_input_is_a_message_and_an_exit_code(db: tuple[str, list[str]], args: list[str],
                                                 code: int, words: str) -> None:
    path, ids = db
    bob = MemoryStore.open(path, create=False)
    bob_id = bob.page(bob_filter(), limit=1)[0].id
    bob.close()
    args = [ids[0] if a == "EXP" else bob_id if a == "BOB" else a for a in args]
    result = cli("checks", "add", "--db", path, *args)
    assert result.returncode == code, result
    assert words in result.stderr and "Traceback" not in result.stderr
    assert json.loads(cli("checks", "list", "--db", path, "--all", "--json").stdout) == []


def bob_filter():  # type: ignore[no-untyped-def]
    from memdesk.core.store.query import MemoryFilter

    return MemoryFilter(user_ids=("bob",))


def test_unknown_check_ids_are_not_found(db: tuple[str, list[str]]) -> None:
    path, _ = db
    assert cli("checks", "remove", "abcdef12", "--db", path).returncode == 4
    assert cli("checks", "run", "abcdef12", "--db", path).returncode == 4


def test_every_option_has_help() -> None:
    import argparse

    from memdesk.app.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    checks = sub.choices["checks"]
    actions = next(a for a in checks._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in actions.choices.items():
        for a in p._actions:
            if a.dest not in ("help", "db"):
                assert a.help, f"checks {name}: {a.dest} has no help"
