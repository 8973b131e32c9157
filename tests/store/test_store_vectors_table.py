"""core/store/vectors.py on a minimal in-memory pair of tables (memories, memory_vectors).

Only the columns the module's SQL names exist (seq, id; seq, vector), so each test is
milliseconds; more than 500 rows are used where the functions work in chunks of 500.
"""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, select

from memdesk.core.store import vectors
from memdesk.core.store.models import Memory, MemoryVector

MT, VT = Memory.__table__.name, MemoryVector.__table__.name


@pytest.fixture()
def conn():
    eng = create_engine("sqlite://")
    with eng.connect() as c:
        c.exec_driver_sql(f"CREATE TABLE {MT}(seq INTEGER PRIMARY KEY, id TEXT)")
        c.exec_driver_sql(f"CREATE TABLE {VT}(seq INTEGER PRIMARY KEY, vector BLOB)")
        c.exec_driver_sql(
            f"INSERT INTO {MT}(seq, id) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
            "SELECT i + 1 FROM n WHERE i < 1200) SELECT i, 'm' || i FROM n")
        yield c
    eng.dispose()


def _stored(conn) -> dict[int, bytes]:  # type: ignore[no-untyped-def]
    return dict(conn.exec_driver_sql(f"SELECT seq, vector FROM {VT} ORDER BY seq").all())


def test_no_vector_size_when_empty(conn) -> None:  # type: ignore[no-untyped-def]
    assert vectors.any_vector_size(conn) is None


def test_write_and_replace_vectors(conn) -> None:  # type: ignore[no-untyped-def]
    vectors.write_vectors_in(conn, [(1, b"aaaa"), (2, b"bbbb")])
    assert _stored(conn) == {1: b"aaaa", 2: b"bbbb"}
    assert vectors.any_vector_size(conn) == 4
    vectors.write_vectors_in(conn, [(2, b"cccccccc"), (3, b"dddddddd")])
    assert _stored(conn) == {1: b"aaaa", 2: b"cccccccc", 3: b"dddddddd"}
    vectors.write_vectors_in(conn, [])
    assert len(_stored(conn)) == 3


def test_add_vector(conn) -> None:  # type: ignore[no-untyped-def]
    vectors.add_vector_in(conn, 7, b"xy")
    assert _stored(conn) == {7: b"xy"}


def test_write_by_id_over_many_rows(conn) -> None:  # type: ignore[no-untyped-def]
    items = [(f"m{i}", bytes([i % 256])) for i in range(1, 1201)]
    vectors.write_vectors_by_id_in(conn, items)
    stored = _stored(conn)
    assert len(stored) == 1200
    assert stored[1] == b"\x01" and stored[700] == bytes([700 % 256]) and \
        stored[1200] == bytes([1200 % 256])
    vectors.write_vectors_by_id_in(conn, [("m5", b"new")])
    assert _stored(conn)[5] == b"new"
    vectors.write_vectors_by_id_in(conn, [])
    assert len(_stored(conn)) == 1200


def test_clear_vectors_counts_across_chunks(conn) -> None:  # type: ignore[no-untyped-def]
    vectors.write_vectors_in(conn, [(s, b"v") for s in range(1, 1201)])
    assert vectors.clear_vectors_in(conn, list(range(1, 1101))) == 1100
    assert sorted(_stored(conn)) == list(range(1101, 1201))
    assert vectors.clear_vectors_in(conn, [1, 2, 1150]) == 1
    assert vectors.clear_vectors_in(conn, []) == 0
    assert vectors.clear_vectors_in(conn, [1, 2]) == 0  # already gone: nothing counted
    # Chunks 1-500 and 501-1000 find nothing; 1001-1200 holds 1101..1200 less 1150: 99.
    assert vectors.clear_vectors_in(conn, list(range(1, 1201))) == 99
    assert _stored(conn) == {}


def test_clear_one_by_id_and_all(conn) -> None:  # type: ignore[no-untyped-def]
    vectors.write_vectors_in(conn, [(1, b"a"), (2, b"b"), (3, b"c")])
    assert vectors.clear_vector_of_id_in(conn, "m2") == 1
    assert vectors.clear_vector_of_id_in(conn, "m2") == 0
    assert vectors.clear_vector_of_id_in(conn, "nope") == 0
    assert _stored(conn) == {1: b"a", 3: b"c"}
    assert vectors.clear_all_vectors_in(conn) == 2
    assert _stored(conn) == {}
    assert vectors.clear_all_vectors_in(conn) == 0


def test_row_columns_and_has_vector(conn) -> None:  # type: ignore[no-untyped-def]
    vectors.write_vectors_in(conn, [(2, b"bb")])
    m = Memory.__table__.c
    cols = vectors.record_columns(["id", "embedding", "seq"])
    rows = conn.execute(select(*cols).where(m.seq <= 3).order_by(m.seq)).all()
    assert [tuple(r) for r in rows] == [("m1", None, 1), ("m2", b"bb", 2), ("m3", None, 3)]
    assert list(rows[0]._mapping) == ["id", "embedding", "seq"]
    with_vec = conn.execute(select(m.seq).where(vectors.has_vector())).scalars().all()
    assert with_vec == [2]
