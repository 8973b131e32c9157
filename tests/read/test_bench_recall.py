"""The recall benchmark's metrics on hand-computed rankings, and its labelled set's
integrity check (bench/bench_recall.py; docs/benchmarks.md), so a broken set or a
wrong metric fails CI.  Fast: no model, no Mem0, no haystack."""

from __future__ import annotations

import importlib
import json
import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench():  # type: ignore[no-untyped-def]
    """The benchmark's modules (bench/ is scripts, not a package)."""
    sys.path.insert(0, str(BENCH))
    try:
        yield (importlib.import_module("recall_metrics"), importlib.import_module("recall_set"))
    finally:
        sys.path.remove(str(BENCH))


def test_metrics_match_hand_computed_values(bench) -> None:  # type: ignore[no-untyped-def]
    m, _ = bench
    ranked = ["x", "a", "y", "b", "z"]
    answers = ["a", "b", "c"]
    assert m.recall_at(ranked, answers) == pytest.approx(2 / 3)
    assert m.reciprocal_rank(ranked, answers) == pytest.approx(1 / 2)
    # DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3) + 1/log2(4)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 0.5
    assert m.ndcg_at(ranked, answers) == pytest.approx(dcg / ideal)
    assert m.ndcg_at(["a", "b", "c"], answers) == pytest.approx(1.0)
    # Only the first ten count.
    late = [f"n{i}" for i in range(10)] + ["a"]
    assert m.recall_at(late, ["a"]) == 0.0
    assert m.reciprocal_rank(late, ["a"]) == 0.0
    assert m.ndcg_at(late, ["a"]) == 0.0
    assert m.stale_at(["q", "old"], ["old"]) == 1.0
    assert m.stale_at([*late, "old"], ["old"]) == 0.0


def test_category_figures(bench) -> None:  # type: ignore[no-untyped-def]
    m, _ = bench
    pref = m.score("preference", m.Outcome(["x", "y"], injected=["p"]), ["p"])
    assert pref["hit_or_injected"] == 1.0 and pref["recall@10"] == 0.0
    sup = m.score("superseded", m.Outcome(["old", "new"]), ["new"], ["old"])
    assert sup["stale@10"] == 1.0 and sup["MRR"] == pytest.approx(0.5)
    none = m.score("no_answer", m.Outcome(["a", "b", "c"], injected=["p"]), [])
    assert none == {"returned": 3.0, "injected": 1.0}
    means = m.summarise([{"MRR": 1.0, "recall@10": 1.0}, {"MRR": 0.0, "recall@10": 0.5}])
    assert means == {"MRR": 0.5, "recall@10": 0.75}


def test_the_shipped_set_is_sound(bench) -> None:  # type: ignore[no-untyped-def]
    _, rs = bench
    labelled, shape = rs.load()
    assert rs.problems(labelled, shape) == []
    counts = {c: len(q) for c, q in labelled.by_category().items()}
    assert all(counts[c] >= rs.MIN_PER_CATEGORY for c in rs.CATEGORIES), counts
    assert len(labelled.users()) >= 4  # spread over several users


def write_set(tmp_path: Path, queries: list[dict]) -> Path:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"queries": queries}), encoding="utf-8")
    return path


def test_integrity_check_catches_a_drifting_set(bench, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, rs = bench
    shipped = json.loads(rs.SET_PATH.read_text(encoding="utf-8"))["queries"]
    queries = [dict(q) for q in shipped]
    # A paraphrase answer that now shares a word (by stem and prefix) with its query.
    para = next(q for q in queries if q["cat"] == "paraphrase")
    para["answers"] = [{"id": para["answers"][0]["id"], "text": "A reptile lives here."}]
    # A superseded query whose stale memory is gone, and one category cut below 30.
    sup = next(q for q in queries if q["cat"] == "superseded")
    sup["stale"] = []
    multi_ids = [q["id"] for q in queries if q["cat"] == "multi"]
    queries = [q for q in queries if q["id"] not in multi_ids[:5]]
    # Two memories under one id.
    kw = [q for q in queries if q["cat"] == "keyword"]
    kw[1]["answers"] = [dict(kw[1]["answers"][0], id=kw[0]["answers"][0]["id"])]
    labelled, shape = rs.load(write_set(tmp_path, queries))
    found = "\n".join(rs.problems(labelled, shape))
    assert f"{para['id']}: query and answer" in found and "reptile~reptile" in found
    assert f"{sup['id']}: a superseded query needs the stale memory" in found
    assert "category multi: 27 queries" in found
    assert "is used twice" in found


def test_planted_rows_keep_ids_and_every_answer_exists(bench, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from datetime import datetime

    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.core.transfer.importer import Importer
    from memdesk.core.transfer.jsonl import JsonlSource

    _, rs = bench
    labelled, _ = rs.load()
    rows = rs.store_rows(labelled, datetime(2026, 11, 1))
    store = MemoryStore.open(tmp_path / "s.db")
    try:
        import io

        rep = Importer(store).run(JsonlSource(io.BytesIO(rs.jsonl(rows))))
        assert rep.bad_count == 0 and rep.imported == len(labelled.memories)
        wanted = {i for q in labelled.queries for i in (*q.answers, *q.stale)}
        got = {r.id: r for r in store.get_many(sorted(wanted))}
        assert set(got) == wanted
        for q in labelled.queries:
            assert all(got[i].user_id == q.user for i in (*q.answers, *q.stale))
    finally:
        store.close()


def test_the_run_fails_when_the_shuffled_control_is_not_clearly_worse(bench) -> None:  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCH))
    try:
        run = importlib.import_module("bench_recall")
    finally:
        sys.path.remove(str(BENCH))
    cats = [c for c in run.CAT_FIGURES if c != "no_answer"]
    table = {"memdesk": {c: {"MRR": 0.9} for c in cats},
             "memdesk vector": {c: {"MRR": 0.95} for c in cats},
             "memdesk shuffled": {c: {"MRR": 0.1} for c in cats}}
    assert run.control_fails(table) == []
    table["memdesk shuffled"]["paraphrase"] = {"MRR": 0.8}
    assert run.control_fails(table) == ["paraphrase: shuffled MRR 0.80 vs best 0.95"]
