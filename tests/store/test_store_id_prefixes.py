"""core/store/prefixes.py: the id-prefix rules of its docstring, both in SQL and in Python.

The SQL side runs on an in-memory SQLite table holding just the id columns, so each
test is milliseconds.  Expected values follow the rules: the full id always wins; a
prefix needs MIN_PREFIX (4) characters; one match resolves; several are ambiguous and
the message names SHOWN (3) of them; capitals are lowered only when that finds a match.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Column, MetaData, Table, Text, create_engine

from memdesk.core.errors import NotFoundError, ValidationError
from memdesk.core.store import prefixes
from memdesk.core.store.models import ErasedMemory, Memory, MemoryEvent
from memdesk.core.store.prefixes import AmbiguousIdError, resolve_among, resolve_id

_META = MetaData()
IDS = Table("ids", _META, Column("id", Text))


@pytest.fixture()
def conn():
    eng = create_engine("sqlite://")
    with eng.connect() as c:
        c.exec_driver_sql("CREATE TABLE ids(id TEXT)")
        c.exec_driver_sql(f"CREATE TABLE {Memory.__table__.name}(id TEXT)")
        c.exec_driver_sql(f"CREATE TABLE {MemoryEvent.__table__.name}(group_id TEXT)")
        # A missing memory's message asks whether it was erased (core/erasure/).
        ErasedMemory.__table__.create(c)
        yield c
    eng.dispose()


def _put(conn, *ids: str) -> None:  # type: ignore[no-untyped-def]
    conn.execute(IDS.insert(), [{"id": i} for i in ids])


def _both(conn, ids: list[str], ref, what: str = "memory") -> str:  # type: ignore[no-untyped-def]
    """Resolve ``ref`` in SQL and in Python; the two must agree."""
    _put(conn, *ids)
    a = resolve_id(conn, IDS.c.id, ref, what)
    b = resolve_among(ids, ref, what)
    assert a == b
    return a


def _both_raise(conn, ids: list[str], ref, what: str = "memory") -> tuple:  # type: ignore[no-untyped-def]
    _put(conn, *ids)
    with pytest.raises(Exception) as sql_err:
        resolve_id(conn, IDS.c.id, ref, what)
    with pytest.raises(Exception) as py_err:
        resolve_among(ids, ref, what)
    return sql_err.value, py_err.value


def test_full_id_wins_over_longer_ids_it_prefixes(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["abcd", "abcdef", "abcdxy"], "abcd") == "abcd"


def test_short_full_id_resolves(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["ab", "abz1"], "ab") == "ab"


def test_surrounding_blanks_are_ignored(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["abcdef", "zzzzzz"], "  abcd \n") == "abcdef"
    assert resolve_among(["abcd"], " abcd ", "memory") == "abcd"


def test_unique_prefix_of_four_resolves(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["abcdef", "abczzz", "bbcdef"], "abcd") == "abcdef"


def test_prefix_of_three_is_not_enough(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcdef"], "abc")
    for e in (a, b):
        assert type(e) is NotFoundError
        assert str(e) == "No memory 'abc'"


def test_no_match_is_not_found(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcdef"], "abce", what="sweep")
    assert str(a) == str(b) == "No sweep 'abce'"


def test_none_and_blank_refs_are_not_found(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcdef"], None)
    assert str(a) == str(b) == "No memory ''"


def test_two_matches_are_ambiguous(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcd2", "abcd1", "zzzz"], "abcd", what="sweep")
    for e in (a, b):
        assert isinstance(e, AmbiguousIdError) and isinstance(e, ValidationError)
        assert e.field == "sweep"
        assert e.matches == ["abcd1", "abcd2"]
        assert str(e) == ("ambiguous sweep id 'abcd': 2 ids start with it "
                          "(abcd1, abcd2); type more of it")


def test_three_matches_are_all_named(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcd3", "abcd1", "abcd2"], "abcd")
    assert str(a) == str(b) == ("ambiguous memory id 'abcd': 3 ids start with it "
                                "(abcd1, abcd2, abcd3); type more of it")


def test_more_than_three_matches_name_three(conn) -> None:  # type: ignore[no-untyped-def]
    ids = ["abcd5", "abcd4", "abcd3", "abcd2", "abcd1"]
    a, b = _both_raise(conn, ids, "abcd")
    expected = ("ambiguous memory id 'abcd': more than 3 ids start with it "
                "(abcd1, abcd2, abcd3, …); type more of it")
    assert str(a) == str(b) == expected
    assert a.matches == ["abcd1", "abcd2", "abcd3", "abcd4"]  # SQL stops at SHOWN + 1
    assert b.matches == ["abcd1", "abcd2", "abcd3", "abcd4", "abcd5"]


def test_duplicate_rows_count_once(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["abcdef", "abcdef"], "abcd") == "abcdef"


def test_capitals_are_lowered_when_that_finds_the_id(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["abcdef12"], "ABCD") == "abcdef12"


def test_capitals_as_typed_win_when_they_match(conn) -> None:  # type: ignore[no-untyped-def]
    assert _both(conn, ["ABCD99", "abcd12"], "ABCD") == "ABCD99"


def test_lowercase_ref_is_not_raised_to_capitals(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["ABCDEF"], "abcd")
    assert str(a) == str(b) == "No memory 'abcd'"


def test_ambiguity_under_the_lowered_spelling_names_the_typed_ref(conn) -> None:  # type: ignore[no-untyped-def]
    a, b = _both_raise(conn, ["abcd1", "abcd2"], "ABCD")
    assert str(a) == str(b) == ("ambiguous memory id 'ABCD': 2 ids start with it "
                                "(abcd1, abcd2); type more of it")


def test_prefix_ending_in_the_last_code_point(conn) -> None:  # type: ignore[no-untyped-def]
    top = "abc\U0010ffff"
    assert _both(conn, [top + "x", "abcd"], top) == top + "x"


def test_neighbours_of_the_prefix_range_do_not_match(conn) -> None:  # type: ignore[no-untyped-def]
    # "abce" is the range's exclusive upper bound; "abcc…" sorts just below it.
    a, b = _both_raise(conn, ["abce", "abcczz", "abc"], "abcd")
    assert str(a) == str(b) == "No memory 'abcd'"


def test_only_ids_that_start_with_the_prefix_match(conn) -> None:  # type: ignore[no-untyped-def]
    # Around "abcd": ids that contain it later, or sort just below or above its range.
    assert _both(conn, ["abcde", "abce", "abcc", "xabcd", "abc"], "abcd") == "abcde"


def test_memory_id_and_action_group_id_use_their_tables(conn) -> None:  # type: ignore[no-untyped-def]
    conn.exec_driver_sql(f"INSERT INTO {Memory.__table__.name} VALUES ('m1234567')")
    conn.exec_driver_sql(f"INSERT INTO {MemoryEvent.__table__.name} VALUES ('g7654321')")
    assert prefixes.memory_id(conn, "m123") == "m1234567"
    assert prefixes.action_group_id(conn, "g765") == "g7654321"
    with pytest.raises(NotFoundError) as e1:
        prefixes.memory_id(conn, "g765")
    assert str(e1.value) == "No memory 'g765'"
    with pytest.raises(NotFoundError) as e2:
        prefixes.action_group_id(conn, "m123")
    assert str(e2.value) == "No action group 'm123'"
