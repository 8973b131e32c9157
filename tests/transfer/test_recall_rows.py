"""Recall SQLite rows onto memdesk fields (core/transfer/recall.py) and choosing a source
(core/transfer/formats.py), with small files made for each test.

Rules from the modules' docstrings and docs/import-export.md: every value SQLite hands
back is checked (bad UTF-8 or binary costs that row, with the reason); NULL in a column
with a Recall default means the default; integer keys are ids; vectors are not carried
over (counted); columns memdesk has no place for are counted when they hold a value.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.transfer.formats import Format, open_source
from memdesk.core.transfer.importer import TransferError
from memdesk.core.transfer.jsonl import JsonlSource
from memdesk.core.transfer.mem0 import Mem0Source
from memdesk.core.transfer.recall import (
    BadText,
    RecallSource,
    is_sqlite,
)

COLS = "id, user_id, text, type, created_at"


def make(path: Path, cols: str = COLS, rows: list[tuple] = (), extra: str = "") -> Path:  # type: ignore[assignment, type-arg]
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE memories ({cols}{extra})")
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        conn.executemany(f"INSERT INTO memories VALUES ({marks})", rows)
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def src(tmp_path: Path) -> RecallSource:
    s = RecallSource(make(tmp_path / "r.db"))
    yield s  # type: ignore[misc]
    s.close()


def test_a_sqlite_file_is_told_by_its_magic(tmp_path: Path) -> None:
    assert is_sqlite(make(tmp_path / "r.db"))
    (tmp_path / "t").write_bytes(b"SQLite format 3")  # one byte short of the magic
    assert not is_sqlite(tmp_path / "t")
    assert not is_sqlite(tmp_path / "missing")
    assert not is_sqlite(tmp_path)  # a folder cannot be read: not a database


# -- one row -------------------------------------------------------------------------
def test_a_row_maps_column_for_column(src: RecallSource) -> None:
    row = {"id": "m1", "user_id": "u", "text": "t", "type": "fact", "topic": None,
           "importance": 0.7, "access_count": 3, "created_at": "2025-01-01T00:00:00"}
    assert src.map_row(row) == row
    assert dict(src.dropped) == {}


def test_null_takes_recalls_default_only_where_it_has_one(src: RecallSource) -> None:
    out = src.map_row({"id": "m", "importance": None, "confidence": None,
                       "access_count": None, "topic": None, "decay_score": None})
    assert out == {"id": "m", "topic": None, "decay_score": None}


def test_integer_keys_are_ids_other_integers_stay(src: RecallSource) -> None:
    assert src.map_row({"id": 8, "user_id": 9, "superseded_by": 10, "access_count": 4}) == {
        "id": "8", "user_id": "9", "superseded_by": "10", "access_count": 4}


def test_vectors_are_counted_not_carried(src: RecallSource) -> None:
    assert src.map_row({"id": "a", "embedding": b"\0" * 8}) == {"id": "a"}
    assert src.map_row({"id": "b", "embedding": None}) == {"id": "b", "embedding": None}
    assert dict(src.dropped) == {
        "embedding (Recall does not record its model; `memdesk embed` computes vectors)": 1}


@pytest.mark.parametrize(("row", "message"), [
    ({"text": BadText(b"ok\xff")}, "text: is not valid UTF-8 text (bad byte at 3)"),
    ({"topic": BadText(b"\xc3")}, "topic: is not valid UTF-8 text (bad byte at 1)"),
    ({"text": b"blob"}, "text: holds binary data"),
])
def test_text_that_is_not_text_costs_the_row(src: RecallSource, row: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValidationError) as info:
        src.map_row({"id": "a", **row})
    assert str(info.value) == message


# -- the file ------------------------------------------------------------------------
def test_rows_in_order_with_their_numbers_refs_and_dropped_columns(tmp_path: Path) -> None:
    path = make(tmp_path / "r.db", rows=[
        ("a", "u", "one", "fact", "2025-01-01", "x", None),
        (7, "u", b"\x00blob", "fact", "2025-01-01", None, 1),
        (b"\x01", "u", b"\x02", "fact", "2025-01-01", "y", None),
    ], extra=', "we""ird", other')
    source = RecallSource(path, label="recall file")
    try:
        assert (source.total, source.label, source.unit, source.kind) == (
            3, "recall file", "row", "Recall")
        assert source.columns == ["id", "user_id", "text", "type", "created_at"]
        assert source.extra == ['we"ird', "other"]
        cands = list(source)
    finally:
        source.close()
    assert [(c.number, c.position, c.error, c.ref) for c in cands] == [
        (1, 1, None, None),
        (2, 2, "text: holds binary data", "7"),
        (3, 3, "id: holds binary data", None),
    ]
    assert cands[0].values == {"id": "a", "user_id": "u", "text": "one", "type": "fact",
                               "created_at": "2025-01-01"}
    assert dict(source.dropped) == {'we"ird': 2, "other": 1}


def test_store_bookkeeping_columns_are_neither_read_nor_counted(tmp_path: Path) -> None:
    path = make(tmp_path / "r.db", cols=COLS + ", seq, version",
                rows=[("a", "u", "t", "fact", "2025-01-01", 5, 2)])
    source = RecallSource(path)
    try:
        assert source.extra == [] and source.label == str(path)
        (cand,) = list(source)
    finally:
        source.close()
    assert "seq" not in cand.values and dict(source.dropped) == {}  # type: ignore[operator]


def test_files_that_are_not_recall_stores_are_named(tmp_path: Path) -> None:
    path = make(tmp_path / "r.db", cols="id, user_id, text")
    with pytest.raises(TransferError) as info:
        RecallSource(path, label="x.db")
    assert str(info.value) == "x.db: its memories table lacks type, created_at; not a Recall store."
    other = tmp_path / "o.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (id)").connection.close()
    with pytest.raises(TransferError) as info:
        RecallSource(other)
    assert str(info.value) == f"{other} has no memories table: not a Recall store."
    (tmp_path / "t.db").write_bytes(b"hello")
    with pytest.raises(TransferError) as info:
        RecallSource(tmp_path / "t.db", label="t")
    assert str(info.value) == "t is not a SQLite database."
    (tmp_path / "h.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
    with pytest.raises(TransferError) as info:
        RecallSource(tmp_path / "h.db", label="h")
    assert str(info.value) == "Cannot read h: file is not a database."


# -- choosing a source ---------------------------------------------------------------
def test_standard_input_is_sniffed_and_labelled() -> None:
    mem0 = io.BufferedReader(io.BytesIO(b'[{"memory": "m", "user_id": "u"}]'))
    with open_source("-", stdin=mem0, default_user="d") as s:
        assert isinstance(s, Mem0Source)
        assert (s.label, s.default_user, s.total) == ("standard input", "d", 1)
    jsonl = io.BufferedReader(io.BytesIO(b'{"id": "a"}\n'))
    with open_source("-", stdin=jsonl) as s:
        assert isinstance(s, JsonlSource) and s.label == "standard input"
    no_peek = io.BytesIO(b"[]")  # cannot look ahead: JSON Lines unless told
    with open_source("-", stdin=no_peek) as s:
        assert isinstance(s, JsonlSource)
    with open_source("-", "mem0", stdin=io.BytesIO(b"[]")) as s:
        assert isinstance(s, Mem0Source)
    with pytest.raises(TransferError) as info, open_source("-", Format.RECALL,
                                                            stdin=io.BytesIO(b"")):
        pass
    assert str(info.value) == ("A Recall SQLite file cannot be read from standard input; "
                               "give its path instead of -.")


def test_a_file_is_opened_as_its_format(tmp_path: Path) -> None:
    j = tmp_path / "m.jsonl"
    j.write_bytes(b'{"id": "a"}\n\n')
    with open_source(j) as s:
        assert isinstance(s, JsonlSource) and (s.label, s.total) == (str(j), 13)
    listing = tmp_path / "list.txt"
    listing.write_bytes(b"[]")
    with open_source(str(listing), "jsonl") as s:  # told, not sniffed
        assert isinstance(s, JsonlSource)
    m = tmp_path / "m.json"
    m.write_bytes(b'{"results": []}')
    with open_source(m, default_user="ops") as s:
        assert isinstance(s, Mem0Source) and (s.label, s.default_user) == (str(m), "ops")
    r = make(tmp_path / "r.db")
    with open_source(r) as s:
        assert isinstance(s, RecallSource) and s.label == str(r)
    with pytest.raises(sqlite3.ProgrammingError):
        s.conn.execute("SELECT 1")  # closed when the block ends
    with pytest.raises(TransferError) as info, open_source(tmp_path / "none"):
        pass
    assert str(info.value) == f"There is no file {tmp_path / 'none'}."
    with pytest.raises(TransferError) as info, open_source(tmp_path):
        pass
    assert str(info.value) == f"{tmp_path} is a folder, not a file to import."
