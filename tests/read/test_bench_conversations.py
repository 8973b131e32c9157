"""The conversational benchmark's reader (the public LoCoMo layout), its category
mapping, its metric arithmetic and its shipped set's size and shape
(bench/bench_conversations.py; docs/benchmarks.md).  Fast: no model, no Mem0."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def reader() -> ModuleType:
    return _module("conv_locomo")


def sample(**over: Any) -> dict[str, Any]:
    """A two-session conversation in LoCoMo's own layout (as locomo10.json has it)."""
    s: dict[str, Any] = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
                          {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely!"}],
            "session_2_date_time": "10:04 am on 21 June, 2023",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "I ran 10k."}],
            "session_3_date_time": "9:00 am on 1 July, 2023",
            "session_3": [],
        },
        "qa": [
            {"question": "Who has a cat?", "answer": "Ann", "evidence": ["D1:1"],
             "category": 4},
            {"question": "Pets and races?", "answer": "cat; 10k",
             "evidence": ["D1:1; D2:1"], "category": 1},
            {"question": "When did Bo run?", "answer": "June 2023", "evidence": ["D2:1"],
             "category": 2},
            {"question": "Would Ann like dogs?", "answer": "maybe", "evidence": ["D1:1"],
             "category": 3},
            {"question": "What is Bo's cat called?", "adversarial_answer": "Tom",
             "evidence": ["D1:1"], "category": 5},
            {"question": "Lost?", "answer": "x", "evidence": ["D9:9"], "category": 4},
        ],
        "observation": {"ignored": True},
    }
    s.update(over)
    return s


def write(tmp_path: Path, data: Any) -> Path:
    p = tmp_path / "conv.json"
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def test_reads_the_locomo_layout_and_names_its_categories(reader, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ds = reader.load(write(tmp_path, [sample()]))
    (c,) = ds.conversations
    assert (c.sample_id, c.speaker_a, c.speaker_b) == ("conv-1", "Ann", "Bo")
    assert [t.dia_id for t in c.turns] == ["D1:1", "D1:2", "D2:1"]  # empty session skipped
    assert c.turn("D2:1").at.isoformat() == "2023-06-21T10:04:00"
    assert c.turn("D1:2").speaker == "Bo" and c.turn("D1:2").session == 1
    cats = {q.text: q.category for q in c.questions}
    # LoCoMo's numbers: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
    # 5 adversarial (no answer in the conversation).
    assert cats == {"Who has a cat?": "single_hop", "Pets and races?": "multi_hop",
                    "When did Bo run?": "temporal", "Would Ann like dogs?": "open_domain",
                    "What is Bo's cat called?": "no_answer"}
    multi = next(q for q in c.questions if q.category == "multi_hop")
    assert multi.evidence == ("D1:1", "D2:1")  # "D1:1; D2:1" split into its two turns
    no = next(q for q in c.questions if q.category == "no_answer")
    assert no.evidence == ()  # adversarial evidence is the other person's turn: no answer
    # A question whose evidence names no turn cannot be scored: set aside, counted.
    assert c.unscorable == 1 and c.unresolved_evidence == 1
    assert ds.turns() == 3 and ds.questions() == 5


@pytest.mark.parametrize(("data", "message"), [
    ("{not json", "not JSON"),
    ({"x": 1}, "missing 'conversation'"),
    ([], "expected a JSON list of samples"),
    ([sample(qa="nope")], "'qa' should be list, not str"),
    ([sample(qa=[{"question": "q", "answer": "a", "evidence": [], "category": 7}])],
     "question 1: category 7 is not one of 1 (multi_hop)"),
    ([sample(conversation={"speaker_a": "A", "speaker_b": "B"})], "no sessions"),
    ([sample(conversation={"speaker_a": "A", "speaker_b": "B", "session_1_date_time":
                           "someday", "session_1": [{"speaker": "A", "dia_id": "D1:1",
                                                     "text": "hi"}]})],
     "session_1_date_time: 'someday' is not a date and time"),
    ([sample(conversation={"speaker_a": "A", "speaker_b": "B", "session_1_date_time":
                           "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A",
                                                                    "text": "hi"}]})],
     "session_1 turn 1: missing 'dia_id'"),
    ([sample(), sample()], "a sample_id is used twice"),
])
def test_a_malformed_file_gets_a_clear_message(reader, tmp_path: Path, data: Any,  # type: ignore[no-untyped-def]
                                               message: str) -> None:
    with pytest.raises(reader.FormatError, match=None) as err:
        reader.load(write(tmp_path, data))
    assert message in str(err.value)


