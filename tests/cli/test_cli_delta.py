"""``memdesk snapshot | diff | snapshots`` through the real argument parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.app.main import main

BEFORE = {
    "goal": "route artifact review task",
    "candidates": [
        {"source": "context", "text": "Generic repository search is probably enough.",
         "confidence": 0.9, "relevance": 0.9},
        {"source": "model_prior", "text": "Use broad search first when routing is uncertain.",
         "confidence": 0.7, "relevance": 0.7},
    ],
}
AFTER = {
    "context": [{"text": "Generic repository search is probably enough.", "confidence": 0.9,
                 "relevance": 0.9}],
    "search": [
        {"text": "Artifact review should use Lens contribution reports.", "confidence": 0.96,
         "relevance": 0.96},
        {"text": "Voice preservation and semantic similarity are Lens signals.",
         "confidence": 0.90, "relevance": 0.88},
    ],
    "model_prior": [{"text": "Use broad search first when routing is uncertain.",
                     "confidence": 0.7, "relevance": 0.7}],
}


def write(tmp_path: Path, name: str, data: object) -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return str(p)


def run_json(capsys, *argv: str):  # type: ignore[no-untyped-def]
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_snapshot_diff_and_list(tmp_path: Path, store_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = str(store_path)
    first = run_json(capsys, "snapshot", "--db", db, "--candidates",
                     write(tmp_path, "b.json", BEFORE), "--no-store", "--json")
    assert first["diff"] is None and first["dominant_source"] == "context"
    second = run_json(capsys, "snapshot", "--db", db, "--goal", BEFORE["goal"],
                      "--candidates", write(tmp_path, "a.json", AFTER), "--no-store", "--json")
    d = second["diff"]
    assert second["dominant_source"] == "search"
    assert d["before_id"] == first["id"] and d["changed_dominant_source"] is True
    assert round(d["aggregate_score_delta"], 3) == 0.428  # default weights sum to 1 already
    assert d["attribution"]["primary_cause_source"] == "search"
    listed = run_json(capsys, "snapshots", "--db", db, "--json")
    assert [s["id"] for s in listed] == [second["id"], first["id"]]
    assert listed[0]["health"] == d["health"]["status"]
    again = run_json(capsys, "diff", "--db", db, first["id"][:8], second["id"], "--json")
    assert again["health"] == d["health"]
    assert main(["diff", "--db", db, first["id"], second["id"], "--all"]) == 0
    out = capsys.readouterr().out
    assert "risk = 0.35·" in out and "unchanged    context" in out
    assert "added        search" in out


def test_snapshot_from_store_and_queue(demo_store, capsys) -> None:  # type: ignore[no-untyped-def]
    db = demo_store.url
    out = run_json(capsys, "snapshot", "--db", db, "--goal", "plan project-alpha migration",
                   "--query", "project-alpha database migration", "--json")
    assert out["sources"]["database"]["kept"] > 0
    assert out["diff"] is not None  # the demo series had this goal already
    queue = run_json(capsys, "snapshots", "--db", db, "--queue", "--json")
    assert queue and all(q["review"] == "pending" for q in queue)
    goals = run_json(capsys, "snapshots", "--db", db, "--goals", "--json")
    assert {g["goal"] for g in goals} >= {"route artifact review task"}


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('[{"source": "context", "text": "x", "confidence": NaN, "relevance": 1}]', "confidence"),
    ('[{"source": "rumour", "text": "x", "confidence": 1, "relevance": 1}]', "unknown source"),
    ('{"context": 5}', "must map to a list"),
    ("42", "expected a list"),
])
def test_bad_candidate_files(tmp_path: Path, store_path: Path, capsys, content: str,  # type: ignore[no-untyped-def]
                             message: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(content, encoding="utf-8")
    rc = main(["snapshot", "--db", str(store_path), "--goal", "g", "--candidates", str(p),
               "--no-store"])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_usage_errors(store_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["snapshot", "--db", str(store_path), "--goal", "g", "--no-store"]) == 2
    assert "nothing to compose" in capsys.readouterr().err
    assert main(["snapshot", "--db", str(store_path), "--query", "x"]) == 2
    assert "--goal" in capsys.readouterr().err
    assert main(["add", "--db", str(store_path), "--user", "u", "--text", "t",
                 "--type", "note"]) == 0
    capsys.readouterr()
    assert main(["diff", "--db", str(store_path), "deadbeef", "cafebabe"]) == 4
    assert "No snapshot" in capsys.readouterr().err
    assert main(["snapshot", "--db", str(store_path), "--goal", "g", "--candidates",
                 str(store_path.parent / "missing.json")]) == 2


def test_diff_refuses_snapshots_of_different_goals(tmp_path: Path, store_path: Path,
                                                   capsys) -> None:  # type: ignore[no-untyped-def]
    db = str(store_path)
    one = run_json(capsys, "snapshot", "--db", db, "--candidates",
                   write(tmp_path, "b.json", BEFORE), "--no-store", "--json")
    other = run_json(capsys, "snapshot", "--db", db, "--goal", "plan the offsite",
                     "--candidates", write(tmp_path, "a.json", AFTER), "--no-store", "--json")
    assert other["diff"] is None  # a new goal: nothing to compare with
    assert main(["diff", "--db", db, one["id"], other["id"]]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert "'route artifact review task'" in out.err and "'plan the offsite'" in out.err
    assert "--across-goals" in out.err
    d = run_json(capsys, "diff", "--db", db, one["id"][:6], other["id"][:6], "--json",
                 "--across-goals")
    assert d["before_id"] == one["id"] and d["after_id"] == other["id"]


def test_snapshot_tables_have_headers(tmp_path: Path, store_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = str(store_path)
    run_json(capsys, "snapshot", "--db", db, "--candidates", write(tmp_path, "b.json", BEFORE),
             "--no-store", "--json")
    assert main(["snapshots", "--db", db]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["snapshot", "created", "cands", "score", "dominant", "ratio",
                              "health", "goal"]
    assert row.split()[5] == "context" and header.index("dominant") == row.index("context")
    assert main(["snapshots", "--db", db, "--goals"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["snapshots", "latest", "goal"] and row.split()[0] == "1"
    assert main(["snapshots", "--db", db, "--goal", "nothing like it"]) == 0
    assert capsys.readouterr().out.strip() == "no snapshots for goal 'nothing like it'"
