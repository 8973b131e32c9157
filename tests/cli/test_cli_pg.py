"""The CLI's store commands on both backends (``--db <file>`` and ``--db <PostgreSQL URL>``):
add, list (filters, text search, count), show, retrieve, maintain, export, import, undo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdesk.app.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    rc = main(list(args))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def test_store_commands_round_trip(store_path: Path | str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = str(store_path)
    added = []
    for text, kind, imp in (("User prefers green tea in the morning", "preference", "0.7"),
                            ("User works at Globex on the billing team", "fact", "0.6"),
                            ("User's cat is called Pixel", "fact", "0.3")):
        added.append(json.loads(run(capsys, "add", "--db", db, "--user", "alice", "--type",
                                    kind, "--text", text, "--importance", imp, "--json")))
    run(capsys, "add", "--db", db, "--user", "bob", "--type", "note", "--text",
        "Bob prefers coffee")
    rows = json.loads(run(capsys, "list", "--db", db, "--json", "--user", "alice"))
    assert {r["id"] for r in rows} == {a["id"] for a in added}
    found = json.loads(run(capsys, "list", "--db", db, "--json", "--text", "prefer"))
    assert {r["text"] for r in found} == {"User prefers green tea in the morning",
                                          "Bob prefers coffee"}
    assert run(capsys, "list", "--db", db, "--count", "--importance", "0.55:0.8").strip() == "2"
    shown = json.loads(run(capsys, "show", "--db", db, added[1]["id"][:8], "--json"))
    assert shown["history"][0]["action"] == "add"

    got = json.loads(run(capsys, "retrieve", "--db", db, "--user", "alice", "--channels",
                         "fts", "--json", "globex billing"))
    ids = [r["id"] for r in got["results"]] if isinstance(got, dict) else [r["id"] for r in got]
    assert ids[0] == added[1]["id"] and added[2]["id"] not in ids

    maintained = json.loads(run(capsys, "maintain", "--db", db, "--json"))
    assert maintained["decayed"] == 4  # every row's decay score, on either backend

    out = tmp_path / "all.jsonl"
    run(capsys, "export", "--db", db, "--out", str(out), "--user", "alice")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(x["id"] for x in lines) == sorted(a["id"] for a in added)

    copy = tmp_path / "copy.db"
    run(capsys, "import", "--db", str(copy), str(out))
    again = json.loads(run(capsys, "list", "--db", str(copy), "--json"))
    assert {r["text"] for r in again} == {a["text"] for a in added}

    event = shown["history"][0]["event"]
    run(capsys, "undo", "--db", db, str(event))
    assert run(capsys, "list", "--db", db, "--count", "--user", "alice").strip() == "2"


def test_an_unreachable_server_exits_3_without_a_traceback() -> None:
    r = subprocess.run([sys.executable, "-m", "memdesk.app.main", "list", "--db",
                        "postgresql+psycopg://memdesk:secret@127.0.0.1:1/none"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "Traceback" not in r.stderr
    assert "secret" not in r.stderr and "127.0.0.1" in r.stderr
