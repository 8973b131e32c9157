"""Vectors in their own table (migration 0012): the move, and who may see them.

The migration test builds a store at revision 0011 (vectors inside the memories row),
upgrades it, and checks every vector arrived byte for byte under its memory's seq,
with the column gone, full-text search intact and the file compacted.  The other
tests hold on both backends: soft-deleted and superseded memories keep their vector
(undo brings them back) but retrieval's snapshot never serves it, a hard delete takes
the vector with it, and a text edit drops it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import delete, func, inspect, select, text

from memdesk.core.read.snapshot import build, store_version
from memdesk.core.store.db import make_engine
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.models import Memory, MemoryVector
from memdesk.core.store.query import MemoryFilter
from tests.helpers.migrations import upgrade_to
from tests.helpers.stores import close_store

DIM = 4


def vec(i: int) -> bytes:
    v = np.zeros(DIM, dtype="<f4")
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = i / 100.0
    return v.tobytes()


def store_at_0011(url: str, rows: int) -> dict[int, bytes]:
    """A memdesk store at revision 0011 with vectors in the row; returns seq → vector."""
    engine = make_engine(url)
    want: dict[int, bytes] = {}
    with engine.begin() as conn:
        upgrade_to(conn, "0011")
        insert = text(
            "INSERT INTO memories (id, user_id, text, type, importance, confidence, "
            "created_at, access_count, embedding, version) VALUES "
            "(:id, :u, :t, 'fact', 0.5, 0.8, :at, 0, :e, 1)")
        for i in range(rows):
            blob = None if i % 5 == 4 else vec(i) * 96  # 384 floats, as a real vector
            conn.execute(insert, {"id": f"m{i}", "u": f"u{i % 3}", "e": blob,
                                  "t": f"memory {i} about sailing boats",
                                  "at": datetime(2026, 1, i % 28 + 1, 10)})
        for seq, blob in conn.execute(text("SELECT seq, embedding FROM memories")):
            if blob is not None:
                want[int(seq)] = bytes(blob)
    engine.dispose()
    return want


def test_0012_moves_every_vector_byte_for_byte(old_store) -> None:  # type: ignore[no-untyped-def]
    store_path, url = old_store
    want = store_at_0011(url, rows=300)
    store = MemoryStore.open(store_path, allow_upgrade=True)
    assert store.report is not None and store.report.upgraded_from == "0011"
    with store.read() as conn:
        got = {s: bytes(v) for s, v in conn.execute(
            select(MemoryVector.seq, MemoryVector.vector)).all()}
        cols = {c["name"] for c in inspect(conn).get_columns("memories")}
        seqs = dict(conn.execute(select(Memory.id, Memory.seq)).all())
    assert got == want and len(got) == 240  # every fifth row had none
    assert "embedding" not in cols
    assert seqs["m7"] in want and want[seqs["m7"]] == vec(7) * 96  # seq unchanged
    assert store.get("m7").embedding == vec(7) * 96 and store.get("m4").embedding is None
    assert store.count(MemoryFilter(text="sailing")) == 300  # full text finds every row
    store.add(user_id="u0", text="a new memory about sailing", type="fact")
    assert store.count(MemoryFilter(text="sailing")) == 301  # and keeps up with inserts
    close_store(store)
    if isinstance(store_path, Path):
        # Compacted: without the VACUUM the memories table keeps its old pages
        # (SQLite does not merge pages when rows shrink): ~150 pages for 300 rows.
        conn = sqlite3.connect(store_path)
        pages = conn.execute(
            "SELECT count(*) FROM dbstat WHERE name = 'memories'").fetchone()[0]
        conn.close()
        assert pages < 40


@pytest.fixture
def vstore(store_path: Path | str):  # type: ignore[no-untyped-def]
    s = MemoryStore.open(store_path)
    yield s
    close_store(s)


def _snapshot_ids(store: MemoryStore, user: str) -> tuple[list[str], set[str]]:
    with store.read() as conn:
        snap = build(conn, user, store_version(conn), DIM)
    with_vec = {snap.ids[i] for i in snap.vec_rows}
    assert snap.vectors.shape == (len(with_vec), DIM)
    return snap.ids, with_vec


def test_deleted_and_superseded_vectors_stay_out_of_retrieval(vstore: MemoryStore) -> None:
    ids = vstore.add_many([{"user_id": "u", "text": f"fact {i}", "type": "fact",
                            "embedding": vec(i)} for i in range(4)])
    assert _snapshot_ids(vstore, "u")[1] == set(ids)
    deleted = vstore.soft_delete(ids[0])
    vstore.supersede(ids[1], ids[2])
    seen, with_vec = _snapshot_ids(vstore, "u")
    assert set(seen) == with_vec == {ids[2], ids[3]}
    # the vector is kept, so undoing the delete gives retrieval the memory back whole
    assert vstore.get(ids[0]).embedding == vec(0)
    vstore.undo(deleted.event_ids[0])
    assert _snapshot_ids(vstore, "u")[1] == {ids[0], ids[2], ids[3]}


def test_a_hard_delete_takes_the_vector_and_a_text_edit_drops_it(vstore: MemoryStore) -> None:
    a = vstore.add(user_id="u", text="one", type="fact", embedding=vec(1))
    b = vstore.add(user_id="u", text="two", type="fact", embedding=vec(2))

    def vectors() -> int:
        with vstore.read() as conn:
            return int(conn.execute(select(func.count()).select_from(MemoryVector)).scalar_one())

    assert vectors() == 2
    with vstore.write() as conn:  # no API purges; the foreign key still must cascade
        conn.execute(delete(Memory).where(Memory.id == a.id))
    assert vectors() == 1
    vstore.update(b.id, importance=0.9)
    assert vstore.get(b.id).embedding == vec(2)
    vstore.update(b.id, text="two, edited")
    assert vstore.get(b.id).embedding is None and vectors() == 0


def test_add_many_puts_each_vector_on_its_own_row(vstore: MemoryStore) -> None:
    rows = [{"user_id": "u", "text": f"t{i}", "type": "note",
             **({"embedding": vec(i)} if i % 2 else {})} for i in range(1200)]
    ids = vstore.add_many(rows)
    got = {r.id: r.embedding for r in vstore.get_many(ids)}
    assert got == {i: (vec(n) if n % 2 else None) for n, i in enumerate(ids)}
