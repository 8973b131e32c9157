"""Imports from Mem0's get_all export and from a Recall SQLite file (the write-phase design's
table)."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.migrations.versions.m0001_recall_schema import RECALL_SCHEMA
from memdesk.core.transfer.formats import Format, open_source, sniff
from memdesk.core.transfer.importer import Importer, TransferError
from memdesk.core.transfer.mem0 import Mem0Source
from memdesk.core.transfer.recall import NO_VECTORS, RecallSource
from tests.helpers.raw_sql import sqlite_file

NOW = datetime(2026, 11, 23, 12, 0)


def mem0_item(i: str, **kw) -> dict:
    item = {"id": f"00000000-0000-4000-8000-00000000000{i}", "memory": f"memory {i}",
            "hash": "d41d8cd98f00b204e9800998ecf8427e", "metadata": None,
            "created_at": "2024-07-20T01:02:03.123456-07:00",
            "updated_at": "2024-07-21T01:02:03-07:00", "user_id": "alice"}
    item.update(kw)
    return item


def run_mem0(store: MemoryStore, doc: object, **kw):
    src = Mem0Source(io.BytesIO(json.dumps(doc).encode()), now=NOW, **kw)
    return Importer(store).run(src)


def test_mem0_get_all_mapping(store: MemoryStore) -> None:
    doc = {"results": [
        mem0_item("1", run_id="chat-42", metadata={"category": "food", "importance": 0.9,
                                                     "source": "slack"}),
        mem0_item("2", user_id=None, agent_id="travel-bot",
                  metadata={"type": "preference", "confidence": "high"}),
        mem0_item("3", categories=["work", "tech"], expiration_date="2025-01-01"),
        mem0_item("4", expiration_date="2099-01-01", role="user", actor_id="a1"),
    ], "relations": []}
    rep = run_mem0(store, doc)
    assert rep.imported == 4 and not rep.bad
    one = store.get("00000000-0000-4000-8000-000000000001")
    assert (one.text, one.user_id, one.type, one.topic) == ("memory 1", "alice", "fact", "food")
    assert one.source_session == "chat-42" and one.importance == 0.9
    assert one.created_at == datetime(2024, 7, 20, 8, 2, 3, 123456)  # -07:00 -> UTC
    two = store.get("00000000-0000-4000-8000-000000000002")
    assert (two.user_id, two.type, two.confidence) == ("travel-bot", "preference", 0.8)
    # no layer in Mem0: routed from the type like every insert (the memory-types decision record)
    assert (one.layer, two.layer) == ("semantic", "procedural")
    three = store.get("00000000-0000-4000-8000-000000000003")
    assert three.topic == "work" and three.valid_until == datetime(2025, 1, 1)
    four = store.get("00000000-0000-4000-8000-000000000004")
    assert four.valid_until is None and four.is_active
    assert rep.dropped == {
        "updated_at": 4, "metadata.source": 1, "metadata.confidence (not a number in [0, 1])": 1,
        "categories (after the first)": 1, "expiration_date (in the future)": 1,
        "role": 1, "actor_id": 1,
    }
    events = store.group_events(rep.group_id)
    assert len(events) == 4 and {e.actor for e in events} == {"import"}


def test_mem0_bad_items_and_default_user(store: MemoryStore) -> None:
    doc = [mem0_item("1", user_id=None), mem0_item("2", memory=""), "nope",
           mem0_item("4", created_at="last week"), mem0_item("5", metadata=[1]),
           mem0_item("6", memory="x" * 100_001), mem0_item("7")]
    rep = run_mem0(store, doc)
    reasons = {b.number: b.reason for b in rep.bad}
    assert sorted(reasons) == [1, 2, 3, 4, 5, 6] and rep.imported == 1
    assert "user_id" in reasons[1] and "text" in reasons[2] and "object" in reasons[3]
    assert "created_at" in reasons[4] and "metadata" in reasons[5] and "100000" in reasons[6]
    rep = Importer(store).run(Mem0Source(io.BytesIO(json.dumps(doc[:1]).encode()),
                                         default_user="ops"))
    assert rep.imported == 1
    assert store.get("00000000-0000-4000-8000-000000000001").user_id == "ops"


@pytest.mark.parametrize("content, reason", [
    (b"\xff\xfe\x00", "not UTF-8"),
    (b'{"results": [1, 2', "not JSON"),
    (b'{"memories": []}', '"results"'),
    (b'{"results": [NaN]}', "NaN"),
    (b"[" * 100_000, "not a Mem0 export"),
])
def test_mem0_file_that_is_not_an_export(content: bytes, reason: str) -> None:
    with pytest.raises(TransferError, match=reason):
        Mem0Source(io.BytesIO(content), label="x.json")


def make_recall(path: Path) -> None:
    """A Recall store exactly as the write-phase design writes it (no alembic_version)."""
    conn = sqlite3.connect(path)
    conn.execute(RECALL_SCHEMA.replace("BYTEA_OR_BLOB", "BLOB"))
    v = (np.ones(384) / np.sqrt(384)).astype("<f4")
    rows = [
        ("m1", "alice", "User prefers unittest", "preference", "tech", 0.7, 0.9, "s1",
         "2025-01-02T03:04:05.000001", None, 3, 0.5, "m2", v.tobytes(), "user",
         "test_framework", "unittest", "2025-02-01T00:00:00"),
        ("m2", "alice", "No, pytest", "fact", "tech", 0.9, 0.9, "s2",
         "2025-02-01 00:00:00", "2025-03-01T10:00:00", 0, None, None, None, "user",
         "test_framework", "pytest", None),
        ("m3", "bob", "Bad score", "fact", None, "high", 0.5, None, "2025-01-01T00:00:00",
         None, 0, None, None, None, None, None, None, None),
        ("m4", "bob", "Odd vector", "decision", None, None, None, None, "2025-01-01T00:00:00",
         None, None, None, None, b"\x00" * 12, None, None, None, None),
        ("m5", "bob", "Dangling link", "fact", None, 0.5, 0.5, None, "2025-01-01T00:00:00",
         None, 0, None, "gone", None, None, None, None, None),
        ("m6", "bob", "Unknown type", "opinion", None, 0.5, 0.5, None, "2025-01-01T00:00:00",
         None, 0, None, None, None, None, None, None, None),
    ]
    conn.executemany(f"INSERT INTO memories VALUES ({', '.join('?' * 18)})", rows)
    # invalid UTF-8 in a TEXT column (SQLite stores what it is given)
    conn.execute("INSERT INTO memories (id, user_id, text, type, created_at) VALUES "
                 "('m7', 'bob', CAST(x'ff41' AS TEXT), 'fact', '2025-01-01T00:00:00')")
    conn.execute("INSERT INTO memories (id, user_id, text, type, created_at) VALUES "
                 "(8, 'bob', 'integer id', 'fact', '2025-01-01T00:00:00')")
    conn.commit()
    conn.close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_recall_file_is_imported_read_only(store: MemoryStore, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    src_path = tmp_path / "in" / "recall.db"
    make_recall(src_path)
    digest, files = sha256(src_path), sorted(p.name for p in src_path.parent.iterdir())
    src_path.chmod(0o444)  # a file the operator may not write must still import
    source = RecallSource(src_path)
    rep = Importer(store).run(source)
    source.close()
    assert sha256(src_path) == digest
    assert sorted(p.name for p in src_path.parent.iterdir()) == files  # no journal, no -wal
    assert rep.unit == "row" and rep.imported == 4
    reasons = {b.number: str(b) for b in rep.bad}
    assert sorted(reasons) == [3, 5, 6, 7]
    assert reasons[3] == "3 (id m3): importance: must be a number in [0, 1], got 'high'"
    assert reasons[7].startswith("7 (id m7): text: is not valid UTF-8")
    assert "gone" in reasons[5] and "opinion" in reasons[6] and "UTF-8" in reasons[7]
    m1, m2 = store.get("m1"), store.get("m2")
    assert m1.superseded_by == "m2" and m1.valid_until == datetime(2025, 2, 1)
    assert m1.created_at == datetime(2025, 1, 2, 3, 4, 5, 1) and m1.access_count == 3
    assert m1.embedding is None and m1.decay_score == 0.5  # Recall's model is unknown
    assert m2.created_at == datetime(2025, 2, 1) and m2.last_accessed == datetime(2025, 3, 1, 10)
    m4 = store.get("m4")  # NULL scores take Recall's own defaults
    assert (m4.importance, m4.confidence, m4.access_count, m4.embedding) == (0.5, 0.8, 0, None)
    assert store.get("8").text == "integer id"
    assert rep.dropped == {NO_VECTORS: 2}


def test_wal_mode_recall_file_leaves_nothing_behind(store: MemoryStore, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    path = folder / "recall.db"
    make_recall(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()  # a clean close checkpoints and removes -wal and -shm
    before, digest = sorted(p.name for p in folder.iterdir()), sha256(path)
    source = RecallSource(path)
    rep = Importer(store).run(source)
    source.close()
    assert rep.imported == 4
    assert sorted(p.name for p in folder.iterdir()) == before == ["recall.db"]
    assert sha256(path) == digest


def test_wal_mode_recall_file_with_a_running_writer_reads_its_wal(
        store: MemoryStore, tmp_path: Path) -> None:
    """A -wal file with content (its writer still open) holds committed rows the main
    file lacks: they are read too, not skipped as an immutable read would."""
    path = tmp_path / "recall.db"
    make_recall(path)
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # the new row stays in the -wal file
    writer.execute("INSERT INTO memories (id, user_id, text, type, created_at) VALUES "
                   "('m9', 'bob', 'only in the WAL', 'fact', '2025-01-01T00:00:00')")
    writer.commit()
    try:
        assert Path(str(path) + "-wal").stat().st_size > 0
        source = RecallSource(path)
        rep = Importer(store).run(source)
        source.close()
    finally:
        writer.close()
    assert rep.imported == 5  # the 4 good rows of make_recall, and m9
    assert store.get("m9").text == "only in the WAL"


def test_recall_source_refuses_other_files(tmp_path: Path) -> None:
    other = sqlite_file(tmp_path / "other.db", "CREATE TABLE notes (id TEXT)")
    with pytest.raises(TransferError, match="no memories table"):
        RecallSource(other)
    text = tmp_path / "t.db"
    text.write_text("hello")
    with pytest.raises(TransferError, match="not a SQLite database"):
        RecallSource(text)
    half = tmp_path / "half.db"
    half.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    with pytest.raises(TransferError, match="Cannot read"):
        RecallSource(half)


def test_memdesk_store_as_recall_source(demo_store: MemoryStore, tmp_path: Path) -> None:
    """A memdesk store is a superset of Recall's table: layer and deleted_at come along."""
    demo_store.checkpoint()
    path = Path(demo_store.engine.url.database)
    target = MemoryStore.open(tmp_path / "t.db")
    with open_source(path) as source:
        assert isinstance(source, RecallSource)
        rep = Importer(target).run(source)
    assert rep.imported == demo_store.counts()["total"] and not rep.bad
    assert target.counts() == demo_store.counts()
    target.close()


def test_sniff_formats() -> None:
    assert sniff(b"SQLite format 3\x00rest") is Format.RECALL
    assert sniff(b'{\n  "results": [') is Format.MEM0
    assert sniff(b"\xef\xbb\xbf[{") is Format.MEM0
    assert sniff(b'{"id":"x","results":1}\n') is Format.JSONL
    assert sniff(b"") is Format.JSONL


def test_open_source_errors(tmp_path: Path) -> None:
    with pytest.raises(TransferError, match="no file"), open_source(tmp_path / "missing"):
        pass
    with pytest.raises(TransferError, match="folder"), open_source(tmp_path):
        pass
    sqlite_bytes = io.BufferedReader(io.BytesIO(b"SQLite format 3\x00" + b"\x00" * 100))
    with pytest.raises(TransferError, match="standard input"), open_source(
            "-", stdin=sqlite_bytes):
        pass
