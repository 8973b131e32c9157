"""``memdesk store`` takes who said a turn and when; the worker keeps the turn as said;
a session time that is not a date is refused, naming the option."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import cli


def test_store_keeps_the_turn_with_its_speaker_and_time(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    r = cli("--db", db, "store", "--user", "mel", "--session", "s1", "--speaker", "Mel",
            "--said-at", "2023-05-08T13:56:00+02:00", "I ran a charity race last Saturday.")
    assert r.returncode == 0, r.stderr
    assert cli("--db", db, "worker", "--offline", "--drain", "--no-embed").returncode == 0
    r = cli("--db", db, "list", "--json", "--type", "episode")
    [episode] = json.loads(r.stdout)
    assert episode["text"] == "I ran a charity race last Saturday."
    assert episode["layer"] == "episodic" and episode["source_session"] == "s1"


def test_a_session_time_that_is_no_date_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    r = cli("--db", db, "store", "--user", "mel", "--said-at", "the 45th of Smarch", "hi")
    assert r.returncode != 0
    assert "said_at" in r.stderr and "ISO 8601" in r.stderr and "Traceback" not in r.stderr


def test_old_episodes_are_pruned_after_a_dry_run_and_come_back_on_undo(
        tmp_path: Path) -> None:
    from datetime import timedelta

    from memdesk.core.ids import utcnow
    from memdesk.core.store.memory_store import MemoryStore

    db = str(tmp_path / "s.db")
    old = (utcnow() - timedelta(days=200)).isoformat()
    for text, when in (("The weather was awful that week.", old), ("Thanks, see you!", old),
                       ("I'm vegetarian.", old), ("Lunch was great today.", None)):
        args = ["--said-at", when] if when else []
        assert cli("--db", db, "store", "--user", "mel", *args, text).returncode == 0
    assert cli("--db", db, "worker", "--offline", "--drain", "--no-embed").returncode == 0
    r = cli("--db", db, "episodes", "prune", "--older-than", "90", "--dry-run")
    # the old turns without a kept unit: not "I'm vegetarian." (its fact is kept), not today's
    assert r.returncode == 0 and r.stdout.startswith("would prune 2 episodes"), r.stdout
    r = cli("--db", db, "list", "--json", "--type", "episode")
    assert len(json.loads(r.stdout)) == 4  # a dry run changes nothing
    r = cli("--db", db, "episodes", "prune", "--older-than", "90")
    assert r.returncode == 0 and r.stdout.startswith("pruned 2 episodes"), r.stdout
    group = r.stdout.split("episodes undo ")[1].split("`")[0]
    store = MemoryStore.open(db)
    kept = {m.text for m in store.active("mel") if m.type == "episode"}
    store.close()
    assert kept == {"I'm vegetarian.", "Lunch was great today."}
    assert cli("--db", db, "episodes", "undo", group).returncode == 0
    r = cli("--db", db, "list", "--json", "--type", "episode")
    assert len(json.loads(r.stdout)) == 4
    r = cli("--db", db, "episodes", "prune", "--older-than", "-3")
    assert r.returncode == 2 and "older_than" in r.stderr


def test_show_names_a_units_episode_and_an_episodes_units(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    cli("--db", db, "store", "--user", "mel", "--session", "s7", "--speaker", "Mel",
        "I work at Siemens as a firmware engineer.")
    cli("--db", db, "worker", "--offline", "--drain", "--no-embed")
    units = json.loads(cli("--db", db, "list", "--json", "--type", "fact").stdout)
    assert units
    r = cli("--db", db, "episodes", "show", "--json", units[0]["id"])
    shown = json.loads(r.stdout)
    assert shown["session"] == "s7" and shown["speaker"] == "Mel"
    assert sorted(shown["units"]) == sorted(u["id"] for u in units)
    r = cli("--db", db, "episodes", "show", "nope")
    assert r.returncode != 0 and "Traceback" not in r.stderr
