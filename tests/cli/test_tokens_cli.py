"""``memdesk tokens add|list|revoke``: the secret on stdout once (the rest on stderr),
bad input refused with exit 2 and a message before anything is written, revocation
and listing that never show a secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main


def test_add_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["tokens", "add", "bot", "--user", "alice", "--user", "bob",
                 "--rights", "read,forget", "--db", db]) == 0
    out = capsys.readouterr()
    secret = out.out.strip()
    assert secret.startswith("mdk_") and "\n" not in secret
    assert "cannot be shown again" in out.err
    assert main(["tokens", "list", "--json", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert secret not in listed
    (t,) = json.loads(listed)
    assert (t["name"], t["users"], t["rights"], t["revoked_at"]) == (
        "bot", ["alice", "bob"], ["read", "forget"], None)
    assert main(["tokens", "revoke", "bot", "--db", db]) == 0
    assert "revoked" in capsys.readouterr().out
    assert main(["tokens", "list", "--db", db]) == 0
    assert "revoked" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["add", "bad name", "--user", "a"], "not usable"),
    (["add", "ok", "--user", "a", "--rights", "read,admin"], "unknown right(s) admin"),
    (["add", "ok", "--user", "a", "--rights", ","], "at least one right"),
    (["add", "ok", "--user", ""], "not usable"),
])
def test_bad_input_exits_2_and_creates_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        message: str) -> None:
    db = tmp_path / "s.db"
    assert main(["tokens", *args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not db.exists()  # refused before the store was opened (or created)


def test_revoking_what_is_not_there_exits_2(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["tokens", "add", "one", "--user", "a", "--db", db]) == 0
    capsys.readouterr()
    assert main(["tokens", "revoke", "two", "--db", db]) == 2
    assert "no token named 'two'" in capsys.readouterr().err
    assert main(["tokens", "add", "one", "--user", "a", "--db", db]) == 2
    assert "exists already" in capsys.readouterr().err
