"""Every option of every command says what it does (`--help`), every option with a fixed
set of values lists them in its help, and a wrong value is refused naming the option
and the values it takes.  The walk covers whatever the parser holds, so a command added
later is held to the same rule."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from memdesk.app.cli.main import build_parser
from tests.helpers.cli import cli


def _options(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("memdesk",)
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield path, parser, action


OPTIONS = list(_options(build_parser()))


def _name(path: tuple[str, ...], action: argparse.Action) -> str:
    return " ".join(path) + " " + (action.option_strings[0] if action.option_strings
                                   else action.dest)


def test_the_walk_reaches_the_subcommands() -> None:
    names = {_name(p, a) for p, _, a in OPTIONS}
    assert {"memdesk list --sort", "memdesk demo --out", "memdesk jobs cancel job_id"} <= names


def test_every_option_of_every_command_has_help_text() -> None:
    # argparse.SUPPRESS hides an option on purpose (a spelling kept for old scripts).
    bare = [_name(p, a) for p, _, a in OPTIONS
            if a.help != argparse.SUPPRESS and not (a.help or "").strip()]
    assert not bare, "options without help text:\n" + "\n".join(bare)


def test_every_choice_is_listed_in_the_help() -> None:
    unlisted = []
    for path, parser, action in OPTIONS:
        if not action.choices or action.help == argparse.SUPPRESS:
            continue
        text = parser.format_help()
        unlisted += [f"{_name(path, action)}: {c}" for c in action.choices
                     if str(c) not in text]
    assert not unlisted, "choices missing from --help:\n" + "\n".join(unlisted)


def test_list_sort_lists_its_keys_in_help() -> None:
    code, out, _ = cli("list", "--help")
    assert code == 0
    assert "--sort" in out and "importance" in out and "created_at" in out


@pytest.mark.parametrize("key", ["nonsense", "embedding"])
def test_a_bad_sort_key_is_refused_naming_the_option_and_the_keys(tmp_path, key: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--db", str(tmp_path / "s.db"), "list", "--sort", key)
    assert code == 2 and out == ""
    assert "--sort" in err and "importance" in err and "created_at" in err
    assert "order_by" not in err and "Traceback" not in err


@pytest.mark.parametrize("command", [
    ["add", "--user", "u", "--type", "fact", "--text", "t"],
    ["edit", "abcd", "--topic", "x"],
    ["delete", "abcd"],
])
@pytest.mark.parametrize("actor", ["agent", "worker"])
def test_a_cli_user_cannot_sign_as_the_agent_or_the_worker(tmp_path, command, actor) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--db", str(tmp_path / "s.db"), *command, "--actor", actor)
    assert code == 2 and out == ""
    assert "--actor" in err and "operator" in err and "Traceback" not in err
    assert not (tmp_path / "s.db").exists()  # refused before anything was opened


def test_the_cli_signs_its_changes_as_the_operator(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    db = str(tmp_path / "s.db")
    code, out, _ = cli("--db", db, "add", "--user", "u", "--type", "fact", "--text", "t",
                       "--json")
    assert code == 0
    mid = json.loads(out)["id"]
    assert cli("--db", db, "edit", mid, "--topic", "x", "--actor", "operator").returncode == 0
    code, out, _ = cli("--db", db, "show", mid, "--json")
    assert {e["actor"] for e in json.loads(out)["history"]} == {"operator"}


def test_a_missing_store_is_reported_with_how_to_make_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "none.db"
    code, out, err = cli("--db", str(missing), "list")
    assert code == 3 and out == ""
    assert f"There is no store at {missing}." in err
    assert f"memdesk --db {missing} add" in err and "memdesk demo --out FILE" in err
    assert not missing.exists()
