"""No token may be named ``local``: the access log names stdio and open-loopback callers
so, and a token of that name would make its calls indistinguishable from theirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import cli


@pytest.mark.parametrize("name", ["local", "LOCAL", "Local"])
def test_a_token_named_local_is_refused_and_nothing_is_created(tmp_path: Path,
                                                               name: str) -> None:
    db = tmp_path / "s.db"
    code, out, err = cli("tokens", "add", name, "--user", "alice", "--db", str(db))
    assert code == 2 and out == ""
    assert "reserved" in err and "local" in err and "Traceback" not in err
    assert not db.exists()  # refused before the store was opened (or created)


def test_names_that_only_start_with_local_are_fine(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    code, out, err = cli("tokens", "add", "local-agent", "--user", "alice", "--db", db)
    assert code == 0, err
    code, out, err = cli("tokens", "list", "--db", db)
    assert code == 0 and "local-agent" in out
