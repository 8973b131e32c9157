"""The dispositional evaluation's cases: loading fixture files (and the exact refusals),
writing one fixture into a store, counting what reached the agent, and the run loop.

Vectors are off here (a fake embedder that says so), so a case runs on the keyword and
graph channels in milliseconds; the real-model run is tests/cli/test_read_cli.py's.
"""

from __future__ import annotations

import json
import locale
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import memdesk.core.embeddings as emb
from memdesk.core.errors import ValidationError
from memdesk.core.read import evaluation as ev
from memdesk.core.read import retriever as rt
from memdesk.core.read.config import ReadConfig


class NoVectors:
    """An embedder whose model is missing: the retrieval goes on without vectors."""

    def encode(self, texts: list[str]) -> np.ndarray:
        raise emb.EmbeddingsUnavailable("vectors are off: test")


class CountingEmbedder:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[float(i + 1), 0.5] for i in range(len(texts))], dtype=np.float32)


@pytest.fixture
def no_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb, "default_embedder", lambda: NoVectors())
    monkeypatch.setattr(rt, "_threads_set", True)  # no torch import for a fake model


def write(folder: Path, name: str, category: str, fixtures: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps({"category": category, "fixtures": fixtures}))


def fx(id_: str, query: str = "q", expect: tuple[str, ...] = ("a",),
       memories: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"id": id_, "query": query, "expect": list(expect),
            "memories": memories or [{"key": "a", "type": "note", "text": "t"}]}


def refusal(folder: Path) -> ValidationError:
    with pytest.raises(ValidationError) as e:
        ev.load_fixtures(folder)
    assert e.value.field == "fixtures"
    return e.value


# ---- load_fixtures --------------------------------------------------------------------

def test_fixtures_load_in_category_order_then_by_id(tmp_path: Path) -> None:
    write(tmp_path, "a.json", "negatives", [fx("D2"), fx("D1")])
    write(tmp_path, "b.json", "semantic_match", [fx("A9")])
    write(tmp_path, "c.json", "discriminators", [fx("G1")])
    (tmp_path / "notes.txt").write_text("not a fixture file")
    out = ev.load_fixtures(tmp_path)
    assert [(f.id, f.category) for f in out] == [
        ("A9", "semantic_match"), ("D1", "negatives"), ("D2", "negatives"),
        ("G1", "discriminators")]


def test_a_fixture_keeps_its_query_memories_and_expectation(tmp_path: Path) -> None:
    mems = [{"key": "a", "type": "preference", "text": "Tabs."},
            {"key": "b", "type": "correction", "text": "Spaces, not tabs."}]
    write(tmp_path, "e.json", "correction_chains", [fx("E1", "indent?", ("b",), mems)])
    [f] = ev.load_fixtures(str(tmp_path))  # a str folder works too
    assert f == ev.Fixture("E1", "correction_chains", "indent?", tuple(mems), frozenset({"b"}))
    assert f.has_correction


def test_has_correction_only_with_a_correction_memory() -> None:
    notes = ({"key": "a", "type": "note", "text": "t"}, {"key": "b", "text": "u"})
    assert not ev.Fixture("X", "negatives", "q", notes, frozenset()).has_correction


def test_fixture_files_are_read_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    mems = [{"key": "a", "type": "note", "text": "Café au lait, s'il vous plaît."}]
    doc = {"category": "semantic_match", "fixtures": [fx("A1", "café?", ("a",), mems)]}
    (tmp_path / "a.json").write_bytes(json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # an ASCII locale
    try:
        [f] = ev.load_fixtures(tmp_path)
    finally:
        locale.setlocale(locale.LC_CTYPE, old)
    assert f.query == "café?"
    assert f.memories[0]["text"] == "Café au lait, s'il vous plaît."


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("no json here")
    assert str(refusal(tmp_path)) == f"fixtures: no fixture files (*.json) in {tmp_path}"


def test_expecting_a_key_no_memory_has_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "x.json", "negatives", [fx("D1", expect=("a", "zz"))])
    err = refusal(tmp_path)
    assert str(err) == ("fixtures: x.json is not a valid fixture file "
                        "(D1: expect names unknown or duplicate keys)")
    assert err.__cause__ is None and err.__suppress_context__


