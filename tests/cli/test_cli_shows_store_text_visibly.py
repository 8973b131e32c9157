"""Every CLI command that lists or shows store text prints it visibly: over a store full
of hostile texts and ids (tests/helpers/hostile_store.py), no line of people's output
carries a raw control, bidi or invisible character (right-to-left text is isolated,
the rest shown as ⟨U+XXXX⟩), no value breaks a line of ours, and ``--json`` keeps the
exact data, with JSON's own escapes for what a terminal would obey."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memdesk.core.curation.duplicates import Duplicates
from memdesk.core.curation.service import Contradictions, Sweeps
from memdesk.core.guard.review import Review
from memdesk.core.read.checks import RecallChecks
from memdesk.core.store.episodes import Episodes
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import cli
from tests.helpers.hostile_store import EVE, TEXTS, fill, raw_characters
from tests.helpers.stores import close_store


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The hostile store (built once) and ids the show commands take."""
    path = tmp_path_factory.mktemp("hostile-cli") / "hostile.db"
    store = MemoryStore.open(path)
    fill(store)
    sweep = Sweeps(store).start((0.3, 0.49), 40, user=EVE, seed=3)
    rows = store.page(limit=500)
    episode = next(r for r in rows if r.type == "episode")
    ids = {
        "memory": next(r.id for r in rows if r.text == TEXTS[0] and r.user_id == EVE),
        "value": next(r.id for r in rows if r.user_id == EVE and r.value),
        "episode": episode.id,
        "held": Review(store).inbox(limit=5)[0].memory.id,
        "sweep": sweep.id,
        "group": Contradictions(store).find()[0].id,
        "cluster": Duplicates(store).find()[0].id,
    }
    assert Episodes(store).get(episode.id) is not None
    # A recall check of eve's, asked in her words (checks list and run show both).
    RecallChecks(store).add(EVE, TEXTS[0] + " " + EVE, [ids["memory"]])
    ids["other"] = next(r.id for r in rows if r.user_id == EVE and r.text == TEXTS[1])
    close_store(store)
    return path, ids


@pytest.fixture
def db(hostile: tuple[Path, dict[str, str]], tmp_path: Path) -> str:
    shutil.copy(hostile[0], tmp_path / "store.db")
    return str(tmp_path / "store.db")


def commands(ids: dict[str, str]) -> list[list[str]]:
    return [
        ["list"], ["list", "--user", EVE], ["show", ids["memory"]], ["show", ids["value"]],
        ["duplicates", "list"], ["contradictions", "list"],
        ["contradictions", "show", ids["group"]],
        ["episodes", "show", ids["episode"]], ["review", "list"], ["review", "show", ids["held"]],
        ["jobs"], ["tokens", "list"], ["tokens", "log"], ["sweep", "status"],
        ["sweep", "status", ids["sweep"]], ["retrieve", "invoice total", "--user", EVE,
                                            "--channels", "fts,graph"],
        ["snapshots"], ["snapshots", "--goals"], ["snapshots", "--queue"],
        ["extract", TEXTS[0] + " My name is " + EVE + ".", "--offline"],
        ["checks", "list"], ["checks", "run", "--no-record"], ["secrets", "policy"],
        ["secrets", "scan", "my password is " + TEXTS[0]],
        ["review", "list", "--lane", "secrets"], ["review", "list", "--lane", "guard"],
        ["archive", ids["memory"]], ["unarchive", ids["memory"]],
        ["forget", ids["other"], "--purge", "--yes"],
    ]


def test_every_list_and_show_command_prints_store_text_visibly(
        db: str, hostile: tuple[Path, dict[str, str]]) -> None:
    found: list[str] = []
    for args in commands(hostile[1]):
        code, out, err = cli(*args, "--db", db)
        # checks run: 1 when a check fails; the lanes: 0 whether or not they hold any.
        assert code == 0 or (args[:2] == ["checks", "run"] and code == 1), (args, err)
        assert out.strip(), args
        for n, line in enumerate((out + err).splitlines()):
            raw = raw_characters(line, lines=False)
            if raw:
                found.append(f"{' '.join(args[:2])} line {n}: {', '.join(sorted(set(raw)))} "
                             f"in {line[:100]!r}")
    assert not found, "\n".join(found[:40])


def test_a_value_never_breaks_a_line_of_ours(db: str, hostile: tuple[Path, dict[str, str]]) -> None:
    code, out, _ = cli("duplicates", "list", "--db", db)
    assert code == 0
    # The user id "line\nbreak" stays in its cluster's line, its break shown.
    assert "line⟨U+000A⟩break · 2 memories" in out
    assert "⟨U+202E⟩eve · 2 memories" in out  # the override shown, the words in order
    code, out, _ = cli("contradictions", "list", "--db", db)
    assert "⟨U+202E⟩eve · lan⟨U+202E⟩tern.deploys⟨U+200B⟩_to" in out
    code, out, _ = cli("list", "--user", "אבי", "--db", db)
    assert "\u2068אבי\u2069" in out  # right-to-left text isolated from our columns


@pytest.mark.parametrize("args", [["list"], ["duplicates", "list"], ["contradictions", "list"],
                                  ["review", "list"], ["jobs"], ["tokens", "list"]])
def test_json_output_is_the_exact_data_with_jsons_escapes(
        db: str, args: list[str]) -> None:
    code, out, _ = cli(*args, "--json", "--db", db)
    assert code == 0
    assert not raw_characters(out), args  # \u202e, not the character itself
    data = json.loads(out)
    assert EVE in json.dumps(data, ensure_ascii=False) or args == ["tokens", "list"]
    if args == ["list"]:
        stored = {r["text"] for r in data}
        assert TEXTS[0] in stored and TEXTS[4] in stored  # exact, controls and all
