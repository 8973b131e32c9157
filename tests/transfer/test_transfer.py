"""Export / import in memdesk's JSON Lines: exact round trip, bad lines, existing ids,
supersede links, audit and group undo, cancel."""

from __future__ import annotations

import base64
import io
import json
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter, Status
from memdesk.core.store.records import Changed
from memdesk.core.taxonomy import COUNT_MAX
from memdesk.core.transfer.importer import (
    GIVE_UP_AFTER,
    STORE_LOCAL,
    Importer,
    TransferError,
)
from memdesk.core.transfer.jsonl import FIELDS, JsonlSource, export_jsonl
from memdesk.core.write.embed import check_space_in, recorded_space


def export_bytes(store: MemoryStore, **kw) -> bytes:
    buf = io.BytesIO()
    export_jsonl(store, buf, **kw)
    return buf.getvalue()


def import_bytes(store: MemoryStore, data: bytes, **kw):
    return Importer(store, **kw).run(JsonlSource(io.BytesIO(data), total=len(data)))


def vec(seed: int) -> bytes:
    v = np.random.default_rng(seed).normal(size=384).astype("<f4")
    return (v / np.linalg.norm(v)).astype("<f4").tobytes()


def records(store: MemoryStore) -> dict[str, dict]:
    rows = store.page(MemoryFilter(statuses=tuple(Status)), limit=None, order_by="seq")
    # seq and version are one store's bookkeeping (row number, edit counter)
    return {r.id: {k: v for k, v in asdict(r).items() if k not in STORE_LOCAL} for r in rows}


@pytest.fixture
def rich(store: MemoryStore) -> MemoryStore:
    """A store exercising every field and every status, with forward and backward links."""
    with store.write() as conn:  # vectors are all-MiniLM-L6-v2's (what backfill records)
        check_space_in(conn)
    odd = "Ünïcödé ✓ 🧠 עברית e\u0301 line\u2028sep\nnewline \"quoted\" \\ back\ttab"
    a = store.add(user_id="alice", text="User prefers unittest", type="preference",
                  topic="tech", importance=0.1 + 0.2, confidence=5e-324, source_session="s1",
                  entity="user", attribute="test_framework", value="unittest",
                  layer="semantic", embedding=vec(1),
                  created_at=datetime(2025, 1, 2, 3, 4, 5, 678901))
    b = store.add(user_id="alice", text="No, I use pytest not unittest", type="correction",
                  importance=0.9, confidence=1.0, entity="user", attribute="test_framework",
                  value="pytest", created_at=datetime(2025, 1, 3))
    store.supersede(a.id, b.id)  # forward link: a's replacement has the larger seq
    c = store.add(user_id="bob", text=odd, type="fact", importance=0.0, confidence=0.0,
                  access_count=COUNT_MAX, decay_score=0.123456789012345678, layer="episodic",
                  last_accessed=datetime(2026, 2, 1, 0, 0, 0, 1))
    d = store.add(user_id="bob", text="Short-lived plan", type="decision",
                  valid_until=datetime(2026, 3, 1, 12, 0))
    e = store.add(user_id="carol", text="Deleted one", type="note", embedding=vec(2))
    store.soft_delete(e.id)
    f = store.add(user_id="carol", text="Newer statement", type="fact")
    g = store.add(user_id="carol", text="Older replaced by an earlier row", type="fact",
                  superseded_by=f.id, valid_until=datetime(2026, 1, 1))  # backward link
    # a chain of three where both links point forward
    h1 = store.add(user_id="dave", text="v1", type="fact")
    h2 = store.add(user_id="dave", text="v2", type="fact")
    h3 = store.add(user_id="dave", text="v3", type="fact")
    store.supersede(h1.id, h2.id)
    store.supersede(h2.id, h3.id)
    assert {c.id, d.id, g.id}
    return store


def test_round_trip_is_exact_and_byte_identical(rich: MemoryStore, tmp_path: Path) -> None:
    first = export_bytes(rich, with_embeddings=True)
    target = MemoryStore.open(tmp_path / "copy.db")
    report = import_bytes(target, first)
    assert (report.imported, report.bad, report.skipped) == (10, [], 0)
    assert records(target) == records(rich)  # every field, embeddings and times included
    assert export_bytes(target, with_embeddings=True) == first
    target.close()