def test_two_memories_with_one_key_are_refused(tmp_path: Path) -> None:
    mems = [{"key": "a", "text": "t"}, {"key": "a", "text": "u"}]
    write(tmp_path, "x.json", "negatives", [fx("D7", expect=(), memories=mems)])
    assert str(refusal(tmp_path)) == ("fixtures: x.json is not a valid fixture file "
                                      "(D7: expect names unknown or duplicate keys)")


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    (tmp_path / "y.json").write_text(json.dumps({"category": "negatives"}))
    assert str(refusal(tmp_path)) == "fixtures: y.json is not a valid fixture file ('fixtures')"


def test_a_file_that_is_not_json_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "z.json").write_text("{")
    assert str(refusal(tmp_path)).startswith("fixtures: z.json is not a valid fixture file (")


def test_an_unknown_category_is_refused_even_after_valid_files(tmp_path: Path) -> None:
    write(tmp_path, "a.json", "negatives", [fx("D1")])
    write(tmp_path, "b.json", "made_up", [fx("Q1")])
    assert str(refusal(tmp_path)) == "fixtures: b.json: unknown category 'made_up'"


# ---- _Stores and _vectors -------------------------------------------------------------

def test_stores_live_in_one_temporary_folder_removed_by_cleanup() -> None:
    stores = ev._Stores()
    try:
        assert stores.dir.name.startswith("memdesk-eval-")
        assert stores.template == stores.dir / "template.db"
        assert stores.template.is_file() and stores.n == 0
        s = stores.fresh()
        s.close()
        assert (stores.dir / "case-1.db").is_file()
    finally:
        stores.cleanup()
    assert not stores.dir.exists()
    stores.cleanup()  # twice is harmless


def _fact(key: str, text: str) -> dict[str, str]:
    return {"key": key, "text": text, "type": "fact"}


def test_a_run_encodes_each_distinct_memory_text_once_in_sorted_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    enc = CountingEmbedder()
    monkeypatch.setattr(emb, "default_embedder", lambda: enc)
    f1 = ev.Fixture("A1", "semantic_match", "q", (_fact("a", "pear"), _fact("b", "apple")),
                    frozenset())
    f2 = ev.Fixture("A2", "semantic_match", "q", (_fact("a", "pear"),), frozenset())
    ev.run([f1, f2], trials=2)
    # One call for every memory of every case and trial (the queries are encoded apart).
    assert [c for c in enc.calls if {"pear", "apple"} & set(c)] == [["apple", "pear"]]


def test_an_encoder_that_loses_a_vector_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Short(CountingEmbedder):
        def encode(self, texts: list[str]) -> np.ndarray:
            return super().encode(texts)[:-1]

    monkeypatch.setattr(emb, "default_embedder", lambda: Short())
    f = ev.Fixture("A1", "semantic_match", "q", (_fact("a", "pear"), _fact("b", "apple")),
                   frozenset())
    with pytest.raises(ValueError):  # never a text paired with another text's vector
        ev.run([f], trials=1)


def test_a_run_without_the_model_still_scores_by_keywords(no_vectors: None) -> None:
    f = ev.Fixture("A1", "semantic_match", "kayak", (_fact("a", "kayak club"),),
                   frozenset({"a"}))
    (case,) = ev.run([f], trials=1).cases
    assert case.trials == [(ev.Counts(1, 0, 0), frozenset({"a"}))]


# ---- run_case -------------------------------------------------------------------------

def keyword_case(expect: tuple[str, ...]) -> ev.Fixture:
    """Two notes about the query's word, one unrelated preference (always injected) and
    three unrelated notes."""
    mems = (
        {"key": "k1", "type": "note", "text": "zephyr keyboard switches replaced",
         "days_ago": 2, "importance": 0.9, "topic": "hardware"},
        {"key": "k2", "type": "note", "text": "zephyr keyboard firmware updated",
         "days_ago": 9, "confidence": 0.95},
        {"key": "p1", "type": "preference", "text": "Prefer short answers.", "days_ago": 20,
         "layer": "procedural"},
        {"key": "u1", "type": "note", "text": "Lunch was pasta.", "days_ago": 1},
        {"key": "u2", "type": "note", "text": "The cat sleeps a lot.", "days_ago": 15},
        {"key": "u3", "type": "fact", "text": "Rain is due tomorrow.", "entity": "weather",
         "attribute": "tomorrow", "value": "rain"},
    )
    return ev.Fixture("A1", "semantic_match", "zephyr keyboard", mems, frozenset(expect))


