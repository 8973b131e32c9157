"""``memdesk retrieve``, ``maintain`` and ``eval dispositional`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.read import evaluation as ev
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import put

FIXTURES = Path(__file__).parents[1] / "data" / "dispositional"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "s.db"
    s = MemoryStore.open(path)
    put(s, [
        {"text": "The kayak club meets on Tuesdays.", "days_ago": 3},
        {"type": "preference", "text": "Prefer <b>plain</b> answers.", "days_ago": 9},
        {"type": "decision", "text": "Using PostgreSQL for analytics.", "days_ago": 1},
    ], user="alice")
    s.close()
    return str(path)


def test_retrieve_json_for_agents(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retrieve", "--db", db, "--user", "alice", "--json", "kayak club"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["text"] for r in out["results"]] == ["The kayak club meets on Tuesdays."]
    first = out["results"][0]
    assert set(first) >= {"id", "text", "type", "score", "ranks"}
    assert first["ranks"]["fts"] == 1 and first["ranks"]["vector"] == 1
    assert [p["text"] for p in out["preferences"]] == ["Prefer <b>plain</b> answers."]
    dropped = {d["text"]: d for d in out["dropped"]}
    assert dropped["Using PostgreSQL for analytics."]["reason"] == "floor"
    assert "cosine" in dropped["Using PostgreSQL for analytics."]["detail"]
    s = MemoryStore.open(db)
    assert s.get(first["id"]).access_count == 1  # the CLI flushed the record before exiting
    s.close()


def test_retrieve_isolated_and_without_injection(db: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["retrieve", "--db", db, "--user", "alice", "--json", "--channels", "fts",
                 "kayak"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["channels"] == ["fts"] and out["preferences"] == [] and not out["injected"]
    assert main(["retrieve", "--db", db, "--user", "alice", "--no-inject", "kayak club"]) == 0
    text = capsys.readouterr().out
    assert "The kayak club meets on Tuesdays." in text and "Active preferences" not in text


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--user", "alice", "   "], 2, "query: is empty"),
    (["--user", "alice", "--k", "0", "kayak"], 2, "k"),
    (["--user", "alice", "--channels", "bm25", "kayak"], 2, "unknown channel"),
    (["--user", "alice", "--threshold", "nan", "kayak"], 2, "threshold"),
    (["--user", "", "kayak"], 2, "user_id"),
])
def test_retrieve_bad_input_exits_2(db: str, capsys, args, code, message) -> None:  # type: ignore[no-untyped-def]
    assert main(["retrieve", "--db", db, *args]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_retrieve_missing_store_exits_3(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["retrieve", "--db", str(tmp_path / "none.db"), "--user", "a", "x"]) == 3
    assert "no store" in capsys.readouterr().err


def test_maintain_links_and_decays(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.db"
    s = MemoryStore.open(path)
    ids = put(s, [
        {"type": "preference", "text": "User prefers unittest.", "days_ago": 30,
         "entity": "user", "attribute": "test_framework", "value": "unittest"},
        {"type": "correction", "text": "No, pytest.", "days_ago": 3,
         "entity": "user", "attribute": "test_framework", "value": "pytest"},
    ], embed=False)
    s.close()
    assert main(["maintain", "--db", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["linked"] == 1 and out["decayed"] == 1
    assert out["links"][0] == {"old": ids[0], "correction": ids[1],
                               "how": "same user, entity and attribute"}


def test_eval_meets_the_target_with_the_ablation_drop(capsys) -> None:  # type: ignore[no-untyped-def]
    """The read path's target: F1 = 1.000 with injection over the dispositional-memory design's 21
    fixtures, three
    trials each, G3 included; with injection off, F1 drops."""
    assert main(["eval", "dispositional", "--fixtures", str(FIXTURES), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    full, off = out["with_injection"], out["injection_off"]
    assert full["overall"]["f1"] == 1.0
    assert all(c["f1"] == 1.0 for c in full["categories"].values())
    assert full["cases"]["G3"] == {"passed": True, "unanimous": True, "seen": ["pref"]}
    assert off["overall"]["f1"] < 0.9
    for cat in ("pure_dispositional", "discriminators"):  # impossible without injection
        assert off["categories"][cat]["recall"] == 0.0
    assert off["overall"]["precision"] == 1.0  # failures are misses, not false positives
    assert len(full["cases"]) == 21


def test_fixtures_cover_seven_categories_three_each() -> None:
    fixtures = ev.load_fixtures(FIXTURES)
    by_cat: dict[str, int] = {}
    for f in fixtures:
        by_cat[f.category] = by_cat.get(f.category, 0) + 1
    assert by_cat == {c: 3 for c, _, _ in ev.CATEGORIES}


def test_eval_reports_a_broken_fixture_folder(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "x.json").write_text('{"category": "negatives", "fixtures": [{"id": 1}]}')
    assert main(["eval", "dispositional", "--fixtures", str(tmp_path)]) == 2
    assert "not a valid fixture file" in capsys.readouterr().err
    assert main(["eval", "dispositional", "--fixtures", str(tmp_path / "nope")]) == 2


def test_retrieve_collapses_repeats_and_says_why_a_channel_is_empty(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.db"
    s = MemoryStore.open(path)
    put(s, [{"text": "The kayak club meets on Tuesdays.", "days_ago": i} for i in range(3)],
        user="alice")
    s.close()
    assert main(["retrieve", "--db", str(path), "--user", "alice", "--json", "kayak club"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["results"]) == 1
    assert [d["text"] for d in out["results"][0]["same_as"]] == [
        "The kayak club meets on Tuesdays."] * 2
    assert out["empty_channels"] == {"graph": "this user's memories carry no triples"}
    assert main(["retrieve", "--db", str(path), "--user", "alice", "kayak club"]) == 0
    assert "(+2 same)" in capsys.readouterr().out


def test_retrieve_no_floor_fills_k_and_says_which(db: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["retrieve", "--db", db, "--user", "alice", "--no-inject",
                 "What is my blood type?"]) == 0
    assert "(no memory relates to this query)" in capsys.readouterr().out
    assert main(["retrieve", "--db", db, "--user", "alice", "--no-inject", "--no-floor",
                 "--k", "2", "What is my blood type?"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()[:2] in ("1.", "2.")]
    assert len(lines) == 2 and all("(below floor)" in ln for ln in lines)
    assert main(["retrieve", "--db", db, "--user", "alice", "--json", "--no-floor",
                 "kayak club"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["text"] == "The kayak club meets on Tuesdays."
    assert "below_floor" not in out["results"][0]
    assert all(r["below_floor"] for r in out["results"][1:])