def test_every_line_has_every_field_in_order(rich: MemoryStore) -> None:
    lines = export_bytes(rich, with_embeddings=True).decode("utf-8").split("\n")
    assert lines[-1] == ""  # newline-terminated
    objs = [json.loads(x) for x in lines[:-1]]
    at = FIELDS.index("embedding") + 1
    assert all(list(o) == [*FIELDS[:at], "embedding_model", *FIELDS[at:]] for o in objs)
    without = [json.loads(x) for x in export_bytes(rich).decode().splitlines()]  # str!
    assert all("embedding" not in o for o in without)
    by_text = {o["text"]: o for o in objs}
    pref = by_text["User prefers unittest"]
    assert pref["created_at"] == "2025-01-02T03:04:05.678901Z"
    assert base64.b64decode(pref["embedding"]) == vec(1)
    assert pref["embedding_model"] == "all-MiniLM-L6-v2"
    assert by_text["v1"]["embedding"] is None and by_text["v1"]["embedding_model"] is None
    assert pref["importance"] == 0.1 + 0.2 and pref["confidence"] == 5e-324
    # U+2028 and friends are escaped, so even str.splitlines() sees one memory per line
    assert "\u2028" not in "".join(lines) and any("line\u2028sep" in o["text"] for o in objs)
    # a replaced memory comes after its replacement, so importers meet targets first
    order = [o["text"] for o in objs]
    assert order.index("No, I use pytest not unittest") < order.index("User prefers unittest")
    assert order.index("v3") < order.index("v2") < order.index("v1")


def test_export_filters_and_dangling_links(rich: MemoryStore) -> None:
    buf = io.BytesIO()
    rep = export_jsonl(rich, buf, MemoryFilter(user_ids=("alice",)))
    assert rep.written == 2 and rep.dangling == 0
    buf = io.BytesIO()
    rep = export_jsonl(rich, buf, MemoryFilter(statuses=(Status.SUPERSEDED,)))
    # a, g, h1, h2 are superseded; h2 is also a target, so only three links leave the set
    assert rep.written == 4 and rep.dangling == 3
    deleted = export_bytes(rich, flt=MemoryFilter(statuses=(Status.DELETED,)))
    assert [json.loads(x)["text"] for x in deleted.splitlines()] == ["Deleted one"]
    # by default an export is a full copy: deleted rows too
    assert len(export_bytes(rich).splitlines()) == rich.counts()["total"]


def test_vectors_only_from_the_stores_model(rich: MemoryStore, tmp_path: Path) -> None:
    objs = [json.loads(x) for x in export_bytes(rich, with_embeddings=True).splitlines()]
    with_vec = [dict(o, superseded_by=None) for o in objs if o["embedding"]]
    assert len(with_vec) == 2
    # into an empty store: the store takes the file's model as its own
    fresh = MemoryStore.open(tmp_path / "fresh.db")
    rep = import_bytes(fresh, b"".join(json.dumps(o).encode() + b"\n" for o in with_vec))
    assert rep.imported == 2 and not rep.dropped
    with fresh.read() as conn:
        assert recorded_space(conn).model == "all-MiniLM-L6-v2"
    fresh.close()
    # a vector of another model, or of no recorded model, is left out; the memory is not
    other = dict(with_vec[0], id="o1", embedding_model="other-model")
    unknown = dict(with_vec[1], id="o2")
    del unknown["embedding_model"]
    rep = import_bytes(rich, b"".join(json.dumps(o).encode() + b"\n" for o in (other, unknown)))
    assert rep.imported == 2 and not rep.bad
    assert rich.get("o1").embedding is None and rich.get("o2").embedding is None
    assert sorted(rep.dropped) == [
        "embedding (its model is not recorded; `memdesk embed` can fill vectors)",
        "embedding (made by other-model, 384 dims; this store's vectors come from "
        "another model)"]