def test_run_case_counts_hits_false_positives_and_misses(store, no_vectors: None) -> None:
    f = keyword_case(("k1", "k2", "u1", "u2", "u3"))
    counts, seen = ev.run_case(store, f, None, ReadConfig(), 10)
    # The keyword notes and the injected preference reach the agent; the rest do not.
    assert seen == {"k1", "k2", "p1"}
    assert (counts.tp, counts.fp, counts.fn) == (2, 1, 3)


def test_run_case_asks_for_k_results(store, no_vectors: None) -> None:
    counts, seen = ev.run_case(store, keyword_case(("k1", "k2")), None, ReadConfig(), 1)
    assert len(seen & {"k1", "k2"}) == 1 and "p1" in seen
    assert (counts.tp, counts.fp, counts.fn) == (1, 1, 1)


def test_run_case_uses_the_config_it_is_given(store, no_vectors: None) -> None:
    cfg = ReadConfig(preference_limit=0)
    counts, seen = ev.run_case(store, keyword_case(("k1", "k2", "p1")), None, cfg, 10)
    assert seen == {"k1", "k2"}
    assert (counts.tp, counts.fp, counts.fn) == (2, 0, 1)


def test_run_case_writes_each_memory_as_the_fixture_says(store, no_vectors: None) -> None:
    f = keyword_case(())
    ev.run_case(store, f, {"Lunch was pasta.": b"\x01\x02\x03\x04"}, ReadConfig(), 10)
    rows = {r.text: r for r in store.active()}
    assert len(rows) == 6 and {r.user_id for r in rows.values()} == {ev.USER}
    k1 = rows["zephyr keyboard switches replaced"]
    assert (k1.type, k1.topic, k1.importance, k1.confidence) == ("note", "hardware", 0.9, 0.8)
    assert k1.created_at == ev.CLOCK - timedelta(days=2)
    k2 = rows["zephyr keyboard firmware updated"]
    assert (k2.importance, k2.confidence) == (0.5, 0.95)
    p1 = rows["Prefer short answers."]
    assert (p1.type, p1.layer, p1.topic) == ("preference", "procedural", None)
    u3 = rows["Rain is due tomorrow."]
    assert (u3.type, u3.entity, u3.attribute, u3.value) == ("fact", "weather", "tomorrow", "rain")
    assert u3.created_at == ev.CLOCK  # no days_ago: written at the clock
    assert rows["Lunch was pasta."].embedding == b"\x01\x02\x03\x04"
    assert k1.embedding is None  # a text without a vector gets none
    # What was returned or injected was recorded (and reinforced) before run_case returned,
    # at the fixtures' clock.
    assert (k1.access_count, p1.access_count, rows["Lunch was pasta."].access_count) == (1, 1, 0)
    assert k1.last_accessed == ev.CLOCK
    # No correction: maintain (which decays every memory) did not run.
    assert {r.decay_score for r in rows.values()} == {None}


def test_run_case_runs_maintain_when_the_fixture_holds_a_correction(store,
                                                                   no_vectors: None) -> None:
    mems = (
        {"key": "orig", "type": "preference", "text": "User prefers unittest for testing.",
         "days_ago": 40, "entity": "user", "attribute": "test_framework", "value": "unittest"},
        {"key": "corr", "type": "correction", "layer": "procedural",
         "text": "No, I use pytest not unittest.", "days_ago": 10, "entity": "user",
         "attribute": "test_framework", "value": "pytest"},
    )
    f = ev.Fixture("E1", "correction_chains", "which test framework should I use?", mems,
                   frozenset({"corr"}))
    cfg = ReadConfig(half_lives={"correction": 5.0, "preference": 120.0})
    counts, seen = ev.run_case(store, f, None, cfg, 10)
    assert seen == {"corr"}
    assert (counts.tp, counts.fp, counts.fn) == (1, 0, 0)
    [active] = store.active()
    assert active.text == "No, I use pytest not unittest."
    # maintain decayed it with this config at the fixtures' clock: 10 days, half-life 5.
    assert active.decay_score == pytest.approx(0.25)


# ---- run ------------------------------------------------------------------------------

