"""``memdesk sweep ...`` and ``memdesk contradictions ...`` end to end, JSON and text."""

from __future__ import annotations

import json

from memdesk.app.main import main
from memdesk.core.curation import contradictions as C
from memdesk.core.store.memory_store import MemoryStore


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sweep_cli_round_trip(demo_store: MemoryStore, capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, out, _ = run(capsys, "sweep", "start", "--db", db, "-n", "5", "--seed", "4",
                       "--band", "0.3:0.49", "--json")
    assert code == 0
    started = json.loads(out)
    sid = started["sweep_id"]
    assert len(started["items"]) == 5 and started["seed"] == 4
    assert all(0.3 <= it["importance_before"] <= 0.49 for it in started["items"])

    assert run(capsys, "sweep", "decide", sid, "--db", db, "--importance", "0.8",
               "--note", "rescued")[0] == 0
    assert run(capsys, "sweep", "decide", sid, "--db", db, "--keep")[0] == 0
    assert run(capsys, "sweep", "decide", sid, "--db", db, "--skip")[0] == 0
    first = started["items"][0]["memory_id"]
    assert demo_store.get(first).importance == 0.8

    code, out, _ = run(capsys, "sweep", "status", "--db", db, "--unfinished", "--json")
    assert [s["sweep_id"] for s in json.loads(out)] == [sid]
    assert json.loads(out)[0]["done"] == 3
    code, out, _ = run(capsys, "sweep", "report", sid, "--db", db, "--json")
    rep = json.loads(out)
    assert (rep["raised"], rep["kept"], rep["skipped"], rep["undecided"]) == (1, 1, 1, 2)
    assert rep["rescued_ids"] == [first]
    code, out, _ = run(capsys, "sweep", "report", sid, "--db", db)
    assert "rescued (raised) 1" in out and "0.8–0.9" in out

    assert run(capsys, "sweep", "undo", sid, "--db", db)[0] == 0  # the skip
    assert run(capsys, "sweep", "undo", sid, "--db", db)[0] == 0  # the keep
    assert run(capsys, "sweep", "undo", sid, "--db", db)[0] == 0  # the revalue
    assert demo_store.get(first).importance == started["items"][0]["importance_before"]


def test_sweep_cli_bad_input(demo_store: MemoryStore, capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, _, err = run(capsys, "sweep", "start", "--db", db, "--band", "0.6:0.2")
    assert code == 2 and "band" in err
    code, _, err = run(capsys, "sweep", "status", "nope", "--db", db)
    assert code == 4 and "No sweep" in err
    code, _, err = run(capsys, "sweep", "start", "--db", db, "--band", "0.999:1", "--user",
                       "nobody")
    assert code == 1 and "nothing to sweep" in err


def test_contradictions_cli(demo_store: MemoryStore, capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, out, _ = run(capsys, "contradictions", "list", "--db", db, "--json", "--limit", "3")
    assert code == 0
    listed = json.loads(out)
    total = listed["total"]
    assert total == len(C.find_contradictions(demo_store)) > 3
    gid = listed["groups"][0]["group"]

    code, out, _ = run(capsys, "contradictions", "show", gid, "--db", db, "--json")
    shown = json.loads(out)
    winner = shown["suggestion"]["keep"]
    code, out, _ = run(capsys, "contradictions", "resolve", gid, "--suggested", "--db", db,
                       "--json")
    assert code == 0
    res = json.loads(out)
    assert res["winner"] == winner
    losers = [c["memory_id"] for c in shown["cards"] if c["memory_id"] != winner]
    assert all(demo_store.get(m).superseded_by == winner for m in losers)
    code, out, _ = run(capsys, "contradictions", "list", "--db", db, "--json")
    assert json.loads(out)["total"] == total - 1

    assert run(capsys, "contradictions", "undo", res["action_group"], "--db", db)[0] == 0
    assert all(demo_store.get(m).is_active for m in losers)
    code, out, _ = run(capsys, "contradictions", "list", "--db", db)
    assert f"{total} open group(s)" in out

    code, _, err = run(capsys, "contradictions", "resolve", "000000000000", "--keep-all",
                       "--db", db)
    assert code == 4
    code, _, err = run(capsys, "contradictions", "resolve", gid, "--merge", "--db", db)
    assert code == 2 and "--merge needs" in err