def test_bad_lines_are_reported_by_number_and_not_written(store: MemoryStore) -> None:
    good = {"id": "g1", "user_id": "u", "text": "fine", "type": "fact"}
    lines = [
        json.dumps(good),                                                   # 1
        json.dumps({**good, "id": "b2", "importance": 1.5}),                # 2 out of range
        "{not json",                                                        # 3
        "",                                                                 # 4 blank
        json.dumps({**good, "id": "b5", "importance": "0.5"}),              # 5 string number
        '{"id":"b6","user_id":"u","text":"x","type":"fact","importance":NaN}',  # 6
        "[1, 2]",                                                           # 7
        json.dumps({**good, "id": "b8", "type": "opinion"}),                # 8 unknown type
        json.dumps({**good, "id": "b9", "text": "\ud800"}),                 # 9 lone surrogate
        json.dumps({**good, "id": "b10", "color": "red"}),                  # 10 unknown key
        json.dumps({**good, "id": "b11", "created_at": "yesterday"}),       # 11
        json.dumps({**good, "id": "b12", "embedding": "!!!"}),              # 12
        json.dumps({**good, "id": "b13", "access_count": 10**30}),          # 13
        json.dumps({**good, "id": "b14", "text": "x" * 100_001}),           # 14 too long
        json.dumps({**good, "id": "b15", "user_id": None}),                 # 15
        json.dumps({**good, "id": "b16", "superseded_by": "b16"}),          # 16 self link
        json.dumps({**good, "id": "b17", "access_count": True}),            # 17
        json.dumps({**good, "id": "b18", "embedding": base64.b64encode(
            np.array([np.nan] * 4, "<f4").tobytes()).decode()}),            # 18
        json.dumps({**good, "id": "g19", "text": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u202e odd"}),      # 19 fine
        json.dumps({**good, "id": "b20", "layer": "working"}),              # 20 never stored
    ]
    data = "\n".join(lines).encode() + b"\n\xff\xfebad bytes\n" + b"{" * 100_000 + b"\n"
    rep = import_bytes(store, data)
    assert rep.imported == 2
    by_line = {b.number: b.reason for b in rep.bad}
    assert sorted(by_line) == [2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 21,
                               22]
    assert "importance" in by_line[2] and "[0, 1]" in by_line[2]
    assert "not JSON" in by_line[3]
    assert "must be a number, got a string" in by_line[5]
    assert "NaN" in by_line[6]
    assert "JSON object" in by_line[7]
    assert "opinion" in by_line[8]
    assert "surrogate" in by_line[9]
    assert "color" in by_line[10]
    assert "ISO-8601" in by_line[11]
    assert "base64" in by_line[12]
    assert "access_count" in by_line[13]
    assert "100000" in by_line[14]
    assert "user_id" in by_line[15]
    assert "itself" in by_line[16]
    assert "access_count" in by_line[17]
    assert "NaN" in by_line[18]
    assert "working memory" in by_line[20]
    assert "UTF-8" in by_line[21]
    assert "JSON" in by_line[22]  # absurd nesting: a reason, not a RecursionError
    assert sorted(records(store)) == ["g1", "g19"]
    assert store.get("g1").layer == "semantic"  # an empty layer is routed from the type


def test_many_bad_lines_are_counted_and_reasons_stay_short(store: MemoryStore,
                                                           monkeypatch) -> None:
    import memdesk.core.transfer.importer as imp

    monkeypatch.setattr(imp, "MAX_LISTED_BAD", 10)
    good = json.dumps({"id": "ok", "user_id": "u", "text": "fine", "type": "fact"})
    huge_type = json.dumps({"user_id": "u", "text": "t", "type": "x" * 200_000})
    data = "\n".join([good] + [huge_type] * 40).encode()
    rep = import_bytes(store, data)
    assert rep.imported == 1 and rep.bad_count == 40 and len(rep.bad) == 10
    assert rep.unlisted_bad == 30 and "bad 40" in rep.summary()
    assert all(len(b.reason) <= imp.MAX_REASON_CHARS for b in rep.bad)
    assert rep.bad[0].reason.startswith("type: unknown type 'xxx")


def test_over_long_line_is_skipped_not_read(store: MemoryStore, monkeypatch) -> None:
    import memdesk.core.transfer.jsonl as J

    monkeypatch.setattr(J, "MAX_LINE_BYTES", 1000)
    ok = json.dumps({"id": "ok", "user_id": "u", "text": "after", "type": "fact"})
    data = b'{"text": "' + b"y" * 5000 + b'"}\n' + ok.encode() + b"\n"
    rep = import_bytes(store, data)
    assert [b.number for b in rep.bad] == [1] and "not read" in rep.bad[0].reason
    assert rep.imported == 1 and store.get("ok").text == "after"


def test_not_this_format_stops_early(store: MemoryStore) -> None:
    data = b"\n".join(b"col_a,col_b,%d" % i for i in range(GIVE_UP_AFTER + 500))
    with pytest.raises(TransferError, match="does not look like memories"):
        import_bytes(store, data)
    assert store.counts()["total"] == 0


def test_existing_ids_skip_or_update(rich: MemoryStore, tmp_path: Path) -> None:
    data = export_bytes(rich, with_embeddings=True)
    target = MemoryStore.open(tmp_path / "t.db")
    import_bytes(target, data)
    before = records(target)
    rep = import_bytes(target, data)
    assert (rep.imported, rep.skipped, rep.updated, rep.group_id) == (0, 10, 0, None)
    assert rep.changes.kinds == Changed.NOTHING and not rep.changes.undoable
    # edit two lines of the file and re-import with update
    objs = [json.loads(x) for x in data.splitlines()]
    for o in objs:
        if o["text"] == "Newer statement":
            o["importance"] = 0.77
            o["text"] = "Newer statement, edited"
        if o["text"] == "User prefers unittest":
            o["topic"] = "work"
    edited = b"".join(json.dumps(o).encode() + b"\n" for o in objs)
    rep = import_bytes(target, edited, on_existing="skip")
    assert rep.skipped == 10 and records(target) == before
    rep = import_bytes(target, edited, on_existing="update")
    assert (rep.updated, rep.unchanged, rep.imported) == (2, 8, 0)
    assert rep.changes.memories and rep.changes.group_id == rep.group_id
    after = records(target)
    changed = {k for k in after if after[k] != before[k]}
    assert {after[k]["text"] for k in changed} == {"Newer statement, edited",
                                                 "User prefers unittest"}
    edited_row = next(after[k] for k in changed if after[k]["importance"] == 0.77)
    assert edited_row["text"] == "Newer statement, edited"
    # the update is audited and undone as one group
    assert all(e.actor == "import" for e in target.group_events(rep.group_id))
    target.undo_group(rep.group_id)
    assert records(target) == before
    target.close()


def test_update_with_only_some_fields_keeps_the_rest(store: MemoryStore) -> None:
    rec = store.add(user_id="u", text="keep me", type="fact", importance=0.3, topic="t",
                    embedding=vec(3))
    rep = import_bytes(store, json.dumps({"id": rec.id, "user_id": "u", "text": "keep me",
                                          "type": "fact", "importance": 0.6}).encode(),
                       on_existing="update")
    now = store.get(rec.id)
    assert rep.updated == 1 and now.importance == 0.6 and now.topic == "t"
    assert now.embedding == vec(3)  # same text: the vector still describes it
    import_bytes(store, json.dumps({"id": rec.id, "user_id": "u", "text": "new words",
                                    "type": "fact"}).encode(), on_existing="update")
    assert store.get(rec.id).embedding is None  # a vector of the old text would mislead


def test_update_that_would_make_a_cycle_is_a_bad_line(store: MemoryStore) -> None:
    a = store.add(user_id="u", text="a", type="fact")
    b = store.add(user_id="u", text="b", type="fact")
    store.supersede(a.id, b.id)
    line = json.dumps({"id": b.id, "user_id": "u", "text": "b", "type": "fact",
                       "superseded_by": a.id})
    rep = import_bytes(store, line.encode(), on_existing="update")
    assert rep.updated == 0 and "cycle" in rep.bad[0].reason
    assert store.get(b.id).superseded_by is None


def test_forward_links_wait_for_their_target(store: MemoryStore) -> None:
    def row(i: str, to: str | None = None) -> str:
        return json.dumps({"id": i, "user_id": "u", "text": i, "type": "fact",
                           "superseded_by": to})

    lines = [row("old", "mid"), row("mid", "new"), row("orphan", "nowhere"), row("new")]
    rep = Importer(store, batch_size=1).run(JsonlSource(io.BytesIO("\n".join(lines).encode())))
    assert rep.imported == 3
    assert [(b.number, "nowhere" in b.reason) for b in rep.bad] == [(3, True)]
    assert store.get("old").superseded_by == "mid" and store.get("mid").superseded_by == "new"
    # written in dependency order: targets first
    assert [r.id for r in store.page(order_by="seq", descending=False)] == ["new", "mid", "old"]


def test_duplicate_id_inside_one_file(store: MemoryStore, tmp_path: Path) -> None:
    a = json.dumps({"id": "d", "user_id": "u", "text": "first", "type": "fact"})
    b = json.dumps({"id": "d", "user_id": "u", "text": "second", "type": "fact"})
    data = f"{a}\n{b}\n".encode()
    rep = import_bytes(store, data)
    assert (rep.imported, rep.skipped) == (1, 1) and store.get("d").text == "first"
    other = MemoryStore.open(tmp_path / "other.db")  # never beside a PostgreSQL "path"
    rep = import_bytes(other, data, on_existing="update")
    assert (rep.imported, rep.updated) == (1, 1) and other.get("d").text == "second"
    other.close()


def test_import_is_audited_and_undone_as_one_group(rich: MemoryStore, tmp_path: Path) -> None:
    data = export_bytes(rich)
    target = MemoryStore.open(tmp_path / "t.db")
    rep = Importer(target, note="import from test", batch_size=3).run(
        JsonlSource(io.BytesIO(data)))
    events = target.group_events(rep.group_id)
    assert {e.actor for e in events} == {"import"}
    assert sorted(e.action for e in events) == ["add"] * 10 + ["delete"]
    assert all(e.note == "import from test" for e in events)
    target.undo_group(rep.group_id)
    counts = target.counts()
    assert counts["deleted"] == counts["total"] == 10


def test_cancel_keeps_what_was_written_and_says_where(store: MemoryStore) -> None:
    lines = [json.dumps({"id": f"m{i}", "user_id": "u", "text": f"t{i}", "type": "fact"})
             for i in range(1, 101)]
    data = "\n".join(lines).encode()
    seen: list[tuple[int, int]] = []
    calls = {"n": 0}

    def cancelled() -> bool:
        calls["n"] += 1
        return calls["n"] > 25

    rep = Importer(store, batch_size=10).run(
        JsonlSource(io.BytesIO(data), total=len(data)),
        progress=lambda d, t: seen.append((d, t)), cancelled=cancelled)
    assert rep.cancelled and rep.stopped_at == 25 and rep.imported == 25
    assert store.count() == 25 and "cancelled after line 25" in rep.summary()
    assert seen and all(t == len(data) for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert rep.group_id is not None


def test_export_cancel_and_progress(rich: MemoryStore) -> None:
    rep = export_jsonl(rich, io.BytesIO(), cancelled=lambda: True)
    assert rep.cancelled and rep.written == 0
    seen: list[tuple[int, int]] = []
    export_jsonl(rich, io.BytesIO(), progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (10, 10)


def test_demo_store_round_trip(demo_store: MemoryStore, tmp_path: Path) -> None:
    first = export_bytes(demo_store)
    target = MemoryStore.open(tmp_path / "copy.db")
    rep = Importer(target, batch_size=700).run(JsonlSource(io.BytesIO(first)))
    assert rep.imported == demo_store.counts()["total"] and not rep.bad
    assert target.counts() == demo_store.counts()
    assert export_bytes(target) == first
    target.close()


def test_access_count_above_the_columns_range_is_a_clear_error(store: MemoryStore) -> None:
    """access_count is a 32-bit INTEGER on PostgreSQL: a larger count is refused by
    validation, naming the field, on both backends (not a driver error mid-import)."""
    from memdesk.core.errors import ValidationError

    with pytest.raises(ValidationError, match="access_count"):
        store.add(user_id="u", text="t", type="note", access_count=COUNT_MAX + 1)
    line = json.dumps({"id": "x1", "user_id": "u", "text": "t", "type": "note",
                       "access_count": COUNT_MAX + 1}).encode() + b"\n"
    rep = import_bytes(store, line)
    assert rep.imported == 0 and store.count() == 0
    assert [b.number for b in rep.bad] == [1] and "at most" in rep.bad[0].reason
