"""``memdesk sweep ...`` and ``memdesk contradictions ...`` end to end, JSON and text."""

from __future__ import annotations

import json

from memdesk.app.main import main
from memdesk.core.curation.service import Contradictions
from memdesk.core.store.memory_store import MemoryStore


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors (a reversed --band)
        code = int(exc.code or 0)
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
    assert code == 5 and "nothing to sweep" in err  # the store has nothing to sample


def test_contradictions_cli(demo_store: MemoryStore, capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, out, _ = run(capsys, "contradictions", "list", "--db", db, "--json", "--limit", "3")
    assert code == 0
    listed = json.loads(out)
    total = listed["total"]
    assert total == len(Contradictions(demo_store).find()) > 3
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


def test_sweep_ids_take_prefixes_items_are_numbered_from_1(demo_store: MemoryStore,
                                                         capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, out, _ = run(capsys, "sweep", "start", "--db", db, "-n", "3", "--seed", "1", "--json")
    started = json.loads(out)
    sid = started["sweep_id"]
    code, out, err = run(capsys, "sweep", "decide", sid[:6], "--db", db, "--item", "99",
                         "--keep")
    assert code == 4 and "no item 99 (its items are 1–3)" in err and "item 98" not in err
    assert run(capsys, "sweep", "decide", sid[:6], "--db", db, "--item", "0", "--keep")[0] == 4
    code, out, _ = run(capsys, "sweep", "decide", sid[:6], "--db", db, "--item", "3", "--keep")
    assert code == 0 and out.startswith("item 3: keep")
    code, out, err = run(capsys, "sweep", "decide", sid[:6], "--db", db, "--item", "3",
                         "--skip")
    assert code == 5 and "already decided" in err
    code, out, _ = run(capsys, "sweep", "report", sid[:8], "--db", db, "--json")
    assert json.loads(out)["kept"] == 1
    assert run(capsys, "sweep", "undo", sid[:5], "--db", db)[0] == 0
    code, out, _ = run(capsys, "sweep", "status", sid[:5], "--db", db, "--json")
    assert json.loads(out)["done"] == 0
    code, _, err = run(capsys, "sweep", "status", "fffff", "--db", db)
    assert code == 4 and "No sweep 'fffff'" in err


def test_ambiguous_sweep_prefix_exits_2(demo_store: MemoryStore, capsys) -> None:
    from memdesk.core.curation.learning_models import SweepPick
    from memdesk.core.curation.models import Sweep, SweepItem

    db = str(demo_store.engine.url.database)
    ids = []
    for seed in (1, 2):
        _, out, _ = run(capsys, "sweep", "start", "--db", db, "-n", "2", "--seed", str(seed),
                        "--json")
        ids.append(json.loads(out)["sweep_id"])
    with demo_store.write() as conn:  # give both sweeps one shared prefix
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        for i, old in enumerate(ids):
            new = f"beef{i}{old[5:]}"
            for table in (Sweep.__table__, SweepItem.__table__, SweepPick.__table__):
                col = table.c.id if table is Sweep.__table__ else table.c.sweep_id
                conn.execute(table.update().where(col == old).values({col.name: new}))
    code, _, err = run(capsys, "sweep", "status", "beef", "--db", db)
    assert code == 2 and "ambiguous sweep id 'beef'" in err
    code, out, _ = run(capsys, "sweep", "status", "beef1", "--db", db, "--json")
    assert code == 0 and json.loads(out)["sweep_id"].startswith("beef1")


def test_sweep_tables_have_headers(demo_store: MemoryStore, capsys) -> None:
    db = str(demo_store.engine.url.database)
    code, out, _ = run(capsys, "sweep", "status", "--db", db)
    assert code == 0 and out.strip() == "no sweeps yet"
    code, out, _ = run(capsys, "sweep", "start", "--db", db, "-n", "2", "--seed", "3")
    lines = out.splitlines()
    assert lines[1].split() == ["item", "importance", "decision", "memory", "text"]
    assert lines[2].split()[0] == "1" and len(lines) == 4
    code, out, _ = run(capsys, "sweep", "status", "--db", db)
    header, row = out.splitlines()
    assert header.split() == ["sweep", "created", "band", "reviewed", "state", "filter"]
    assert row.split()[-1] == "open" and header.index("state") == row.index("open")


def test_contradiction_groups_and_actions_take_prefixes(demo_store: MemoryStore,
                                                       capsys) -> None:
    db = str(demo_store.engine.url.database)
    groups = Contradictions(demo_store).find()
    g = groups[0]
    d = Contradictions(demo_store).load(g.key)
    keep = d.cards[-1].memory.id
    code, out, _ = run(capsys, "contradictions", "show", g.id[:6], "--db", db, "--json")
    assert code == 0 and json.loads(out)["group"] == g.id
    code, out, _ = run(capsys, "contradictions", "resolve", g.id[:6], "--keep", keep[:10],
                       "--db", db, "--json")
    assert code == 0
    res = json.loads(out)
    assert res["winner"] == keep and demo_store.get(keep).is_active
    assert g.key not in {x.key for x in Contradictions(demo_store).find()}
    code, out, _ = run(capsys, "contradictions", "undo", res["action_group"][:8], "--db", db)
    assert code == 0
    assert g.key in {x.key for x in Contradictions(demo_store).find()}
    code, _, err = run(capsys, "contradictions", "undo", res["action_group"][:8], "--db", db)
    assert code == 5 and "already undone" in err
    code, _, err = run(capsys, "contradictions", "show", "zzzzzz", "--db", db)
    assert code == 4 and "No open contradiction group 'zzzzzz'" in err
