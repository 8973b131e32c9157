"""The memdesk CLI, run as a real subprocess where exit codes and streams matter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.app.main import main
from tests.helpers.cli import run as cli
from tests.helpers.raw_sql import sqlite_file


def test_add_list_show_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["add", "--db", db, "--user", "alice", "--type", "preference", "--text",
                 "User prefers <b>dark</b> mode", "--importance", "0.7", "--layer",
                 "procedural", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["text"] == "User prefers <b>dark</b> mode" and added["layer"] == "procedural"
    assert main(["--db", db, "list", "--json", "--text", "dark"]) == 0  # --db before the command
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [added["id"]]
    assert main(["list", "--db", db, "--count", "--importance", "0.6:0.8"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["show", "--db", db, added["id"], "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["history"][0]["action"] == "add" and shown["history"][0]["actor"] == "operator"


def test_bad_values_exit_2_and_write_nothing(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    rc = main(["add", "--db", db, "--user", "u", "--type", "opinion", "--text", "x"])
    assert rc == 2 and "type" in capsys.readouterr().err
    rc = main(["add", "--db", db, "--user", "u", "--type", "fact", "--text", "x",
               "--importance", "nan"])
    assert rc == 2 and "importance" in capsys.readouterr().err
    assert main(["list", "--db", db, "--count"]) == 0
    assert capsys.readouterr().out.strip() == "0"


def test_store_errors_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 500)
    r = cli("list", "--db", str(bad))
    assert r.returncode == 3 and "not a readable" in r.stderr and "Traceback" not in r.stderr
    r = cli("list", "--db", str(tmp_path / "missing.db"))
    assert r.returncode == 3 and "no store" in r.stderr
    r = cli("list", "--db", str(tmp_path / "no" / "dir.db"))
    assert r.returncode == 3


def test_newer_schema_exit_3(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert main(["add", "--db", str(db), "--user", "u", "--type", "fact", "--text", "t"]) == 0
    sqlite_file(db, "UPDATE alembic_version SET version_num='zzz'")
    r = cli("list", "--db", str(db))
    assert r.returncode == 3 and "zzz" in r.stderr and "Update memdesk" in r.stderr


def test_show_unknown_exit_4(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    main(["add", "--db", db, "--user", "u", "--type", "fact", "--text", "t"])
    capsys.readouterr()
    assert main(["show", "--db", db, "nope"]) == 4


def test_db_info_and_upgrade(tmp_path: Path) -> None:
    from tests.helpers.recall import make_recall_store

    db = make_recall_store(tmp_path / "recall.db", rows=4)
    r = cli("db", "upgrade", "--db", str(db))
    assert r.returncode == 0 and "Upgraded store schema from 0001" in r.stdout
    r = cli("db", "info", "--db", str(db), "--json")
    info = json.loads(r.stdout)
    from memdesk.core.store.db import DRIVER, DRIVER_NAME

    assert info["sqlite_library_version"] == DRIVER.sqlite_version
    assert info["sqlite_driver"] == DRIVER_NAME
    assert info["counts"]["total"] == 4 and info["journal_mode"] == "wal"
    r = cli("db", "info", "--db", str(db))
    assert "sqlite_library_version" in r.stdout
    if info["sqlite_wal_reset_bug"]:
        assert "WAL-reset bug" in r.stdout


def test_demo_command(tmp_path: Path) -> None:
    out = tmp_path / "demo.db"
    r = cli("demo", "--out", str(out), "--size", "500", "--seed", "3")
    assert r.returncode == 0, r.stderr
    r = cli("list", "--db", str(out), "--count")
    # Every row but the hypotheticals, which a list leaves out unless asked for.
    hyp = cli("list", "--db", str(out), "--count", "--status", "hypothetical")
    assert int(r.stdout) + int(hyp.stdout) == 500 and int(hyp.stdout) > 0
    r = cli("demo", "--out", str(out), "--size", "10")
    assert r.returncode == 2 and "--force" in r.stderr


def test_add_prints_the_event_that_undo_takes(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    assert main(["add", "--db", db, "--user", "u", "--type", "note", "--text", "first"]) == 0
    out = capsys.readouterr().out
    assert main(["add", "--db", db, "--user", "u", "--type", "note", "--text", "second",
                 "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    # the text form names the memory and the event; the event is the one `undo` takes
    first_id, first_event = out.split()[1], int(out.split("event ")[1].split(";")[0])
    assert f"memdesk undo {first_event}" in out
    assert main(["show", "--db", db, first_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["history"][0]["event"] == first_event
    assert second["event_id"] != first_event
    assert main(["undo", "--db", db, str(second["event_id"])]) == 0
    capsys.readouterr()
    assert main(["list", "--db", db, "--json", "--status", "active"]) == 0
    assert [r["text"] for r in json.loads(capsys.readouterr().out)] == ["first"]


def test_undoing_an_undone_event_exits_5_and_changes_nothing(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    main(["add", "--db", db, "--user", "u", "--type", "note", "--text", "t", "--json"])
    event = json.loads(capsys.readouterr().out)["event_id"]
    assert main(["undo", "--db", db, str(event)]) == 0
    capsys.readouterr()
    assert main(["undo", "--db", db, str(event)]) == 5
    assert "already undone" in capsys.readouterr().err
    assert main(["list", "--db", db, "--count"]) == 0  # the memory stays removed
    assert capsys.readouterr().out.strip() == "0"
    assert main(["undo", "--db", db, "999"]) == 4
    assert main(["undo", "--db", db, f"#{event}"]) == 5  # as `show` prints it
    capsys.readouterr()
    r = cli("undo", "--db", db, "twelve")
    assert r.returncode == 2 and "expected an event number" in r.stderr
    r = cli("--help")
    assert "5    refused by the store's current state: already undone" in r.stdout


def add_with_id(db: str, memory_id: str) -> None:
    from memdesk.core.store.memory_store import MemoryStore

    s = MemoryStore.open(db)
    s.add(id=memory_id, user_id="u", text=f"memory {memory_id}", type="note")
    s.close()


def test_show_takes_unique_prefixes(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    for mid in ("abcd1111", "abcd2222", "ef01ef01"):
        add_with_id(db, mid)
    assert main(["show", "--db", db, "ef01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "ef01ef01"
    assert main(["show", "--db", db, "EF01E", "--json"]) == 0  # hex typed in capitals
    assert json.loads(capsys.readouterr().out)["id"] == "ef01ef01"
    assert main(["show", "--db", db, "abcd"]) == 2
    err = capsys.readouterr().err
    assert "ambiguous memory id 'abcd'" in err and "abcd1111" in err and "abcd2222" in err
    assert main(["show", "--db", db, "abcd2"]) == 0
    assert "memory abcd2222" in capsys.readouterr().out
    assert main(["show", "--db", db, "0000"]) == 4
    assert "No memory '0000'" in capsys.readouterr().err
    assert main(["show", "--db", db, "ef0"]) == 4  # too short for a prefix: never guessed


def test_demo_writes_only_out_and_refuses_db(tmp_path: Path) -> None:
    out, other = tmp_path / "demo.db", tmp_path / "other.db"
    for argv in (["demo", "--db", str(other), "--out", str(out)],
                 ["--db", str(other), "demo", "--out", str(out)]):
        r = cli(*argv, "--size", "10")
        assert r.returncode == 2 and "--out" in r.stderr and "Traceback" not in r.stderr
        assert not out.exists() and not other.exists()
    r = cli("demo", "--size", "10")
    assert r.returncode == 2 and "--out" in r.stderr
    assert "\n  --db" not in cli("demo", "--help").stdout  # not offered as an option


def test_output_to_a_closed_pipe_ends_quietly(demo_template: Path) -> None:
    """`memdesk list | head -1`: no BrokenPipeError traceback, exit 141 like Unix tools."""
    with subprocess.Popen(
        [sys.executable, "-m", "memdesk.app.main", "list", "--db", str(demo_template),
         "--limit", "3000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()  # the reader takes one line and leaves
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_readme_lists_every_exit_code_of_the_help() -> None:
    from memdesk.app.cli.common import EXIT_CODES_HELP

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = {line.split("|")[1].strip() for line in readme.splitlines()
             if line.startswith("| ") and line.split("|")[1].strip().isdigit()}
    codes = {line.split()[0] for line in EXIT_CODES_HELP.splitlines()[1:]
             if line.split() and line.split()[0].isdigit()}
    assert codes == table == {"0", "1", "2", "3", "4", "5", "130", "141"}


def test_help_and_readme_never_cite_internal_design_documents() -> None:
    """Users do not know the design documents (by file number); help says what a thing is."""
    import argparse
    import re

    from memdesk.app.cli.main import build_parser

    def helps(parser: argparse.ArgumentParser):  # type: ignore[no-untyped-def]
        yield parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from helps(sub)

    texts = list(helps(build_parser()))
    assert len(texts) > 20  # every subcommand and action was visited
    texts.append((Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8"))
    cited = [m.group(0) for t in texts for m in re.finditer(r"seeds?\s+0\d\d", t, re.I)]
    assert cited == []