def dispositional(tmp_path: Path) -> list[ev.Fixture]:
    """One fixture only injection can pass: the preference shares no word with the query."""
    mems = [{"key": "pref", "type": "preference", "text": "Prefer simplicity over cleverness.",
             "days_ago": 60, "confidence": 0.7},
            {"key": "other", "type": "decision", "text": "Chose Kafka for the event bus.",
             "days_ago": 5}]
    write(tmp_path, "c.json", "pure_dispositional",
          [fx("C1", "how do I configure nginx as a reverse proxy?", ("pref",), mems)])
    return ev.load_fixtures(tmp_path)


def test_run_with_and_without_injection(tmp_path: Path, no_vectors: None) -> None:
    fixtures = dispositional(tmp_path)
    full = ev.run(fixtures, trials=2)
    assert full.inject is True
    [c] = full.cases
    assert c.fixture is fixtures[0]
    assert [(x.tp, x.fp, x.fn) for x, _ in c.trials] == [(1, 0, 0), (1, 0, 0)]
    off = ev.run(fixtures, inject=False, trials=1)
    assert off.inject is False
    assert [(x.tp, x.fp, x.fn) for x, _ in off.cases[0].trials] == [(0, 0, 1)]


def test_run_defaults_to_three_trials_and_honours_the_config(tmp_path: Path,
                                                             no_vectors: None) -> None:
    fixtures = dispositional(tmp_path)
    # The preference's confidence 0.7 is below this threshold: it is not injected.
    strict = ev.run(fixtures, config=ReadConfig(confidence_threshold=0.75))
    assert [(x.tp, x.fp, x.fn) for x, _ in strict.cases[0].trials] == [(0, 0, 1)] * 3


def test_run_defaults_to_ten_results(tmp_path: Path, no_vectors: None) -> None:
    # Eleven notes that match the query, one per ISO week (the diversity rule keeps
    # two per week), all expected: ten fit.
    mems = [{"key": f"n{i}", "type": "note", "text": f"zephyr report number {i}",
             "days_ago": 7 * i} for i in range(11)]
    write(tmp_path, "a.json", "semantic_match",
          [fx("A1", "zephyr report", tuple(m["key"] for m in mems), mems)])
    out = ev.run(ev.load_fixtures(tmp_path), trials=1, inject=False)
    assert [(x.tp, x.fp, x.fn) for x, _ in out.cases[0].trials] == [(10, 0, 1)]


def test_run_removes_its_stores_even_when_a_case_fails(tmp_path: Path, no_vectors: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[ev._Stores] = []

    class Recorded(ev._Stores):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(ev, "_Stores", Recorded)
    fixtures = dispositional(tmp_path)
    ev.run(fixtures, trials=1)
    assert len(made) == 1 and not made[0].dir.exists()

    def boom(*_: object) -> None:
        raise RuntimeError("case failed")

    monkeypatch.setattr(ev, "run_case", boom)
    with pytest.raises(RuntimeError, match="case failed"):
        ev.run(fixtures, trials=1)
    assert len(made) == 2 and not made[1].dir.exists()


class TwoAxes:
    """Texts about the machine (a zorblat is one) point one way, all others another:
    cosine 1 or 0."""

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), emb.DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, 0 if "zorblat" in t.lower() or "machine" in t.lower() else 1] = 1.0
        return out


def test_run_gives_every_case_the_fixtures_vectors(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb, "default_embedder", lambda: TwoAxes())
    monkeypatch.setattr(rt, "_threads_set", True)
    # No shared keyword: only the vector channel can find the expected memory.
    mems = [{"key": "v", "type": "note", "text": "Zorblat frobnicates.", "days_ago": 3},
            {"key": "w", "type": "note", "text": "Lunch was pasta.", "days_ago": 2}]
    write(tmp_path, "a.json", "semantic_match", [fx("A1", "tell me about the machine", ("v",),
                                                    mems)])
    out = ev.run(ev.load_fixtures(tmp_path), trials=2, inject=False)
    assert [(x.tp, x.fp, x.fn) for x, _ in out.cases[0].trials] == [(1, 0, 0), (1, 0, 0)]


def test_progress_counts_trials_of_all_fixtures(tmp_path: Path, no_vectors: None) -> None:
    fixtures = dispositional(tmp_path)
    seen: list[tuple[int, int]] = []
    ev.run(fixtures, trials=3, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
