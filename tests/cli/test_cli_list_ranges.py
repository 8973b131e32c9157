"""``memdesk list --importance LO:HI`` / ``--confidence LO:HI`` refuse a range whose low
bound is above its high one (exit 2, the option named), as the MCP tools do, rather than
answering "nothing matches"; an equal pair is one value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import cli


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "s.db")
    code, _, err = cli("add", "--db", path, "--user", "u", "--type", "fact",
                       "--text", "User lives in Porto", "--importance", "0.5",
                       "--confidence", "0.8")
    assert code == 0, err
    return path


@pytest.mark.parametrize("option", ["--importance", "--confidence"])
def test_a_reversed_range_is_refused_naming_the_option(db: str, option: str) -> None:
    code, out, err = cli("list", "--db", db, option, "0.9:0.1")
    assert code == 2 and out == ""
    assert option in err and "0.9 is above" in err and "Traceback" not in err


@pytest.mark.parametrize(("option", "band"), [("--importance", "0.5:0.5"),
                                              ("--confidence", "0.1:0.9")])
def test_an_ordered_range_lists(db: str, option: str, band: str) -> None:
    code, out, err = cli("list", "--db", db, option, band, "--json")
    assert code == 0, err
    assert [r["text"] for r in json.loads(out)] == ["User lives in Porto"]
