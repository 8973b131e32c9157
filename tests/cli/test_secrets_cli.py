"""The secrets lane from the command line: ``memdesk add`` and ``memdesk store`` say a
write was held (and why) without echoing the secret; ``memdesk secrets policy|set|scan``;
``memdesk review list --lane secrets`` masked until ``review show --reveal``; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.write.units import Extraction, Turn, Unit
from memdesk.core.write.worker import Worker, WorkerConfig

PASSWORD = "Winter2026!x"
CARD = "4242 4242 4242 4242"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "s.db"
    MemoryStore.open(path).close()
    return str(path)


def test_add_holds_a_secret_and_says_why_without_it(db: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["add", "--db", db, "--user", "u", "--type", "fact",
                 "--text", f"my password is {PASSWORD}"]) == 0
    out = capsys.readouterr().out
    assert "held for an operator's review: it holds a password" in out
    assert PASSWORD not in out
    assert main(["add", "--db", db, "--user", "u", "--type", "fact", "--json",
                 "--text", f"card {CARD}"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["secrets"]["held_for_review"] == ["card"] and "text" not in added
    assert CARD not in json.dumps(added)

    assert main(["review", "list", "--db", db, "--lane", "secrets"]) == 0
    listed = capsys.readouterr()
    assert "secret.password" in listed.out and "••••••" in listed.out
    assert PASSWORD not in listed.out and CARD not in listed.out
    assert main(["review", "list", "--db", db, "--lane", "secrets", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert PASSWORD not in json.dumps(items) and {i["secrets"][0] for i in items} == {
        "password", "card"}
    pid = next(i["id"] for i in items if i["secrets"] == ["password"])
    assert main(["review", "show", "--db", db, pid]) == 0
    assert PASSWORD not in capsys.readouterr().out
    assert main(["review", "show", "--db", db, pid, "--reveal"]) == 0
    assert PASSWORD in capsys.readouterr().out
    assert main(["review", "list", "--db", db, "--lane", "guard"]) == 0
    assert "nothing is waiting" in capsys.readouterr().out


def test_store_prints_the_job_alone_and_the_hold_on_stderr(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "--db", db, "--user", "u", f"pay with {CARD} please"]) == 0
    out = capsys.readouterr()
    assert len(out.out.split()) == 1  # the job id, for scripts
    assert "held for an operator's review: it holds a card number" in out.err
    assert CARD not in out.out + out.err


def test_policy_set_scan_and_undo(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["secrets", "policy", "--db", db]) == 0
    assert "email          mask" in capsys.readouterr().out
    assert main(["secrets", "set", "--db", db, "card", "mask"]) == 0
    said = capsys.readouterr().out
    assert "card: mask from now on" in said
    event = said.split("event ")[1].split(";")[0]
    assert main(["secrets", "set", "--db", db, "card", "mask"]) == 0
    assert "already mask" in capsys.readouterr().out
    assert main(["store", "--db", db, "--user", "u", f"card {CARD}"]) == 0
    assert "card number masked" in capsys.readouterr().err
    assert main(["secrets", "scan", "--db", db, f"my password is {PASSWORD}", "--json"]) == 0
    scanned = json.loads(capsys.readouterr().out)
    assert scanned["held_for_review"] == ["password"] and PASSWORD not in json.dumps(scanned)
    assert main(["secrets", "scan", "--db", db, "BlueFalcon77",
                 "--after", "the wifi password is"]) == 0
    assert "password" in capsys.readouterr().out
    assert main(["undo", "--db", db, event]) == 0
    capsys.readouterr()
    assert main(["secrets", "policy", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["card"] == "hold"


@pytest.mark.parametrize(("args", "words"), [
    (["secrets", "set", "card", "shred"], "is not hold, mask or store"),
    (["secrets", "set", "cards", "hold"], "not a category of secret"),
])
def test_bad_input_is_refused_clearly(db: str, capsys: pytest.CaptureFixture[str],
                                      args: list[str], words: str) -> None:
    assert main([*args[:2], "--db", db, *args[2:]]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert main(["secrets", "policy", "--db", db, "--json"]) == 0  # nothing changed
    assert json.loads(capsys.readouterr().out)["card"] == "hold"


def test_an_unknown_lane_is_a_usage_error(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["review", "list", "--db", db, "--lane", "passwords"])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


class Echo:
    name, model = "echo", None

    def extract(self, turn: Turn) -> Extraction:
        return Extraction([Unit(turn.text, "fact", 0.6, 0.8)], "echo")


def test_a_split_secret_is_held_after_the_worker(db: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("my bank pin is", "4821"):
        assert main(["store", "--db", db, "--user", "u", "--session", "s", text]) == 0
    assert "held for an operator's review" in capsys.readouterr().err
    store = MemoryStore.open(db)
    Worker(store, Echo(), WorkerConfig(embed=False)).run(drain=True)
    held = [r for r in store.page(None, limit=10) if r.status is Status.QUARANTINED]
    assert {r.text for r in held} == {"4821"}
    store.close()
