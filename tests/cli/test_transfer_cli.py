"""``memdesk export`` / ``memdesk import`` as operators and scripts run them."""

from __future__ import annotations

import json
import os
import signal
import sys
from functools import partial
from pathlib import Path

import pytest

from memdesk.app.cli import transfer as cli_transfer
from memdesk.app.main import main
from tests.helpers.cli import run

cli = partial(run, text=False)  # bytes in and out


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "s.db")
    for text, kind in (("User prefers dark mode", "preference"), ("User is a backend engineer",
                                                                    "fact")):
        assert main(["add", "--db", path, "--user", "alice", "--type", kind, "--text", text]) == 0
    return path


def test_export_import_round_trip_through_files_and_pipes(db: str, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    r = cli("export", "--db", db, "--out", str(out))
    assert r.returncode == 0 and b"exported 2 memories" in r.stderr
    piped = cli("export", "--db", db)
    assert piped.stdout == out.read_bytes() and len(piped.stdout.splitlines()) == 2
    copy = str(tmp_path / "copy.db")
    r = cli("import", "-", "--db", copy, stdin=piped.stdout)
    assert r.returncode == 0, r.stderr
    assert b"imported 2, updated 0, skipped 0, bad 0" in r.stdout
    assert cli("export", "--db", copy).stdout == piped.stdout
    r = cli("import", str(out), "--db", copy)
    assert r.returncode == 0 and b"skipped 2 (already in the store)" in r.stdout


def test_bad_lines_listed_on_stderr_good_ones_imported(db: str, tmp_path: Path) -> None:
    f = tmp_path / "in.jsonl"
    f.write_bytes(b'{"user_id":"u","text":"ok","type":"fact"}\n'
                  b'{"user_id":"u","text":"x","type":"fact","confidence":2}\n'
                  b"\xc3\x28\n")
    r = cli("import", str(f), "--db", db)
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    err = r.stderr.decode()
    assert "line 2: confidence: must be in [0, 1], got 2.0" in err
    assert "line 3: not valid UTF-8" in err
    assert "imported 1, updated 0, skipped 0, bad 2" in r.stdout.decode()
    r = cli("list", "--db", db, "--count")
    assert r.stdout.strip() == b"3"
    # only bad items, nothing changed: bad input, exit 2 (as everywhere in the CLI)
    f.write_bytes(b'{"user_id":"u","text":"x","type":"fact","confidence":2}\n')
    r = cli("import", str(f), "--db", db)
    assert r.returncode == 2 and b"bad 1" in r.stdout


def test_json_report_and_undo(db: str, tmp_path: Path, capsys) -> None:
    f = tmp_path / "in.jsonl"
    f.write_text('{"id":"n1","user_id":"u","text":"one","type":"fact"}\n'
                 '{"id":"n2","user_id":"u","text":"two","type":"nope"}\n')
    assert main(["import", str(f), "--db", db, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["bad_count"] == 1
    assert rep["imported"] == 1 and rep["bad"] == [
        {"line": 2, "id": "n2", "reason": rep["bad"][0]["reason"]}]
    assert "nope" in rep["bad"][0]["reason"]
    assert main(["import", "--db", db, "--undo", rep["group"]]) == 0
    assert "undone: 1 changes" in capsys.readouterr().out
    assert main(["show", "--db", db, "n1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "deleted"
    assert main(["import", "--db", db, "--undo", "not-a-group"]) == 4


@pytest.mark.parametrize("args, message", [
    (("export", "--out", "{db}"), b"the store itself"),
    (("export", "--out", "{tmp}/nope/x.jsonl"), b"does not exist"),
    (("export", "--out", "{tmp}"), b"is a folder"),
    (("import", "{tmp}/missing.jsonl"), b"no file"),
    (("import", "{tmp}/photo.png"), b"does not look like memories"),
    (("import",), b"give a file"),
    (("import", "x", "--undo", "g"), b"not both"),
    (("import", "{db}"), b"the store being imported into"),
])
def test_refusals_are_messages_not_tracebacks(db: str, tmp_path: Path, args, message) -> None:
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00\xff\n" * 200)
    r = cli(*(a.format(db=db, tmp=tmp_path) for a in args), "--db", db)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert b"Traceback" not in r.stderr


def test_export_failure_keeps_previous_file(db: str, tmp_path: Path, monkeypatch,
                                           capsys) -> None:
    out = tmp_path / "keep.jsonl"
    out.write_text("previous export\n")
    import memdesk.core.transfer.jsonl as J

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(J, "export_jsonl", boom)
    assert main(["export", "--db", db, "--out", str(out)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "previous export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_mem0_and_recall_are_recognised(db: str, tmp_path: Path) -> None:
    doc = {"results": [{"id": "3c90c3cc-0d44-4b50-8888-8dd25736052a", "memory": "Likes tea",
                        "hash": "h", "metadata": {"category": "food"},
                        "created_at": "2024-07-20T01:02:03-07:00", "updated_at": None,
                        "user_id": "alice"}]}
    r = cli("import", "-", "--db", db, stdin=json.dumps(doc, indent=2).encode())
    assert r.returncode == 0, r.stderr
    assert b"imported 1" in r.stdout
    copy = str(tmp_path / "copy.db")
    r = cli("import", db, "--db", copy)  # a memdesk store is read as a Recall file
    assert r.returncode == 0 and b"imported 3" in r.stdout
    r = cli("import", db, "--db", copy, "--from", "mem0")
    assert r.returncode == 2 and b"not a Mem0 export" in r.stderr
    # a bad input does not leave a new empty store behind
    r = cli("import", str(tmp_path / "missing.json"), "--db", str(tmp_path / "new.db"))
    assert r.returncode == 2 and not (tmp_path / "new.db").exists()


def test_progress_only_on_a_terminal(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert cli_transfer._progress("importing", "bytes") is None
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    show = cli_transfer._progress("importing", "bytes")
    show(50, 200)
    assert "importing: 25%" in capsys.readouterr().err
    show(2_500_000, 0)  # a pipe: no total
    assert "importing: 2.5 MB read" in capsys.readouterr().err
    cli_transfer._progress("exporting", "memories")(10, 20)
    assert "exporting: 10 / 20 memories" in capsys.readouterr().err


@pytest.mark.skipif(os.name != "posix", reason="SIGINT handling is POSIX")
def test_first_ctrl_c_asks_to_stop(capsys) -> None:
    # Whatever handler was there is put back (a background shell starts us with SIGINT
    # ignored, pytest with the default one).
    before = signal.getsignal(signal.SIGINT)
    with cli_transfer._interruptible() as cancelled:
        assert not cancelled()
        os.kill(os.getpid(), signal.SIGINT)
        assert cancelled()
    assert "stopping after the current batch" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before
