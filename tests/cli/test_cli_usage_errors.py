"""Bad input on the command line: exit 2 with the field named, nothing written, and no
memory text or SQL in any message."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError, StatementError

from memdesk.app.main import main

SECRET = "User's bank PIN is 4711"  # must never appear in an error message


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``memdesk ARGS`` in-process: (exit code, stdout, stderr); argparse's exit included."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.db")
    assert run(capsys, "add", "--db", path, "--user", "u", "--type", "note",
               "--text", SECRET)[0] == 0
    return path


@pytest.mark.parametrize(("args", "named"), [
    (["undo", "99999999999999999999999"], "EVENT|GROUP"),
    (["list", "--importance", "nan:inf"], "--importance"),
    (["list", "--confidence", "0.2:inf"], "--confidence"),
    (["list", "--importance", "0.2:1.5"], "--importance"),
    (["list", "--limit", "-1"], "--limit"),
    (["list", "--offset", "-5"], "--offset"),
    (["list", "--type", "bogus"], "--type"),
    (["list", "--layer", "bogus"], "--layer"),
    (["worker", "--lease", "-1"], "--lease"),
    (["worker", "--lease", "nan"], "--lease"),
    (["worker", "--poll", "0"], "--poll"),
])
def test_bad_option_values_are_usage_errors_naming_the_option(
        db: str, capsys: pytest.CaptureFixture[str], args: list[str], named: str) -> None:
    before = Path(db).read_bytes()
    code, _, err = run(capsys, *args, "--db", db)
    assert code == 2, err
    assert f"argument {named}:" in err
    assert "Traceback" not in err and "unexpected error" not in err
    assert Path(db).read_bytes() == before


def test_a_valid_type_and_range_still_list(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--db", db, "--type", "NOTE", "--importance", "0:1",
                       "--limit", "0", "--count")
    assert (code, out.strip()) == (0, "1")


def test_deeply_nested_candidates_are_refused_by_name(
        tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run(capsys, "snapshot", "--db", db, "--goal", "g", "--candidates", str(deep))
    assert code == 2
    assert "candidates:" in err and "nested too deeply" in err


@pytest.mark.parametrize("url", ["mysql://admin:hunter2@db.example/mem",
                                 "oracle+cx://admin:hunter2@db/x", "foo:/://bar"])
def test_a_database_memdesk_cannot_use_is_a_usage_error(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--db", url)
    assert code == 2
    assert "db:" in err and "hunter2" not in err and "unexpected error" not in err


def _read_only_runner() -> list[str] | None:
    """A command prefix under which the store file cannot be written: as root, without
    the capabilities that override file permissions; otherwise as we are."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_retrieve_on_a_read_only_store_exits_3_without_sql_or_memory_text(
        db: str, tmp_path: Path) -> None:
    prefix = _read_only_runner()
    if prefix is None:
        pytest.skip("running as root without setpriv: cannot make a file read-only")
    os.chmod(db, 0o444)
    r = subprocess.run([*prefix, sys.executable, "-m", "memdesk.app.main", "retrieve",
                        "--db", db, "--user", "u", "bank PIN"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 3, r.stderr
    assert "read-only" in r.stderr
    for leak in ("4711", "INSERT", "SQL", "Traceback"):
        assert leak not in r.stderr + r.stdout


@pytest.mark.parametrize("make", [
    lambda: OperationalError(
        "INSERT INTO memories (id, text) VALUES (?, ?)", ("m1", SECRET),
        Exception('new row violates check constraint "ck_importance"\n'
                  f"DETAIL:  Failing row contains (m1, {SECRET}).")),
    lambda: StatementError("(builtins.TypeError) unsupported type",
                           "UPDATE memories SET text = ? WHERE id = ?", (SECRET, "m1"),
                           TypeError("unsupported type")),
])
def test_database_errors_are_reported_without_sql_or_stored_text(make) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.store.faults import as_store_error, safe_message

    exc = make()
    assert SECRET in str(exc)  # what SQLAlchemy's own text would have shown
    shown = str(as_store_error(exc, "s.db") or safe_message(exc))
    for leak in ("4711", "INSERT", "UPDATE", "Failing row"):
        assert leak not in shown
    assert ("check constraint" in shown) or ("unsupported type" in shown)
