"""core/store/check.py: which check each level runs, the exact problems it reports, limits.

Every store here is a small raw SQLite file built in the test (no MemoryStore), so each
test takes milliseconds.  Damage is planted with SQLite's own tools:

* an index whose stored definition no longer matches its entries (``writable_schema``):
  ``integrity_check`` compares every index with its table and reports one row per
  missing entry, ``quick_check`` does not compare them and says "ok";
* child rows pointing at missing parents (``foreign_key_check`` only);
* an FTS5 table with its ``_docsize`` shadow rows deleted (integrity_check and FTS5's own
  check each report it, in their own words).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.core.store import check
from memdesk.core.store.check import (
    MAX_PROBLEMS,
    CheckReport,
    check_connection,
    check_file,
    open_check,
)
from memdesk.core.store.db import connect_raw

BAD_INDEX_ROWS = 30  # more than MAX_PROBLEMS, so the cap shows
ORPHANS = 25  # more than MAX_PROBLEMS


def _writable(path: Path):  # type: ignore[no-untyped-def]
    """A raw connection with one open transaction: one sync per file, not per row."""
    c = connect_raw(path, read_only=False)
    c.execute("PRAGMA synchronous = OFF")
    c.execute("BEGIN")
    return c


def _bad_index_db(path: Path) -> Path:
    """Rows 1..BAD_INDEX_ROWS; index ``i`` claims to be on column ``a`` but holds ``b``."""
    c = _writable(path)
    c.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
    c.execute("CREATE INDEX i ON t(b)")
    c.executemany("INSERT INTO t(b) VALUES (?)", [(f"v{n}",) for n in range(BAD_INDEX_ROWS)])
    c.execute("PRAGMA writable_schema = ON")
    c.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX i ON t(a)' WHERE name = 'i'")
    c.execute("COMMIT")
    c.close()
    return path


def _orphan_db(path: Path, orphans: int = ORPHANS) -> Path:
    """A healthy file whose table ``ch`` has ``orphans`` rows with no parent in ``p``."""
    c = _writable(path)
    c.execute("CREATE TABLE p(id INTEGER PRIMARY KEY)")
    c.execute("CREATE TABLE ch(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id))")
    c.executemany("INSERT INTO ch(pid) VALUES (?)", [(n,) for n in range(orphans)])
    c.execute("COMMIT")
    c.close()
    return path


def _fts_db(path: Path, *, damage: bool) -> Path:
    """A file with one FTS5 table ``ft``; ``damage`` deletes its docsize shadow rows."""
    c = _writable(path)
    c.execute("CREATE VIRTUAL TABLE ft USING fts5(x)")
    c.executemany("INSERT INTO ft VALUES (?)", [(f"hello world {n}",) for n in range(50)])
    if damage:
        c.execute("DELETE FROM ft_docsize")
    c.execute("COMMIT")
    c.close()
    return path


def _big_db(path: Path) -> Path:
    """Enough rows that integrity_check runs far more than 2000 VM steps."""
    c = _writable(path)
    c.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
    c.execute("CREATE INDEX i ON t(b)")
    c.executemany("INSERT INTO t(b) VALUES (?)", [(f"value {n}",) for n in range(3000)])
    c.execute("COMMIT")
    c.close()
    return path


def _missing(rows: range) -> tuple[str, ...]:
    return tuple(f"row {n} missing from index i" for n in rows)


# --- CheckReport ------------------------------------------------------------------


def test_report_without_problems_is_ok_and_names_its_level() -> None:
    r = CheckReport("integrity")
    assert (r.ok, r.damaged, r.complete) == (True, False, True)
    assert r.summary() == "no damage found (integrity check)"


def test_report_cut_short_says_so() -> None:
    r = CheckReport("quick", (), complete=False)
    assert r.ok
    assert r.summary() == "no damage found in the part checked (quick check cut short)"


def test_report_with_one_problem() -> None:
    r = CheckReport("full", ("bad page",))
    assert (r.ok, r.damaged) == (False, True)
    assert r.summary() == "the store is damaged: bad page"


def test_report_shows_five_problems_without_a_tail() -> None:
    r = CheckReport("full", ("p1", "p2", "p3", "p4", "p5"))
    assert r.summary() == "the store is damaged: p1; p2; p3; p4; p5"


def test_report_shows_first_five_and_counts_the_rest() -> None:
    r = CheckReport("full", tuple(f"p{n}" for n in range(1, 8)))
    assert r.summary() == "the store is damaged: p1; p2; p3; p4; p5 (and 2 more)"
    six = CheckReport("full", tuple(f"p{n}" for n in range(1, 7)))
    assert six.summary() == "the store is damaged: p1; p2; p3; p4; p5 (and 1 more)"


def test_damage_wins_over_cut_short() -> None:
    r = CheckReport("quick", ("x",), complete=False)
    assert r.summary() == "the store is damaged: x"


# --- levels -----------------------------------------------------------------------


def test_quick_level_does_not_compare_indexes(tmp_path: Path) -> None:
    r = check_file(_bad_index_db(tmp_path / "s.db"), level="quick")
    assert r == CheckReport("quick", (), True, r.seconds)
    assert r.seconds >= 0


def test_integrity_level_reports_missing_index_rows_capped(tmp_path: Path) -> None:
    r = check_file(_bad_index_db(tmp_path / "s.db"), level="integrity")
    assert r.level == "integrity"
    assert r.complete is True
    assert len(r.problems) == MAX_PROBLEMS == 20
    assert r.problems == _missing(range(1, 21))


def test_full_level_runs_integrity_check_too(tmp_path: Path) -> None:
    r = check_file(_bad_index_db(tmp_path / "s.db"))
    assert r.level == "full"
    assert r.problems == _missing(range(1, 21))


def test_integrity_level_skips_foreign_keys(tmp_path: Path) -> None:
    r = check_file(_orphan_db(tmp_path / "s.db"), level="integrity")
    assert r.problems == ()


def test_full_level_reports_broken_foreign_keys_capped(tmp_path: Path) -> None:
    r = check_file(_orphan_db(tmp_path / "s.db"), level="full")
    # foreign_key_check's row: table, rowid, parent table, foreign key index.
    assert r.problems == tuple(f"foreign key broken: ch {n} p 0" for n in range(1, 21))


def test_full_level_reports_a_single_broken_foreign_key(tmp_path: Path) -> None:
    r = check_file(_orphan_db(tmp_path / "s.db", orphans=1), level="full")
    assert r.problems == ("foreign key broken: ch 1 p 0",)
    assert r.summary() == "the store is damaged: foreign key broken: ch 1 p 0"


def test_full_check_of_healthy_fts_file_read_only_finds_nothing(tmp_path: Path) -> None:
    # check_file's connection is read-only: FTS5's check cannot run there and is skipped.
    path = _fts_db(tmp_path / "s.db", damage=False)
    r = check_file(path, level="full")
    assert r.problems == ()
    assert r.summary() == "no damage found (full check)"


def test_full_check_on_writable_connection_runs_fts_check(tmp_path: Path) -> None:
    path = _fts_db(tmp_path / "s.db", damage=True)
    conn = connect_raw(path, read_only=False)
    try:
        r = check_connection(conn, level="full")
        # SQLite's integrity_check reads FTS5 tables too; FTS5's own check follows it.
        assert r.problems == (
            "malformed inverted index for FTS5 table main.ft",
            "full-text index ft: database disk image is malformed",
        )
        # The check wrote nothing and left no transaction open.
        assert conn.in_transaction is False
        assert conn.execute("SELECT count(*) FROM ft_docsize").fetchone() == (0,)
    finally:
        conn.close()


def test_fts_check_on_healthy_writable_connection(tmp_path: Path) -> None:
    path = _fts_db(tmp_path / "s.db", damage=False)
    conn = connect_raw(path, read_only=False)
    try:
        assert check_connection(conn, level="full").problems == ()
        assert conn.in_transaction is False
    finally:
        conn.close()


def test_integrity_level_does_not_run_fts_check(tmp_path: Path) -> None:
    path = _fts_db(tmp_path / "s.db", damage=True)
    conn = connect_raw(path, read_only=False)
    try:
        assert check_connection(conn, level="integrity").problems == (
            "malformed inverted index for FTS5 table main.ft",
        )
    finally:
        conn.close()


# --- files that are not stores ------------------------------------------------------


def test_missing_file_cannot_be_opened(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "s.db"
    r = check_file(path, level="quick")
    assert r == CheckReport("quick", ("cannot open: unable to open database file",))
    assert not path.exists()


def test_missing_file_default_level_is_full(tmp_path: Path) -> None:
    r = check_file(tmp_path / "nowhere" / "s.db")
    assert r.level == "full"
    assert r.problems == ("cannot open: unable to open database file",)


def test_foreign_file_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"x" * 4096)
    r = check_file(path, level="integrity")
    assert r.level == "integrity"
    assert r.problems == ("file is not a database",)
    assert r.complete is True
    assert path.read_bytes() == b"x" * 4096


# --- the time budget ----------------------------------------------------------------


def test_spent_budget_cuts_the_check_short(tmp_path: Path) -> None:
    r = check_file(_big_db(tmp_path / "s.db"), level="integrity", budget_s=-1.0)
    assert r.problems == ()
    assert r.complete is False
    assert r.summary() == "no damage found in the part checked (integrity check cut short)"


def test_cut_short_full_check_skips_the_later_checks(tmp_path: Path) -> None:
    path = _orphan_db(tmp_path / "s.db", orphans=3000)
    r = check_file(path, level="full", budget_s=-1.0)
    assert (r.problems, r.complete) == ((), False)


def test_ample_budget_completes(tmp_path: Path) -> None:
    r = check_file(_big_db(tmp_path / "s.db"), level="integrity", budget_s=3600.0)
    assert (r.problems, r.complete) == ((), True)


def test_connection_usable_after_an_interrupted_check(tmp_path: Path) -> None:
    conn = connect_raw(_big_db(tmp_path / "s.db"))
    try:
        r = check_connection(conn, level="quick", budget_s=-1.0)
        assert r.complete is False
        # The progress handler is gone: a long query is no longer interrupted.
        assert conn.execute("SELECT count(*) FROM t AS x, t AS y WHERE x.a <= 40").fetchone() \
            == (40 * 3000,)
    finally:
        conn.close()


# --- open_check: the level by file size ---------------------------------------------

MIB48 = 48 * 1024 * 1024


@pytest.mark.parametrize(
    ("size", "level"),
    [(MIB48 - 1, "integrity"), (MIB48, "integrity"), (MIB48 + 1, "quick")],
)
def test_open_check_level_by_size(tmp_path: Path, size: int, level: str) -> None:
    # Stores up to 48 MiB get the integrity check on open, larger ones the quick one.
    db = _bad_index_db(tmp_path / "s.db")
    sized = tmp_path / "sized"  # a sparse file standing in for the store's size
    with sized.open("wb") as f:
        f.truncate(size)
    conn = connect_raw(db)
    try:
        r = open_check(conn, sized)
    finally:
        conn.close()
    assert r.level == level
    assert r.complete is True
    assert r.problems == (() if level == "quick" else _missing(range(1, 21)))


def test_open_check_passes_its_budget(tmp_path: Path) -> None:
    db = _big_db(tmp_path / "s.db")
    conn = connect_raw(db)
    try:
        r = open_check(conn, db, budget_s=-1.0)
    finally:
        conn.close()
    assert (r.level, r.complete) == ("integrity", False)



# --- what the earlier tests let through ------------------------------------------------


def test_seconds_is_the_time_the_check_took(tmp_path: Path) -> None:
    path = _big_db(tmp_path / "s.db")
    conn = connect_raw(path)
    try:
        start = check.time.monotonic()
        r = check_connection(conn, level="integrity")
        outer = check.time.monotonic() - start
    finally:
        conn.close()
    assert 0 < r.seconds <= outer  # measured inside the call, so within its span


def test_check_file_never_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    r = check_file(path, level="quick")
    assert r.problems == ("cannot open: unable to open database file",)
    assert not path.exists()


def test_check_file_is_read_only_so_fts_check_is_skipped(tmp_path: Path) -> None:
    path = _fts_db(tmp_path / "s.db", damage=True)
    before = path.read_bytes()
    r = check_file(path, level="full")
    # Only integrity_check's own finding: FTS5's check needs a writable connection.
    assert r.problems == ("malformed inverted index for FTS5 table main.ft",)
    assert path.read_bytes() == before


def _fake_fts_db(path: Path) -> Path:
    """A real FTS5 table, then a plain table whose SQL merely mentions "USING fts5"."""
    c = _writable(path)
    c.execute("CREATE VIRTUAL TABLE ft USING fts5(x)")
    c.execute("CREATE TABLE fake(x DEFAULT 'USING fts5')")
    c.execute("COMMIT")
    c.close()
    return path


def test_other_fts_check_errors_are_reported_after_read_only_skips(tmp_path: Path) -> None:
    path = _fake_fts_db(tmp_path / "s.db")
    r = check_file(path, level="full")
    assert r.problems == ("full-text index fake: table fake has no column named fake",)


def test_other_fts_check_errors_on_a_writable_connection(tmp_path: Path) -> None:
    conn = connect_raw(_fake_fts_db(tmp_path / "s.db"), read_only=False)
    try:
        assert check_connection(conn, level="full").problems == (
            "full-text index fake: table fake has no column named fake",)
        assert conn.in_transaction is False
    finally:
        conn.close()


def test_locked_file_is_a_problem_not_a_cut_short_check(tmp_path: Path) -> None:
    path = _big_db(tmp_path / "s.db")
    holder = connect_raw(path, read_only=False)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("INSERT INTO t(b) VALUES ('x')")  # takes the exclusive lock and keeps it
    conn = connect_raw(path, timeout=0)
    try:
        r = check_connection(conn, level="quick", budget_s=3600.0)
    finally:
        conn.close()
        holder.close()
    assert (r.problems, r.complete) == (("database is locked",), True)