def test_a_missing_or_binary_file_gets_a_clear_message(reader, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(reader.FormatError, match="no such file"):
        reader.load(tmp_path / "absent.json")
    bad = tmp_path / "bin.json"
    bad.write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(reader.FormatError, match="not UTF-8"):
        reader.load(bad)


def test_metric_arithmetic_by_hand() -> None:
    m = _module("conv_metrics")
    ranked = ["D1:4", "D2:2", "D1:4", "D3:1", "D5:5"]  # D1:4 twice: counted once
    f = m.score("multi_hop", ranked, ("D3:1", "D9:9"), returned=5)
    assert f["hit@5"] == 1.0 and f["hit@10"] == 1.0
    assert f["recall@10"] == pytest.approx(0.5)
    assert f["MRR"] == pytest.approx(1 / 3)  # D3:1 is the third distinct turn
    assert f["returned"] == 5.0
    late = [f"D1:{i}" for i in range(1, 8)] + ["D3:1"]
    g = m.score("single_hop", late, ("D3:1",), returned=8)
    assert (g["hit@5"], g["hit@10"], g["MRR"]) == (0.0, 1.0, pytest.approx(1 / 8))
    beyond = [f"D1:{i}" for i in range(1, 11)] + ["D3:1"]
    h = m.score("single_hop", beyond, ("D3:1",), returned=11)
    assert (h["hit@10"], h["recall@10"], h["MRR"]) == (0.0, 0.0, 0.0)
    none = m.score("no_answer", ["D1:1", "D1:2"], (), returned=2)
    assert none == {"returned": 2.0}
    means = m.summarise([{"MRR": 1.0, "hit@5": 1.0}, {"MRR": 0.0, "hit@5": 0.0}])
    assert means == {"MRR": 0.5, "hit@5": 0.5}


def test_the_run_fails_when_the_shuffled_control_is_not_clearly_worse() -> None:
    m = _module("conv_metrics")
    table = {"memdesk floor off": {c: {"hit@10": 0.8} for c in ("single_hop", "temporal")},
             "shuffled": {c: {"hit@10": 0.2} for c in ("single_hop", "temporal")}}
    assert m.control_fails(table) == []
    table["shuffled"]["temporal"] = {"hit@10": 0.7}
    assert m.control_fails(table) == ["temporal: shuffled hit@10 0.70 vs best 0.80"]


def test_the_shipped_set_meets_the_size_and_shape_asked() -> None:
    cs = _module("conv_set")
    reader = _module("conv_locomo")
    ds = reader.load(cs.SET_PATH)
    assert cs.problems(ds) == []
    assert len(ds.conversations) >= 3
    for c in ds.conversations:
        assert len(c.sessions) >= 12 and len(c.turns) >= 300 and len(c.questions) >= 150
        assert {q.category for q in c.questions} == set(reader.ORDER)
        # Varied wording: no handful of sentences repeated to make up the turns.
        texts = [t.text for t in c.turns]
        assert len(set(texts)) >= 0.6 * len(texts)
    # The committed file is exactly what the seeded generator builds.
    assert json.loads(cs.SET_PATH.read_text(encoding="utf-8")) == cs.build()


def test_the_shape_check_catches_a_set_too_small(tmp_path: Path) -> None:
    cs = _module("conv_set")
    reader = _module("conv_locomo")
    data = cs.build()[:2]
    data[0]["qa"] = [q for q in data[0]["qa"] if q["category"] != 3][:140]
    data[1]["conversation"] = {k: v for k, v in data[1]["conversation"].items()
                               if not k.startswith(("session_13", "session_14"))}
    found = "\n".join(cs.problems(reader.load(write(tmp_path, data))))
    assert "2 conversations (at least 3)" in found
    assert "conv-maya-tomas: 140 questions (at least 150)" in found
    assert "conv-maya-tomas: 0 open_domain questions" in found
    assert "conv-priya-olu: 12 sessions" not in found  # 12 is enough
    assert "conv-priya-olu:" in found and "turns (at least 300)" in found


def test_temporal_answers_are_the_dates_the_relative_phrases_make() -> None:
    import random
    from datetime import datetime, timedelta

    cs = _module("conv_set")
    said = datetime(2026, 5, 6, 14, 30)  # a Wednesday
    seen: dict[str, str] = {}
    for seed in range(300):
        phrase, answer = cs.relative(random.Random(seed), said)
        seen[phrase] = answer
    assert seen["yesterday"] == "5 May 2026"
    assert seen["this morning"] == "6 May 2026"
    assert seen["three days ago"] == "3 May 2026"
    assert seen["a fortnight ago"] == "22 April 2026"
    assert seen["last Saturday"] == "2 May 2026"
    assert seen["last Wednesday"] == "29 April 2026"  # said on a Wednesday: a week back
    assert seen["last weekend"] == "the weekend of 2 May 2026"
    assert seen["last month"] == "April 2026"
    assert seen["last week"] == "the week before 6 May 2026"
    for phrase, answer in seen.items():
        if phrase.startswith("last ") and phrase[5:] in cs.WEEKDAYS:
            d = datetime.strptime(answer, "%d %B %Y")
            assert d.strftime("%A") == phrase[5:] and timedelta(0) < said - d <= timedelta(8)


@pytest.mark.parametrize(("args", "message"), [
    (["--file", "{missing}"], "cannot read the conversations: "),
    (["--file", "{bad}"], "cannot read the conversations: "),
    (["--limit-conversations", "0"], "--limit-conversations must be at least 1"),
])
def test_the_runner_refuses_bad_input_with_a_message(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch, capsys, args: list[str], message: str) -> None:
    run = _module("bench_conversations")
    bad = write(tmp_path, [sample(qa=[{"question": "q", "category": 9}])])
    argv = [a.format(missing=tmp_path / "absent.json", bad=bad) for a in args]
    monkeypatch.setattr(sys, "argv", ["bench_conversations.py", *argv])
    assert run.main() == 2
    out = capsys.readouterr().out
    assert message in out and "Traceback" not in out
